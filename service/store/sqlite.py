"""The embedded default: one SQLite file in WAL mode, for a single server process.

Calls are synchronous on the event loop's thread. With WAL and ``synchronous=NORMAL`` a commit
is a write to the WAL file without fsync (tens of microseconds): a committed move survives a
SIGKILL of the server (the OS holds the page), not a power cut; ``synchronous=FULL`` (flag
``--sqlite-synchronous full``) adds the fsync for that. A thread hop per call would cost more
than the write itself.

Appends are group-committed (service/store/batching.py): those that arrive while a commit is in
flight share the next transaction, each in a savepoint of its own, so one table's refusal
leaves the others in. With ``NORMAL`` a commit runs on the event loop and never yields, so no
append can arrive during one: every append commits alone, at once, as a single INSERT when the
summary is unchanged. With ``FULL`` (on a file) the commit's fsync takes milliseconds, so the
appends, table creations and snapshots are written by one thread with a connection of its own
(the loop keeps serving, and its connection reads only what committed); the appends that
arrive during an fsync share the next one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple, TypeVar

from bezique.service.store import presence
from bezique.service.store.base import (
    LocalStore,
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
from bezique.service.store.codec import dumps, loads, state_from_row

SCHEMA_VERSION = 6
_T = TypeVar("_T")

_MIGRATIONS = {
    1: """
    CREATE TABLE tables (
        table_id TEXT PRIMARY KEY,
        variant_id TEXT NOT NULL,
        variant_version INTEGER NOT NULL,
        options TEXT NOT NULL,
        seed BLOB NOT NULL,
        commitment TEXT NOT NULL,
        test TEXT NOT NULL,
        turn_seconds INTEGER NOT NULL,
        created_at REAL NOT NULL,
        version INTEGER NOT NULL,
        phase TEXT NOT NULL,
        free_seats INTEGER NOT NULL,
        finished INTEGER NOT NULL,
        seats TEXT NOT NULL,
        deadline REAL
    );
    CREATE INDEX tables_open ON tables (finished, variant_id, table_id);
    CREATE INDEX tables_deadline ON tables (deadline) WHERE deadline IS NOT NULL;
    CREATE TABLE log (
        table_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        kind TEXT NOT NULL,
        seat INTEGER,
        payload TEXT NOT NULL,
        request_id TEXT,
        created_at REAL NOT NULL,
        PRIMARY KEY (table_id, version)
    ) WITHOUT ROWID;
    CREATE UNIQUE INDEX log_request ON log (table_id, request_id) WHERE request_id IS NOT NULL;
    """,
    2: """
    CREATE TABLE snapshots (
        table_id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        variant_version INTEGER NOT NULL,
        state BLOB NOT NULL
    );
    """,
    # The log keeps the table's version itself: an entry must follow the version exactly
    # (the compare-and-set) and moves it on, so a plain move is one INSERT, its own transaction.
    3: """
    CREATE TRIGGER log_follows_version BEFORE INSERT ON log BEGIN
        SELECT RAISE(ABORT, 'version conflict') WHERE NEW.version - 1 IS NOT
            (SELECT version FROM tables WHERE table_id = NEW.table_id);
    END;
    CREATE TRIGGER log_advances_version AFTER INSERT ON log BEGIN
        UPDATE tables SET version = NEW.version WHERE table_id = NEW.table_id;
    END;
    """,
    # The table's version is its log's last entry: a move no longer rewrites the table's row
    # (a page of WAL less per move); the row's own version counts only before the first entry.
    4: """
    DROP TRIGGER log_advances_version;
    DROP TRIGGER log_follows_version;
    CREATE TRIGGER log_follows_version BEFORE INSERT ON log BEGIN
        SELECT RAISE(ABORT, 'version conflict') WHERE NEW.version - 1 IS NOT coalesce(
            (SELECT max(version) FROM log WHERE table_id = NEW.table_id),
            (SELECT version FROM tables WHERE table_id = NEW.table_id));
    END;
    """,
    # The results feed: one row per finished table, written in the transaction of the entry
    # that ends it. One process writes this file, so rowid order is commit order.
    5: """
    CREATE TABLE results (
        cursor INTEGER PRIMARY KEY AUTOINCREMENT,
        table_id TEXT NOT NULL UNIQUE,
        version INTEGER NOT NULL,
        data TEXT NOT NULL,
        finished_at REAL NOT NULL
    );
    """,
    # When a seat of a table last had a stream open (the abandon sweep: service/scheduler.py).
    6: """
    CREATE TABLE presence (
        table_id TEXT PRIMARY KEY,
        seen_at REAL NOT NULL
    ) WITHOUT ROWID;
    """,
}

_TABLE_COLUMNS = ("table_id, variant_id, variant_version, options, seed, commitment, test, "
                  "turn_seconds, created_at, version, phase, free_seats, finished, seats, deadline")

_VERSION = ("coalesce((SELECT max(log.version) FROM log WHERE log.table_id = tables.table_id), "
            "tables.version)")
"""A table's version: its log's last entry (the row's own column only before the first)."""

_SELECT_TABLE = f"SELECT {_TABLE_COLUMNS.replace(' version,', f' {_VERSION},')} FROM tables"


_WAL_LIMIT = 128 * 1024 * 1024
"""Bytes of WAL file kept when the WAL starts over: the frames of one reset period fit, so
commits overwrite the file instead of growing it again."""
_CACHE_KIB = 512
"""The connection's page cache (sqlite's default: 2,000 KiB). Pages it drops are read again
from the OS's cache: with the peers' load, 853 against 870 µs of server CPU per move
(alternating runs). A page cache filling counted ~2 KiB per table in the peers' bare idle
tables (1,000 tables: 6.4-6.7 KiB each, 4.8 KiB with 512; bench/results.md, 2026-11-30)."""

_FEW_FRAMES = 64
"""WAL frames the background checkpoint may leave for the event loop to copy."""

_END_TRIES = 16
"""Passes the background checkpoint makes at reaching the WAL's end by itself before it asks
the event loop to finish."""

_INSERT_LOG = ("INSERT INTO log (table_id, version, kind, seat, payload, request_id, created_at) "
               "VALUES ")
_LOG_ROW = "(?, ?, ?, ?, ?, ?, ?)"


def _statements(script: str) -> list[str]:
    """A migration's statements, split where ``sqlite3.complete_statement`` says one ends
    (a trigger's body holds semicolons of its own)."""
    statements, current = [], ""
    for piece in script.split(";"):
        current += piece + ";"
        if sqlite3.complete_statement(current):
            if current.strip(" \n;"):
                statements.append(current.strip())
            current = ""
    return statements


def _row_to_table(row: sqlite3.Row | tuple[object, ...]) -> tuple[TableRecord, TableState]:
    (table_id, variant_id, variant_version, options, seed, commitment, test, turn_seconds,
     created_at, version, phase, free_seats, finished, seats, deadline) = tuple(row)
    record = TableRecord(str(table_id), str(variant_id), int(variant_version),  # type: ignore[call-overload]
                         loads(options), bytes(seed), str(commitment),  # type: ignore[arg-type]
                         float(created_at), int(turn_seconds), loads(test))  # type: ignore[arg-type,call-overload]
    state = state_from_row(version, phase, free_seats, finished, seats, deadline)  # type: ignore[arg-type]
    return record, state


class _Summary(NamedTuple):
    """The columns of a table's row that a move may change, besides its version."""

    phase: str
    free_seats: int
    finished: int
    seats: str
    deadline: float | None


def _summary(state: TableState) -> _Summary:
    return _Summary(state.phase, state.free_seats, int(state.finished), dumps(state.seats),
                    state.deadline)


class _Checkpointer:
    """Keeps the WAL bounded while moves stream in, with the event loop stalled rarely.

    A thread with its own connection copies the WAL into the database (PASSIVE: it never
    blocks the writer) every ``interval`` seconds; that is the slow part (page copies, fsync).
    But under a steady stream of moves it never reaches the WAL's end, and the WAL only starts
    over once a checkpoint has copied all of it: left alone it grows without bound (460 MB in
    a benchmark), and every commit extends the file. So now and then (``reset_every`` seconds,
    or sooner once the WAL holds ``reset_frames``) the thread catches up as far as it can and
    asks the event loop to finish on the writer's own connection: no commit can come in
    between, only a few frames are left to copy, and the next commit starts the WAL over.
    That finish holds the loop for its two fsyncs (1 to 7 ms measured here, 10 to 27 ms on a
    busy disk: a stall that set the open-loop p99 of the peer benchmark), so before asking for
    it the thread tries to reach the WAL's end by itself: at half the benchmark's rate a pass
    often finds no commit came in during it, and then the next commit starts the WAL over
    with nothing done on the loop. A time-due reset it cannot ready alone it tries again on
    the next passes, for up to one more period, before it asks the loop.
    """

    def __init__(self, path: str, writer: sqlite3.Connection, interval: float = 1.0,
                 reset_every: float = 10.0, reset_frames: int = 16_384,
                 writing: concurrent.futures.Executor | None = None) -> None:
        self._stop = threading.Event()
        self._writer = writer
        self._writing = writing
        """The writing thread (FULL), if the writer's connection is its: the finish runs there,
        between two of its commits, as it otherwise runs on the loop between two."""
        self._loop = asyncio.get_running_loop()
        self._reset_every, self._reset_frames = reset_every, reset_frames
        self.resets = 0
        """Times the WAL was readied to start over (all of it copied: the next commit starts
        it over), by the thread alone or by a finish on the writer's connection."""
        self.resets_off_loop = 0
        """Of those, the ones the thread managed alone, with nothing done on the event loop."""
        self._thread = threading.Thread(target=self._run, args=(path, interval), daemon=True,
                                        name="sqlite-checkpoint")
        self._thread.start()

    def _run(self, path: str, interval: float) -> None:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        reset = time.monotonic()
        try:
            while not self._stop.wait(interval):
                with contextlib.suppress(sqlite3.Error):
                    frames = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
                    waited = time.monotonic() - reset
                    if frames < self._reset_frames and waited < self._reset_every:
                        continue
                    self._catch_up(db, frames)
                    if self._reach_end(db):
                        reset = time.monotonic()
                        self.resets_off_loop += 1
                        self.resets += 1
                        continue
                    if frames < self._reset_frames and waited < 2 * self._reset_every:
                        continue  # the next pass tries again before the loop is asked
                    reset = time.monotonic()
                    with contextlib.suppress(RuntimeError):  # the loop is closing
                        self._loop.call_soon_threadsafe(self._finish)
        finally:
            db.close()

    @staticmethod
    def _catch_up(db: sqlite3.Connection, frames: int) -> None:
        """Pass after pass, each copying what was written during the one before, until a pass
        finds few new frames: the loop's share of the copying stays small."""
        for _ in range(8):
            before, frames = frames, db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
            if 0 <= frames - before <= _FEW_FRAMES:
                return

    @staticmethod
    def _reach_end(db: sqlite3.Connection, tries: int = _END_TRIES) -> bool:
        """Whether a pass copied the whole WAL with no commit coming in meanwhile: the pass
        after it finds the same WAL, all copied (and copies nothing, so it costs no fsync).
        Then the WAL is wholly in the database file, synced, and the writer's next commit
        starts it over, exactly as after a finish on the loop."""
        last = None
        for _ in range(tries):
            busy, log, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if not busy and log == copied and (log, copied) == last:
                return True
            last = (log, copied)
        return False

    def _finish(self) -> None:
        if self._writing is not None:
            with contextlib.suppress(RuntimeError):  # shut down: the store is closing
                self._writing.submit(self._finish_here)
            return
        self._finish_here()

    def _finish_here(self) -> None:
        if not self._stop.is_set():
            with contextlib.suppress(sqlite3.Error):  # busy or closed: the next pass will do
                self._writer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                self.resets += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


class SqliteStore(LocalStore):

    def __init__(self, path: str, synchronous: str = "NORMAL",
                 checkpoint_interval: float = 1.0, wal_reset_every: float = 10.0) -> None:
        self.path = path
        self.synchronous = synchronous.upper()
        self.checkpoint_interval = checkpoint_interval
        self.wal_reset_every = wal_reset_every
        self._db: sqlite3.Connection | None = None
        self._checkpointer: _Checkpointer | None = None
        self._summaries: dict[str, _Summary] = {}
        """Each table's summary row as this process last wrote it (the only writer)."""
        self._writer: sqlite3.Connection | None = None
        """The connection of the writing thread (FULL on a file), else None: the loop writes."""
        self._writing: concurrent.futures.ThreadPoolExecutor | None = None
        self.group = GroupCommit[Append](self._commit)

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError("the sqlite store is not open")
        return self._db

    @property
    def wal_resets(self) -> int:
        """How often the WAL was readied to start over since the store opened (0 before the
        first reset period, and always 0 for ``:memory:``)."""
        return self._checkpointer.resets if self._checkpointer is not None else 0

    @property
    def wal_resets_off_loop(self) -> int:
        """Of :attr:`wal_resets`, those the checkpoint thread readied alone (no finish on the
        event loop)."""
        return self._checkpointer.resets_off_loop if self._checkpointer is not None else 0

    async def open(self) -> None:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        db = self._connect()
        current = db.execute("PRAGMA user_version").fetchone()[0]
        for version in range(current + 1, SCHEMA_VERSION + 1):
            db.execute("BEGIN IMMEDIATE")
            for statement in _statements(_MIGRATIONS[version]):
                db.execute(statement)
            db.execute(f"PRAGMA user_version={version}")
            db.execute("COMMIT")
        self._db = db
        if self.path != ":memory:" and self.synchronous in ("FULL", "EXTRA"):
            self._writer = self._connect()
            self._writing = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="sqlite-commit")
        if self.path != ":memory:":
            self._checkpointer = _Checkpointer(self.path, self._writer or db,
                                              self.checkpoint_interval, self.wal_reset_every,
                                              writing=self._writing)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={self.synchronous}")
        db.execute("PRAGMA busy_timeout=5000")
        db.execute(f"PRAGMA cache_size=-{_CACHE_KIB}")
        if self.path != ":memory:":
            # A commit that crosses the WAL's 1000 pages would checkpoint (copy + fsync) on the
            # event loop's thread: tens of ms in which no call is served. A thread with its own
            # connection checkpoints instead (PASSIVE: never blocks the writer).
            db.execute("PRAGMA wal_autocheckpoint=0")
            db.execute(f"PRAGMA journal_size_limit={_WAL_LIMIT}")
        return db

    async def _written(self, write: Callable[[sqlite3.Connection], _T]) -> _T:
        """``write(connection)`` by the writer: the loop's own connection, at once, or the
        writing thread's (FULL), the loop serving meanwhile."""
        if self._writer is None or self._writing is None:
            return write(self.db)
        return await asyncio.get_running_loop().run_in_executor(self._writing, write,
                                                                self._writer)

    async def close(self) -> None:
        await self.group.drained()
        if self._writing is not None:
            self._writing.shutdown()
            self._writing = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        if self._db is not None:
            self._db.close()
            self._db = None

    @staticmethod
    def _insert_entries(db: sqlite3.Connection, table_id: str,
                        entries: Sequence[LogEntry]) -> None:
        """All ``entries`` in one INSERT statement: they land together or not at all, even
        outside an explicit transaction."""
        if not entries:
            return
        params: list[object] = []
        for e in entries:
            params += (table_id, e.version, e.kind, e.seat, dumps(e.payload), e.request_id,
                       e.created_at)
        db.execute(_INSERT_LOG + ", ".join([_LOG_ROW] * len(entries)), params)

    async def create_table(self, record: TableRecord, state: TableState,
                           entries: Sequence[LogEntry]) -> None:
        def create(db: sqlite3.Connection) -> None:
            try:
                db.execute("BEGIN IMMEDIATE")
                db.execute(
                    f"INSERT INTO tables ({_TABLE_COLUMNS}) VALUES "
                    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (record.table_id, record.variant_id, record.variant_version,
                     dumps(record.options), record.seed, record.commitment, dumps(record.test),
                     record.turn_seconds, record.created_at,
                     entries[0].version - 1 if entries else state.version, state.phase,
                     state.free_seats, int(state.finished), dumps(state.seats), state.deadline))
                self._insert_entries(db, record.table_id, entries)  # they move the version on
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise StoreError(f"could not create table {record.table_id}: {exc}") from exc

        await self._written(create)

    async def append(self, table_id: str, expected_version: int, entries: Sequence[LogEntry],
                     state: TableState, result: TableResult | None = None) -> None:
        """The entries, and the table's summary row when it changed, committed with the
        appends that queued beside it (see the module's docstring)."""
        await self.group.submit(Append(table_id, expected_version, entries, state, result))

    async def _commit(self, batch: Sequence[Append]) -> list[StoreError | None]:
        if self._writer is None or self._writing is None:
            return self._commit_on(self.db, batch)
        return await asyncio.get_running_loop().run_in_executor(
            self._writing, self._commit_on, self._writer, batch)

    def _commit_on(self, db: sqlite3.Connection,
                   batch: Sequence[Append]) -> list[StoreError | None]:
        """One transaction. In a batch each append has a savepoint: a refused one (stale
        version, reused request id) is rolled back alone, and the next append to the same
        table sees what the ones before it wrote. A result goes in its append's transaction
        (the summary of an ending table always changes)."""
        if len(batch) == 1:
            return [self._commit_alone(db, batch[0])]
        written: dict[str, _Summary | None] = {}
        refusals: list[StoreError | None] = []
        try:
            db.execute("BEGIN IMMEDIATE")
            for append in batch:
                summary = _summary(append.state)
                last = written[append.table_id] if append.table_id in written else \
                    self._summaries.get(append.table_id)
                db.execute("SAVEPOINT one")
                try:
                    self._write(db, append, summary, last == summary and append.result is None)
                except sqlite3.IntegrityError as exc:
                    db.execute("ROLLBACK TO one")
                    refusals.append(self._refusal(db, append, exc))
                else:
                    refusals.append(None)
                    written[append.table_id] = None if append.state.finished else summary
                db.execute("RELEASE one")
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise StoreError(f"could not append to {len(batch)} tables: {exc}") from exc
        for table_id, kept in written.items():
            self._keep(table_id, kept)
        return refusals

    def _commit_alone(self, db: sqlite3.Connection, append: Append) -> StoreError | None:
        """A lone append, its own transaction. A move that leaves the summary as this store
        last wrote it (most moves) is a single INSERT: the log's trigger checks the version
        in the same statement, and the new entry is the new version."""
        summary = _summary(append.state)
        unchanged = self._summaries.get(append.table_id) == summary and append.result is None
        try:
            if unchanged:
                self._write(db, append, summary, unchanged)
            else:
                db.execute("BEGIN IMMEDIATE")
                self._write(db, append, summary, unchanged)
                db.execute("COMMIT")
        except sqlite3.Error as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            return self._refusal(db, append, exc)
        self._keep(append.table_id, None if append.state.finished else summary)
        return None

    def _keep(self, table_id: str, summary: _Summary | None) -> None:
        """Remember a committed summary (None: the table ended, nothing more to compare)."""
        if summary is None:
            self._summaries.pop(table_id, None)
        else:
            self._summaries[table_id] = summary

    def _write(self, db: sqlite3.Connection, append: Append, summary: _Summary,
               unchanged: bool) -> None:
        """An append's statements, inside the caller's transaction (or alone, one INSERT)."""
        self._insert_entries(db, append.table_id, append.entries)
        if unchanged:
            return
        db.execute("UPDATE tables SET phase = ?, free_seats = ?, finished = ?, "
                   "seats = ?, deadline = ?, version = ? WHERE table_id = ?",
                   (*summary, append.state.version, append.table_id))
        result = append.result
        if result is not None:
            db.execute("INSERT INTO results (table_id, version, data, finished_at) "
                       "VALUES (?, ?, ?, ?)", (result.table_id, result.version,
                                               dumps(result.data), result.finished_at))

    @staticmethod
    def _refusal(db: sqlite3.Connection, append: Append, error: sqlite3.Error) -> StoreError:
        """Why an append was refused: a reused request id, a version that moved on, a table
        that does not exist, or the store itself."""
        text, table_id = str(error), append.table_id
        if isinstance(error, sqlite3.IntegrityError) and "request_id" in text:
            return RequestIdTaken(table_id,
                                  next(e.request_id for e in append.entries if e.request_id))
        if isinstance(error, sqlite3.IntegrityError):
            row = db.execute(f"SELECT {_VERSION} FROM tables WHERE table_id = ?",
                             (table_id,)).fetchone()
            if row is None:
                return StoreError(f"no table {table_id}")
            return VersionConflict(table_id, append.expected_version, int(row[0]))
        return StoreError(f"could not append to table {table_id}: {text}")

    async def read_results(self, after: int = 0, limit: int = 100) -> list[TableResult]:
        rows = self.db.execute(
            "SELECT table_id, version, data, finished_at, cursor FROM results "
            "WHERE cursor > ? ORDER BY cursor LIMIT ?", (after, limit))
        return [TableResult(str(t), int(v), loads(d), float(f), int(c))
                for t, v, d, f, c in rows]

    async def load_table(self, table_id: str) -> tuple[TableRecord, TableState] | None:
        row = self.db.execute(f"{_SELECT_TABLE} WHERE table_id = ?", (table_id,)).fetchone()
        return None if row is None else _row_to_table(row)

    async def read_log(self, table_id: str, after_version: int = 0,
                       limit: int | None = None) -> list[LogEntry]:
        rows = self.db.execute(
            "SELECT version, kind, seat, payload, request_id, created_at FROM log "
            "WHERE table_id = ? AND version > ? ORDER BY version LIMIT ?",
            (table_id, after_version, -1 if limit is None else limit))
        return [LogEntry(v, k, s, loads(p), r, c) for v, k, s, p, r, c in rows]

    async def find_request(self, table_id: str, request_id: str) -> LogEntry | None:
        row = self.db.execute(
            "SELECT version, kind, seat, payload, request_id, created_at FROM log "
            "WHERE table_id = ? AND request_id = ?", (table_id, request_id)).fetchone()
        if row is None:
            return None
        v, k, s, p, r, c = row
        return LogEntry(v, k, s, loads(p), r, c)

    async def list_tables(self, *, variant_id: str = "", only_open: bool = False,
                          include_finished: bool = False, limit: int = 100, after: str = "",
                          only_finished: bool = False, player_id: str = ""
                          ) -> list[tuple[TableRecord, TableState]]:
        clauses, params = ["table_id > ?"], [after]
        if only_finished:
            clauses.append("finished = 1")
        elif not include_finished:
            clauses.append("finished = 0")
        if player_id:
            clauses.append("EXISTS (SELECT 1 FROM json_each(tables.seats) "
                           "WHERE json_extract(json_each.value, '$.player_id') = ?)")
            params.append(player_id)
        if variant_id:
            clauses.append("variant_id = ?")
            params.append(variant_id)
        if only_open:
            clauses.append("free_seats > 0")
        rows = self.db.execute(
            f"{_SELECT_TABLE} WHERE {' AND '.join(clauses)} "
            f"ORDER BY table_id LIMIT {int(limit)}", params)
        return [_row_to_table(row) for row in rows]

    async def count_tables(self, *, include_finished: bool = False) -> int:
        where = "" if include_finished else " WHERE finished = 0"
        return int(self.db.execute(f"SELECT count(*) FROM tables{where}").fetchone()[0])

    async def due_deadlines(self, now: float, limit: int = 100) -> list[tuple[str, int]]:
        rows = self.db.execute(
            f"SELECT table_id, {_VERSION} FROM tables WHERE deadline IS NOT NULL AND deadline <= ? "
            "AND +finished = 0 ORDER BY deadline LIMIT ?", (now, limit))
        return [(str(t), int(v)) for t, v in rows]

    async def table_versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        found = {}
        for table_id in table_ids:
            row = self.db.execute(f"SELECT {_VERSION} FROM tables WHERE table_id = ?",
                                  (table_id,)).fetchone()
            if row is not None:
                found[table_id] = int(row[0])
        return found

    async def touch_tables(self, table_ids: Sequence[str], seen_at: float) -> None:
        await self._written(lambda db: presence.sqlite_touch(db, table_ids, seen_at))

    async def idle_tables(self, started_before: float, unstarted_before: float,
                          limit: int = 100) -> list[tuple[str, int]]:
        return presence.sqlite_idle(self.db, started_before, unstarted_before, limit)

    async def save_snapshot(self, table_id: str, snapshot: Snapshot) -> None:
        def save(db: sqlite3.Connection) -> None:
            try:
                db.execute(
                    "INSERT INTO snapshots (table_id, version, variant_version, state) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET "
                    "version = excluded.version, variant_version = excluded.variant_version, "
                    "state = excluded.state WHERE excluded.version > snapshots.version",
                    (table_id, snapshot.version, snapshot.variant_version, snapshot.state))
            except sqlite3.Error as exc:
                raise StoreError(f"could not save a snapshot of {table_id}: {exc}") from exc

        await self._written(save)

    async def load_snapshot(self, table_id: str) -> Snapshot | None:
        row = self.db.execute("SELECT version, variant_version, state FROM snapshots "
                              "WHERE table_id = ?", (table_id,)).fetchone()
        return None if row is None else Snapshot(int(row[0]), int(row[1]), bytes(row[2]))
