"""The server on a multi-host URL (what a pg_auto_failover formation gives): it reaches the
host that takes writes, a connection lost or left unusable costs one retryable error, and a
watch stream the store cuts says where to resume."""

from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import start_server
from bezique.service.store import LogEntry, StoreError, TableResult, postgres
from bezique.service.store.memory import MemoryStore
from bezique.service.store.postgres import PostgresStore
from tests.helpers import details, highcard_registry, server_config
from tests.replicas.helpers import KEY, open_table


def _dead_port() -> int:
    """A loopback port nothing listens on (a lost primary answers like this)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def multi_host(url: str) -> str:
    """``url`` behind a first host that is down, asking for the host that takes writes."""
    parts = urlsplit(url)
    netloc = f"{parts.username}@127.0.0.1:{_dead_port()},127.0.0.1:{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc, query="target_session_attrs=read-write"))


async def test_the_server_plays_on_a_multi_host_url_whose_first_host_is_down(
        postgres_url: str) -> None:
    servers = [await start_server(server_config(store=multi_host(postgres_url)),
                                  highcard_registry()) for _ in range(2)]
    try:
        async with AsyncTableClient(servers[0].address) as first, \
                AsyncTableClient(servers[1].address) as second:
            table_id, seats = await open_table(first)
            mine = await second.view(table_id, seats[0].token)  # read on the other replica
            assert mine.version == (await first.view(table_id)).version >= 3
    finally:
        for server in servers:
            await server.stop()


async def test_a_connection_asyncpg_gave_up_on_costs_one_retryable_error(
        postgres_url: str) -> None:
    store = PostgresStore(multi_host(postgres_url), pool_size=1)
    await store.open()
    try:
        async def cut_short(conn: asyncpg.Connection) -> None:
            # what a call cut short mid-protocol as its primary died leaves behind
            raise asyncpg.InternalClientError("cannot switch to state 12; another operation "
                                              "(2) is in progress")

        with pytest.raises(StoreError, match="unavailable"):
            await store._run("probe", cut_short)
        assert await store.load_table("nope") is None  # a fresh connection serves the next
    finally:
        await store.close()


class LosingStore(MemoryStore):
    """A store whose reads fail while ``lost`` is set, as PostgreSQL's do while a standby is
    being promoted."""

    def __init__(self) -> None:
        super().__init__()
        self.lost = False

    async def read_log(self, table_id: str, after_version: int = 0,
                       limit: int | None = None) -> list[LogEntry]:
        if self.lost:
            raise StoreError("read log: PostgreSQL unavailable (ConnectionRefusedError)")
        return await super().read_log(table_id, after_version, limit)

    async def read_results(self, after: int = 0, limit: int = 100) -> list[TableResult]:
        if self.lost:
            raise StoreError("read results: PostgreSQL unavailable (ConnectionRefusedError)")
        return await super().read_results(after, limit)


async def test_a_stream_the_store_cuts_says_where_to_resume() -> None:
    store = LosingStore()
    server = await start_server(server_config(api_key=KEY), highcard_registry(), store=store)
    try:
        async with AsyncTableClient(server.address, api_key=KEY, retries=0) as client:
            table_id, _ = await open_table(client)
            store.lost = True
            with pytest.raises(grpc.aio.AioRpcError) as cut:
                async for _ in client.watch(table_id, None, 1, resume=False):
                    pass
            assert cut.value.code() == grpc.StatusCode.UNAVAILABLE
            assert details(cut.value)["reason"] == "STORE_UNAVAILABLE"
            assert details(cut.value)["metadata"] == {"resume_from": "1"}
            with pytest.raises(grpc.aio.AioRpcError) as cut:
                async for _ in client.watch_results(0, resume=False):
                    pass
            assert details(cut.value)["metadata"] == {"resume_from": "0"}
            store.lost = False  # the resume point serves once the store is back
            async for update in client.watch(table_id, None, 1, resume=False):
                assert update.version == 2
                break
    finally:
        await server.stop()


async def test_a_first_host_that_never_answers_costs_only_its_own_timeout(
        postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dead machine sends no reset: its port takes the connection and says nothing. The
    next host must still be tried (asyncpg's one timeout for all hosts would not)."""
    monkeypatch.setattr(postgres, "CONNECT_TIMEOUT", 1.0)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)  # the kernel completes handshakes; nobody ever answers
        parts = urlsplit(postgres_url)
        hosts = f"127.0.0.1:{silent.getsockname()[1]},127.0.0.1:{parts.port}"
        url = urlunsplit(parts._replace(netloc=f"{parts.username}@{hosts}",
                                        query="target_session_attrs=read-write"))
        store = PostgresStore(url, pool_size=2)
        started = time.monotonic()
        await store.open()
        try:
            assert await store.load_table("nope") is None
            assert time.monotonic() - started < 20
        finally:
            await store.close()
