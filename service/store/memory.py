"""The in-memory store: the contract without durability, for tests and benchmarks."""

from __future__ import annotations

from collections.abc import Sequence

from bezique.service.store.base import (
    UNSTARTED_PHASES,
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


class MemoryStore(LocalStore):

    def __init__(self) -> None:
        self._records: dict[str, TableRecord] = {}
        self._states: dict[str, TableState] = {}
        self._logs: dict[str, list[LogEntry]] = {}
        self._requests: dict[tuple[str, str], LogEntry] = {}
        self._snapshots: dict[str, Snapshot] = {}
        self._results: list[TableResult] = []
        self._seen: dict[str, float] = {}

    async def open(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def create_table(self, record: TableRecord, state: TableState,
                           entries: Sequence[LogEntry]) -> None:
        if record.table_id in self._records:
            raise StoreError(f"table {record.table_id} exists")
        self._records[record.table_id] = record
        self._states[record.table_id] = state
        self._logs[record.table_id] = []
        self._add(record.table_id, entries)

    def _add(self, table_id: str, entries: Sequence[LogEntry]) -> None:
        for entry in entries:
            if entry.request_id and (table_id, entry.request_id) in self._requests:
                raise RequestIdTaken(table_id, entry.request_id)
        for entry in entries:
            self._logs[table_id].append(entry)  # entries are never changed once made
            if entry.request_id:
                self._requests[(table_id, entry.request_id)] = entry

    async def append(self, table_id: str, expected_version: int, entries: Sequence[LogEntry],
                     state: TableState, result: TableResult | None = None) -> None:
        current = self._states.get(table_id)
        if current is None:
            raise StoreError(f"no table {table_id}")
        if current.version != expected_version:
            raise VersionConflict(table_id, expected_version, current.version)
        self._add(table_id, entries)
        self._states[table_id] = state
        if result is not None:
            self._results.append(TableResult(result.table_id, result.version, result.data,
                                             result.finished_at, len(self._results) + 1))

    async def read_results(self, after: int = 0, limit: int = 100) -> list[TableResult]:
        return self._results[max(0, after):max(0, after) + limit]

    async def load_table(self, table_id: str) -> tuple[TableRecord, TableState] | None:
        if table_id not in self._records:
            return None
        return self._records[table_id], self._states[table_id]

    async def read_log(self, table_id: str, after_version: int = 0,
                       limit: int | None = None) -> list[LogEntry]:
        entries = [e for e in self._logs.get(table_id, []) if e.version > after_version]
        return entries if limit is None else entries[:limit]

    async def find_request(self, table_id: str, request_id: str) -> LogEntry | None:
        return self._requests.get((table_id, request_id))

    async def list_tables(self, *, variant_id: str = "", only_open: bool = False,
                          include_finished: bool = False, limit: int = 100, after: str = "",
                          only_finished: bool = False, player_id: str = ""
                          ) -> list[tuple[TableRecord, TableState]]:
        rows = []
        for table_id in sorted(self._records):
            record, state = self._records[table_id], self._states[table_id]
            if table_id <= after or (variant_id and record.variant_id != variant_id):
                continue
            if (state.finished and not (include_finished or only_finished)) or \
                    (only_finished and not state.finished) or (only_open and not state.free_seats):
                continue
            if player_id and not any(seat.get("player_id") == player_id for seat in state.seats):
                continue
            rows.append((record, state))
            if len(rows) >= limit:
                break
        return rows

    async def count_tables(self, *, include_finished: bool = False) -> int:
        return sum(1 for s in self._states.values() if include_finished or not s.finished)

    async def due_deadlines(self, now: float, limit: int = 100) -> list[tuple[str, int]]:
        due = [(t, s.version) for t, s in self._states.items()
               if not s.finished and s.deadline is not None and s.deadline <= now]
        return sorted(due)[:limit]

    async def table_versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        return {t: self._states[t].version for t in table_ids if t in self._states}

    async def touch_tables(self, table_ids: Sequence[str], seen_at: float) -> None:
        for table_id in table_ids:
            self._seen[table_id] = max(seen_at, self._seen.get(table_id, seen_at))

    async def idle_tables(self, started_before: float, unstarted_before: float,
                          limit: int = 100) -> list[tuple[str, int]]:
        idle = []
        for table_id, state in sorted(self._states.items()):
            log = self._logs[table_id]
            last = max(log[-1].created_at if log else self._records[table_id].created_at,
                       self._seen.get(table_id, 0.0))
            cutoff = unstarted_before if state.phase in UNSTARTED_PHASES else started_before
            if not state.finished and last < cutoff:
                idle.append((table_id, state.version))
        return idle[:limit]

    async def save_snapshot(self, table_id: str, snapshot: Snapshot) -> None:
        current = self._snapshots.get(table_id)
        if current is None or current.version < snapshot.version:
            self._snapshots[table_id] = snapshot

    async def load_snapshot(self, table_id: str) -> Snapshot | None:
        return self._snapshots.get(table_id)
