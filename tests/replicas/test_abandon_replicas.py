"""Abandoned tables across two replicas on one PostgreSQL: a seat whose stream is open on one
replica keeps its table from the other replica's abandon sweep (connected seats are recorded in
the store), and once nobody is connected anywhere the table ends exactly once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

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
