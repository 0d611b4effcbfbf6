"""Several replicas on one PostgreSQL: compare-and-set, fan-out, resume elsewhere, clocks."""

from __future__ import annotations

import asyncio
import statistics
import time
from itertools import pairwise

import grpc

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import RunningServer, start_server
from tests.helpers import eventually, highcard_registry, server_config, until
from tests.service.helpers import two_seats


async def test_racing_replicas_accept_exactly_one_move(replicas: list[RunningServer]) -> None:
    a, b = (AsyncTableClient(s.address, retries=0) for s in replicas)
    table_id, first, _ = await two_seats(a)
    view = await b.view(table_id, first.token)
    moves = view.legal_moves
    results = await asyncio.gather(
        a.submit(first, moves[0], view.version, "from-a"),
        b.submit(first, moves[1], view.version, "from-b"), return_exceptions=True)
    accepted = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
    assert len(accepted) == 1 and len(refused) == 1
    assert refused[0].code() == grpc.StatusCode.ABORTED
    history = await b.history(table_id)
    assert [e.entry_kind for e in history.entries].count("move") == 1
    for client in (a, b):
        assert (await client.view(table_id)).version == view.version + 1
        await client.close()


async def test_a_watcher_on_b_sees_moves_made_through_a(replicas: list[RunningServer]) -> None:
    a, b = (AsyncTableClient(s.address, retries=0) for s in replicas)
    table_id, first, second = await two_seats(a)
    start = (await a.view(table_id)).version
    arrived: dict[int, float] = {}

    async def watch() -> None:
        async for update in b.watch(table_id, None, start):
            arrived[update.version] = time.perf_counter()
            if update.view.HasField("outcome"):
                return

    watcher = asyncio.create_task(watch())
    live = await replicas[1].manager.table(table_id)
    await eventually(lambda: bool(live.watchers), what="the watch on b to be live")
    sent: dict[int, float] = {}
    view = await a.view(table_id)
    seats = {0: first, 1: second}
    while not view.HasField("outcome"):
        seat = seats[view.to_move[0]]
        own = await a.view(table_id, seat.token)
        sent[own.version + 1] = time.perf_counter()
        view = (await a.submit(seat, own.legal_moves[0], own.version)).view
        await asyncio.sleep(0.05)
    await asyncio.wait_for(watcher, 30)
    assert sorted(arrived) == list(range(start + 1, view.version + 1))
    delays = [arrived[v] - sent[v] for v in sent]
    print(f"\ncross-replica delivery: median {statistics.median(delays) * 1000:.1f} ms, "
          f"max {max(delays) * 1000:.1f} ms over {len(delays)} moves")
    assert max(delays) < 2.0
    await a.close()
    await b.close()


async def test_a_watch_resumed_on_another_replica_sees_every_update_once(
        replicas: list[RunningServer]) -> None:
    a, b = (AsyncTableClient(s.address, retries=0) for s in replicas)
    table_id, first, second = await two_seats(a)
    seen: list[int] = []
    async for update in a.watch(table_id, None, 0, resume=False):
        seen.append(update.version)
        if update.version == 4:
            break
    for seat in (first, second, first):
        own = await a.view(table_id, seat.token)
        if own.legal_moves:
            await a.submit(seat, own.legal_moves[0], own.version)
    head = (await a.view(table_id)).version
    async for update in b.watch(table_id, None, seen[-1]):
        seen.append(update.version)
        if update.version == head:
            break
    assert seen == list(range(1, head + 1))
    await a.close()
    await b.close()


async def test_a_turn_clock_fires_exactly_once_across_replicas(
        replicas: list[RunningServer]) -> None:
    a = AsyncTableClient(replicas[0].address, retries=0)
    b = AsyncTableClient(replicas[1].address, retries=0)
    table = await a.create_table("highcard", turn_seconds=1)
    first = await a.join(table.table_id)
    joining = time.time()
    await b.join(table.table_id)
    # a reveals its seat's committed entropy once its replica shows the round; the game starts
    await until(lambda: a.view(table.table_id, first.token),
                lambda v: not v.waiting_for_players, "the game to start")
    view = await until(lambda: b.view(table.table_id, first.token),
                       lambda v: not v.waiting_for_players, "b to see the start")
    looked = time.time()
    assert view.HasField("deadline")
    # one second after the game started (or after a default move, if one was already made)
    deadline = view.deadline.ToMicroseconds() / 1e6
    assert joining + 1 - 0.01 <= deadline <= looked + 1 + 0.01
    await until(lambda: b.history(table.table_id),
                lambda h: any(e.entry_kind == "timeout" for e in h.entries), "a default move")
    await asyncio.sleep(0.5)  # both replicas had time to try
    history = await b.history(table.table_id)
    timeouts = [e for e in history.entries if e.entry_kind == "timeout"]
    assert timeouts[0].seat == 0
    # exactly one default move per deadline: had both replicas fired the same deadline, the
    # second default move would follow the first at once, not a whole turn (1 s) later
    times = [e.time.ToMicroseconds() / 1e6 for e in timeouts]
    assert all(later - earlier >= 1 - 0.01 for earlier, later in pairwise(times)), times
    assert len({e.version for e in timeouts}) == len(timeouts)
    # the default move is the variant's: seat 0's lowest card
    assert timeouts[0].move.kind == "play"
    await a.close()
    await b.close()


async def test_deadlines_that_passed_while_down_fire_on_restart(postgres_url: str) -> None:
    config = server_config(store=postgres_url, clock_interval=3600)
    server = await start_server(config, highcard_registry())
    async with AsyncTableClient(server.address, retries=0) as client:
        table = await client.create_table("highcard", turn_seconds=1)
        await client.join(table.table_id)
        await client.join(table.table_id)
    await server.stop()
    await asyncio.sleep(1.2)
    server = await start_server(server_config(store=postgres_url), highcard_registry())
    try:
        async with AsyncTableClient(server.address, retries=0) as client:
            history = await until(
                lambda: client.history(table.table_id),
                lambda h: any(e.entry_kind == "timeout" for e in h.entries), "the default move")
            kinds = [e.entry_kind for e in history.entries]
            assert kinds[kinds.index("started") + 1] == "timeout"
    finally:
        await server.stop()
