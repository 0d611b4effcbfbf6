"""Abandoned tables end (--abandon-after, --abandon-unstarted-after), over a real port with small
windows: a table with no move and no connected seat ends with the outcome ``abandoned`` through
the command path (an ``aborted`` entry, settled as an abort: stakes returned), leaves the lobby,
reaches the results feed and verifies; a seat with a stream open keeps its table."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.clients.verify import verify_history
from bezique.service.server import start_server
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.registry import Registry, load_registry
from tests.helpers import server_config, until

KEY = "k" * 24
STARTED_WINDOW = 1.5
UNSTARTED_WINDOW = 0.4


def games_registry() -> Registry:
    from bezique.variants.quart import plugin as quart
    from bezique_highcard import plugin as highcard

    return load_registry(entry_points=False, plugins=[highcard, quart])


@pytest.fixture(params=["memory", "sqlite"])
async def admin(request: pytest.FixtureRequest, tmp_path: Path
                ) -> AsyncIterator[AsyncTableClient]:
    store = "memory:" if request.param == "memory" else f"sqlite:{tmp_path / 'store.sqlite'}"
    server = await start_server(server_config(
        store=store, api_key=KEY, abandon_after=STARTED_WINDOW,
        abandon_unstarted_after=UNSTARTED_WINDOW), games_registry())
    try:
        async with AsyncTableClient(server.address, api_key=KEY, retries=0) as client:
            yield client
    finally:
        await server.stop()


async def listed(client: AsyncTableClient) -> set[str]:
    return {table.table_id for table in await client.list_tables()}


async def ended(client: AsyncTableClient, table_id: str) -> pb.View:
    return await until(lambda: client.view(table_id), lambda view: view.HasField("outcome"),
                       f"table {table_id} to end", timeout=15)


async def test_an_unstarted_table_ends_after_its_short_window_and_leaves_the_lobby(
        admin: AsyncTableClient) -> None:
    waiting = await admin.create_table("highcard", {"players": 2})
    started = await admin.create_table("highcard", {"players": 2})
    for name in ("ann", "bob"):
        await admin.join(started.table_id, name=name, commit=False)
    assert {waiting.table_id, started.table_id} <= await listed(admin)
    view = await ended(admin, waiting.table_id)
    assert view.outcome.reason == "abandoned" and view.phase == "aborted"
    found = await listed(admin)
    assert waiting.table_id not in found
    assert started.table_id in found  # its game started: the longer window applies
    history = await admin.history(waiting.table_id)
    assert (history.entries[-1].entry_kind, history.entries[-1].reason) == ("aborted",
                                                                            "abandoned")
    assert verify_history(history, games_registry()).aborted
    (result,) = [r async for r in _results(admin, 1)]
    assert (result.table_id, result.reason) == (waiting.table_id, "abandoned")


async def test_a_started_table_with_a_connected_seat_does_not_end(
        admin: AsyncTableClient) -> None:
    table = await admin.create_table("highcard", {"players": 2})
    ann = await admin.join(table.table_id, name="ann", commit=False)
    await admin.join(table.table_id, name="bob", commit=False)
    updates: list[pb.WatchTableResponse] = []

    async def watch() -> None:
        async for update in admin.watch(table.table_id, ann.token):
            updates.append(update)

    stream = asyncio.create_task(watch())
    try:
        await asyncio.sleep(STARTED_WINDOW * 3)
        assert not (await admin.view(table.table_id)).HasField("outcome")
        assert table.table_id in await listed(admin)
    finally:
        stream.cancel()
        await asyncio.gather(stream, return_exceptions=True)
    assert updates  # the stream was open all along
    # the seat gone, nobody moves: the table ends one window later
    view = await ended(admin, table.table_id)
    assert view.outcome.reason == "abandoned"
    assert verify_history(await admin.history(table.table_id), games_registry()).aborted


async def test_a_play_stream_keeps_its_table(admin: AsyncTableClient) -> None:
    table = await admin.create_table("highcard", {"players": 2})
    ann = await admin.join(table.table_id, name="ann", commit=False)
    await admin.join(table.table_id, name="bob", commit=False)
    async with admin.play(ann) as session:
        await asyncio.sleep(STARTED_WINDOW * 3)
        assert not (await admin.view(table.table_id)).HasField("outcome")
        assert session.last > 0  # the stream was open and sent the table
    assert (await ended(admin, table.table_id)).outcome.reason == "abandoned"


async def test_a_spectator_does_not_keep_a_table(admin: AsyncTableClient) -> None:
    table = await admin.create_table("highcard", {"players": 2})
    for name in ("ann", "bob"):
        await admin.join(table.table_id, name=name, commit=False)

    async def watch() -> None:
        async for _ in admin.watch(table.table_id):
            pass

    stream = asyncio.create_task(watch())
    try:
        assert (await ended(admin, table.table_id)).outcome.reason == "abandoned"
    finally:
        stream.cancel()
        await asyncio.gather(stream, return_exceptions=True)


async def test_an_abandoned_quart_table_gives_the_buy_ins_back(
        admin: AsyncTableClient) -> None:
    table = await admin.create_table("quart-bezique", {"players": 3, "ante": 10})
    buy_ins = [150, 300, 220]
    for index, (name, chips) in enumerate(zip(("ann", "bob", "cid"), buy_ins, strict=True)):
        await admin.join(table.table_id, name=name, commit=False, player_id=f"p{index}",
                         buy_in=chips)
    assert (await admin.view(table.table_id)).pot == 30  # the antes of the first deal
    view = await ended(admin, table.table_id)
    assert view.outcome.reason == "abandoned" and not view.outcome.winners
    assert list(view.outcome.scores) == buy_ins and view.pot == 0
    history = await admin.history(table.table_id)
    returned = [e for e in history.entries[-1].events if e.kind == "stake_returned"]
    assert sorted(e.amount for e in returned) == [10, 10, 10]
    verified = verify_history(history, games_registry())
    assert verified.aborted and verified.moves == 0
    (result,) = [r async for r in _results(admin, 1)]
    assert result.reason == "abandoned"
    assert [s.chip_change for s in result.seats] == [0, 0, 0]


async def _results(client: AsyncTableClient, count: int) -> AsyncIterator[pb.TableResult]:
    got = 0
    async with asyncio.timeout(10):
        async for result in client.watch_results(0):
            yield result
            got += 1
            if got == count:
                return
