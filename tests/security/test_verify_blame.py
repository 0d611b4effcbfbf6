"""``bezique verify`` and the seats a table's end blames, over a real port.

A table that ends before any deal (its reveal round timed out, or the operator aborted it in
the round) names in its outcome the seats that withheld their committed entropy; clients show
that outcome and a platform may act on it. The replay knows who owed a reveal, so a history
whose outcome blames another seat must not verify.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import AsyncIterator

import pytest
from google.protobuf import struct_pb2
from google.protobuf.json_format import MessageToDict

from bezique.clients.sdk import AsyncTableClient
from bezique.clients.verify import VerificationError, verify_history
from bezique.service.server import start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import highcard_registry, server_config
from tests.security.helpers import tampered

KEY = "platform-key"


@pytest.fixture
async def client() -> AsyncIterator[AsyncTableClient]:
    server = await start_server(server_config(api_key=KEY, reveal_seconds=0.3),
                                highcard_registry())
    async with AsyncTableClient(server.address, api_key=KEY, retries=0) as connected:
        yield connected
    await server.stop()


async def committed_seat_1(client: AsyncTableClient) -> str:
    """A 2-seat table: seat 0 a bot, seat 1 committed to entropy it will not reveal."""
    table = await client.create_table("highcard", {"players": 2}, bots={0: "random"},
                                      open_seats=True)
    await client.stub.JoinTable(pb.JoinTableRequest(
        table_id=table.table_id, seat=1,
        entropy_commitment=hashlib.sha256(secrets.token_bytes(32)).digest()))
    return table.table_id


def blaming(history: pb.GetHistoryResponse, seats: list[int]) -> pb.GetHistoryResponse:
    forged = tampered(history)
    detail = struct_pb2.Struct()
    detail.update({**dict(forged.outcome.detail.items()), "withheld": seats})
    forged.outcome.detail.CopyFrom(detail)
    return forged


async def test_an_abort_whose_outcome_blames_another_seat_fails_verify(
        client: AsyncTableClient) -> None:
    table_id = await committed_seat_1(client)
    await client.abort_table(table_id)
    history = await client.history(table_id)
    assert MessageToDict(history.outcome.detail)["withheld"] == [1]
    assert verify_history(history).aborted
    with pytest.raises(VerificationError, match="withheld"):
        verify_history(blaming(history, [0]))


async def test_a_timed_out_reveal_whose_outcome_blames_another_seat_fails_verify(
        client: AsyncTableClient) -> None:
    table_id = await committed_seat_1(client)
    for _ in range(200):
        history = await client.history(table_id)
        if history.finished:
            break
        await asyncio.sleep(0.05)
    assert history.outcome.reason == "reveal_timeout"
    assert verify_history(history).withheld == (1,)
    with pytest.raises(VerificationError, match="withheld"):
        verify_history(blaming(history, [0]))
