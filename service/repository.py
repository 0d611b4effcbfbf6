"""The table repository: the live tables of this process, loaded, held, refreshed and let go.

It is the only place that puts a table into memory or takes one out, and :meth:`hold` is the
only way to use one: it hands out a table under its lock, never a ``discarded`` one, caught up
with the store when the store is shared. A table whose change failed is discarded: dropped
from memory, its streams told to resume, and rebuilt from the store when next held.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Iterator

import structlog

from bezique.service.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    quoted,
    store_unavailable,
)
from bezique.service.live import LiveTable, Watcher, rebuild
from bezique.service.store import LogEntry, Store, StoreError
from bezique.service.viewcache import Kept, ViewCache
from bezique.service.watch import RELOADED, WatchHub
from bezique.terms import SEAT_KINDS, EntryKind
from bezique.variants.api import LogVersionError
from bezique.variants.registry import Registry, UnknownVariantError

log = structlog.get_logger("bezique.tables")

MAX_MISSED = 64
"""Entries a reloaded table sends on to the streams it adopts; further behind, they resume."""


class TableRepository:
    """Owns the ``LiveTable`` objects of this process: at most one per table id."""

    def __init__(self, registry: Registry, store: Store, hub: WatchHub) -> None:
        self.registry = registry
        self.store = store
        self.hub = hub
        self._tables: dict[str, LiveTable] = {}
        self._kept: Kept = deque()
        """The versions the tables' view caches began to keep (``forget_stale_views``)."""
        self._loading: dict[str, asyncio.Lock] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._seat_hashes: dict[str, frozenset[str]] = {}
        self._known_tokens: set[str] = set()
        """Hashes of the seat tokens of the tables in memory (who is a known caller)."""
        self._orphans: dict[str, list[Watcher]] = {}
        """Streams of discarded tables, waiting for the table to be rebuilt."""
        self._heard: dict[str, int] = {}
        """Versions other replicas committed of tables being loaded: the load may have read
        the log before them, so the table catches up once it is in memory."""
        self.on_loaded: Callable[[LiveTable], None] = lambda live: None
        """Called with every table put into memory (the scheduler starts its bots)."""
        self.on_left: Callable[[str], None] = lambda token_hash: None
        """Called with the hash of each seat token this process learns was given up by a
        ``left`` entry another process appended (on catching up, or on loading a table): the
        seat churn budget of whoever joined with it here is charged (see CommandPath)."""
        self.closing = False

    # ------------------------------------------------------------------ holding

    def hold(self, table_id: str, *, fresh: bool = True) -> Held:
        """The table, under its lock, committed (never a draft or a discarded table); with
        ``fresh`` on a shared store, first caught up with what other replicas appended."""
        return Held(self, table_id, fresh)

    async def _get(self, table_id: str) -> LiveTable:
        live = self._tables.get(table_id)
        if live is not None:
            return live
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        try:
            async with lock:
                live = self._tables.get(table_id)
                if live is None:
                    try:
                        live = await self._load(table_id)
                    except BaseException:
                        self._heard.pop(table_id, None)
                        self.hub.end_detached(self._orphans.pop(table_id, []), RELOADED)
                        raise
                    orphans = self._orphans.pop(table_id, [])
                    missed = await self._missed(live, orphans)
                    self._hold_in_memory(live)
                    self.on_remote_entry(table_id, self._heard.pop(table_id, 0))
                    for token_hash, why in live.revoked.items():
                        if why == "left":
                            self.on_left(token_hash)
                    self.index(live)
                    self.hub.adopt(live, orphans, missed)
                    self.on_loaded(live)
        finally:
            if not lock.locked():
                self._loading.pop(table_id, None)
        return live

    async def _missed(self, live: LiveTable, orphans: list[Watcher]) -> list[LogEntry]:
        """The committed entries the streams of a discarded copy have not had yet (another
        replica moved the table meanwhile), when few enough to send them on."""
        behind = min((w.last for w in orphans if w.last < live.version), default=live.version)
        if not 0 < live.version - behind <= MAX_MISSED:
            return []  # nobody is behind (no read at all), or too far to catch up here
        try:
            entries = await self.store.read_log(live.table_id, behind, live.version - behind)
        except StoreError:
            return []
        return [entry for entry in entries if entry.version <= live.version]

    async def _load(self, table_id: str) -> LiveTable:
        longest = self.hub.limits.max_table_id
        if not table_id or len(table_id) > longest or not table_id.isprintable():
            raise InvalidArgument(f"table_id {quoted(table_id)} is not a table id "
                                  f"(1 to {longest} printable characters)", field="table_id")
        found = await self.store.load_table(table_id)
        if found is None:
            raise NotFound(f"no table {quoted(table_id)}", field="table_id")
        record, _ = found
        try:
            variant = self.registry.variant(record.variant_id)
            seats = variant.seat_count(record.options)
            snapshot = await self.store.load_snapshot(table_id)
            if snapshot is not None and snapshot.variant_version == variant.version:
                try:
                    entries = await self.store.read_log(table_id, snapshot.version)
                    return rebuild(record, variant, seats, entries, snapshot)
                except (StoreError, asyncio.CancelledError):
                    raise
                except Exception as exc:  # a bad snapshot costs a full replay, nothing more
                    log.warning("snapshot_ignored", table_id=table_id, error=repr(exc))
            return rebuild(record, variant, seats, await self.store.read_log(table_id))
        except (UnknownVariantError, LogVersionError) as exc:
            raise FailedPrecondition(f"table {table_id} cannot be served here: {exc}",
                                     field="table_id", reason="LOG_NOT_REPLAYABLE") from exc

    def add(self, live: LiveTable) -> None:
        """A table just created (its first entries are committed)."""
        self._hold_in_memory(live)
        self.index(live)

    def _hold_in_memory(self, live: LiveTable) -> None:
        """``live`` is the table in this process now; the versions its views keep are noted
        in the server's queue (``forget_stale_views``)."""
        self._tables[live.table_id] = live
        live.view_cache.kept = self._kept

    def index(self, live: LiveTable) -> None:
        """Note which seat tokens ``live`` holds now (after a load, a join or a leave)."""
        self._known_tokens.difference_update(self._seat_hashes.pop(live.table_id, ()))
        if not live.discarded:
            hashes = frozenset(seat.token_hash for seat in live.seats if seat.token_hash)
            self._seat_hashes[live.table_id] = hashes
            self._known_tokens.update(hashes)

    def knows_token(self, token_hash: str) -> bool:
        """Whether a table in memory has a seat held by this token (a validated caller)."""
        return token_hash in self._known_tokens

    def discard(self, live: LiveTable) -> None:
        """``live`` may hold a change the store does not: never use it again. The table is
        rebuilt from the store at once, and adopts the streams (see WatchHub.adopt)."""
        live.discarded = True
        live.forget_views()
        if self._tables.get(live.table_id) is live:
            del self._tables[live.table_id]
            self.index(live)
        if not live.watchers:
            return
        self._orphans.setdefault(live.table_id, []).extend(live.watchers)
        live.watchers.clear()
        if self.closing:
            return
        task = asyncio.get_running_loop().create_task(self._reload(live.table_id))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _reload(self, table_id: str) -> None:
        try:
            await self._get(table_id)
        except Exception as exc:  # its streams were told to resume
            log.warning("reload_failed", table_id=table_id, error=repr(exc))

    # ------------------------------------------------------------------ shared stores

    async def catch_up_locked(self, live: LiveTable) -> None:
        """Apply, and publish, the entries other replicas appended (shared stores only)."""
        if not self.store.shared:
            return
        try:
            for entry in await self.store.read_log(live.table_id, live.version):
                leaving = (live.seats[entry.seat].token_hash if entry.kind == EntryKind.LEFT
                           and entry.seat is not None and 0 <= entry.seat < len(live.seats)
                           else "")
                live.apply_entry(entry)
                if leaving:
                    self.on_left(leaving)
                self.hub.publish(live, entry)
                if entry.kind in SEAT_KINDS:
                    self.index(live)
        except BaseException as exc:
            self.discard(live)
            if isinstance(exc, StoreError):
                log.warning("store_unavailable", table_id=live.table_id, error=str(exc))
                raise store_unavailable() from exc
            raise

    def on_remote_entry(self, table_id: str, version: int) -> None:
        """A replica committed ``version`` of a table (its notice, or the poll): catch up if
        we hold it, so our watchers and bots see the move; if we are loading it, once loaded."""
        live = self._tables.get(table_id)
        if live is None and (table_id in self._loading or table_id in self._orphans):
            self._heard[table_id] = max(version, self._heard.get(table_id, 0))
        if live is None or version <= live.version or self.closing:
            return
        task = asyncio.get_running_loop().create_task(self._remote_catch_up(table_id))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def on_reconnect(self) -> None:
        """Notices may have been lost (the listener was away, or is new): poll now, so every
        table held that is behind the store catches up (one read per 500 tables)."""
        if self.closing:
            return
        task = asyncio.get_running_loop().create_task(self._poll_now())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _poll_now(self) -> None:
        try:
            await self.poll()
        except StoreError as exc:  # the next poll tries again
            log.warning("replica_poll_failed", error=str(exc))

    async def poll(self, batch: int = 500) -> int:
        """Compare the versions of the tables held with the store's, and catch up those behind:
        the last resort against a lost notice (run every ``--replica-poll-seconds``). Returns
        how many were behind."""
        if not self.store.shared or self.closing:
            return 0
        held = [(live.table_id, live.version) for live in self.held()]
        behind = 0
        for start in range(0, len(held), batch):
            chunk = dict(held[start:start + batch])
            for table_id, version in (await self.store.table_versions(list(chunk))).items():
                if version > chunk[table_id]:
                    behind += 1
                    self.on_remote_entry(table_id, version)
        return behind

    async def _remote_catch_up(self, table_id: str) -> None:
        try:
            async with self.hold(table_id) as live:
                self.on_loaded(live)
        except Exception as exc:
            log.warning("catch_up_failed", table_id=table_id, error=repr(exc))

    # ------------------------------------------------------------------ memory

    def close(self, why: str) -> None:
        """End every stream: of the tables held, and of those waiting to be rebuilt."""
        self.closing = True
        for live in self.held():
            self.hub.end_all(live, why)
        for orphans in self._orphans.values():
            self.hub.end_detached(orphans, why)
        self._orphans.clear()

    def cached(self, table_id: str) -> LiveTable | None:
        return self._tables.get(table_id)

    def held(self) -> Iterator[LiveTable]:
        """Every table in memory now."""
        return iter(list(self._tables.values()))

    async def save_snapshot(self, live: LiveTable) -> None:
        snapshot = live.snapshot()
        try:
            await self.store.save_snapshot(live.table_id, snapshot)
            live.snapshot_version = snapshot.version
        except StoreError as exc:
            log.warning("snapshot_failed", table_id=live.table_id, error=str(exc))

    def forget_stale_views(self, keep: float, now: float | None = None) -> int:
        """Let go of the views each table in memory has kept ``keep`` seconds or longer (its
        streams were sent them long since; a table waiting for a move then keeps none).
        Returns how many tables let a version go."""
        return ViewCache.let_go(self._kept, time.monotonic() if now is None else now, keep)

    async def evict_idle(self, idle_seconds: float, busy: Callable[[str], bool],
                         now: float | None = None) -> int:
        """Drop tables nobody has used for ``idle_seconds`` (no watcher, no bot, no call in
        flight) from memory, after a snapshot: they are rebuilt from the store when next used,
        so an idle table costs the store a few rows and this process nothing."""
        now = time.monotonic() if now is None else now
        evicted = 0
        for live in self.held():
            if (now - live.last_used < idle_seconds or live.watchers or live.lock.locked()
                    or busy(live.table_id)):
                continue
            async with live.lock:
                if live.discarded or live.watchers or now - live.last_used < idle_seconds:
                    continue
                if live.version > live.snapshot_version and live.started:
                    await self.save_snapshot(live)
                self.discard(live)
                evicted += 1
        return evicted


class Held:
    """What :meth:`TableRepository.hold` returns: a plain context manager rather than a
    generator under ``asynccontextmanager``, and the lock taken and given back by its own
    calls, since every command (a move too) passes through it; a table in memory is found
    without another coroutine."""

    __slots__ = ("_fresh", "_live", "_repo", "_table_id")

    def __init__(self, repo: TableRepository, table_id: str, fresh: bool) -> None:
        self._repo = repo
        self._table_id = table_id
        self._fresh = fresh

    async def __aenter__(self) -> LiveTable:
        repo = self._repo
        while True:
            live = repo._tables.get(self._table_id)
            if live is None:
                live = await repo._get(self._table_id)
            await live.lock.acquire()
            if live.discarded:
                live.lock.release()
                continue
            if self._fresh and repo.store.shared:
                try:
                    await repo.catch_up_locked(live)
                except BaseException:
                    live.lock.release()
                    raise
            live.last_used = time.monotonic()
            self._live = live
            return live

    async def __aexit__(self, *exc_info: object) -> None:
        self._live.lock.release()
