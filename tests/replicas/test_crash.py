"""Nothing acknowledged is lost: SIGKILL of the server (sqlite and postgres), and a PostgreSQL
restart under load."""

from __future__ import annotations

import asyncio
import random
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.service.server import start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import (
    ServerProcess,
    eventually,
    highcard_registry,
    server_config,
    spawn_server,
)


@dataclass
class Ledger:
    """What the clients were told: acknowledged moves, and moves whose fate is unknown."""

    acked: dict[str, tuple[str, int]] = field(default_factory=dict)  # request id -> table, version
    unknown: dict[str, tuple[SeatHandle, pb.Move, int]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)


async def play_table(client: AsyncTableClient, table_id: str, seats: list[SeatHandle],
                     ledger: Ledger, stop: asyncio.Event) -> None:
    rng = random.Random(table_id)
    while not stop.is_set():
        try:
            view = await client.view(table_id)
            if view.HasField("outcome"):
                return
            seat = seats[view.to_move[0]]
            own = await client.view(table_id, seat.token)
            move = rng.choice(list(own.legal_moves))
            request_id = uuid.uuid4().hex
            ledger.unknown[request_id] = (seat, move, own.version)
            result = await client.submit(seat, move, own.version, request_id)
            ledger.unknown.pop(request_id)
            ledger.acked[request_id] = (table_id, result.version)
        except grpc.aio.AioRpcError as error:
            name = error.code().name
            ledger.errors[name] = ledger.errors.get(name, 0) + 1
            if error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED,
                                    grpc.StatusCode.DEADLINE_EXCEEDED):
                raise
            await asyncio.sleep(0.05)


async def open_tables(client: AsyncTableClient, count: int
                      ) -> list[tuple[str, list[SeatHandle]]]:
    tables = []
    for _ in range(count):
        table = await client.create_table("highcard", {"players": 4, "hand_size": 8})
        seats = [await client.join(table.table_id) for _ in range(4)]
        tables.append((table.table_id, seats))
    return tables


async def start_players(client: AsyncTableClient, tables: list[tuple[str, list[SeatHandle]]],
                        ledger: Ledger, stop: asyncio.Event, acked: int
                        ) -> list[asyncio.Task[None]]:
    """One player task per table; returns once ``acked`` moves have been acknowledged."""
    players = [asyncio.create_task(play_table(client, t, s, ledger, stop)) for t, s in tables]
    await eventually(lambda: len(ledger.acked) >= acked, 60, "acknowledged moves")
    return players


async def check_nothing_lost(client: AsyncTableClient, ledger: Ledger,
                             tables: list[tuple[str, list[SeatHandle]]]) -> None:
    versions: dict[str, dict[int, str]] = {}
    for table_id, _ in tables:
        history = await client.history(table_id)
        assert [e.version for e in history.entries] == list(range(1, len(history.entries) + 1))
        versions[table_id] = {e.version: e.entry_kind for e in history.entries}
    for table_id, version in ledger.acked.values():
        assert versions[table_id].get(version) == "move", (table_id, version)
    # retrying an acknowledged request after the crash gives the original answer
    for request_id, (table_id, version) in list(ledger.acked.items())[:5]:
        seats = dict(tables)[table_id]
        for seat in seats:
            try:
                again = await client.submit(seat, _any_move(), 0, request_id)
            except grpc.aio.AioRpcError:
                continue
            assert again.duplicate and again.version == version
            break
        else:
            raise AssertionError(f"no seat got the original answer for {request_id}")
    # a request whose answer was lost is applied at most once, whatever the retry says
    for request_id, (seat, move, expected) in ledger.unknown.items():
        try:
            await client.submit(seat, move, expected, request_id)
        except grpc.aio.AioRpcError as error:
            assert error.code() in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)
    for table_id, _ in tables:
        history = await client.history(table_id)
        ids = [e.version for e in history.entries]
        assert len(ids) == len(set(ids))


def _any_move() -> pb.Move:
    return pb.Move(kind="play", cards=[pb.Card(id=0)])


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
