"""Abandoned tables across two replicas on one PostgreSQL: a seat whose stream is open on one
replica keeps its table from the other replica's abandon sweep (connected seats are recorded in
the store), and once nobody is connected anywhere the table ends exactly once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import RunningServer, start_server
from tests.helpers import highcard_registry, server_config, until

WINDOW = 1.0


@pytest.fixture
async def sweeping(postgres_url: str) -> AsyncIterator[list[RunningServer]]:
    servers = [await start_server(server_config(store=postgres_url, abandon_after=WINDOW,
                                                abandon_unstarted_after=WINDOW),
                                  highcard_registry()) for _ in range(2)]
    yield servers
    for server in servers:
        await server.stop()


async def test_a_seat_connected_to_another_replica_keeps_its_table(
        sweeping: list[RunningServer]) -> None:
    async with AsyncTableClient(sweeping[0].address, retries=0) as a, \
            AsyncTableClient(sweeping[1].address, retries=0) as b:
        table = await a.create_table("highcard", {"players": 2})
        ann = await a.join(table.table_id, name="ann", commit=False)
        await a.join(table.table_id, name="bob", commit=False)

        async def watch() -> None:
            async for _ in b.watch(table.table_id, ann.token):
                pass

        stream = asyncio.create_task(watch())  # ann is connected to replica b only
        try:
            await asyncio.sleep(WINDOW * 4)
            assert not (await a.view(table.table_id)).HasField("outcome")
        finally:
            stream.cancel()
            await asyncio.gather(stream, return_exceptions=True)
        view = await until(lambda: a.view(table.table_id), lambda v: v.HasField("outcome"),
                           "the table to end", timeout=20)
        assert view.outcome.reason == "abandoned"
        history = await b.history(table.table_id)
        assert [e.reason for e in history.entries if e.entry_kind == "aborted"] == ["abandoned"]


@pytest.fixture
async def slow_sweeping(postgres_url: str) -> AsyncIterator[list[RunningServer]]:
    """Two replicas whose own sweeps are a minute apart: the test runs them itself."""
    servers = [await start_server(server_config(store=postgres_url, abandon_after=1000.0,
                                                abandon_unstarted_after=1000.0),
                                  highcard_registry()) for _ in range(2)]
    yield servers
    for server in servers:
        await server.stop()


async def test_a_seat_that_just_connected_to_another_replica_keeps_its_table(
        slow_sweeping: list[RunningServer], postgres_url: str) -> None:
    """A seat that comes back to a table idle for nearly its window keeps it at once, not
    only from its replica's next sweep (up to a minute later): the other replica's sweep in
    between must see it connected."""
    async with AsyncTableClient(slow_sweeping[0].address, retries=0) as a, \
            AsyncTableClient(slow_sweeping[1].address, retries=0) as b:
        table = await a.create_table("highcard", {"players": 2})
        ann = await a.join(table.table_id, name="ann", commit=False)
        await a.join(table.table_id, name="bob", commit=False)
        conn = await asyncpg.connect(postgres_url)
        try:  # the table's last entry is from longer ago than its window
            await conn.execute("UPDATE log SET created_at = created_at - 5000 "
                               "WHERE table_id = $1", table.table_id)
            await conn.execute("UPDATE tables SET created_at = created_at - 5000 "
                               "WHERE table_id = $1", table.table_id)
        finally:
            await conn.close()
        opened = asyncio.Event()

        async def watch() -> None:
            async for _ in b.watch(table.table_id, ann.token):
                opened.set()

        stream = asyncio.create_task(watch())  # ann comes back, to replica b
        try:
            await asyncio.wait_for(opened.wait(), 10)
            assert await slow_sweeping[0].manager.sweep_abandoned() == 0
            assert not (await a.view(table.table_id)).HasField("outcome")
        finally:
            stream.cancel()
            await asyncio.gather(stream, return_exceptions=True)
