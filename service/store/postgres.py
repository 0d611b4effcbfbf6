"""The store for several replicas: PostgreSQL through asyncpg.

Any replica serves any table. ``append`` is one statement, so one network round trip in its own
implicit transaction: a compare-and-set UPDATE of the table's summary row on its version and the
log rows (arrays, unnested), gated on the UPDATE having matched. It does not notify: once it
committed, this process's notifier tells every replica listening, after the fact and coalesced
(service/store/pgnotify.py says why and what a lost notice costs), so watchers connected
anywhere see the move. A connection lost mid-call is a StoreError (UNAVAILABLE): the client
retries with the same request id, and the unique (table_id, request_id) index makes a doubled
move impossible.

The URL may name several hosts with ``target_session_attrs=read-write`` (a pg_auto_failover
formation, docs/operations.md): every connection, the pools', the listener's and the
notifier's, goes to whichever host takes writes now (``connect``). When the primary is lost,
the calls in flight fail (StoreError), the pools drop every connection they hold, and the next
calls connect afresh to the new primary once it is promoted.

Appends are group-committed (service/store/batching.py): one alone is that one statement; the
appends that queue while it runs are the next transaction, one statement of arrays for all of
them (one per round when a table has several), so many moves share one round trip and one
commit (one WAL flush) instead of queueing for one each.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import structlog

from bezique.service.store import presence
from bezique.service.store.base import (
    LogEntry,
    RequestIdTaken,
    Snapshot,
    StoreError,
    TableRecord,
    TableResult,
    TableState,
    VersionConflict,
)
from bezique.service.store.batching import Append, GroupCommit
from bezique.service.store.codec import dumps
from bezique.service.store.pgnotify import CHANNEL, RESULTS_CHANNEL, Listener, Notifier
from bezique.service.store.pgreads import COLUMNS, PostgresReads

__all__ = ["CHANNEL", "RESULTS_CHANNEL", "PostgresStore", "connect"]

log = structlog.get_logger("bezique.postgres")

MIGRATIONS: dict[int, str] = {
    1: """
    CREATE TABLE tables (
        table_id text PRIMARY KEY,
        variant_id text NOT NULL,
        variant_version integer NOT NULL,
        options jsonb NOT NULL,
        seed bytea NOT NULL,
        commitment text NOT NULL,
        test jsonb NOT NULL,
        turn_seconds integer NOT NULL,
        created_at double precision NOT NULL,
        version bigint NOT NULL,
        phase text NOT NULL,
        free_seats integer NOT NULL,
        finished boolean NOT NULL,
        seats jsonb NOT NULL,
        deadline double precision
    );
    CREATE INDEX tables_open ON tables (finished, variant_id, table_id);
    CREATE INDEX tables_deadline ON tables (deadline) WHERE deadline IS NOT NULL;
    CREATE TABLE log (
        table_id text NOT NULL,
        version bigint NOT NULL,
        kind text NOT NULL,
        seat integer,
        payload jsonb NOT NULL,
        request_id text,
        created_at double precision NOT NULL,
        PRIMARY KEY (table_id, version)
    );
    CREATE UNIQUE INDEX log_request ON log (table_id, request_id) WHERE request_id IS NOT NULL;
    """,
    2: """
    CREATE TABLE snapshots (
        table_id text PRIMARY KEY,
        version bigint NOT NULL,
        variant_version integer NOT NULL,
        state bytea NOT NULL
    );
    """,
    # The results feed. Sequence values are handed out in the order transactions ask, not in
    # the order they commit, so a reader polling ``cursor > last`` could pass over a row that
    # commits late. The cursor is therefore taken from one counter row, updated inside the
    # appending transaction: its row lock is held until commit, so the next ending table gets
    # the next cursor only after this one committed (or rolled back, leaving no gap).
    3: """
    CREATE TABLE results (
        cursor bigint PRIMARY KEY,
        table_id text NOT NULL UNIQUE,
        version bigint NOT NULL,
        data jsonb NOT NULL,
        finished_at double precision NOT NULL
    );
    CREATE TABLE results_cursor (
        single boolean PRIMARY KEY DEFAULT true CHECK (single),
        last bigint NOT NULL
    );
    INSERT INTO results_cursor (single, last) VALUES (true, 0);
    CREATE INDEX tables_seats ON tables USING gin (seats jsonb_path_ops);
    """,
    # When a seat of a table last had a stream open on any replica (the abandon sweep).
    4: """
    CREATE TABLE presence (
        table_id text PRIMARY KEY,
        seen_at double precision NOT NULL
    );
    """,
}

_LOST = (asyncpg.PostgresConnectionError, asyncpg.InterfaceError, ConnectionError, OSError,
         asyncpg.CannotConnectNowError, asyncpg.AdminShutdownError,
         asyncpg.InternalClientError, asyncpg.ReadOnlySQLTransactionError)
"""The primary is gone (no host takes writes: asyncpg's TargetServerAttributeNotMatched, an
InternalClientError), a connection outlived its primary's promotion elsewhere (a host that
became a standby answers read-only), or a connection was left mid-protocol by a call cut
short as its primary died (InternalClientError "cannot switch to state"): the pools'
connections are dropped."""
_TRANSIENT = (*_LOST, asyncio.TimeoutError)
COMMAND_TIMEOUT = 10.0
"""Seconds a store call may take before its connection is dropped (the call then fails,
its outcome unknown). Dropped, never cancelled: a cancel request that reaches a commit waiting
for its synchronous standby ends the wait and commits locally, so a retry would be told the
change was made although no standby has it, to be lost at the next failover. With the
connection dropped the backend keeps waiting, and the change shows only once replicated (or
once the formation gives up on its standby)."""
CONNECT_TIMEOUT = 5.0
"""Seconds to reach one host: a host lost without a reset (a dead machine) costs this much
before the next host of a multi-host URL is tried (asyncpg's default is 60)."""


_ANSWERED: dict[str, str] = {}
"""Per URL, the one-host URL that last gave a connection: tried first next time, so that after
a failover new connections go straight to the new primary, not through a dead host first."""


def _each_host(url: str) -> list[str]:
    """A multi-host URL as one URL per host, in its order but the host that answered last
    first (a one-host URL: itself)."""
    parts = urlsplit(url)
    user, at, hosts = parts.netloc.rpartition("@")
    each = [urlunsplit(parts._replace(netloc=f"{user}{at}{host}")) for host in hosts.split(",")]
    return sorted(each, key=lambda one: one != _ANSWERED.get(url))


async def connect(url: str, **options: Any) -> asyncpg.Connection:
    """A connection to the first host of ``url`` that answers and takes writes (with
    ``target_session_attrs=read-write``), each host given ``CONNECT_TIMEOUT`` of its own:
    asyncpg's timeout covers all the hosts of a URL together, so a first host that never
    answers (a dead machine, no reset) would use it all and the next would never be tried."""
    error: BaseException = StoreError("no host in the store URL to connect to")
    for one in _each_host(url):
        try:
            conn = await asyncpg.connect(one, **{**options, "timeout": CONNECT_TIMEOUT})
        except _TRANSIENT as exc:
            error = exc
            continue
        _ANSWERED[url] = one
        return conn
    raise error


# The log rows of one change, from six parallel arrays, in version order; written only if the
# one-row ``gate`` CTE has its row.
_LOG_ROWS = """
    INSERT INTO log (table_id, version, kind, seat, payload, request_id, created_at)
    SELECT {gate}.table_id, e.version, e.kind, e.seat, e.payload::jsonb, e.request_id,
           e.created_at
    FROM {gate}, unnest(${a}::bigint[], ${b}::text[], ${c}::integer[], ${d}::text[],
                        ${e}::text[], ${f}::float8[])
         AS e(version, kind, seat, payload, request_id, created_at)
    ORDER BY e.version
    RETURNING version"""

# A new table: its summary row ($1..$15) and its first entries ($16..$21).
_CREATE = f"""
WITH made AS (
    INSERT INTO tables ({COLUMNS}) VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7::jsonb, $8, $9,
                                            $10, $11, $12, $13, $14::jsonb, $15)
    RETURNING table_id
), logged AS ({_LOG_ROWS.format(gate="made", a=16, b=17, c=18, d=19, e=20, f=21)})
SELECT (SELECT count(*) FROM logged) AS logged"""

# One change: the compare-and-set on the version ($7 the table, $8 the version expected, $1..$6
# the new summary), then, only if it matched, the log rows ($9..$14). ``moved`` 0 means nothing
# was written: a stale version, or no such table.
_APPEND_HEAD = f"""
WITH moved AS (
    UPDATE tables SET version = $1, phase = $2, free_seats = $3, finished = $4,
                      seats = $5::jsonb, deadline = $6
    WHERE table_id = $7 AND version = $8
    RETURNING table_id
), logged AS ({_LOG_ROWS.format(gate="moved", a=9, b=10, c=11, d=12, e=13, f=14)})"""
_APPEND_TAIL = """
SELECT (SELECT count(*) FROM moved) AS moved,
       (SELECT count(*) FROM logged) AS logged"""
_APPEND = _APPEND_HEAD + _APPEND_TAIL

# A change that ends the table also stores its result ($15 version, $16 data, $17 time) under
# the next cursor. The counter row is updated only after ``moved`` (it reads it), so every
# append takes its table's row lock before the counter's: two ends never wait on each other in
# opposite orders. The counter's row lock, held to commit, orders the cursors by commit, so a
# reader polling ``cursor > last`` never passes over a result that commits late.
_APPEND_ENDING = _APPEND_HEAD + """, counted AS (
    UPDATE results_cursor SET last = last + 1 WHERE EXISTS (SELECT 1 FROM moved)
    RETURNING last
), stored AS (
    INSERT INTO results (cursor, table_id, version, data, finished_at)
    SELECT last, $7, $15, $16::jsonb, $17 FROM counted
    RETURNING cursor
)""" + _APPEND_TAIL + """,
       (SELECT cursor FROM stored) AS cursor"""


# Many changes in one statement, each to a different table (a round of a group commit): the
# changes as parallel arrays ($1..$8 table, version expected, new summary), their entries
# ($9..$15, each with its table) and the results of those that end their table ($16..$19).
# Each table's compare-and-set and request-id check is its own: only the changes that match
# are written, with their entries and results (consecutive cursors, in the order given, from
# the counter row as above); ``cursor`` is the last of them.
_APPEND_MANY = """
WITH change AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::integer[],
                         $6::boolean[], $7::text[], $8::float8[])
         AS c(table_id, expected, version, phase, free_seats, finished, seats, deadline)
), entry AS (
    SELECT * FROM unnest($9::text[], $10::bigint[], $11::text[], $12::integer[], $13::text[],
                         $14::text[], $15::float8[])
         AS e(table_id, version, kind, seat, payload, request_id, created_at)
), taken AS (
    SELECT DISTINCT log.table_id FROM log JOIN entry
        ON log.table_id = entry.table_id AND log.request_id = entry.request_id
), moved AS (
    UPDATE tables SET version = change.version, phase = change.phase,
                      free_seats = change.free_seats, finished = change.finished,
                      seats = change.seats::jsonb, deadline = change.deadline
    FROM change
    WHERE tables.table_id = change.table_id AND tables.version = change.expected
      AND change.table_id NOT IN (SELECT table_id FROM taken)
    RETURNING tables.table_id
), logged AS (
    INSERT INTO log (table_id, version, kind, seat, payload, request_id, created_at)
    SELECT entry.table_id, entry.version, entry.kind, entry.seat, entry.payload::jsonb,
           entry.request_id, entry.created_at
    FROM entry WHERE entry.table_id IN (SELECT table_id FROM moved)
    ORDER BY entry.table_id, entry.version
    RETURNING table_id
), ended AS (
    SELECT * FROM unnest($16::text[], $17::bigint[], $18::text[], $19::float8[])
         WITH ORDINALITY AS r(table_id, version, data, finished_at, n)
    WHERE r.table_id IN (SELECT table_id FROM moved)
), counted AS (
    UPDATE results_cursor SET last = last + (SELECT count(*) FROM ended)
    WHERE EXISTS (SELECT 1 FROM ended)
    RETURNING last - (SELECT count(*) FROM ended) AS before
), stored AS (
    INSERT INTO results (cursor, table_id, version, data, finished_at)
    SELECT counted.before + row_number() OVER (ORDER BY ended.n), ended.table_id,
           ended.version, ended.data::jsonb, ended.finished_at
    FROM counted, ended
    RETURNING cursor
)
SELECT array(SELECT table_id FROM moved) AS moved,
       array(SELECT table_id FROM taken) AS taken,
       (SELECT count(*) FROM logged) AS logged,
       (SELECT max(cursor) FROM stored) AS cursor"""


def _rounds(batch: Sequence[Append]) -> list[list[int]]:
    """The batch's appends (by index) as rounds in which no table appears twice: a table's
    first append in the first round, its second in the second, and so on."""
    rounds: list[list[int]] = []
    seen: dict[str, int] = {}
    for index, append in enumerate(batch):
        depth = seen.get(append.table_id, 0)
        seen[append.table_id] = depth + 1
        if depth == len(rounds):
            rounds.append([])
        rounds[depth].append(index)
    for indices in rounds:  # two replicas' batches lock their tables in one order
        indices.sort(key=lambda index: batch[index].table_id)
    return rounds


def _many_args(appends: Sequence[Append]) -> list[Any]:
    """The arguments of ``_APPEND_MANY`` for ``appends`` (all to different tables)."""
    entries = [(a.table_id, e) for a in appends for e in a.entries]
    ending = [a.result for a in appends if a.result is not None]
    return [[a.table_id for a in appends], [a.expected_version for a in appends],
            [a.state.version for a in appends], [a.state.phase for a in appends],
            [a.state.free_seats for a in appends], [a.state.finished for a in appends],
            [dumps(a.state.seats) for a in appends], [a.state.deadline for a in appends],
            [t for t, _ in entries], *_entry_arrays([e for _, e in entries]),
            [a.table_id for a in appends if a.result is not None], [r.version for r in ending],
            [dumps(r.data) for r in ending], [r.finished_at for r in ending]]


def _entry_arrays(entries: Sequence[LogEntry]) -> tuple[list[Any], ...]:
    """The entries as the six parallel arrays ``_LOG_ROWS`` unnests."""
    return ([e.version for e in entries], [e.kind for e in entries], [e.seat for e in entries],
            [dumps(e.payload) for e in entries], [e.request_id for e in entries],
            [e.created_at for e in entries])


async def _keep_session(_conn: asyncpg.Connection) -> None:
    """The pools' reset: nothing. asyncpg's default runs a reset query (advisory locks, cursors,
    LISTEN, settings) on every release: one more round trip per store call. The store's pooled
    connections change none of these (the listener has a connection of its own, the migration
    lock is a transaction's), and asyncpg still rolls back a transaction left open."""


class PostgresStore(PostgresReads):
    """The writer: the pools, the schema, the appends and their group commit, the notifier and
    the listener (the reads: :class:`PostgresReads`)."""

    shared = True

    def __init__(self, url: str, pool_size: int = 10) -> None:
        self.url = url
        self.pool_size = pool_size
        self._pool: asyncpg.Pool | None = None
        self._feed_pool: asyncpg.Pool | None = None
        """Connections of the results feed's reads: they never wait behind the appends."""
        self.notifier = Notifier(url, connect)
        """Tells the other replicas what this process committed, after the commit."""
        self.listener: Listener | None = None
        self._listen_task: asyncio.Task[None] | None = None
        self.group = GroupCommit[Append](self._commit)

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise StoreError("the postgres store is not open")
        return self._pool

    async def open(self) -> None:
        try:
            self._pool = await asyncpg.create_pool(self.url, min_size=1, max_size=self.pool_size,
                                                   command_timeout=None, reset=_keep_session,
                                                   connect=connect)
            self._feed_pool = await asyncpg.create_pool(self.url, min_size=1, max_size=2,
                                                        command_timeout=None, reset=_keep_session,
                                                        connect=connect)
        except _TRANSIENT as exc:
            raise StoreError(f"cannot reach PostgreSQL: {exc}") from exc
        await self._migrate()

    async def _migrate(self) -> None:
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(724315)")
            await conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                               "(version integer PRIMARY KEY, applied_at timestamptz "
                               "NOT NULL DEFAULT now())")
            done = {r["version"] for r in await conn.fetch("SELECT version FROM "
                                                           "schema_migrations")}
            for version in sorted(MIGRATIONS):
                if version not in done:
                    await conn.execute(MIGRATIONS[version])
                    await conn.execute("INSERT INTO schema_migrations (version) VALUES ($1)",
                                       version)
                    log.info("schema_migrated", version=version)

    async def close(self) -> None:
        await self.group.drained()
        if self._listen_task is not None:
            self._listen_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listen_task
        await self.notifier.close()
        for pool in (self._pool, self._feed_pool):
            if pool is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(pool.close(), 5)
        self._pool = self._feed_pool = None

    async def _run(self, what: str, call: Callable[[asyncpg.Connection], Any],
                   pool: asyncpg.Pool | None = None) -> Any:
        try:
            async with (pool or self.pool).acquire() as conn:
                expired: list[bool] = []  # the call took too long: its connection dropped

                def expire() -> None:
                    expired.append(True)
                    conn.terminate()

                timer = asyncio.get_running_loop().call_later(COMMAND_TIMEOUT, expire)
                try:
                    return await call(conn)
                except asyncpg.InternalClientError:
                    conn.terminate()  # asyncpg no longer trusts it: never hand it out again
                    raise
                except _LOST:
                    if expired:
                        raise TimeoutError() from None
                    raise
                finally:
                    timer.cancel()
        except (VersionConflict, StoreError):
            raise
        except _TRANSIENT as exc:
            if isinstance(exc, _LOST):
                await self._drop_connections()
            raise StoreError(f"{what}: PostgreSQL unavailable ({type(exc).__name__})") from exc
        except asyncpg.PostgresError as exc:
            raise StoreError(f"{what}: {exc}") from exc

    async def _drop_connections(self) -> None:
        """After a lost connection, every other one in the pools likely points at the same dead
        (or demoted) primary: expire them all, so that each reconnects, through the URL's hosts,
        to the primary of now when next used, instead of each failing one call first."""
        for pool in (self._pool, self._feed_pool):
            if pool is not None:
                with contextlib.suppress(Exception):
                    await pool.expire_connections()

    async def create_table(self, record: TableRecord, state: TableState,
                           entries: Sequence[LogEntry]) -> None:
        async def call(conn: asyncpg.Connection) -> None:
            await conn.fetchrow(
                _CREATE, record.table_id, record.variant_id, record.variant_version,
                dumps(record.options), record.seed, record.commitment, dumps(record.test),
                record.turn_seconds, record.created_at, state.version, state.phase,
                state.free_seats, state.finished, dumps(state.seats), state.deadline,
                *_entry_arrays(entries))

        async def created() -> None:
            await self._run(f"create table {record.table_id}", call)
            if entries:
                self.notifier.committed(record.table_id, entries[-1].version)

        # its commit may wait for the standby: a caller's cancellation must not cut it short
        await asyncio.shield(created())

    async def append(self, table_id: str, expected_version: int, entries: Sequence[LogEntry],
                     state: TableState, result: TableResult | None = None) -> None:
        """Committed with the appends that queued while the commit before ran (see
        :meth:`_commit`)."""
        await self.group.submit(Append(table_id, expected_version, entries, state, result))

    async def _commit(self, batch: Sequence[Append]) -> list[StoreError | None]:
        """A lone append is its statement alone: one round trip, its own implicit transaction.
        A batch to as many tables as appends is one statement too (``_APPEND_MANY``); one
        with several appends to a table is one transaction of a statement per round, so each
        sees what the rounds before it wrote. A request id another transaction stores
        meanwhile (the unique index refuses it), or a deadlock with another replica's batch,
        fails the statement before anything of the batch is committed: its appends are then
        tried one by one. Once a batch committed, the notifier is told what it committed.
        A lone append runs in its caller's task: shielded, so that a caller cancelled
        mid-commit never cuts the commit short (see ``COMMAND_TIMEOUT``: a cancel request
        commits it locally, unreplicated); a batch has a task of its own."""
        cursors: list[int] = []  # of the results stored
        if len(batch) == 1:
            [append] = batch

            async def alone() -> StoreError | None:
                refusal: StoreError | None = await self._run(
                    f"append to table {append.table_id}",
                    lambda conn: self._append_on(conn, append, cursors))
                self._committed(batch, [refusal], cursors)
                return refusal

            return [await asyncio.shield(alone())]
        rounds = _rounds(batch)

        async def call(conn: asyncpg.Connection) -> list[StoreError | None]:
            if len(rounds) == 1:
                return await self._append_round(conn, batch, rounds[0], [None] * len(batch),
                                                cursors)
            refusals: list[StoreError | None] = [None] * len(batch)
            async with conn.transaction():
                for indices in rounds:
                    await self._append_round(conn, batch, indices, refusals, cursors)
            return refusals

        try:
            refused: list[StoreError | None] = await self._run(
                f"append to {len(batch)} tables", call)
            self._committed(batch, refused, cursors)
            return refused
        except StoreError as exc:
            if not isinstance(exc.__cause__, (asyncpg.UniqueViolationError,
                                              asyncpg.DeadlockDetectedError)):
                raise
        return [(await self._commit([append]))[0] for append in batch]

    def _committed(self, batch: Sequence[Append], refusals: Sequence[StoreError | None],
                   cursors: Sequence[int]) -> None:
        """``batch`` is committed but its ``refusals``: tell the other replicas."""
        for append, refusal in zip(batch, refusals, strict=True):
            if refusal is None and append.entries:
                self.notifier.committed(append.table_id, append.entries[-1].version,
                                        max(cursors, default=0))

    @staticmethod
    async def _append_round(conn: asyncpg.Connection, batch: Sequence[Append],
                            indices: Sequence[int], refusals: list[StoreError | None],
                            cursors: list[int]) -> list[StoreError | None]:
        """The appends ``indices`` of ``batch`` (each to another table) in one statement; the
        refusals of those that did not match go into ``refusals`` at their index, the cursor
        of the last result it stored (if any) into ``cursors``."""
        appends = [batch[index] for index in indices]
        row = await conn.fetchrow(_APPEND_MANY, *_many_args(appends))
        if row["cursor"] is not None:
            cursors.append(int(row["cursor"]))
        moved, taken = set(row["moved"]), set(row["taken"])
        if row["logged"] != sum(len(a.entries) for a in appends if a.table_id in moved):
            raise StoreError(f"a batch stored {row['logged']} entries of another count")
        refused = [a.table_id for a in appends if a.table_id not in moved]
        if not refused:
            return refusals
        # The statement's snapshot may predate the writers that won: versions read afresh.
        current = dict(await conn.fetch(
            "SELECT table_id, version FROM tables WHERE table_id = ANY($1::text[])", refused))
        for index, append in zip(indices, appends, strict=True):
            if append.table_id in moved:
                continue
            at = current.get(append.table_id)
            if at is None:
                refusals[index] = StoreError(f"no table {append.table_id}")
            elif at == append.expected_version and append.table_id in taken:
                refusals[index] = RequestIdTaken(append.table_id, next(
                    e.request_id for e in append.entries if e.request_id))
            else:
                refusals[index] = VersionConflict(append.table_id, append.expected_version,
                                                  int(at))
        return refusals

    async def _append_on(self, conn: asyncpg.Connection, append: Append,
                         cursors: list[int]) -> StoreError | None:
        """One append's statement on ``conn``, its own transaction: None when it committed
        (the cursor of the result it stored, if any, into ``cursors``), else why not."""
        table_id, expected_version, entries = (append.table_id, append.expected_version,
                                               append.entries)
        state, result = append.state, append.result
        args: list[Any] = [
            state.version, state.phase, state.free_seats, state.finished,
            dumps(state.seats), state.deadline, table_id, expected_version,
            *_entry_arrays(entries)]
        if result is not None:
            args += [result.version, dumps(result.data), result.finished_at]
        try:
            row = await conn.fetchrow(_APPEND if result is None else _APPEND_ENDING, *args)
        except asyncpg.UniqueViolationError as exc:
            taken = [e.request_id for e in entries if e.request_id]
            if taken and exc.constraint_name == "log_request":
                return RequestIdTaken(table_id, taken[0])
            return VersionConflict(table_id, expected_version, expected_version + 1)
        if row["moved"] == 1 and row["logged"] == len(entries):
            if result is not None and row["cursor"] is not None:
                cursors.append(int(row["cursor"]))
            return None
        if row["moved"] == 1:  # cannot happen: the rows would have been refused whole
            raise StoreError(f"append to {table_id} stored {row['logged']} of "
                             f"{len(entries)} entries")
        # Nothing was written. The statement's snapshot may predate the writer that won,
        # so the version it moved to is read afresh (a refusal's only extra round trip).
        current = await conn.fetchval("SELECT version FROM tables WHERE table_id = $1",
                                      table_id)
        if current is None:
            return StoreError(f"no table {table_id}")
        return VersionConflict(table_id, expected_version, int(current))

    async def touch_tables(self, table_ids: Sequence[str], seen_at: float) -> None:
        await self._run("touch tables", lambda c: c.execute(
            presence.POSTGRES_TOUCH, list(table_ids), seen_at))

    async def save_snapshot(self, table_id: str, snapshot: Snapshot) -> None:
        await self._run("save snapshot", lambda c: c.execute(
            "INSERT INTO snapshots (table_id, version, variant_version, state) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT (table_id) DO UPDATE SET "
            "version = excluded.version, variant_version = excluded.variant_version, "
            "state = excluded.state WHERE excluded.version > snapshots.version",
            table_id, snapshot.version, snapshot.variant_version, snapshot.state))

    # ---------------------------------------------------------------- fan-out

    def listen(self, on_entry: Callable[[str, int], None],
               on_reconnect: Callable[[], None],
               on_result: Callable[[int], None] = lambda cursor: None) -> None:
        """Call ``on_entry(table_id, version)`` for the entries any replica commits, and
        ``on_result(cursor)`` for its results, when told (service/store/pgnotify.py); call
        ``on_reconnect`` whenever LISTEN (re)starts: what was committed before was not heard."""
        self.listener = Listener(self.url, on_entry, on_reconnect, on_result, connect)
        self._listen_task = asyncio.get_running_loop().create_task(self.listener.run())
