"""The command path across two replicas on one PostgreSQL: a replica that lags behind answers
retries and tokens from the store, never shows a change it lost, and its streams resume.

A "deaf" replica is started over its store behind a wrapper, so it gets no LISTEN/NOTIFY: it
stays behind until it reads the store itself, deterministically, as a replica whose
notifications are late would.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import RunningServer, start_server
from bezique.service.store import open_store
from bezique.v1 import table_service_pb2 as pb
from tests.faults import FaultyStore
from tests.helpers import highcard_registry, server_config
from tests.service.helpers import STACK, two_seats


@pytest.fixture
async def live_and_deaf(postgres_url: str) -> AsyncIterator[tuple[RunningServer, RunningServer]]:
    live = await start_server(server_config(store=postgres_url), highcard_registry())
    deaf = await start_server(server_config(store=postgres_url), highcard_registry(),
                              store=FaultyStore(open_store(postgres_url)))  # type: ignore[arg-type]
    yield live, deaf
    await live.stop()
    await deaf.stop()


async def test_a_retry_on_a_lagging_replica_gets_the_first_answer(
        live_and_deaf: tuple[RunningServer, RunningServer]) -> None:
    async with AsyncTableClient(live_and_deaf[0].address, retries=0) as a, \
            AsyncTableClient(live_and_deaf[1].address, retries=0) as b:
        table_id, first, second = await two_seats(a, stacked_shoe=STACK)
        seats = {0: first, 1: second}
        for turn in range(4):
            await b.view(table_id)  # the lagging replica holds the table at this version
            view = await a.view(table_id)
            seat = seats[view.to_move[0]]
            own = await a.view(table_id, seat.token)
            request = pb.SubmitMoveRequest(table_id=table_id, move=own.legal_moves[0],
                                           expected_version=own.version,
                                           request_id=f"retry-{turn}")
            metadata = (("authorization", f"Bearer {seat.token}"),)
            answer = await a.stub.SubmitMove(request, metadata=metadata)
            again = await b.stub.SubmitMove(request, metadata=metadata)
            assert again.duplicate and not answer.duplicate
            assert again.version == answer.version == own.version + 1
            assert list(again.events) == list(answer.events)
        assert [e.entry_kind for e in (await b.history(table_id)).entries].count("move") == 4


async def test_a_token_issued_on_one_replica_works_at_once_on_another(
        live_and_deaf: tuple[RunningServer, RunningServer]) -> None:
    async with AsyncTableClient(live_and_deaf[0].address, retries=0) as a, \
            AsyncTableClient(live_and_deaf[1].address, retries=0) as b:
        for _ in range(5):
            table = await a.create_table("highcard", {"players": 2}, stacked_shoe=STACK)
            await b.view(table.table_id)  # cached on the lagging replica, with no seats
            ann = await a.join(table.table_id, seat=0, name="ann")
            view = await b.view(table.table_id, ann.token)
            assert view.viewer_seat == 0
            bob = await a.join(table.table_id, seat=1, name="bob")
            seat = {0: ann, 1: bob}[(await b.view(table.table_id)).to_move[0]]
            own = await b.view(table.table_id, seat.token)
            await b.submit(seat, own.legal_moves[0], own.version)


async def test_a_lost_compare_and_set_leaves_the_replica_equal_to_the_store(
        live_and_deaf: tuple[RunningServer, RunningServer]) -> None:
    async with AsyncTableClient(live_and_deaf[0].address, retries=0) as a, \
            AsyncTableClient(live_and_deaf[1].address, retries=0) as b:
        table_id, first, second = await two_seats(a, stacked_shoe=STACK)
        seats = {0: first, 1: second}
        view = await b.view(table_id)
        seat = seats[view.to_move[0]]
        stale = await b.view(table_id, seat.token)
        await a.submit(seat, stale.legal_moves[0], stale.version)
        with pytest.raises(grpc.aio.AioRpcError) as lost:
            await b.submit(seat, stale.legal_moves[-1], stale.version, "another-move")
        assert lost.value.code() == grpc.StatusCode.ABORTED
        for token in (first.token, second.token, None):
            assert await b.view(table_id, token) == await a.view(table_id, token)


async def test_a_spectator_follows_a_raced_game_to_the_end(
        replicas: list[RunningServer]) -> None:
    async with AsyncTableClient(replicas[0].address, retries=0) as a, \
            AsyncTableClient(replicas[1].address, retries=0) as b, \
            AsyncTableClient(replicas[1].address, retries=20, backoff=0.01) as watcher:
        table = await a.create_table("highcard", {"players": 2, "hand_size": 8})
        table_id = table.table_id
        first, second = await a.join(table_id, name="ann"), await a.join(table_id, name="bob")
        seen: list[int] = []

        async def spectate() -> None:
            async for update in watcher.watch(table_id, None, 0):
                seen.append(update.version)

        spectator = asyncio.create_task(spectate())
        seats = {0: first, 1: second}
        losses = 0
        while True:
            view = await a.view(table_id)
            if view.HasField("outcome"):
                break
            seat = seats[view.to_move[0]]
            own = await a.view(table_id, seat.token)
            # both replicas race the same move at the same version: one must lose
            results = await asyncio.gather(
                a.submit(seat, own.legal_moves[0], own.version, f"a{own.version}"),
                b.submit(seat, own.legal_moves[0], own.version, f"b{own.version}"),
                return_exceptions=True)
            losses += sum(isinstance(r, grpc.aio.AioRpcError) for r in results)
        await asyncio.wait_for(spectator, 20)  # the stream ends once the game is over
        assert seen == list(range(1, view.version + 1))
        assert losses == 16


async def spectate(client: AsyncTableClient, table_id: str, into: list[int]) -> None:
    """Every update of a table to its end, with no resume: a cut stream fails the test."""
    async for update in client.watch(table_id, None, 0, resume=False):
        into.append(update.version)


async def test_spectators_are_not_cut_when_replicas_race_their_bots(
        replicas: list[RunningServer]) -> None:
    """Both replicas run the bots of a table they hold: the one that loses a race rebuilds the
    table and sends its spectators the entries they missed, instead of cutting them."""
    async with AsyncTableClient(replicas[0].address, retries=0) as a, \
            AsyncTableClient(replicas[1].address, retries=0) as b:
        for _ in range(3):
            table = await a.create_table("highcard", {"players": 2, "hand_size": 8},
                                         bots={0: "random", 1: "highest"}, first_dealer=0)
            seen: dict[str, list[int]] = {"a": [], "b": []}

            await asyncio.wait_for(asyncio.gather(
                spectate(a, table.table_id, seen["a"]), spectate(b, table.table_id, seen["b"])), 30)
            last = (await a.view(table.table_id)).version
            assert seen["a"] == seen["b"] == list(range(1, last + 1))
