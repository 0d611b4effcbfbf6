"""Nothing uncommitted is ever seen: each finding of the attack on the table core, over a real
port, on sqlite and on PostgreSQL (the two-replica findings are in tests/replicas)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.clients.verify import verify_history
from bezique.service.server import RunningServer, start_server
from bezique.service.store import StoreError, VersionConflict, open_store
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.api import Move, Options
from bezique.variants.chance import Chance
from bezique.variants.hookspecs import hookimpl
from bezique.variants.registry import Registry, load_registry
from bezique_highcard import plugin as highcard_plugin
from bezique_highcard.game import HighCard, HighCardGame
from tests.faults import FaultyStore
from tests.helpers import details, eventually, server_config
from tests.service.helpers import STACK, STARTED, collect, expect_error, two_seats

STORES = ["sqlite", "postgresql"]


class _StuckGame(HighCardGame):
    """A game whose default move always fails: its turn clock can never fire."""

    def default_move(self, seat: int) -> Move:
        raise RuntimeError("this plugin's default move is broken")


class StuckCard(HighCard):
    id = "stuckcard"

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None
              ) -> tuple[HighCardGame, Any]:
        game, events = super().start(options, chance, first_dealer)
        game.__class__ = _StuckGame
        return game, events


class _StuckPlugin:
    @hookimpl
    def bezique_variants(self) -> list[Any]:
        return [StuckCard()]


def registry() -> Registry:
    return load_registry(entry_points=False, plugins=[highcard_plugin, _StuckPlugin()])


@asynccontextmanager
async def serving(kind: str, request: pytest.FixtureRequest, tmp_path: Path,
                  **overrides: object) -> AsyncIterator[tuple[RunningServer, FaultyStore]]:
    """A server on a real port over a real store of ``kind``, behind a FaultyStore."""
    url = (f"sqlite:{tmp_path / 'tables.sqlite'}" if kind == "sqlite"
           else request.getfixturevalue("postgres_url"))
    store = FaultyStore(open_store(url))
    server = await start_server(server_config(store=url, **overrides), registry(),
                                store=store)  # type: ignore[arg-type]
    try:
        yield server, store
    finally:
        await server.stop()


def hand_codes(view: pb.View) -> set[str]:
    return {card.code for card in view.hand}


# ---------------------------------------------------------------- 1. streams follow the seat


@pytest.mark.parametrize("kind", STORES)
async def test_a_seat_that_left_stops_watching_the_seat(
        kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    async with serving(kind, request, tmp_path) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        table = await client.create_table("highcard", {"players": 2}, stacked_shoe=STACK)
        leaver = await client.join(table.table_id, seat=0, name="mallory")
        seen: list[pb.WatchTableResponse] = []
        stream = asyncio.create_task(collect(client, table.table_id, leaver.token, seen))
        await eventually(lambda: len(seen) == 2, what="the backlog")
        await client.leave(leaver)
        error = await expect_error(grpc.StatusCode.PERMISSION_DENIED,
                                   asyncio.wait_for(stream, 10))
        assert details(error)["reason"] == "SEAT_RELEASED"
        # The seat is taken again and the game starts: the old token sees nothing of it.
        newcomer = await client.join(table.table_id, seat=0, name="ann")
        await client.join(table.table_id, seat=1, name="bob")
        view = await client.view(table.table_id, newcomer.token)
        assert hand_codes(view) == {"AS", "7S", "KH"}
        assert all(not update.view.hand for update in seen)
        await expect_error(grpc.StatusCode.PERMISSION_DENIED,
                           client.view(table.table_id, leaver.token))
        await expect_error(grpc.StatusCode.PERMISSION_DENIED,
                           collect(client, table.table_id, leaver.token, []))


# ---------------------------------------------------------------- 2. nothing uncommitted


@pytest.mark.parametrize("failure", ["conflict", "store"])
@pytest.mark.parametrize("kind", STORES)
async def test_a_move_whose_append_fails_is_never_seen(
        kind: str, failure: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    async with serving(kind, request, tmp_path) as (server, store), \
            AsyncTableClient(server.address, retries=0) as client, \
            AsyncTableClient(server.address, retries=3, backoff=0.01) as resuming:
        table_id, first, second = await two_seats(client, stacked_shoe=STACK)
        before = await client.view(table_id, second.token)
        spectator: list[pb.WatchTableResponse] = []
        watching = asyncio.create_task(collect(resuming, table_id, None, spectator,
                                               resume=True))
        await eventually(lambda: len(spectator) == STARTED, what="the backlog")
        error: Callable[[], Exception] = (
            (lambda: VersionConflict(table_id, before.version, before.version + 1))
            if failure == "conflict" else (lambda: StoreError("the disk is gone")))
        gate = store.fail_next_append(table_id, error, pause=True)
        assert gate is not None
        mine = await client.view(table_id, first.token)
        move = asyncio.create_task(client.submit(first, mine.legal_moves[0], mine.version))
        await asyncio.wait_for(store.paused.wait(), 10)
        # Readers arrive while the move is applied in memory but not committed.
        views = [asyncio.create_task(client.view(table_id, token))
                 for token in (first.token, second.token, None)]
        await asyncio.sleep(0.05)
        gate.set()
        refused = await expect_error(
            grpc.StatusCode.ABORTED if failure == "conflict" else grpc.StatusCode.UNAVAILABLE,
            move)
        assert refused.details()
        after = [await task for task in views]
        assert [view.version for view in after] == [before.version] * 3
        assert hand_codes(after[0]) == hand_codes(mine)
        assert after[1] == before
        assert not after[2].hand
        # The table goes on from the committed state, and the spectator resumed without a gap.
        again = await client.view(table_id, first.token)
        assert again == mine
        await client.submit(first, again.legal_moves[0], again.version)
        await eventually(lambda: spectator[-1].version == before.version + 1, what="the move")
        watching.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watching
        versions = [update.version for update in spectator]
        assert versions == list(range(1, before.version + 2))


@pytest.mark.parametrize("kind", STORES)
async def test_a_failed_last_join_leaves_the_table_joinable(
        kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    async with serving(kind, request, tmp_path) as (server, store), \
            AsyncTableClient(server.address, retries=0) as client:
        table = await client.create_table("highcard", {"players": 2})
        await client.join(table.table_id, name="ann")
        store.fail_next_append(table.table_id)
        refused = await expect_error(grpc.StatusCode.UNAVAILABLE,
                                     client.join(table.table_id, name="bob"))
        # One answer to a store failure, wherever it happens: the store's own text stays in
        # the server's log (it can name hosts, users or SQL).
        assert details(refused)["reason"] == "STORE_UNAVAILABLE"
        assert "injected failure" not in (refused.details() or "")
        view = await client.view(table.table_id)
        assert view.waiting_for_players and view.version == 2
        bob = await client.join(table.table_id, name="bob")
        assert not (await client.view(table.table_id, bob.token)).waiting_for_players


@pytest.mark.parametrize(("options", "field"), [
    ({"ante": 500, "starting_stack": 100}, "options[ante]"),
    ({"min_bet": 50, "max_bet": 20}, "options[max_bet]"),
])
async def test_clashing_options_are_refused_when_the_table_is_created(
        options: dict[str, object], field: str) -> None:
    server = await start_server(server_config(), load_registry())
    try:
        async with AsyncTableClient(server.address, retries=0) as client:
            error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                                       client.create_table("quart-bezique", options))
            assert details(error)["fields"] == [field]
            assert not await client.list_tables()
    finally:
        await server.stop()


# ---------------------------------------------------------------- 3. server-made moves


@pytest.mark.parametrize("kind", STORES)
async def test_a_client_cannot_squat_the_ids_of_bots_and_clocks(
        kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    async with serving(kind, request, tmp_path) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        # a bot: the human moves with the id the bot used to take for its next move
        table = await client.create_table("highcard", {"players": 2}, bots={1: "random"},
                                          stacked_shoe=STACK, first_dealer=1)
        human = await client.join(table.table_id, seat=0, name="ann")
        view = await client.view(table.table_id, human.token)
        await client.submit(human, view.legal_moves[0], view.version,
                            f"bot:{view.version + 1}:1")
        kinds = await _wait_for_kinds(client, table.table_id, "bot_move", 1)
        assert kinds.count("move") == 1
        # a clock: the id the clock used to take for the next deadline
        clocked = await client.create_table("highcard", {"players": 2}, turn_seconds=1,
                                            stacked_shoe=STACK, first_dealer=1)
        ann = await client.join(clocked.table_id, seat=0, name="ann")
        await client.join(clocked.table_id, seat=1, name="bob")
        view = await client.view(clocked.table_id, ann.token)
        await client.submit(ann, view.legal_moves[0], view.version, f"timeout:{view.version + 1}")
        await _wait_for_kinds(client, clocked.table_id, "timeout", 1, timeout=15)


async def _wait_for_kinds(client: AsyncTableClient, table_id: str, kind: str, count: int,
                          timeout: float = 10) -> list[str]:
    kinds: list[str] = []

    async def enough() -> None:
        nonlocal kinds
        while True:
            kinds = [e.entry_kind for e in (await client.history(table_id)).entries]
            if kinds.count(kind) >= count:
                return
            await asyncio.sleep(0.05)

    await asyncio.wait_for(enough(), timeout)
    return kinds


async def test_stuck_tables_do_not_hold_up_another_tables_clock(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    async with serving("sqlite", request, tmp_path, clock_interval=0.05) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        for _ in range(120):  # more than one pass of the clock takes, all due first
            stuck = await client.create_table("stuckcard", {"players": 2}, turn_seconds=1)
            await client.join(stuck.table_id, name="ann")
            await client.join(stuck.table_id, name="bob")
        table_id, _, _ = await two_seats(client, turn_seconds=1)
        await _wait_for_kinds(client, table_id, "timeout", 1, timeout=15)


# ---------------------------------------------------------------- 5. stream caps per seat


async def test_streams_are_counted_per_seat_and_go_with_it(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    async with serving("sqlite", request, tmp_path, max_streams_per_seat=3,
                       max_watchers_per_caller=0) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        table = await client.create_table("highcard", {"players": 2})
        live = await server.manager.table(table.table_id)
        for _ in range(10):
            seat = await client.join(table.table_id, seat=0, name="churn")
            streams = [asyncio.create_task(collect(client, table.table_id, seat.token, []))
                       for _ in range(3)]
            await eventually(lambda: len(live.watchers) == 3, what="three streams")
            error = await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                       collect(client, table.table_id, seat.token, []))
            assert details(error)["reason"] == "TOO_MANY_STREAMS"
            await client.leave(seat)
            for stream in streams:
                await expect_error(grpc.StatusCode.PERMISSION_DENIED, asyncio.wait_for(stream, 10))
            assert not live.watchers
        spectator = asyncio.create_task(collect(client, table.table_id, None, []))
        await eventually(lambda: len(live.watchers) == 1, what="a spectator")
        spectator.cancel()


# ---------------------------------------------------------------- 7. bounded tables


async def test_join_and_leave_churn_is_bounded(request: pytest.FixtureRequest,
                                               tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    async with serving("sqlite", request, tmp_path, max_seat_changes=5) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        table = await client.create_table("highcard", {"players": 2})
        for _ in range(5):
            await client.leave(await client.join(table.table_id, name="churn"))
        error = await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                   client.join(table.table_id, name="churn"))
        assert details(error)["reason"] == "SEAT_CHURN"
        assert (await client.view(table.table_id)).version == 11
        # the churner's budget refills over the window (tests/security/test_churn.py: it is
        # his, not the table's)
        churn = server.manager.commands.churn
        later = time.monotonic() + server.manager.settings.limits.seat_churn_window + 1
        monkeypatch.setattr(churn, "clock", lambda: later)
        assert (await client.join(table.table_id, name="welcome")).seat == 0


async def test_a_table_log_is_bounded(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    async with serving("sqlite", request, tmp_path, max_log_entries=6) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        table_id, first, second = await two_seats(client, stacked_shoe=STACK)
        seats = {0: first, 1: second}
        refused = None
        for _ in range(6):
            view = await client.view(table_id)
            seat = seats[view.to_move[0]]
            mine = await client.view(table_id, seat.token)
            try:
                await client.submit(seat, mine.legal_moves[0], mine.version)
            except grpc.aio.AioRpcError as error:
                refused = error
                break
        assert refused is not None and refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert details(refused)["reason"] == "LOG_FULL"
        assert (await client.view(table_id)).version == 6


async def test_bots_stop_when_the_log_is_full(request: pytest.FixtureRequest,
                                             tmp_path: Path) -> None:
    async with serving("sqlite", request, tmp_path, max_log_entries=12) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        table = await client.create_table("highcard", {"players": 2, "hand_size": 8},
                                          bots={0: "random", 1: "highest"})
        scheduler = server.manager.scheduler
        await eventually(lambda: not scheduler.busy(table.table_id), what="the bots to stop")
        view = await client.view(table.table_id)
        assert view.version == 12 and not view.HasField("outcome")


async def test_history_is_paged_and_verify_reads_the_pages(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    async with serving("sqlite", request, tmp_path) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        table = await client.create_table("highcard", {"players": 2, "hand_size": 8},
                                          bots={0: "random", 1: "highest"})
        await _wait_for_kinds(client, table.table_id, "bot_move", 16)
        whole = await client.history(table.table_id)
        assert whole.finished and not whole.next_page_token
        first = await client.stub.GetHistory(pb.GetHistoryRequest(
            table_id=table.table_id, page_size=5))
        assert [e.version for e in first.entries] == [1, 2, 3, 4, 5]
        assert first.next_page_token
        paged = await client.history(table.table_id, page_size=5)
        assert paged == whole
        assert len(whole.entries) == whole.entries[-1].version == 20
        report = verify_history(paged)
        assert report.deals >= 1
        for token, field in (("abc", "page_token"), ("999", "page_token"),
                             ("\u00b2", "page_token"), ("\u2460", "page_token")):
            error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.stub.GetHistory(
                pb.GetHistoryRequest(table_id=table.table_id, page_token=token)))
            assert details(error)["reason"] == "INVALID_PAGE_TOKEN"
            assert details(error)["fields"] == [field]
        await expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.stub.GetHistory(
            pb.GetHistoryRequest(table_id=table.table_id, page_size=100_000)))


# ---------------------------------------------------------------- 8. bounded quotes


async def test_errors_quote_only_a_bounded_part_of_the_input(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    async with serving("sqlite", request, tmp_path) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        huge = "x" * 100_000
        for call in (client.view(huge), client.join(huge),
                     client.create_table(huge), client.create_table("highcard", {huge: 1}),
                     client.create_table("highcard", {"players": huge})):
            error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT, call)
            assert len(error.details() or "") < 300, error.details()
            assert all(len(f) <= 100 for f in details(error)["fields"])  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", STORES)
async def test_control_characters_in_ids_are_refused_not_retried(
        kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    async with serving(kind, request, tmp_path) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        table_id, first, _ = await two_seats(client)
        view = await client.view(table_id, first.token)
        for call, field in (
                (client.submit(first, view.legal_moves[0], view.version, "id\x00"),
                 "request_id"),
                (client.view("ab\x00cd"), "table_id"),
                (client.stub.ListTables(pb.ListTablesRequest(page_token="a\x00")), "page_token")):
            error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT, call)
            assert details(error)["fields"] == [field]
        assert (await client.view(table_id)).version == view.version
