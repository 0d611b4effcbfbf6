"""The service keeps each view it gives out per (table version, viewer) while the table is
watched, over a real port: a table's watchers, its mover's answer and GetView share one, a move
or an abort starts afresh, a draft whose append fails takes its views with it, a table nobody
watches keeps none, and a watched table lets them go ``--views-kept-seconds`` after it began
keeping them (the rules core keeps none either: tests/core/test_no_caches.py)."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.service.server import RunningServer, start_server
from bezique.service.store import StoreError, open_store
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.api import Census, Options, View
from bezique.variants.chance import Chance
from bezique.variants.hookspecs import hookimpl
from bezique.variants.registry import load_registry
from bezique_highcard.game import HighCard, HighCardGame
from tests.faults import FaultyStore
from tests.helpers import eventually, server_config
from tests.service.helpers import STACK, STARTED, collect, expect_error, two_seats


class _CountedGame(HighCardGame):
    """Highcard that notes every viewer it derives a view for."""

    rendered: list[int | None]

    def view(self, viewer: int | None) -> View:
        self.rendered.append(viewer)
        return super().view(viewer)


class _CensusCountedGame(HighCardGame):
    """Highcard whose views BaseGame derives (as highcard's), noting every census taken."""

    rendered: list[int | None]

    def census(self) -> Census:
        self.rendered.append(-1)
        return super().census()


class CountedCard(HighCard):
    """Highcard (its id too: the server registers nothing else) that notes every view it
    derives, or with ``census`` every census it takes."""

    def __init__(self, *, census: bool = False) -> None:
        self.rendered: list[int | None] = []
        self.counted = _CensusCountedGame if census else _CountedGame

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None
              ) -> tuple[HighCardGame, Any]:
        game, events = super().start(options, chance, first_dealer)
        game.__class__ = self.counted
        game.rendered = self.rendered  # type: ignore[attr-defined]
        return game, events


@asynccontextmanager
async def serving(tmp_path: Path, variant: CountedCard, views_kept_seconds: float = 3600.0
                  ) -> AsyncIterator[tuple[RunningServer, FaultyStore]]:
    """A server of ``variant`` over a sqlite file; its views are kept an hour unless asked
    otherwise, so that the tests of what is shared never see them let go."""
    class Plugin:
        @hookimpl
        def bezique_variants(self) -> list[Any]:
            return [variant]

    url = f"sqlite:{tmp_path / 'tables.sqlite'}"
    store = FaultyStore(open_store(url))
    server = await start_server(server_config(store=url,
                                              views_kept_seconds=views_kept_seconds),
                                load_registry(entry_points=False, plugins=[Plugin()]),
                                store=store)  # type: ignore[arg-type]
    try:
        yield server, store
    finally:
        await server.stop()


async def _stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def _first_legal_move(client: AsyncTableClient, table_id: str, first: SeatHandle,
                            second: SeatHandle) -> pb.SubmitMoveResponse:
    """The first legal move of whichever seat is to move, submitted."""
    mine = await client.view(table_id, first.token)
    mover = first if mine.legal_moves else second
    if mover is second:
        mine = await client.view(table_id, second.token)
    return await client.submit(mover, mine.legal_moves[0], mine.version)


def _at(streams: list[list[pb.WatchTableResponse]], version: int) -> Callable[[], bool]:
    """Whether every stream has had its update of ``version``."""
    return lambda: all(seen and seen[-1].version == version for seen in streams)


async def test_each_viewer_gets_one_view_a_version_whoever_asks(tmp_path: Path) -> None:
    """Two spectator streams, a seat's stream, the mover's answer and GetView of every
    viewer after a move: each viewer's view is derived once (main derived it again for
    every GetView), and the next move derives each again."""
    variant = CountedCard()
    async with serving(tmp_path, variant) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        table_id, first, second = await two_seats(client, stacked_shoe=STACK)
        streams: list[list[pb.WatchTableResponse]] = [[], [], []]
        tasks = [asyncio.create_task(collect(client, table_id, token, seen))
                 for token, seen in zip((None, None, first.token), streams, strict=True)]
        await eventually(lambda: all(len(seen) == STARTED for seen in streams),
                         what="the backlogs")
        for turn in range(2):
            variant.rendered.clear()
            mover = first if turn == 0 else second
            mine = await client.view(table_id, mover.token)
            answer = await client.submit(mover, mine.legal_moves[0], mine.version)
            await eventually(_at(streams, answer.version), what="the move")
            views = [await client.view(table_id, token)
                     for token in (first.token, second.token, None, first.token)]
            assert {view.version for view in views} == {answer.version}
            assert views[0] == views[3] and streams[2][-1].view == views[0]
            assert streams[0][-1].view == streams[1][-1].view == views[2]
            assert Counter(variant.rendered) == {0: 1, 1: 1, None: 1}, (turn, variant.rendered)
        live = await server.manager.table(table_id)
        assert set(live.view_cache.views) == {0, 1, None}
        for task in tasks:
            await _stop(task)
        # the last stream gone, the table keeps no view (an idle table costs nothing for them)
        await eventually(lambda: not live.watchers, what="the streams to end")
        assert live.view_cache.views == {}


async def test_an_abort_and_a_failed_append_show_the_committed_table(tmp_path: Path) -> None:
    """A view given out at one version is never given out at another: a draft that the
    store refuses leaves the views of the version before (derived again, the draft's table
    discarded), and an abort's view is the table ended."""
    variant = CountedCard()
    async with serving(tmp_path, variant) as (server, store), \
            AsyncTableClient(server.address, retries=0) as client:
        table_id, first, _ = await two_seats(client, stacked_shoe=STACK)
        before = await client.view(table_id, first.token)
        store.fail_next_append(table_id, lambda: StoreError("the disk is gone"))
        await expect_error(grpc.StatusCode.UNAVAILABLE,
                           client.submit(first, before.legal_moves[0], before.version))
        variant.rendered.clear()
        after = await client.view(table_id, first.token)
        assert after == before and variant.rendered.count(0) == 1
        assert (await server.manager.table(table_id)).view_cache.views == {}  # nobody watches it
        version = await server.manager.abort(table_id)
        ended = await client.view(table_id, first.token)
        assert ended.version == version == before.version + 1
        assert ended.phase == "over" and not ended.legal_moves


async def test_a_derived_view_takes_one_census_a_version_while_watched(tmp_path: Path) -> None:
    """Highcard's views are its census as each viewer may see it (BaseGame.view): at a
    watched table the service takes the census once a version for every viewer, and each
    view is still exactly that viewer's part of it; unwatched, each view takes its own."""
    variant = CountedCard(census=True)
    async with serving(tmp_path, variant) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        table_id, first, second = await two_seats(client, stacked_shoe=STACK)
        tokens = (first.token, second.token, None)
        seen: list[pb.WatchTableResponse] = []
        watching = asyncio.create_task(collect(client, table_id, None, seen))
        await eventually(lambda: len(seen) == STARTED, what="the backlog")
        live = await server.manager.table(table_id)
        for _ in range(3):
            mine = await client.view(table_id, first.token)
            if not mine.legal_moves:
                mine = await client.view(table_id, second.token)
            mover = first if mine.viewer_seat == 0 else second
            variant.rendered.clear()
            answer = await client.submit(mover, mine.legal_moves[0], mine.version)
            await eventually(_at([seen], answer.version), what="the move")
            views = [await client.view(table_id, token) for token in tokens]
            assert variant.rendered == [-1]  # one census for the three viewers
            game = live.game
            assert game is not None
            census = game.census()
            for view, viewer in zip(views, (0, 1, None), strict=True):
                shown = {card.id for card in view.hand} | {
                    card.id for zone in view.zones for card in zone.cards}
                assert shown == census.view_for(viewer, game.phase, game.to_move).card_ids()
        await _stop(watching)
        await eventually(lambda: not live.watchers, what="the stream to end")
        variant.rendered.clear()
        for token in tokens:
            await client.view(table_id, token)
        assert variant.rendered == [-1, -1, -1]


async def test_a_watched_table_lets_its_views_go_once_its_streams_have_them(
        tmp_path: Path) -> None:
    """A table waiting for a move keeps no views, though every seat still watches: they go
    ``--views-kept-seconds`` after the version that made them; the streams stay open, a
    view asked for then is rendered again and is the one the streams were sent, and the
    next move keeps (and later lets go) its own."""
    variant = CountedCard()
    async with serving(tmp_path, variant, views_kept_seconds=0.2) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        table_id, first, second = await two_seats(client, stacked_shoe=STACK)
        streams: list[list[pb.WatchTableResponse]] = [[], []]
        tasks = [asyncio.create_task(collect(client, table_id, token, seen))
                 for token, seen in zip((first.token, second.token), streams, strict=True)]
        await eventually(lambda: all(len(seen) == STARTED for seen in streams),
                         what="the backlogs")
        live = await server.manager.table(table_id)
        answer = await _first_legal_move(client, table_id, first, second)
        await eventually(_at(streams, answer.version), what="the move")
        assert live.view_cache.at == answer.version
        await eventually(lambda: not live.view_cache.views and live.view_cache.at == -1,
                         what="the views to be let go")
        assert live.watchers and all(not task.done() for task in tasks)
        variant.rendered.clear()
        again = await client.view(table_id, first.token)
        assert again == streams[0][-1].view and variant.rendered == [0]
        assert set(live.view_cache.views) == {0}  # kept again, for as long
        await eventually(lambda: not live.view_cache.views, what="the view to be let go")
        for task in tasks:
            await _stop(task)


async def test_the_sweep_of_kept_views_looks_only_at_tables_that_keep_some(
        tmp_path: Path) -> None:
    """Tables waiting for a move (most of them) cost the sweep of kept views nothing: it reads
    the versions kept since, oldest first, not every table in memory (a walk stalled the loop
    ~10-40 ms a pass at 100k tables). Only the table that moved is noted, and its views go."""
    variant = CountedCard()
    async with serving(tmp_path, variant, views_kept_seconds=0.3) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        idle = [await two_seats(client, stacked_shoe=STACK) for _ in range(6)]
        table_id, first, second = await two_seats(client, stacked_shoe=STACK)
        kept = server.manager.repo._kept  # the sweep's queue itself
        tables = [await server.manager.table(table_id) for table_id, _, _ in idle]
        seen: list[pb.WatchTableResponse] = []
        task = asyncio.create_task(collect(client, table_id, first.token, seen))
        await eventually(lambda: len(seen) == STARTED, what="the backlog")
        live = await server.manager.table(table_id)
        await eventually(lambda: not kept and live.view_cache.at == -1,
                         what="the views of the joins and the backlog to be let go")
        answer = await _first_legal_move(client, table_id, first, second)
        assert kept and {id(cache) for _, cache, _ in kept} == {id(live.view_cache)}
        await eventually(lambda: bool(seen) and seen[-1].version == answer.version,
                         what="the move")
        await eventually(lambda: not kept and live.view_cache.at == -1,
                         what="the move's views to go")
        assert all(table.view_cache.at == -1 for table in tables)
        await _stop(task)


async def test_views_go_while_the_store_fails_the_turn_clocks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The housekeeping lets views go before it asks the store anything: a store that fails
    every look for due turn clocks (a sqlite file that errs) must not keep them kept."""
    variant = CountedCard()
    async with serving(tmp_path, variant, views_kept_seconds=0.05) as (server, store), \
            AsyncTableClient(server.address, retries=0) as client:
        async def failing(*args: object) -> list[tuple[str, int]]:
            raise StoreError("injected failure")

        monkeypatch.setattr(store, "due_deadlines", failing)
        table_id, first, _ = await two_seats(client, stacked_shoe=STACK)
        seen: list[pb.WatchTableResponse] = []
        task = asyncio.create_task(collect(client, table_id, first.token, seen))
        await eventually(lambda: len(seen) == STARTED, what="the backlog")
        live = await server.manager.table(table_id)
        assert live.watchers
        await eventually(lambda: live.view_cache.at == -1, timeout=5.0,
                         what="the views to be let go")
        await _stop(task)


async def test_views_stay_while_a_stream_has_not_taken_its_update(tmp_path: Path) -> None:
    """A server too busy to send a version's updates within ``--views-kept-seconds`` keeps
    that version's views until its streams have taken them (else each stream would render
    anew what they share, more work for a server already behind); then they go."""
    variant = CountedCard()
    async with serving(tmp_path, variant, views_kept_seconds=0.05) as (server, _), \
            AsyncTableClient(server.address, retries=0) as client:
        table_id, first, second = await two_seats(client, stacked_shoe=STACK)
        stream = cast(AsyncGenerator[Any, None], server.manager.watch(table_id, first.token, 0))
        for _ in range(STARTED):  # the backlog; then the stream waits on its queue, unread
            await anext(stream)
        live = await server.manager.table(table_id)
        answer = await _first_legal_move(client, table_id, first, second)
        await asyncio.sleep(0.3)  # six windows, and the stream has not taken the update
        assert live.view_cache.at == answer.version and live.view_cache.views
        update = await anext(stream)
        assert update.version == answer.version
        await eventually(lambda: live.view_cache.at == -1, what="the views to go")
        await stream.aclose()
