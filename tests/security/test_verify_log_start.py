"""``bezique verify`` and the first entry of a log, over a real port.

Every log the server writes begins with its ``created`` entry (it is what sets the table's
chance construction in the reducer's state). A history that does not begin with it is one no
table wrote; replayed anyway, the reducer's state keeps chance version 0 (deals from the seed
alone), whatever the history's ``chance_version`` says and whatever entropy its joins show.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import AsyncIterator

import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.clients.verify import VerificationError, verify_history
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import highcard_registry, server_config
from tests.security.helpers import tampered


@pytest.fixture
async def client() -> AsyncIterator[AsyncTableClient]:
    server: RunningServer = await start_server(server_config(), highcard_registry())
    async with AsyncTableClient(server.address, retries=0) as connected:
        yield connected
    await server.stop()


async def test_a_history_without_its_created_entry_fails_verify(
        client: AsyncTableClient) -> None:
    """The operator dealt from the seed alone (as a table whose seats sent no entropy is dealt)
    and serves a history that shows seat 0 sending entropy, under chance version 2, with the
    ``created`` entry left out: verify must not replay it as a table from before entropy."""
    table = await client.create_table("highcard", {"players": 2, "hand_size": 2})
    seats = [await client.join(table.table_id, seat=i, entropy=b"") for i in (0, 1)]
    while not (view := await client.view(table.table_id, seats[0].token)).HasField("outcome"):
        mover = seats[view.to_move[0]]
        legal = (await client.view(table.table_id, mover.token)).legal_moves
        await client.submit(mover, legal[0], view.version)
    honest = await client.history(table.table_id)
    assert honest.chance_version == 2
    verify_history(honest)
    forged = tampered(honest)
    assert forged.entries[0].entry_kind == "created"
    del forged.entries[0]
    for version, entry in enumerate(forged.entries, start=1):
        entry.version = version
    joined = next(e for e in forged.entries if e.entry_kind == "joined" and e.seat == 0)
    joined.entropy = secrets.token_bytes(32)
    with pytest.raises(VerificationError, match="created"):
        verify_history(forged)


def test_a_history_that_begins_with_another_entry_fails_verify() -> None:
    """Pure: the first entry is a join."""
    history = pb.GetHistoryResponse(
        table_id="t", variant_id="highcard", variant_version=1, finished=True,
        options={"players": "2"}, revealed_seed=b"s" * 32, chance_version=2,
        seed_commitment=hashlib.sha256(b"s" * 32).hexdigest())
    history.entries.add(version=1, entry_kind="joined", seat=0)
    history.entries.add(version=2, entry_kind="aborted")
    history.outcome.reason = "aborted"
    with pytest.raises(VerificationError, match="created"):
        verify_history(history)
