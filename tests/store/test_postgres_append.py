"""The PostgreSQL append on the wire: one round trip, and a NOTIFY only for what committed.

The round trips are counted by a loopback TCP proxy between the store and a real PostgreSQL:
a round trip is a burst the client sends after the server last spoke.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import pytest

from bezique.service.store import (
    LogEntry,
    RequestIdTaken,
    TableRecord,
    TableResult,
    TableState,
    VersionConflict,
)
from bezique.service.store.postgres import CHANNEL, RESULTS_CHANNEL, PostgresStore
from tests.store.helpers import store_listener


class CountingProxy:
    """Forwards one port to another and counts the client's turns to speak."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.turns = 0
        self._server_spoke_last = True
        self._server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter,
                       from_client: bool) -> None:
            with contextlib.suppress(ConnectionError):
                while data := await source.read(65536):
                    if from_client and self._server_spoke_last:
                        self.turns += 1
                    self._server_spoke_last = not from_client
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pipe(reader, up_writer, True), pipe(up_reader, writer, False))


@pytest.fixture
async def proxied(postgres_url: str) -> AsyncIterator[tuple[PostgresStore, CountingProxy]]:
    parts = urlsplit(postgres_url)
    assert parts.port is not None
    proxy = CountingProxy(parts.port)
    await proxy.start()
    netloc = f"{parts.username}@127.0.0.1:{proxy.port}"
    store = PostgresStore(urlunsplit(parts._replace(netloc=netloc)), pool_size=1)
    store.notifier.url = postgres_url  # a notice follows on a connection of its own: not counted
    await store.open()
    yield store, proxy
    await store.close()
    await proxy.close()


def record(table_id: str) -> TableRecord:
    return TableRecord(table_id, "highcard", 1, {"players": 2}, b"s" * 32, "c" * 64, 1.0, 0, {})


def state(version: int, finished: bool = False) -> TableState:
    return TableState(version, "play", 0, finished, [{"name": "a"}], None)


def entry(version: int, request_id: str | None = None) -> LogEntry:
    return LogEntry(version, "move", 1, {"move": {"kind": "play"}}, request_id, float(version))


async def test_an_append_is_one_round_trip(
        proxied: tuple[PostgresStore, CountingProxy]) -> None:
    store, proxy = proxied
    await store.create_table(record("t1"), state(1), [entry(1)])
    await store.append("t1", 1, [entry(2, "a")], state(2))  # prepares the statement
    before = proxy.turns
    await store.append("t1", 2, [entry(3, "b")], state(3))
    assert proxy.turns - before == 1
    before = proxy.turns
    await store.append("t1", 3, [entry(4), entry(5, "c"), entry(6)], state(6))
    assert proxy.turns - before == 1
    assert [e.version for e in await store.read_log("t1")] == [1, 2, 3, 4, 5, 6]


async def test_notifications_only_for_what_committed(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    await store.open()
    listener, heard = await store_listener(postgres_url)
    try:
        await store.create_table(record("t1"), state(1), [entry(1)])
        await store.append("t1", 1, [entry(2, "taken")], state(2))
        with pytest.raises(VersionConflict) as stale:  # a stale version writes nothing
            await store.append("t1", 1, [entry(2)], state(2))
        assert stale.value.current == 2
        with pytest.raises(RequestIdTaken):  # refused whole: no notification either
            await store.append("t1", 2, [entry(3), entry(4, "taken")], state(4))
        with pytest.raises(VersionConflict):  # a stale end stores no result
            await store.append("t1", 1, [entry(2)], state(2, True), TableResult("t1", 2, {}, 1))
        await store.append("t1", 2, [entry(3)], state(3, True), TableResult("t1", 3, {}, 1.0))
        await store.create_table(record("t2"), state(1), [entry(1)])
        async with asyncio.timeout(10):
            while ("bezique_log", "t2:1") not in heard:
                await asyncio.sleep(0.02)
        [result] = await store.read_results()
        # Sent after the commits, coalesced: t1's notices are some of its committed versions,
        # in order, up to the last (never the refused 4); one of the result's cursor.
        told = [int(p.split(":")[1]) for ch, p in heard if ch == CHANNEL and p[:3] == "t1:"]
        assert told == sorted(set(told)) and set(told) <= {1, 2, 3} and told[-1] == 3, heard
        assert [p for ch, p in heard if ch == RESULTS_CHANNEL] == [str(result.cursor)]
        assert [e.version for e in await store.read_log("t1")] == [1, 2, 3]
    finally:
        await listener.close()
        await store.close()


async def test_a_batch_of_appends_is_one_round_trip(
        proxied: tuple[PostgresStore, CountingProxy]) -> None:
    """Group commit: appends that queue behind a commit in flight are the next transaction,
    and to as many tables as appends that is one statement, one round trip."""
    store, proxy = proxied
    ids = [f"t{n}" for n in range(12)]
    for table_id in ("lead", *ids):
        await store.create_table(record(table_id), state(1), [entry(1)])
    await store.append("lead", 1, [entry(2)], state(2))  # prepares the lone statement
    batches = store.group.batches
    await asyncio.gather(store.append("lead", 2, [entry(3)], state(3)),
                         *(store.append(t, 1, [entry(2, t), entry(3)], state(3)) for t in ids))
    assert store.group.batches - batches == 2  # the lead's alone, then the twelve
    before = proxy.turns  # the batch statement is prepared, its array types looked up
    await asyncio.gather(store.append("lead", 3, [entry(4)], state(4)),
                         *(store.append(t, 3, [entry(4)], state(4)) for t in ids))
    assert proxy.turns - before == 2
    for table_id in ids:
        assert [e.version for e in await store.read_log(table_id)] == [1, 2, 3, 4]
