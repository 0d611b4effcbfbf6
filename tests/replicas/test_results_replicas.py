"""The results feed on PostgreSQL: a replica's stream hears of tables ended on another (NOTIFY),
and a consumer whose replica is killed mid-stream resumes on another from its cursor, applying
every finished table exactly once, in commit order."""

from __future__ import annotations

import asyncio

import grpc

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.service.server import RunningServer
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import (
    ServerProcess,
    eventually,
    spawn_server,
)
from tests.replicas.helpers import KEY, first_results, open_table


async def play_out(client: AsyncTableClient, table_id: str, seats: list[SeatHandle]) -> None:
    while True:
        view = await client.view(table_id)
        if view.HasField("outcome"):
            return
        seat = seats[view.to_move[0]]
        own = await client.view(table_id, seat.token)
        await client.submit(seat, own.legal_moves[0], own.version)


async def test_a_stream_hears_of_tables_ended_on_another_replica(
        replicas: list[RunningServer]) -> None:
    # No polling to fall back on: only the NOTIFY of the other replica can wake the stream.
    replicas[1].manager.results.poll = 600.0
    async with AsyncTableClient(replicas[0].address) as writer, \
            AsyncTableClient(replicas[1].address) as reader:
        got: list[pb.TableResult] = []

        async def follow() -> None:
            async for result in reader.watch_results(0):
                got.append(result)

        follower = asyncio.create_task(follow())
        await eventually(lambda: replicas[1].manager.results.streams == 1, 10, "the stream")
        await asyncio.sleep(0.1)  # the stream has read the empty feed and waits
        tables = [await open_table(writer) for _ in range(3)]
        for table_id, seats in tables:
            await play_out(writer, table_id, seats)
        await eventually(lambda: len(got) == 3, 20, "three results through NOTIFY")
        follower.cancel()
        assert [r.table_id for r in got] == [t for t, _ in tables]


async def test_a_consumer_resumes_on_another_replica_after_a_kill(
        postgres_url: str, server_process_factory: list[ServerProcess]) -> None:
    first = spawn_server("--store", postgres_url)
    second = spawn_server("--store", postgres_url)
    server_process_factory.extend([first, second])
    applied: dict[str, int] = {}  # table id -> cursor: the consumer's own ledger
    order: list[int] = []
    twice: list[str] = []
    last = 0

    async def consume(address: str) -> None:
        nonlocal last
        async with AsyncTableClient(address, retries=0) as client:
            async for result in client.watch_results(last):
                if result.table_id in applied:
                    twice.append(result.table_id)
                applied[result.table_id] = result.cursor
                order.append(result.cursor)
                last = result.cursor

    async with AsyncTableClient(first.address) as a, AsyncTableClient(second.address) as b:
        tables = [await open_table(a if n % 2 else b) for n in range(12)]
        consumer = asyncio.create_task(consume(first.address))
        for table_id, seats in tables[:6]:
            await play_out(a if len(applied) % 2 else b, table_id, seats)
        await eventually(lambda: len(applied) >= 3, 20, "results before the kill")
        ending = asyncio.gather(*(play_out(b, t, s) for t, s in tables[6:]))
        first.kill()  # mid-stream: the consumer's stream breaks
        (broken,) = await asyncio.wait_for(asyncio.gather(consumer, return_exceptions=True), 20)
        assert isinstance(broken, grpc.aio.AioRpcError)  # cut by the kill, nothing else
        await ending
        resumed = asyncio.create_task(consume(second.address))
        await eventually(lambda: len(applied) == 12, 30, "every result after resuming")
        await asyncio.sleep(0.3)  # nothing more arrives: no result is sent twice
        resumed.cancel()
    assert twice == []
    assert set(applied) == {t for t, _ in tables}
    assert order == sorted(order) and len(order) == 12


async def test_an_abort_on_one_replica_ends_the_streams_on_another(
        keyed_replicas: list[RunningServer]) -> None:
    replicas = keyed_replicas
    async with AsyncTableClient(replicas[0].address, api_key=KEY) as operator, \
            AsyncTableClient(replicas[1].address, api_key=KEY) as player:
        table_id, seats = await open_table(operator)
        updates: list[pb.WatchTableResponse] = []

        async def watch() -> None:
            async for update in player.watch(table_id, seats[0].token):
                updates.append(update)

        watcher = asyncio.create_task(watch())
        await eventually(lambda: any(u.entry_kind == "started" for u in updates), 10, "start")
        version = await operator.abort_table(table_id)
        await asyncio.wait_for(watcher, 10)  # ended OK on the other replica
        assert (updates[-1].entry_kind, updates[-1].version) == ("aborted", version)
        assert updates[-1].view.outcome.reason == "aborted"
        results = [r async for r in first_results(player.watch_results(0), 1)]
        assert [(r.table_id, r.reason) for r in results] == [(table_id, "aborted")]
