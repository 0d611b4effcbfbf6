"""Token life cycles and join grants across two replicas on one PostgreSQL: a reissue on one
replica revokes the old token on the other and ends its streams there; an expiry written by
one replica holds on the other whatever its own setting; a grant used on one replica is
refused on the other, also when both are tried at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import RunningServer, start_server
from tests.helpers import details, highcard_registry, server_config
from tests.service.helpers import STACK, expect_error, grant, public_pem, stream_end, two_seats

KEY = "platform-key"
SIGNER = ed25519.Ed25519PrivateKey.generate()


@pytest.fixture
async def pair(postgres_url: str, tmp_path: Path
               ) -> AsyncIterator[tuple[AsyncTableClient, AsyncTableClient]]:
    """Replica A issues tokens valid for 3 s; replica B has no TTL of its own."""
    pem = public_pem(SIGNER, tmp_path)
    servers: list[RunningServer] = [
        await start_server(server_config(store=postgres_url, api_key=KEY, seat_token_ttl=ttl,
                                         grant_public_key=pem), highcard_registry())
        for ttl in (3.0, 0.0)]
    async with AsyncTableClient(servers[0].address, api_key=KEY, retries=0) as a, \
            AsyncTableClient(servers[1].address, api_key=KEY, retries=0) as b:
        yield a, b
    for server in servers:
        await server.stop()


async def test_a_reissue_on_one_replica_revokes_on_the_other(
        pair: tuple[AsyncTableClient, AsyncTableClient]) -> None:
    a, b = pair
    table_id, ann, _ = await two_seats(b, stacked_shoe=STACK)  # tokens without expiry (B)
    assert ann.expires is None
    watching = asyncio.Event()
    stream = asyncio.create_task(stream_end(b, ann, watching))  # streamed by B
    await asyncio.wait_for(watching.wait(), 10)
    new = await a.reissue(table_id, ann.seat)  # committed by A
    error = await asyncio.wait_for(stream, 20)
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert details(error)["reason"] == "SEAT_TOKEN_REVOKED"
    refused = await expect_error(grpc.StatusCode.PERMISSION_DENIED, b.view(table_id, ann.token))
    assert details(refused)["reason"] == "SEAT_TOKEN_REVOKED"
    assert (await b.view(table_id, new.token)).viewer_seat == ann.seat
    assert new.expires is not None  # A's TTL, written into the entry


async def test_an_expiry_written_by_one_replica_holds_on_the_other(
        pair: tuple[AsyncTableClient, AsyncTableClient]) -> None:
    a, b = pair
    table = await a.create_table("highcard", {"players": 2}, stacked_shoe=STACK)
    ann = await a.join(table.table_id, 0, "ann")
    assert ann.expires is not None
    watching = asyncio.Event()
    stream = asyncio.create_task(stream_end(b, ann, watching))  # B has no TTL of its own
    await asyncio.wait_for(watching.wait(), 10)
    assert time.time() < ann.expires
    error = await asyncio.wait_for(stream, 20)
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert details(error)["reason"] == "SEAT_TOKEN_EXPIRED"
    refused = await expect_error(grpc.StatusCode.UNAUTHENTICATED,
                                 b.view(table.table_id, ann.token))
    assert details(refused)["reason"] == "SEAT_TOKEN_EXPIRED"


async def test_a_grant_is_used_once_across_replicas(
        pair: tuple[AsyncTableClient, AsyncTableClient]) -> None:
    a, b = pair
    table = await a.create_table("highcard", {"players": 4})
    await b.view(table.table_id)  # B holds the table before the grant is used on A
    token = grant(SIGNER, "EdDSA", table.table_id)
    await a.join(table.table_id, grant=token)
    refused = await expect_error(grpc.StatusCode.PERMISSION_DENIED,
                                 b.join(table.table_id, grant=token))
    assert details(refused)["reason"] == "GRANT_REPLAYED"
    for _ in range(3):  # the same grant on both replicas at once: one seat at most
        other = await a.create_table("highcard", {"players": 4})
        token = grant(SIGNER, "EdDSA", other.table_id)
        await asyncio.gather(a.view(other.table_id), b.view(other.table_id))
        results = await asyncio.gather(a.join(other.table_id, grant=token),
                                       b.join(other.table_id, grant=token),
                                       return_exceptions=True)
        joined = [r for r in results if not isinstance(r, BaseException)]
        assert len(joined) == 1, results
        for failure in results:
            if isinstance(failure, grpc.aio.AioRpcError):
                assert details(failure)["reason"] in ("GRANT_REPLAYED", "STALE_VERSION")
        view = await a.view(other.table_id)
        assert sum(s.occupied for s in view.seats) == len(joined)
