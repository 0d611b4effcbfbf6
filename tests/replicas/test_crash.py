"""Nothing acknowledged is lost: SIGKILL of the server (sqlite and postgres), and a PostgreSQL
restart under load."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import start_server
from tests.helpers import (
    ServerProcess,
    eventually,
    highcard_registry,
    server_config,
    spawn_server,
)
from tests.replicas.helpers import Ledger, check_nothing_lost, open_tables, start_players


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_sigkill_loses_no_acknowledged_move(
        backend: str, tmp_path: Path, request: pytest.FixtureRequest,
        server_process_factory: list[ServerProcess]) -> None:
    store = (f"sqlite:{tmp_path / 'crash.sqlite'}" if backend == "sqlite"
             else request.getfixturevalue("postgres_url"))
    first = spawn_server("--store", store, "--bot-delay", "0")
    server_process_factory.append(first)
    ledger = Ledger()
    async with AsyncTableClient(first.address, retries=0, timeout=5) as client:
        tables = await open_tables(client, 6)
        stop = asyncio.Event()
        players = await start_players(client, tables, ledger, stop, acked=40)
        first.process.kill()  # SIGKILL, mid-game
        await eventually(lambda: ledger.errors.get("UNAVAILABLE", 0) >= 1,
                         what="a player to find the server gone")
        stop.set()
        await asyncio.gather(*players, return_exceptions=True)
    first.process.wait(timeout=10)
    assert ledger.acked and ledger.errors.get("UNAVAILABLE", 0) >= 1
    second = spawn_server("--store", store)
    server_process_factory.append(second)
    async with AsyncTableClient(second.address, retries=0) as client:
        before = [await client.view(t, s[0].token) for t, s in tables]
        await check_nothing_lost(client, ledger, tables)
    second.kill()
    third = spawn_server("--store", store)  # replaying the log again gives the same state
    server_process_factory.append(third)
    async with AsyncTableClient(third.address, retries=0) as client:
        for (table_id, seats), view in zip(tables, before, strict=True):
            again = await client.view(table_id, seats[0].token)
            assert again.version >= view.version


async def test_a_postgres_restart_under_load_costs_only_retryable_errors(
        postgres_url: str, postgres_cluster: object) -> None:
    server = await start_server(server_config(store=postgres_url), highcard_registry())
    ledger = Ledger()
    try:
        async with AsyncTableClient(server.address, retries=8, backoff=0.1) as client:
            tables = await open_tables(client, 4)
            stop = asyncio.Event()
            players = await start_players(client, tables, ledger, stop, acked=20)
            await asyncio.to_thread(postgres_cluster.restart)  # type: ignore[attr-defined]
            results = await asyncio.wait_for(asyncio.gather(*players, return_exceptions=True),
                                             60)
            assert not [r for r in results if isinstance(r, BaseException)], results
            assert set(ledger.errors) <= {"UNAVAILABLE", "ABORTED"}
            await check_nothing_lost(client, ledger, tables)
            for table_id, _ in tables:
                assert (await client.view(table_id)).HasField("outcome")
    finally:
        await server.stop()
