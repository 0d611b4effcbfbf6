"""How replicas over PostgreSQL hear of each other's commits: NOTIFY after a commit, never in it.

A transaction that calls NOTIFY takes one cluster-wide lock just before it commits and holds it
until its commit is done, flush included: notifying commits cannot share a WAL flush, so a
cluster whose every append notified committed one append per flush whatever the number of
replicas. Appends therefore commit without notifying. Each process's :class:`Notifier` then
sends the ids and versions of the tables it committed (and the last results cursor), coalesced:
one small transaction for whatever was committed while the previous one was in flight, on a
connection of its own whose commits do not wait for a flush (``synchronous_commit`` off), so
the lock is held for a commit in memory, not for a disk. A notice is sent after its entries are
committed, so a replica woken by it reads them.

A notice is a hint, never the truth: it can be lost (a notifier's or a listener's connection
fails, a process dies between its commit and its notice). The :class:`Listener` says so
(``on_reconnect``) every time LISTEN starts, first time included, and the table service then
compares the versions of the tables it holds with the store's; it does so every
``--replica-poll-seconds`` too, and the results feed reads the store as often. A lost notice
costs latency, bounded by that poll, never an entry or its order (entries are read from the
log by version).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import asyncpg
import structlog

log = structlog.get_logger("bezique.postgres")

CHANNEL = "bezique_log"
"""Notices of entries: ``table_id:version``, the table's newest committed version."""
RESULTS_CHANNEL = "bezique_results"
"""Notices of results: the newest results cursor committed."""

# Every notice of one batch in one statement, so one round trip in its own transaction.
_NOTIFY = f"""
SELECT pg_notify(channel, payload) FROM (
    SELECT '{CHANNEL}' AS channel, payload FROM unnest($1::text[]) AS payload
    UNION ALL
    SELECT '{RESULTS_CHANNEL}', $2::text WHERE $2::text IS NOT NULL) AS notices"""

Connect = Callable[..., Awaitable[asyncpg.Connection]]
"""How to open a connection: ``connect(url, **asyncpg_options)`` (the store's goes to whichever
host of a multi-host URL takes writes now)."""

RETRY_SECONDS = 0.5
"""Pause after a failed send or a lost listener before trying again."""
CHECK_SECONDS = 5.0
"""How often the listener asks its connection for an answer: a connection that died without
closing (a host gone) would otherwise look alive while nothing arrives on it."""


class Notifier:
    """Sends, after the fact and coalesced, the notices of what this process committed."""

    def __init__(self, url: str, connect: Connect = asyncpg.connect) -> None:
        self.url = url
        self.connect = connect
        self._tables: dict[str, int] = {}
        """Newest committed version per table, not yet sent."""
        self._cursor = 0
        """Newest committed results cursor, not yet sent (0: none)."""
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._conn: asyncpg.Connection | None = None
        self.settings = {"synchronous_commit": "off", "application_name": "bezique-notifier"}
        """Of its connection: its commits need no flush (a notice is not kept; a lost one
        costs latency), so the notify lock is held for a commit in memory only."""

    def committed(self, table_id: str, version: int, cursor: int = 0) -> None:
        """``version`` of ``table_id`` (and the result at ``cursor``) is committed: tell the
        other replicas soon, with whatever else is committed meanwhile."""
        if version > self._tables.get(table_id, 0):
            self._tables[table_id] = version
        self._cursor = max(self._cursor, cursor)
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())
        self._wake.set()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if not await self._flush():
                await asyncio.sleep(RETRY_SECONDS)

    async def _flush(self) -> bool:
        """Send what is pending; on failure keep it for the next try (a notice sent twice
        costs a replica one read that finds nothing new)."""
        tables, cursor = self._tables, self._cursor
        if not tables and not cursor:
            return True
        self._tables, self._cursor = {}, 0
        try:
            conn = await self._connection()
            await conn.execute(_NOTIFY, [f"{t}:{v}" for t, v in tables.items()],
                               str(cursor) if cursor else None)
            return True
        except BaseException as exc:  # cancelled on close too: the last send takes them
            for table_id, version in tables.items():
                if version > self._tables.get(table_id, 0):
                    self._tables[table_id] = version
            self._cursor = max(self._cursor, cursor)
            self._wake.set()
            if not isinstance(exc, Exception):
                raise
            log.warning("notify_failed", error=type(exc).__name__, tables=len(tables))
            await self._drop_connection()
            return False

    async def _connection(self) -> asyncpg.Connection:
        if self._conn is None or self._conn.is_closed():
            self._conn = await self.connect(self.url, command_timeout=10,
                                            server_settings=self.settings)
        return self._conn

    async def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), 2)

    async def close(self, timeout: float = 2.0) -> None:
        """Send what is still pending (within ``timeout``), then stop."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._last_flush(), timeout)
        await self._drop_connection()

    async def _last_flush(self) -> None:
        """Send what is pending; once more on a new connection if the first try fails (the
        send that ``close`` cancelled may have left its connection unusable)."""
        if not await self._flush():
            await self._flush()


class Listener:
    """LISTENs on a connection of its own for as long as it runs, reconnecting when lost."""

    def __init__(self, url: str, on_entry: Callable[[str, int], None],
                 on_reconnect: Callable[[], None], on_result: Callable[[int], None],
                 connect: Connect = asyncpg.connect) -> None:
        self.url = url
        self.connect = connect
        self.on_entry = on_entry
        self.on_reconnect = on_reconnect
        self.on_result = on_result

    def _entry(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        table_id, _, version = payload.rpartition(":")
        with contextlib.suppress(ValueError):
            self.on_entry(table_id, int(version))

    def _result(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        with contextlib.suppress(ValueError):
            self.on_result(int(payload))

    async def run(self) -> None:
        while True:
            conn: asyncpg.Connection | None = None
            try:
                conn = await self.connect(
                    self.url, command_timeout=CHECK_SECONDS,
                    server_settings={"application_name": "bezique-listener"})
                await self._listen_on(conn)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("listener_lost", error=type(exc).__name__)
            finally:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(conn.close(), 2)
            await asyncio.sleep(RETRY_SECONDS)

    async def _listen_on(self, conn: asyncpg.Connection) -> None:
        """LISTEN on ``conn`` until it is lost (closed, or no longer answering)."""
        lost = asyncio.Event()
        conn.add_termination_listener(lambda _conn: lost.set())
        await conn.add_listener(CHANNEL, self._entry)
        await conn.add_listener(RESULTS_CHANNEL, self._result)
        # Whatever was committed before LISTEN took effect was not heard: the first time too
        # (the server serves before it listens, so tables may be held and watched already).
        self.on_reconnect()
        while not conn.is_closed():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(lost.wait(), CHECK_SECONDS)
            await conn.fetchval("SELECT 1")
