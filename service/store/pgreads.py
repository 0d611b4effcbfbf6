"""The PostgreSQL store's reads: the queries that only read, kept apart from its writer.

Each is one statement on a pooled connection through the store's ``_run`` (a lost connection
is a StoreError, and the pools drop theirs); the results feed reads on its own small pool, so
it never waits behind the appends.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import asyncpg

from bezique.service.store import presence
from bezique.service.store.base import (
    UNSTARTED_PHASES,
    LogEntry,
    Snapshot,
    TableRecord,
    TableResult,
    TableState,
)
from bezique.service.store.codec import dumps, loads, state_from_row

COLUMNS = ("table_id, variant_id, variant_version, options, seed, commitment, test, "
           "turn_seconds, created_at, version, phase, free_seats, finished, seats, deadline")


def table_of(row: asyncpg.Record) -> tuple[TableRecord, TableState]:
    record = TableRecord(row["table_id"], row["variant_id"], row["variant_version"],
                         loads(row["options"]), bytes(row["seed"]), row["commitment"],
                         row["created_at"], row["turn_seconds"], loads(row["test"]))
    return record, state_from_row(row["version"], row["phase"], row["free_seats"],
                                  row["finished"], row["seats"], row["deadline"])


def entry_of(row: asyncpg.Record) -> LogEntry:
    return LogEntry(row["version"], row["kind"], row["seat"], loads(row["payload"]),
                    row["request_id"], row["created_at"])


class PostgresReads(ABC):
    """The read half of :class:`~bezique.service.store.postgres.PostgresStore`, a mixin: it
    needs the store's ``_run`` and its results feed's pool."""

    _feed_pool: asyncpg.Pool | None

    @abstractmethod
    async def _run(self, what: str, call: Callable[[asyncpg.Connection], Any],
                   pool: asyncpg.Pool | None = None) -> Any:
        """Run ``call`` on a pooled connection, store errors made StoreError (the store's)."""

    async def read_results(self, after: int = 0, limit: int = 100) -> list[TableResult]:
        rows = await self._run("read results", lambda c: c.fetch(
            "SELECT cursor, table_id, version, data, finished_at FROM results "
            "WHERE cursor > $1 ORDER BY cursor LIMIT $2", after, limit), self._feed_pool)
        return [TableResult(row["table_id"], int(row["version"]), loads(row["data"]),
                            float(row["finished_at"]), int(row["cursor"])) for row in rows]

    async def load_table(self, table_id: str) -> tuple[TableRecord, TableState] | None:
        row = await self._run("load table", lambda c: c.fetchrow(
            f"SELECT {COLUMNS} FROM tables WHERE table_id = $1", table_id))
        return None if row is None else table_of(row)

    async def read_log(self, table_id: str, after_version: int = 0,
                       limit: int | None = None) -> list[LogEntry]:
        rows = await self._run("read log", lambda c: c.fetch(
            "SELECT version, kind, seat, payload, request_id, created_at FROM log "
            "WHERE table_id = $1 AND version > $2 ORDER BY version LIMIT $3",
            table_id, after_version, limit))
        return [entry_of(row) for row in rows]

    async def find_request(self, table_id: str, request_id: str) -> LogEntry | None:
        row = await self._run("find request", lambda c: c.fetchrow(
            "SELECT version, kind, seat, payload, request_id, created_at FROM log "
            "WHERE table_id = $1 AND request_id = $2", table_id, request_id))
        return None if row is None else entry_of(row)

    async def list_tables(self, *, variant_id: str = "", only_open: bool = False,
                          include_finished: bool = False, limit: int = 100, after: str = "",
                          only_finished: bool = False, player_id: str = ""
                          ) -> list[tuple[TableRecord, TableState]]:
        clauses, params = ["table_id > $1"], [after]
        if only_finished:
            clauses.append("finished")
        elif not include_finished:
            clauses.append("NOT finished")
        if player_id:
            params.append(dumps([{"player_id": player_id}]))
            clauses.append(f"seats @> ${len(params)}::jsonb")
        if variant_id:
            params.append(variant_id)
            clauses.append(f"variant_id = ${len(params)}")
        if only_open:
            clauses.append("free_seats > 0")
        query = (f"SELECT {COLUMNS} FROM tables WHERE {' AND '.join(clauses)} "
                 f"ORDER BY table_id LIMIT {int(limit)}")
        rows = await self._run("list tables", lambda c: c.fetch(query, *params))
        return [table_of(row) for row in rows]

    async def count_tables(self, *, include_finished: bool = False) -> int:
        where = "" if include_finished else " WHERE NOT finished"
        count = await self._run("count tables",
                                lambda c: c.fetchval(f"SELECT count(*) FROM tables{where}"))
        return int(count)

    async def due_deadlines(self, now: float, limit: int = 100) -> list[tuple[str, int]]:
        rows = await self._run("due deadlines", lambda c: c.fetch(
            "SELECT table_id, version FROM tables WHERE deadline IS NOT NULL AND deadline <= $1"
            " AND NOT finished ORDER BY deadline LIMIT $2", now, limit))
        return [(row["table_id"], int(row["version"])) for row in rows]

    async def idle_tables(self, started_before: float, unstarted_before: float,
                          limit: int = 100) -> list[tuple[str, int]]:
        rows = await self._run("idle tables", lambda c: c.fetch(
            presence.POSTGRES_IDLE, started_before, unstarted_before, list(UNSTARTED_PHASES),
            limit))
        return [(row["table_id"], int(row["version"])) for row in rows]

    async def load_snapshot(self, table_id: str) -> Snapshot | None:
        row = await self._run("load snapshot", lambda c: c.fetchrow(
            "SELECT version, variant_version, state FROM snapshots WHERE table_id = $1",
            table_id))
        return None if row is None else Snapshot(int(row["version"]),
                                                 int(row["variant_version"]),
                                                 bytes(row["state"]))

    async def table_versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        rows = await self._run("table versions", lambda c: c.fetch(
            "SELECT table_id, version FROM tables WHERE table_id = ANY($1::text[])",
            list(table_ids)))
        return {row["table_id"]: int(row["version"]) for row in rows}
