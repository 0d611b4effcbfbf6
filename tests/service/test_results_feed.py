"""The results feed and AbortTable over a real port: every finished table once per cursor, in
commit order; an aborted table ends like any other (watchers, bots, feed, verify); both need
the platform key, and a server without one refuses AbortTable to everybody."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.clients.verify import verify_history
from bezique.service import auth
from bezique.service.server import RunningServer, start_server
from bezique.table.entries import Joined
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.registry import Registry, load_registry
from tests.helpers import details, eventually, server_config
from tests.service.helpers import serving, two_seats


def games_registry() -> Registry:
    from bezique.variants.quart import plugin as quart
    from bezique_highcard import plugin as highcard

    return load_registry(entry_points=False, plugins=[highcard, quart])


@pytest.fixture
async def platform() -> AsyncIterator[RunningServer]:
    running = await start_server(server_config(api_key="k" * 24, max_log_entries=16),
                                 games_registry())
    yield running
    await running.stop()


@pytest.fixture
async def admin(platform: RunningServer) -> AsyncIterator[AsyncTableClient]:
    async with AsyncTableClient(platform.address, api_key="k" * 24, retries=0) as client:
        yield client


async def seated(client: AsyncTableClient, names: tuple[str, ...] = ("ann", "bob"),
                 variant: str = "highcard", **options: object) -> tuple[str, list[SeatHandle]]:
    table = await client.create_table(variant, {"players": len(names), **options})
    return table.table_id, [await client.join(table.table_id, name=n) for n in names]


async def play(client: AsyncTableClient, table_id: str, seats: list[SeatHandle],
               moves: int | None = None) -> pb.View:
    """Seats play their first legal move until the game ends (or ``moves`` were made)."""
    made = 0
    while moves is None or made < moves:
        view = await client.view(table_id)
        if view.HasField("outcome"):
            return view
        seat = seats[view.to_move[0]]
        own = await client.view(table_id, seat.token)
        await client.submit(seat, own.legal_moves[0], own.version)
        made += 1
    return await client.view(table_id)


async def collect(client: AsyncTableClient, count: int, after: int = 0
                  ) -> list[pb.TableResult]:
    found: list[pb.TableResult] = []
    async for result in client.watch_results(after):
        found.append(result)
        if len(found) == count:
            return found
    raise AssertionError("the results feed ended")


async def test_finished_tables_arrive_in_commit_order_with_everything(
        admin: AsyncTableClient) -> None:
    tables = [await seated(admin, ("ann", "bob"), hand_size=2) for _ in range(3)]
    for table_id, seats in reversed(tables):  # finished last to first
        await play(admin, table_id, seats)
    results = await asyncio.wait_for(collect(admin, 3), 20)
    assert [r.table_id for r in results] == [t for t, _ in reversed(tables)]
    assert [r.cursor for r in results] == sorted(r.cursor for r in results)
    first = results[0]
    history = await admin.history(first.table_id)
    assert (first.variant_id, first.variant_version) == ("highcard", 1)
    assert [s.display_name for s in first.seats] == ["ann", "bob"]
    assert [s.player_id for s in first.seats] == ["", ""]
    assert [s.score for s in first.seats] == list(history.outcome.scores)
    assert list(first.outcome.winners) == list(history.outcome.winners)
    assert first.reason == history.outcome.reason and first.version == history.entries[-1].version
    assert not any(s.HasField("chip_change") for s in first.seats)  # highcard has no chips
    assert hashlib.sha256(first.revealed_seed).hexdigest() == first.seed_commitment
    assert first.revealed_seed == history.revealed_seed
    # resuming after a cursor gives what follows it, and nothing before
    rest = await asyncio.wait_for(collect(admin, 2, first.cursor), 20)
    assert [r.table_id for r in rest] == [r.table_id for r in results[1:]]


async def test_a_live_stream_gets_a_table_as_it_ends(admin: AsyncTableClient) -> None:
    table_id, seats = await seated(admin, hand_size=1)
    waiting = asyncio.create_task(collect(admin, 1))
    await asyncio.sleep(0.2)
    assert not waiting.done()
    await play(admin, table_id, seats)
    (result,) = await asyncio.wait_for(waiting, 10)
    assert result.table_id == table_id


async def test_the_feed_and_abort_need_the_api_key(platform: RunningServer,
                                                   admin: AsyncTableClient) -> None:
    table_id, _ = await seated(admin)
    async with AsyncTableClient(platform.address, retries=0) as anonymous:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await anonymous.abort_table(table_id)
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await collect(anonymous, 1)
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    async with AsyncTableClient(platform.address, api_key="wrong", retries=0) as wrong:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await collect(wrong, 1)
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await collect(admin, 1, -1)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    for note in ("\x1b[2J", "n" * 201):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await admin.abort_table(table_id, note=note)
        assert details(caught.value)["fields"] == ["note"]
    assert not (await admin.view(table_id)).HasField("outcome")  # nothing was aborted


async def test_an_aborted_table_ends_for_watchers_the_feed_and_verify(
        admin: AsyncTableClient) -> None:
    table_id, seats = await seated(admin, hand_size=4)
    await play(admin, table_id, seats, moves=3)
    watched: list[pb.WatchTableResponse] = []

    async def watch() -> None:
        async for update in admin.watch(table_id, seats[0].token):
            watched.append(update)

    watcher = asyncio.create_task(watch())
    await eventually(lambda: len(watched) >= 6, 10, "the backlog")
    version = await admin.abort_table(table_id, note="support ticket 7")
    await asyncio.wait_for(watcher, 10)  # the stream ended OK after the entry
    assert watched[-1].entry_kind == "aborted" and watched[-1].version == version
    assert watched[-1].view.outcome.reason == "aborted"
    view = await admin.view(table_id, seats[0].token)
    assert (view.phase, list(view.to_move), list(view.legal_moves)) == ("over", [], [])
    assert list(view.outcome.winners) == [] and len(view.outcome.scores) == 2
    history = await admin.history(table_id)
    assert history.finished and history.entries[-1].note == "support ticket 7"
    verified = verify_history(history, games_registry())
    assert verified.aborted and verified.moves == 3
    (result,) = await asyncio.wait_for(collect(admin, 1), 10)
    assert (result.table_id, result.reason, result.version) == (table_id, "aborted", version)
    assert [s.score for s in result.seats] == list(view.outcome.scores)
    for call in (admin.abort_table(table_id), admin.join(table_id)):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert details(caught.value)["reason"] == "TABLE_FINISHED"
    finished = await admin.list_tables(finished=pb.FINISHED_FILTER_FINISHED)
    assert [t.table_id for t in finished] == [table_id] and finished[0].phase == "over"
    assert table_id not in [t.table_id for t in await admin.list_tables()]


async def test_a_table_aborted_before_its_start_takes_no_more_seats(
        admin: AsyncTableClient) -> None:
    table = await admin.create_table("highcard", {"players": 2})
    await admin.join(table.table_id, name="ann")
    await admin.abort_table(table.table_id)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await admin.join(table.table_id, name="bob")
    assert details(caught.value)["reason"] == "TABLE_FINISHED"
    view = await admin.view(table.table_id)
    assert view.outcome.reason == "aborted" and not view.waiting_for_players
    (result,) = await asyncio.wait_for(collect(admin, 1), 10)
    assert result.reason == result.outcome.reason == "aborted"
    assert list(result.outcome.scores) == [] and list(result.outcome.winners) == []
    assert [s.display_name for s in result.seats] == ["ann", ""]
    verified = verify_history(await admin.history(table.table_id), games_registry())
    assert verified.aborted and verified.deals == 0


async def test_abort_ends_a_table_frozen_at_log_full(admin: AsyncTableClient) -> None:
    table_id, seats = await seated(admin, ("a", "b", "c", "d"), hand_size=8)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await play(admin, table_id, seats)
    assert details(caught.value)["reason"] == "LOG_FULL"
    version = await admin.abort_table(table_id)
    assert version == 17  # one past the limit of 16: only an abort goes there
    assert verify_history(await admin.history(table_id), games_registry()).aborted


async def test_abort_stops_the_bots(platform: RunningServer, admin: AsyncTableClient) -> None:
    table = await admin.create_table("highcard", {"players": 3, "hand_size": 8},
                                     bots={1: "random", 2: "random"})
    human = await admin.join(table.table_id, seat=0, name="ann")
    version = await admin.abort_table(table.table_id)
    await asyncio.sleep(0.3)
    assert not platform.manager.scheduler.busy(table.table_id)
    history = await admin.history(table.table_id)
    assert history.entries[-1].version == version and history.entries[-1].entry_kind == "aborted"
    view = await admin.view(table.table_id, human.token)
    assert not view.legal_moves


async def test_an_aborted_quart_deal_gives_the_stakes_back(admin: AsyncTableClient) -> None:
    table_id, seats = await seated(admin, ("ann", "bob", "cid"), variant="quart-bezique",
                                   starting_stack=200, ante=10)
    # fold until the first deal is settled: its winner took the antes
    while True:
        view = await admin.view(table_id)
        seat = seats[view.to_move[0]]
        own = await admin.view(table_id, seat.token)
        fold = next(m for m in own.legal_moves if m.kind == "fold")
        response = await admin.submit(seat, fold, own.version)
        ends = [e for e in response.events if e.kind == "deal_end"]
        if ends:
            stacks = json_format.MessageToDict(ends[0].detail)["stacks"]
            after_first = [int(v) for v in stacks]
            break
    # the second deal: everyone antes, the first to act raises; then the operator aborts
    view = await admin.view(table_id)
    own = await admin.view(table_id, seats[view.to_move[0]].token)
    raised = next(m for m in own.legal_moves if m.kind == "raise")
    await admin.submit(seats[view.to_move[0]], raised, own.version)
    assert (await admin.view(table_id)).pot > 0
    await admin.abort_table(table_id)
    view = await admin.view(table_id)
    assert list(view.outcome.scores) == after_first and view.pot == 0
    assert [s.stack for s in view.seats] == after_first
    history = await admin.history(table_id)
    returned = [e for e in history.entries[-1].events if e.kind == "stake_returned"]
    assert sum(e.amount for e in returned) == 3 * 10 + raised.amount
    assert verify_history(history, games_registry()).aborted
    (result,) = await asyncio.wait_for(collect(admin, 1), 10)
    assert [s.chip_change for s in result.seats] == [s - 200 for s in after_first]
    assert sum(s.chip_change for s in result.seats) == 0


async def test_a_consumer_stopped_mid_stream_applies_every_result_once(
        admin: AsyncTableClient, tmp_path: Path) -> None:
    """A consumer keeps each result and its cursor in one transaction of its own database;
    cut off at any point (here: after a result arrived and before it was kept, and after it
    was kept), it resumes from its cursor and applies every table exactly once."""
    db = sqlite3.connect(tmp_path / "ledger.sqlite", isolation_level=None)
    db.execute("CREATE TABLE applied (table_id TEXT, cursor INTEGER)")
    db.execute("CREATE TABLE position (cursor INTEGER)")
    db.execute("INSERT INTO position VALUES (0)")

    async def consume(stop_after: int, crash_before_commit: bool) -> None:
        cursor = db.execute("SELECT cursor FROM position").fetchone()[0]
        seen = 0
        async for result in admin.watch_results(cursor):
            db.execute("BEGIN")
            db.execute("INSERT INTO applied VALUES (?, ?)", (result.table_id, result.cursor))
            seen += 1
            if seen == stop_after and crash_before_commit:
                db.execute("ROLLBACK")  # killed before the commit: nothing was kept
                return
            db.execute("UPDATE position SET cursor = ?", (result.cursor,))
            db.execute("COMMIT")
            if seen == stop_after:
                return

    tables = [await seated(admin, hand_size=1) for _ in range(8)]
    for table_id, seats in tables[:5]:
        await play(admin, table_id, seats)
    await asyncio.wait_for(consume(2, crash_before_commit=True), 10)
    await asyncio.wait_for(consume(2, crash_before_commit=False), 10)
    ending = asyncio.gather(*(play(admin, t, s) for t, s in tables[5:]))
    await asyncio.wait_for(consume(3, crash_before_commit=True), 10)
    await ending
    await asyncio.wait_for(consume(3, crash_before_commit=False), 10)
    applied = [row[0] for row in db.execute("SELECT table_id FROM applied ORDER BY cursor")]
    assert sorted(applied) == sorted(t for t, _ in tables) and len(set(applied)) == 8


async def test_abort_stops_the_turn_clock(platform: RunningServer,
                                          admin: AsyncTableClient) -> None:
    table = await admin.create_table("highcard", {"players": 2, "hand_size": 4},
                                     turn_seconds=1)
    for name in ("ann", "bob"):
        await admin.join(table.table_id, name=name)
    version = await admin.abort_table(table.table_id)
    await asyncio.sleep(1.5)  # the deadline passes: no timeout may follow the abort
    assert await platform.store.due_deadlines(time.time() + 5) == []
    history = await admin.history(table.table_id)
    assert [e.entry_kind for e in history.entries][-1] == "aborted"
    assert history.entries[-1].version == version


async def test_an_aborted_table_rebuilds_from_its_log_and_from_a_snapshot(
        platform: RunningServer, admin: AsyncTableClient) -> None:
    table_id, seats = await seated(admin, variant="quart-bezique", starting_stack=100)
    await play(admin, table_id, seats, moves=2)
    await admin.abort_table(table_id)
    before = await admin.view(table_id, seats[1].token)
    repo = platform.manager.repo
    live = repo.cached(table_id)
    assert live is not None
    repo.discard(live)  # rebuilt by replaying the log, the aborted entry included
    assert await admin.view(table_id, seats[1].token) == before
    live = repo.cached(table_id)
    assert live is not None and live.aborted
    await repo.save_snapshot(live)
    repo.discard(live)  # rebuilt from the snapshot
    assert await admin.view(table_id, seats[1].token) == before


async def test_a_seat_bound_to_a_player_id_reaches_list_tables_and_the_feed(
        platform: RunningServer, admin: AsyncTableClient) -> None:
    """A joined entry that names a player_id (what a platform's join writes) makes the seat
    the player's: in the table's summary (ListTables) and in its result."""
    table = await admin.create_table("highcard", {"players": 2, "hand_size": 1})
    token = auth.new_token()
    manager = platform.manager
    async with manager.repo.hold(table.table_id) as live:
        joined = Joined(0, "ann", auth.token_hash(token), player_id="p-1")
        await manager.commands._commit(live, lambda: [live.draft(joined, time.time())])
    bob = await admin.join(table.table_id, name="bob")
    listed = await admin.list_tables(player_id="p-1")
    assert [t.table_id for t in listed] == [table.table_id]
    assert await admin.list_tables(player_id="p-2") == []
    await play(admin, table.table_id, [SeatHandle(table.table_id, 0, token), bob])
    assert await admin.list_tables(player_id="p-1") == []  # finished: not listed by default
    listed = await admin.list_tables(player_id="p-1", finished=pb.FINISHED_FILTER_ANY)
    assert [t.table_id for t in listed] == [table.table_id]
    (result,) = await asyncio.wait_for(collect(admin, 1), 10)
    assert [s.player_id for s in result.seats] == ["p-1", ""]


async def test_a_feed_stream_ends_unavailable_with_its_cursor_at_shutdown() -> None:
    running = await start_server(server_config(), games_registry())
    stopped = False
    try:
        async with AsyncTableClient(running.address, retries=0) as client:
            table_id, seats = await seated(client, hand_size=1)
            await play(client, table_id, seats)
            got: list[pb.TableResult] = []

            async def follow() -> None:
                async for result in client.watch_results(0, resume=False):
                    got.append(result)

            follower = asyncio.create_task(follow())
            await eventually(lambda: len(got) == 1, 10, "the first result")
            await running.stop()
            stopped = True
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await asyncio.wait_for(follower, 10)
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
            assert details(caught.value)["metadata"] == {"resume_from": str(got[0].cursor)}
    finally:
        if not stopped:
            await running.stop()


async def test_abort_is_refused_on_a_server_without_an_api_key() -> None:
    """Without --api-key, _check_api_key let every AbortTable through: any player (over gRPC,
    or the HTTP port) could end any table mid-game, a losing one his own, voiding the result
    (Quart gives the stakes back). ReissueSeatToken is refused there for the same reason."""
    async with serving() as (_, client):
        table_id, first, _ = await two_seats(client)
        before = await client.view(table_id, first.token)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await client.abort_table(table_id, note="I was losing")
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        after = await client.view(table_id, first.token)
        assert not after.HasField("outcome") and after.version == before.version
