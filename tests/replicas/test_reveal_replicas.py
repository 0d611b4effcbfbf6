"""Commit-reveal across two replicas on one PostgreSQL: seats joined and revealed on different
replicas start one game both agree on, and a withheld reveal ends the table exactly once,
whichever replica's clock fires first."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import AsyncIterator

import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.clients.verify import verify_history
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import highcard_registry, server_config, until

OPTIONS = {"players": 2, "hand_size": 4}


@pytest.fixture
async def two(postgres_url: str) -> AsyncIterator[tuple[AsyncTableClient, AsyncTableClient]]:
    servers: list[RunningServer] = [
        await start_server(server_config(store=postgres_url, reveal_seconds=5.0),
                           highcard_registry()) for _ in range(2)]
    async with AsyncTableClient(servers[0].address, retries=0) as a, \
            AsyncTableClient(servers[1].address, retries=0) as b:
        yield a, b
    for server in servers:
        await server.stop()


async def test_reveals_on_two_replicas_start_one_game(
        two: tuple[AsyncTableClient, AsyncTableClient]) -> None:
    a, b = two
    table = await a.create_table("highcard", OPTIONS)
    first = await a.join(table.table_id, seat=0)
    second = await b.join(table.table_id, seat=1)  # fills the table; b reveals seat 1 at once
    # a reveals seat 0 once its replica shows the round (it may lag behind b's for a moment)
    view = await until(lambda: a.view(table.table_id, first.token),
                       lambda v: not v.waiting_for_players, "the game to start on a")
    other = await until(lambda: b.view(table.table_id, first.token),
                        lambda v: v.version >= view.version, "b to catch up")
    assert list(other.hand) == list(view.hand) and len(view.hand) == 4
    mine = await b.view(table.table_id, second.token)
    assert not set(c.id for c in mine.hand) & set(c.id for c in view.hand)
    kinds = [e.entry_kind for e in (await b.history(table.table_id)).entries]
    assert kinds == ["created", "joined", "joined", "revealed", "revealed", "started"]
    assert kinds == [e.entry_kind for e in (await a.history(table.table_id)).entries]


async def test_a_withheld_reveal_ends_the_table_once_on_two_replicas(
        two: tuple[AsyncTableClient, AsyncTableClient]) -> None:
    a, b = two
    table = await a.create_table("highcard", OPTIONS)
    honest = await a.join(table.table_id, seat=0)
    secret = secrets.token_bytes(32)
    await b.stub.JoinTable(pb.JoinTableRequest(  # a puppet that never reveals
        table_id=table.table_id, seat=1, entropy_commitment=hashlib.sha256(secret).digest()))
    # the honest seat reveals (its client does, once its replica shows the round)
    await until(lambda: a.view(table.table_id, honest.token),
                lambda v: list(v.awaiting_reveal) == [1], "the honest reveal")
    for client in (a, b):
        ended = await until(lambda c=client: c.view(table.table_id),  # type: ignore[misc]
                            lambda v: v.HasField("outcome"), "the reveal deadline")
        assert ended.outcome.reason == "reveal_timeout"
        assert list(ended.outcome.detail["withheld"]) == [1]
    histories = [await client.history(table.table_id) for client in (a, b)]
    assert histories[0] == histories[1]
    kinds = [e.entry_kind for e in histories[0].entries]
    assert kinds.count("ended") == 1 and "started" not in kinds
    assert verify_history(histories[0]).withheld == (1,)
    assert honest.committed
