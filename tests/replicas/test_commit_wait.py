"""A commit waiting for its synchronous standby is never cut short by the server: cancelling
that wait (a cancel request, as a client's deadline or a statement timeout would send) makes
PostgreSQL commit it locally, and a retry would then be told the move was taken although no
standby has it, to be lost at the next failover.

The standby here is one that never answers (``synchronous_standby_names`` naming a ghost), so
every commit waits until the test takes the setting back; the private cluster of the test
session is restored after each test.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient, SeatHandle, auth_metadata
from bezique.service.server import RunningServer, start_server
from bezique.service.store import postgres
from bezique.v1 import table_service_pb2 as pb
from tests.conftest import _admin, run_in_thread
from tests.helpers import highcard_registry, server_config
from tests.replicas.helpers import open_table


@pytest.fixture
def ghost_standby(postgres_cluster: object) -> Iterator[None]:
    """Until the test ends, every commit of the cluster waits for a standby that never comes
    (the setting is taken back afterwards, which lets the waiting commits through)."""
    base: str = postgres_cluster.url  # type: ignore[attr-defined]
    yield None
    run_in_thread(_admin(base, "ALTER SYSTEM RESET synchronous_standby_names"))
    run_in_thread(_admin(base, "SELECT pg_reload_conf()"))


async def _wait_for_ghost(base: str, on: bool) -> None:
    await _admin(base, "ALTER SYSTEM SET synchronous_standby_names = 'ghost'" if on
                 else "ALTER SYSTEM RESET synchronous_standby_names")
    await _admin(base, "SELECT pg_reload_conf()")
    await asyncio.sleep(0.3)  # every backend rereads its settings


@pytest.fixture
async def server(postgres_url: str) -> AsyncIterator[RunningServer]:
    running = await start_server(server_config(store=postgres_url), highcard_registry())
    yield running
    await running.stop()


async def _stored_version(url: str, table_id: str) -> int:
    conn = await asyncpg.connect(url)
    try:
        return int(await conn.fetchval("SELECT version FROM tables WHERE table_id = $1",
                                       table_id))
    finally:
        await conn.close()


async def _next_move(client: AsyncTableClient, table_id: str, seats: list[SeatHandle]
                     ) -> tuple[SeatHandle, pb.SubmitMoveRequest]:
    view = await client.view(table_id)
    while not view.to_move:  # the reveal round ends
        await asyncio.sleep(0.05)
        view = await client.view(table_id)
    seat = seats[view.to_move[0]]
    own = await client.view(table_id, seat.token)
    return seat, pb.SubmitMoveRequest(table_id=table_id, move=own.legal_moves[0],
                                      expected_version=own.version,
                                      request_id=uuid.uuid4().hex)


async def _never_visible(url: str, table_id: str, version: int, seconds: float) -> None:
    """The stored version stays ``version`` for ``seconds`` (the move is not committed)."""
    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    while loop.time() < until:
        assert await _stored_version(url, table_id) == version, (
            "a commit still waiting for its standby was cut short and committed locally")
        await asyncio.sleep(0.1)


async def _then_taken_once(client: AsyncTableClient, url: str, seat: SeatHandle,
                           request: pb.SubmitMoveRequest, base: str) -> None:
    """Once the standby setting is taken back, the waiting commit goes through, and the
    retry gets its first answer."""
    await _wait_for_ghost(base, on=False)

    for _ in range(100):
        if await _stored_version(url, request.table_id) == request.expected_version + 1:
            break
        await asyncio.sleep(0.1)
    again = await client.stub.SubmitMove(request, metadata=auth_metadata(seat.token),
                                         timeout=10)
    assert again.duplicate and again.version == request.expected_version + 1


async def _cut_short(client: AsyncTableClient, url: str, base: str, timeout: float,
                     code: grpc.StatusCode) -> None:
    """A move whose commit waits for the ghost standby, its call ended after ``timeout``
    with ``code``: never shown until the standby setting is taken back, then taken once."""
    table_id, seats = await open_table(client)
    seat, request = await _next_move(client, table_id, seats)
    await _wait_for_ghost(base, on=True)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.stub.SubmitMove(request, metadata=auth_metadata(seat.token),
                                     timeout=timeout)
    assert caught.value.code() == code
    await _never_visible(url, table_id, request.expected_version, 1.5)
    await _then_taken_once(client, url, seat, request, base)


async def test_a_callers_deadline_never_cuts_a_commits_standby_wait_short(
        server: RunningServer, postgres_url: str, postgres_cluster: Any,
        ghost_standby: None) -> None:
    async with AsyncTableClient(server.address, retries=0) as client:
        await _cut_short(client, postgres_url, postgres_cluster.url, 0.5,
                         grpc.StatusCode.DEADLINE_EXCEEDED)


async def test_the_stores_statement_timeout_never_cuts_a_commits_standby_wait_short(
        postgres_url: str, postgres_cluster: Any, ghost_standby: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's own timeout ends the call (the caller is told UNAVAILABLE, the outcome
    unknown) by dropping the connection, never by a cancel request."""
    monkeypatch.setattr(postgres, "COMMAND_TIMEOUT", 0.5, raising=False)
    create_pool = asyncpg.create_pool

    def short(*args: Any, **kwargs: Any) -> Any:  # a store that would cancel at its timeout
        if kwargs.get("command_timeout"):
            kwargs["command_timeout"] = 0.5
        return create_pool(*args, **kwargs)

    monkeypatch.setattr(asyncpg, "create_pool", short)
    running = await start_server(server_config(store=postgres_url), highcard_registry())
    try:
        async with AsyncTableClient(running.address, retries=0) as client:
            await _cut_short(client, postgres_url, postgres_cluster.url, 10,
                             grpc.StatusCode.UNAVAILABLE)
    finally:
        await running.stop()
