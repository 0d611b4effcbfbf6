"""Helpers of the server tests, shared by every subject that drives a highcard table over a
real port: a stacked shoe, a two-seat table, a game played out, the error a call must fail
with, a stream's last error, an in-process server with its client, and a server process that
must not start."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import ROOT, SERVER, highcard_registry, server_config

STACK = ["AS", "7S", "KH", "8H", "QD", "9D"] + [
    c for c in (r + s for s in "SHDC" for r in "789TJQKA")
    if c not in {"AS", "7S", "KH", "8H", "QD", "9D"}]
"""A stacked shoe for highcard (2 seats x 3 cards): seat 0 gets AS 7S KH, seat 1 8H QD 9D."""


STARTED = 6
"""The version of the ``started`` entry at a ``two_seats`` table: created, two joins and, since
the SDK commits to each seat's entropy, two reveals (made by the SDK once both seats are in)."""


async def two_seats(client: AsyncTableClient, *, entropy: bytes | None = None,
                    **create: object) -> tuple[str, SeatHandle, SeatHandle]:
    """A two-seat highcard table, both seats joined (each with fresh entropy unless given)."""
    table = await client.create_table("highcard", {"players": 2}, **create)  # type: ignore[arg-type]
    first = await client.join(table.table_id, name="ann", entropy=entropy)
    second = await client.join(table.table_id, name="bob", entropy=entropy)
    return table.table_id, first, second


async def collect(client: AsyncTableClient, table_id: str, token: str | None,
                  into: list[pb.WatchTableResponse], *, resume: bool = False) -> None:
    """Every update of a stream from version 0 into ``into``, until it ends."""
    async for update in client.watch(table_id, token, 0, resume=resume):
        into.append(update)


async def expect_error(code: grpc.StatusCode, awaitable: object) -> grpc.aio.AioRpcError:
    """The error ``awaitable`` fails with, after checking its code and that it says why."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await awaitable  # type: ignore[misc]
    assert caught.value.code() == code, caught.value.details()
    assert caught.value.details()
    return caught.value


async def play_out(client: AsyncTableClient, table_id: str, *seats: SeatHandle) -> pb.View:
    """Play the first legal move of whichever seat is to move until the game ends."""
    by_seat = {s.seat: s for s in seats}
    view = await client.view(table_id)
    while not view.HasField("outcome"):
        seat = by_seat[view.to_move[0]]
        own = await client.view(table_id, seat.token)
        view = (await client.submit(seat, own.legal_moves[0], own.version)).view
    return view


async def stream_end(client: AsyncTableClient, seat: SeatHandle,
                     started: asyncio.Event | None = None) -> grpc.aio.AioRpcError:
    """Watch as ``seat`` until the stream fails; the error it ends with."""
    try:
        async for _ in client.watch(seat.table_id, seat.token, resume=False):
            if started is not None:
                started.set()
    except grpc.aio.AioRpcError as error:
        return error
    raise AssertionError("the stream ended without an error")


SMALL_WINDOW = [("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)]
"""Options of a client channel whose flow-control window a few updates fill."""


async def slow_table(server: RunningServer, client: AsyncTableClient
                     ) -> tuple[str, dict[int, SeatHandle]]:
    """A two-seat highcard table of 8 cards a hand (its id, its seats by number), on a server
    whose watch queues hold 2 updates: a stream whose client reads nothing falls behind
    after a few moves."""
    hub = server.manager.hub
    hub.limits = dataclasses.replace(hub.limits, watch_queue=2)
    table = await client.create_table("highcard", {"players": 2, "hand_size": 8})
    seats = [await client.join(table.table_id, name=name) for name in ("ann", "bob")]
    return table.table_id, {seat.seat: seat for seat in seats}


async def watchers(server: RunningServer, table_id: str) -> int:
    """The watchers the table has (one per open stream on it, until the hub lets it go)."""
    async with server.manager.repo.hold(table_id) as live:
        return len(live.watchers)


@asynccontextmanager
async def serving(**overrides: object) -> AsyncIterator[tuple[RunningServer, AsyncTableClient]]:
    """An in-process server (``server_config`` with ``overrides``) and a client of it."""
    server = await start_server(server_config(**overrides), highcard_registry())
    try:
        async with AsyncTableClient(server.address, retries=0) as client:
            yield server, client
    finally:
        await server.stop()


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without the BEZIQUE_* settings of whoever runs the tests."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BEZIQUE_")}
    env.update({"BEZIQUE_LOG_FORMAT": "json", "BEZIQUE_STORE": "memory:"}, **extra)
    return env


def run_server(*args: str, env: dict[str, str] | None = None) -> tuple[int, list[str]]:
    """Run a server that is expected not to start: its exit status and its stderr lines."""
    done = subprocess.run([SERVER, *args], cwd=ROOT, env=env or clean_env(), text=True,
                          capture_output=True, timeout=60)
    assert "listening on" not in done.stdout
    return done.returncode, done.stderr.strip().splitlines()


def one_line(lines: list[str]) -> str:
    """The one line a server that did not start printed: no traceback, the usual prefix."""
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    assert lines[0].startswith("bezique-server: error: ")
    return lines[0]


# ------------------------------------------------------------------ join grants

KEY = "platform-key"
PrivateKey = ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey
KINDS: dict[str, tuple[Any, str]] = {
    "EdDSA": (lambda: ed25519.Ed25519PrivateKey.generate(), "EdDSA"),
    "ES256": (lambda: ec.generate_private_key(ec.SECP256R1()), "ES256"),
    "RS256": (lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048), "RS256"),
}


def public_pem(key: PrivateKey, folder: Path, name: str = "grant.pub") -> str:
    path = folder / name
    path.write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return str(path)


def grant(key: PrivateKey, algorithm: str, table_id: str, **claims: Any) -> str:
    body: dict[str, Any] = {"table": table_id, "sub": "acct-7", "name": "ann",
                            "exp": int(time.time()) + 60, "jti": uuid.uuid4().hex}
    body.update(claims)
    return jwt.encode({k: v for k, v in body.items() if v is not None}, key,
                      algorithm=algorithm)


class Platform:
    """A server that takes grants signed by ``key``, and a player client with no API key."""

    def __init__(self, server: RunningServer, key: PrivateKey, algorithm: str,
                 player: AsyncTableClient, platform: AsyncTableClient) -> None:
        self.server, self.key, self.algorithm = server, key, algorithm
        self.player, self.platform = player, platform

    def grant(self, table_id: str, **claims: Any) -> str:
        return grant(self.key, self.algorithm, table_id, **claims)


async def platform_of(tmp_path: Path, kind: str, registry: Any = None
                      ) -> AsyncIterator[Platform]:
    make, algorithm = KINDS[kind]
    key = make()
    server = await start_server(server_config(api_key=KEY,
                                              grant_public_key=public_pem(key, tmp_path)),
                                registry or highcard_registry())
    async with AsyncTableClient(server.address, retries=0) as player, \
            AsyncTableClient(server.address, api_key=KEY, retries=0) as platform:
        yield Platform(server, key, algorithm, player, platform)
    await server.stop()
