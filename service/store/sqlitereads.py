"""The sqlite store's reads: the queries that only read, kept apart from its writer.

They run at once on the event loop's own connection; the writes go through the writer
(``SqliteStore._written``: the same connection, or with ``FULL`` the writing thread's), and in
WAL mode a read sees only what committed.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Sequence

from bezique.service.store import presence
from bezique.service.store.base import LogEntry, Snapshot, TableRecord, TableResult, TableState
from bezique.service.store.codec import loads, state_from_row

TABLE_COLUMNS = ("table_id, variant_id, variant_version, options, seed, commitment, test, "
                 "turn_seconds, created_at, version, phase, free_seats, finished, seats, deadline")

VERSION = ("coalesce((SELECT max(log.version) FROM log WHERE log.table_id = tables.table_id), "
           "tables.version)")
"""A table's version: its log's last entry (the row's own column only before the first)."""

SELECT_TABLE = f"SELECT {TABLE_COLUMNS.replace(' version,', f' {VERSION},')} FROM tables"


def row_to_table(row: sqlite3.Row | tuple[object, ...]) -> tuple[TableRecord, TableState]:
    (table_id, variant_id, variant_version, options, seed, commitment, test, turn_seconds,
     created_at, version, phase, free_seats, finished, seats, deadline) = tuple(row)
    record = TableRecord(str(table_id), str(variant_id), int(variant_version),  # type: ignore[call-overload]
                         loads(options), bytes(seed), str(commitment),  # type: ignore[arg-type]
                         float(created_at), int(turn_seconds), loads(test))  # type: ignore[arg-type,call-overload]
    state = state_from_row(version, phase, free_seats, finished, seats, deadline)  # type: ignore[arg-type]
    return record, state


class SqliteReads(ABC):
    """The read half of :class:`~bezique.service.store.sqlite.SqliteStore`, a mixin: it needs
    the store's open connection (``db``) and nothing else."""

    @property
    @abstractmethod
    def db(self) -> sqlite3.Connection:
        """The store's open connection (the store provides it)."""

    async def read_results(self, after: int = 0, limit: int = 100) -> list[TableResult]:
        rows = self.db.execute(
            "SELECT table_id, version, data, finished_at, cursor FROM results "
            "WHERE cursor > ? ORDER BY cursor LIMIT ?", (after, limit))
        return [TableResult(str(t), int(v), loads(d), float(f), int(c))
                for t, v, d, f, c in rows]

    async def load_table(self, table_id: str) -> tuple[TableRecord, TableState] | None:
        row = self.db.execute(f"{SELECT_TABLE} WHERE table_id = ?", (table_id,)).fetchone()
        return None if row is None else row_to_table(row)

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
            f"{SELECT_TABLE} WHERE {' AND '.join(clauses)} "
            f"ORDER BY table_id LIMIT {int(limit)}", params)
        return [row_to_table(row) for row in rows]

    async def count_tables(self, *, include_finished: bool = False) -> int:
        where = "" if include_finished else " WHERE finished = 0"
        return int(self.db.execute(f"SELECT count(*) FROM tables{where}").fetchone()[0])

    async def due_deadlines(self, now: float, limit: int = 100) -> list[tuple[str, int]]:
        rows = self.db.execute(
            f"SELECT table_id, {VERSION} FROM tables WHERE deadline IS NOT NULL AND deadline <= ? "
            "AND +finished = 0 ORDER BY deadline LIMIT ?", (now, limit))
        return [(str(t), int(v)) for t, v in rows]

    async def table_versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        found = {}
        for table_id in table_ids:
            row = self.db.execute(f"SELECT {VERSION} FROM tables WHERE table_id = ?",
                                  (table_id,)).fetchone()
            if row is not None:
                found[table_id] = int(row[0])
        return found

    async def idle_tables(self, started_before: float, unstarted_before: float,
                          limit: int = 100) -> list[tuple[str, int]]:
        return presence.sqlite_idle(self.db, started_before, unstarted_before, limit)

    async def load_snapshot(self, table_id: str) -> Snapshot | None:
        row = self.db.execute("SELECT version, variant_version, state FROM snapshots "
                              "WHERE table_id = ?", (table_id,)).fetchone()
        return None if row is None else Snapshot(int(row[0]), int(row[1]), bytes(row[2]))
