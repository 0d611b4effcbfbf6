"""Helpers of the security tests (the certificates they make are in tests/security/certs.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import highcard_registry, server_config


def tampered(history: pb.GetHistoryResponse) -> pb.GetHistoryResponse:
    """A copy of ``history`` for a test to forge; the original stays as the server sent it."""
    copy = pb.GetHistoryResponse()
    copy.CopyFrom(history)
    return copy


@dataclass
class TwoAddresses:
    server: RunningServer
    stranger: AsyncTableClient
    """Calls from 127.0.0.1."""
    other: AsyncTableClient
    """Calls from ::1: another address."""


async def two_addresses(**settings: object) -> AsyncIterator[TwoAddresses]:
    """A dual-stack server and a client from each of two addresses (127.0.0.1 and ::1)."""
    server = await start_server(server_config(address="[::]:0", **settings),
                                highcard_registry())
    try:
        async with AsyncTableClient(f"127.0.0.1:{server.port}", retries=0) as stranger, \
                AsyncTableClient(f"[::1]:{server.port}", retries=0) as other:
            yield TwoAddresses(server, stranger, other)
    finally:
        await server.stop()
