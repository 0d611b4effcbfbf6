"""The store contract every backend keeps (tests/store/test_contract.py runs it on each).

A table is a :class:`TableRecord` (facts fixed at creation, including the secret seed) plus a
log of :class:`LogEntry` numbered 1, 2, 3, ...; :class:`TableState` is the summary row kept
beside the log so listing tables needs no replay. ``append`` is compare-and-set on the version:
of two writers expecting the same version exactly one succeeds, the other gets
:class:`VersionConflict`. A request id is unique per table, so a move is never stored twice.

The append that ends a table may carry its :class:`TableResult`: the store writes it in the
same transaction as the entries and numbers it with the next *cursor*, so results read in
cursor order are in the order their tables' ends were committed (the results feed).

A store may commit several appends in one transaction (group commit, service/store/batching.py:
the appends that arrive while a commit runs share the next one; a lone append commits at
once). Each call still behaves as if it were alone: it returns only once its own entries are
committed, its compare-and-set and request id are its own (another append's refusal in the same
transaction does not touch it, and a later append to the same table sees an earlier one's
entries), and a failure of the store itself fails every append of that transaction with
StoreError, none of it stored. Results in one transaction take consecutive cursors, all
visible at once, so cursor order is still commit order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


class StoreError(Exception):
    """The store could not do what was asked; the caller may retry (UNAVAILABLE)."""


class VersionConflict(StoreError):
    """Another writer got there first: the table is now at ``current``."""

    def __init__(self, table_id: str, expected: int, current: int) -> None:
        super().__init__(f"table {table_id} is at version {current}, not {expected}")
        self.table_id = table_id
        self.expected = expected
        self.current = current


class RequestIdTaken(StoreError):
    """An entry carried a request id the table's log already holds: nothing was appended."""

    def __init__(self, table_id: str, request_id: str) -> None:
        super().__init__(f"table {table_id} already holds request id {request_id!r}")
        self.table_id = table_id
        self.request_id = request_id


@dataclass(frozen=True, slots=True)
class TableRecord:
    """What a table is, fixed at creation. ``seed`` is secret until the game ends."""

    table_id: str
    variant_id: str
    variant_version: int
    options: dict[str, Any]
    seed: bytes
    commitment: str
    created_at: float
    turn_seconds: int = 0
    test: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TableState:
    """The summary of a table at ``version`` (updated with every append)."""

    version: int
    phase: str
    free_seats: int
    finished: bool
    seats: list[dict[str, Any]]
    deadline: float | None = None


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One change to a table. ``payload`` is JSON; it may hold hidden cards (never sent as is)."""

    version: int
    kind: str
    seat: int | None
    payload: dict[str, Any]
    request_id: str | None = None
    created_at: float = 0.0


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A table's state at ``version``, pickled, so loading replays only the entries after it.

    Written by this server, inside the same trust boundary as the seeds in the same database;
    used only when ``variant_version`` is the installed plugin's version."""

    version: int
    variant_version: int
    state: bytes


@dataclass(frozen=True, slots=True)
class TableResult:
    """A finished table, for the results feed. ``data`` is JSON (variant, seats, outcome, chip
    changes, seed); ``version`` is the log entry that ended the table; ``cursor`` is given by
    the store when the result is committed (0 before)."""

    table_id: str
    version: int
    data: dict[str, Any]
    finished_at: float
    cursor: int = 0


class Store(Protocol):
    """The storage backend of the table service."""

    shared: bool
    """True when several server processes may write the same tables (postgres)."""

    async def open(self) -> None:
        """Connect, and create or migrate the schema."""
        ...

    async def close(self) -> None: ...

    async def create_table(self, record: TableRecord, state: TableState,
                           entries: Sequence[LogEntry]) -> None:
        """Store a new table with its first entries."""
        ...

    async def append(self, table_id: str, expected_version: int, entries: Sequence[LogEntry],
                     state: TableState, result: TableResult | None = None) -> None:
        """Add entries after ``expected_version`` and set the summary, atomically, or raise
        VersionConflict when the table is no longer at ``expected_version``. A ``result`` (the
        entries end the table) is stored in the same transaction, with the next cursor; cursors
        follow the order in which such appends commit."""
        ...

    async def read_results(self, after: int = 0, limit: int = 100) -> list[TableResult]:
        """Committed results with a cursor above ``after``, in cursor order; at most ``limit``."""
        ...

    async def load_table(self, table_id: str) -> tuple[TableRecord, TableState] | None: ...

    async def read_log(self, table_id: str, after_version: int = 0,
                       limit: int | None = None) -> list[LogEntry]:
        """Entries with a version above ``after_version``, in order; at most ``limit``."""
        ...

    async def find_request(self, table_id: str, request_id: str) -> LogEntry | None:
        """The entry a request id produced, if any."""
        ...

    async def list_tables(self, *, variant_id: str = "", only_open: bool = False,
                          include_finished: bool = False, limit: int = 100, after: str = "",
                          only_finished: bool = False, player_id: str = ""
                          ) -> list[tuple[TableRecord, TableState]]:
        """Tables ordered by id, after the id ``after`` (for paging): unfinished ones, or all
        with ``include_finished``, or finished ones only with ``only_finished``; with
        ``player_id``, only tables where a seat is bound to that platform player."""
        ...

    async def count_tables(self, *, include_finished: bool = False) -> int: ...

    async def due_deadlines(self, now: float, limit: int = 100) -> list[tuple[str, int]]:
        """(table id, version) of unfinished tables whose turn deadline has passed."""
        ...

    async def touch_tables(self, table_ids: Sequence[str], seen_at: float) -> None:
        """Record that a seat of each of these tables has a stream open at ``seen_at`` (kept
        per table, the latest wins): the abandon sweep of every replica reads it, so a seat
        connected to any replica keeps its table."""
        ...

    async def idle_tables(self, started_before: float, unstarted_before: float,
                          limit: int = 100) -> list[tuple[str, int]]:
        """(table id, version) of unfinished tables whose last log entry and last touch are
        both older than the cutoff: ``unstarted_before`` while the game has not started
        (phase "waiting" or "reveal"), ``started_before`` after; in table id order."""
        ...

    async def save_snapshot(self, table_id: str, snapshot: Snapshot) -> None:
        """Keep the newest snapshot of a table (an older one never replaces a newer one)."""
        ...

    async def load_snapshot(self, table_id: str) -> Snapshot | None: ...

    async def table_versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        """The committed version of each of these tables that exists (one read for all: a
        replica compares them with the tables it holds, to find what it was not told)."""
        ...

    def listen(self, on_entry: Callable[[str, int], None], on_reconnect: Callable[[], None],
               on_result: Callable[[int], None] = lambda cursor: None) -> None:
        """Call ``on_entry(table_id, version)`` for every entry another process commits,
        ``on_result(cursor)`` for every result, and ``on_reconnect`` when notifications may
        have been lost. A store that is not ``shared`` has nothing to follow."""
        ...


UNSTARTED_PHASES = ("waiting", "reveal")
"""The phases of a table whose game has not started (:meth:`Store.idle_tables`)."""


class LocalStore:
    """What every store that only this process writes has in common: nothing to follow."""

    shared = False

    def listen(self, on_entry: Callable[[str, int], None], on_reconnect: Callable[[], None],
               on_result: Callable[[int], None] = lambda cursor: None) -> None:
        """No other process commits to this store, so there is nothing to be told."""
