"""The table manager: sequencing, auth, redaction, idempotency and fan-out of every table.

Every change is a log entry appended with compare-and-set on the version; an entry is
acknowledged (and shown to watchers) only after the store has it. The game itself is the
variant's business: this module asks it for legal moves and views and never interprets a card.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from service import auth
from service.errors import (
    FailedPrecondition,
    IllegalMove,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    StaleVersion,
    Unavailable,
)
from service.live import (
    MOVE_KINDS,
    Broadcast,
    LiveTable,
    ViewResult,
    Watcher,
    events_json,
    rebuild,
)
from service.metrics import Metrics
from service.store import (
    LogEntry,
    RequestIdTaken,
    Store,
    StoreError,
    TableRecord,
    VersionConflict,
)
from variants.api import (
    Event,
    LogVersionError,
    Move,
    OptionError,
    resolve_options,
)
from variants.chance import commitment
from variants.registry import Registry, UnknownVariantError

log = structlog.get_logger("bezique.tables")


@dataclass(frozen=True)
class Limits:
    """Configurable limits (issue: hostile input survived)."""

    max_tables: int = 100_000
    max_watchers_per_table: int = 1000
    watch_queue: int = 256
    max_name_length: int = 64
    max_request_id_length: int = 128
    max_turn_seconds: int = 86_400


@dataclass(frozen=True)
class Settings:
    test_mode: bool = False
    bot_delay: float = 0.0
    snapshot_every: int = 64
    limits: Limits = field(default_factory=Limits)


@dataclass(frozen=True)
class MoveResult:
    version: int
    after: ViewResult
    events: tuple[Event, ...]
    duplicate: bool


@dataclass(frozen=True)
class HistoryItem:
    entry: LogEntry
    move: Move | None
    events: tuple[Event, ...]


@dataclass(frozen=True)
class Update:
    """One entry as a watcher may see it, with the watcher's view after it when current."""

    version: int
    kind: str
    seat: int | None
    events: tuple[Event, ...]
    view: ViewResult | None
    broadcast: Broadcast | None = None


def _visible_move(entry: LogEntry, viewer: int | None, events: Sequence[Event],
                  finished: bool) -> Move | None:
    if entry.kind not in MOVE_KINDS:
        return None
    move = Move.from_dict(entry.payload["move"])
    if finished or viewer == entry.seat:
        return move
    shown = {card for event in events for card in event.cards}
    return Move(move.kind, tuple(c for c in move.cards if c in shown), move.amount, move.label)


class TableManager:
    """Owns the live tables of this process and every path that changes them."""

    def __init__(self, registry: Registry, store: Store, settings: Settings | None = None,
                 metrics: Metrics | None = None) -> None:
        self.registry = registry
        self.metrics = metrics
        self.store = store
        self.settings = settings or Settings()
        self._tables: dict[str, LiveTable] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._bot_tasks: dict[str, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self.closing = False

    # ------------------------------------------------------------------ loading

    async def table(self, table_id: str) -> LiveTable:
        """The live table, rebuilt from the store on first use."""
        live = self._tables.get(table_id)
        if live is not None:
            live.last_used = time.monotonic()
            return live
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            live = self._tables.get(table_id)
            if live is None:
                live = await self._load(table_id)
                self._tables[table_id] = live
        self._loading.pop(table_id, None)
        live.last_used = time.monotonic()
        self._schedule_bot(live)
        return live

    async def _load(self, table_id: str) -> LiveTable:
        if not table_id or len(table_id) > 64:
            raise InvalidArgument(f"table_id {table_id!r} is not a table id", field="table_id")
        found = await self.store.load_table(table_id)
        if found is None:
            raise NotFound(f"no table {table_id!r}", field="table_id")
        record, _ = found
        try:
            variant = self.registry.variant(record.variant_id)
            seats = variant.seat_count(record.options)
            snapshot = await self.store.load_snapshot(table_id)
            if snapshot is not None and snapshot.variant_version == variant.version:
                try:
                    entries = await self.store.read_log(table_id, snapshot.version)
                    return rebuild(record, variant, seats, entries, snapshot)
                except Exception as exc:  # a bad snapshot costs a full replay, nothing more
                    log.warning("snapshot_ignored", table_id=table_id, error=repr(exc))
            return rebuild(record, variant, seats, await self.store.read_log(table_id))
        except (UnknownVariantError, LogVersionError) as exc:
            raise FailedPrecondition(f"table {table_id} cannot be served here: {exc}",
                                     field="table_id", reason="LOG_NOT_REPLAYABLE") from exc

    async def catch_up(self, live: LiveTable) -> None:
        """Apply entries another process appended (shared stores), and tell the watchers."""
        if not self.store.shared:
            return
        async with live.lock:
            await self._catch_up_locked(live)

    async def _catch_up_locked(self, live: LiveTable) -> None:
        if not self.store.shared:
            return
        for entry in await self.store.read_log(live.table_id, live.version):
            live.apply_entry(entry)
            self._publish(live, entry)

    def on_remote_entry(self, table_id: str, version: int) -> None:
        """A replica committed ``version`` of a table (PostgreSQL NOTIFY): catch up if we hold
        it, so our watchers and bots see the move."""
        live = self._tables.get(table_id)
        if live is None or version <= live.version or self.closing:
            return
        task = asyncio.get_running_loop().create_task(self._remote_catch_up(live))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def on_reconnect(self) -> None:
        """Notifications may have been lost: catch up every table somebody watches."""
        for live in list(self._tables.values()):
            if live.watchers:
                self.on_remote_entry(live.table_id, live.version + 1)

    async def _remote_catch_up(self, live: LiveTable) -> None:
        try:
            await self.catch_up(live)
        except Exception as exc:
            log.warning("catch_up_failed", table_id=live.table_id, error=repr(exc))
            self._tables.pop(live.table_id, None)
        self._schedule_bot(live)

    def live_tables(self) -> Iterator[tuple[str, str]]:
        """(variant, phase) of every table held in memory, for the metrics."""
        for live in list(self._tables.values()):
            yield live.variant.id, live.phase

    async def evict_idle(self, idle_seconds: float, now: float | None = None) -> int:
        """Drop tables nobody has used for ``idle_seconds`` (no watcher, no bot, no call in
        flight) from memory, after a snapshot: they are rebuilt from the store when next used,
        so an idle table costs the store a few rows and this process nothing."""
        now = time.monotonic() if now is None else now
        evicted = 0
        for live in list(self._tables.values()):
            if (now - live.last_used < idle_seconds or live.watchers or live.lock.locked()
                    or live.table_id in self._bot_tasks):
                continue
            if live.version > live.snapshot_version and live.started:
                await self._save_snapshot(live)
            if now - live.last_used >= idle_seconds and not live.watchers:
                self._tables.pop(live.table_id, None)
                evicted += 1
        return evicted

    def forget(self, table_id: str) -> None:
        """Drop a table from memory (it is rebuilt from the store when next used)."""
        self._tables.pop(table_id, None)

    # ------------------------------------------------------------------ creating and seating

    async def create_table(self, variant_id: str, options: Mapping[str, str],
                           bots: Sequence[tuple[int, str]] = (), turn_seconds: int = 0,
                           test: Mapping[str, Any] | None = None) -> LiveTable:
        try:
            variant = self.registry.variant(variant_id)
        except UnknownVariantError as exc:
            raise InvalidArgument(str(exc), field="variant_id") from exc
        try:
            resolved = resolve_options(variant.options, options)
        except OptionError as exc:
            raise InvalidArgument(str(exc), field=f"options[{exc.option}]") from exc
        limits = self.settings.limits
        if not 0 <= turn_seconds <= limits.max_turn_seconds:
            raise InvalidArgument(f"turn_seconds must be 0..{limits.max_turn_seconds}",
                                  field="turn_seconds")
        test_settings = dict(test or {})
        if test_settings and not self.settings.test_mode:
            raise PermissionDenied("seed, stacked_shoe and first_dealer need a server started "
                                   "with --test-mode", field="test")
        seed = test_settings.pop("seed", b"") or secrets.token_bytes(32)
        if len(seed) < 16:
            raise InvalidArgument("test.seed needs at least 16 bytes", field="test.seed")
        seats = variant.seat_count(resolved)
        self._check_test_settings(variant, resolved, seats, test_settings)
        if await self.store.count_tables() >= limits.max_tables:
            raise ResourceExhausted(f"this server holds its limit of {limits.max_tables} tables")
        record = TableRecord(secrets.token_hex(8), variant.id, variant.version, resolved, seed,
                             commitment(seed), time.time(), turn_seconds, test_settings)
        live = LiveTable(record, variant, seats)
        now = time.time()
        entries = [LogEntry(1, "created", None, {
            "variant": variant.id, "variant_version": variant.version,
            "options": resolved, "commitment": record.commitment}, None, now)]
        live.apply_entry(entries[0])
        taken = set()
        for seat, policy in bots:
            if not 0 <= seat < seats or seat in taken:
                raise InvalidArgument(f"bot seat {seat} is not a free seat 0..{seats - 1}",
                                      field="bots.seat")
            if policy not in self.registry.bot_policies(variant.id):
                known = ", ".join(self.registry.bot_policies(variant.id))
                raise InvalidArgument(f"no bot policy {policy!r} for {variant.id} ({known})",
                                      field="bots.policy")
            taken.add(seat)
            entries.append(self._entry(live, "joined", seat, {"name": f"{policy} bot",
                                                              "bot": policy}, now))
        entries += self._start_if_full(live, now)
        await self.store.create_table(record, live.state(), entries)
        self._tables[record.table_id] = live
        log.info("table_created", table_id=record.table_id, variant=variant.id,
                 version=live.version)
        self._schedule_bot(live)
        return live

    def _check_test_settings(self, variant: Any, options: Mapping[str, Any], seats: int,
                             test: Mapping[str, Any]) -> None:
        stacked = test.get("stacked_shoe")
        if stacked:
            try:
                variant.shoe(options).order_from_codes(stacked)
            except ValueError as exc:
                raise InvalidArgument(f"test.stacked_shoe: {exc}",
                                      field="test.stacked_shoe") from exc
        first = test.get("first_dealer")
        if first is not None and not 0 <= int(first) < seats:
            raise InvalidArgument(f"test.first_dealer must be a seat 0..{seats - 1}",
                                  field="test.first_dealer")

    def _entry(self, live: LiveTable, kind: str, seat: int | None, payload: dict[str, Any],
               now: float, request_id: str | None = None) -> LogEntry:
        """Make the next entry and apply it to ``live`` (the caller stores it or rolls back)."""
        entry = LogEntry(live.version + 1, kind, seat, payload, request_id, now)
        live.apply_entry(entry)
        return entry

    def _start_if_full(self, live: LiveTable, now: float) -> list[LogEntry]:
        if live.started or live.free_seats:
            return []
        events = live.start_game()
        entry = LogEntry(live.version + 1, "started", None,
                         {"events": events_json(events), "deadline": self._deadline(live, now)},
                         None, now)
        live.advance(entry)
        return [entry]

    def _deadline(self, live: LiveTable, now: float) -> float | None:
        seconds = live.record.turn_seconds
        if not seconds or live.game is None or live.finished:
            return None
        return now + seconds

    async def join(self, table_id: str, seat: int | None, name: str
                   ) -> tuple[int, str, LiveTable]:
        if len(name) > self.settings.limits.max_name_length:
            raise InvalidArgument(f"display_name is longer than "
                                  f"{self.settings.limits.max_name_length} characters",
                                  field="display_name")
        live = await self.table(table_id)
        async with live.lock:
            await self._catch_up_locked(live)
            if seat is None:
                free = [i for i, s in enumerate(live.seats) if not s.occupied]
                if not free:
                    raise FailedPrecondition(f"table {table_id} has no free seat", field="seat",
                                             reason="TABLE_FULL")
                seat = free[0]
            elif not 0 <= seat < len(live.seats):
                raise InvalidArgument(f"seat {seat} does not exist (0..{len(live.seats) - 1})",
                                      field="seat")
            elif live.seats[seat].occupied:
                raise FailedPrecondition(f"seat {seat} is taken", field="seat",
                                         reason="SEAT_TAKEN")
            token = auth.new_token()
            now = time.time()
            expected = live.version
            entries = [self._entry(live, "joined", seat, {
                "name": name or f"seat {seat}", "token_hash": auth.token_hash(token)}, now)]
            entries += self._start_if_full(live, now)
            await self._store(live, expected, entries)
        self._schedule_bot(live)
        return seat, token, live

    async def leave(self, table_id: str, seat: int) -> int:
        live = await self.table(table_id)
        async with live.lock:
            if live.started:
                raise FailedPrecondition("the game has started: a seat cannot be given up now",
                                         reason="GAME_STARTED")
            expected = live.version
            entries = [self._entry(live, "left", seat, {}, time.time())]
            await self._store(live, expected, entries)
            return live.version

    async def _store(self, live: LiveTable, expected: int, entries: list[LogEntry]) -> None:
        """Append entries already applied to ``live``; on failure, rebuild ``live`` from the
        store so memory never holds what the store does not."""
        try:
            await self.store.append(live.table_id, expected, entries, live.state())
        except VersionConflict as exc:
            self._tables.pop(live.table_id, None)
            raise StaleVersion(live.table_id, expected, exc.current) from exc
        except RequestIdTaken:
            self._tables.pop(live.table_id, None)
            raise
        except StoreError as exc:
            self._tables.pop(live.table_id, None)
            log.warning("store_append_failed", table_id=live.table_id, error=str(exc))
            raise Unavailable(f"the store did not take the change: {exc}; retry") from exc
        except BaseException:
            self._tables.pop(live.table_id, None)
            raise
        for entry in entries:
            self._publish(live, entry)

    async def _save_snapshot(self, live: LiveTable) -> None:
        snapshot = live.snapshot()
        try:
            await self.store.save_snapshot(live.table_id, snapshot)
            live.snapshot_version = snapshot.version
        except StoreError as exc:
            log.warning("snapshot_failed", table_id=live.table_id, error=str(exc))

    # ------------------------------------------------------------------ auth

    def seat_of(self, live: LiveTable, token: str | None) -> int | None:
        """The seat a token holds at this table; None for no token (a spectator)."""
        if token is None:
            return None
        found = None
        presented = auth.token_hash(token)  # hashed once, not once per seat
        for index, seat in enumerate(live.seats):  # every seat compared: constant time
            if auth.hash_matches(presented, seat.token_hash) and found is None:
                found = index
        if found is None:
            raise PermissionDenied("this token holds no seat at this table",
                                   field="authorization")
        return found

    # ------------------------------------------------------------------ reading

    def view_of(self, live: LiveTable, viewer: int | None) -> ViewResult:
        if live.game is None:
            return ViewResult(live, viewer, live.version, None, ())
        legal = live.game.legal_moves(viewer) if viewer is not None else ()
        return ViewResult(live, viewer, live.version, live.game.view(viewer), legal,
                          live.game.outcome(), live.deadline)

    async def get_view(self, table_id: str, token: str | None) -> ViewResult:
        live = await self.table(table_id)
        await self.catch_up(live)
        return self.view_of(live, self.seat_of(live, token))

    async def history(self, table_id: str, token: str | None
                      ) -> tuple[LiveTable, int | None, list[HistoryItem]]:
        live = await self.table(table_id)
        await self.catch_up(live)
        viewer = self.seat_of(live, token)
        finished = live.finished
        items = []
        for entry in await self.store.read_log(table_id):
            events = tuple(self._events_for(entry, viewer, finished))
            items.append(HistoryItem(entry, _visible_move(entry, viewer, events, finished),
                                     events))
        return live, viewer, items

    @staticmethod
    def _events_for(entry: LogEntry, viewer: int | None, finished: bool) -> list[Event]:
        events = [Event.from_dict(raw) for raw in entry.payload.get("events", ())]
        return events if finished else [event.redacted_for(viewer) for event in events]

    # ------------------------------------------------------------------ moving

    async def submit(self, table_id: str, seat: int, move: Move, expected_version: int,
                     request_id: str, kind: str = "move") -> MoveResult:
        if len(request_id) > self.settings.limits.max_request_id_length:
            raise InvalidArgument("request_id is too long", field="request_id")
        live = await self.table(table_id)
        async with live.lock:
            if expected_version > live.version:
                await self._catch_up_locked(live)
            game = live.game
            legal = game.legal_moves(seat) if game is not None else ()
            if expected_version != live.version or game is None or move not in legal:
                # A repeat of a stored move finds the table moved on (the version it expected
                # is gone), so a fresh move that can be applied needs no lookup at all.
                if request_id:
                    earlier = await self.store.find_request(table_id, request_id)
                    if earlier is not None:
                        return self._duplicate(live, seat, earlier)
                if expected_version != live.version:
                    raise StaleVersion(table_id, expected_version, live.version)
                if game is None:
                    raise FailedPrecondition(f"table {table_id} is waiting for players",
                                             reason="WAITING_FOR_PLAYERS")
                raise self._illegal(live, seat, move, legal)
            now = time.time()
            events = game.apply(seat, move)
            payload: dict[str, Any] = {"move": move.to_dict(), "events": events_json(events),
                                       "deadline": self._deadline(live, now)}
            entry = LogEntry(live.version + 1, kind, seat, payload, request_id or None, now)
            live.advance(entry)
            try:
                await self._store(live, expected_version, [entry])
            except RequestIdTaken:
                # the id was used for another move at an earlier version: its first answer
                earlier = await self.store.find_request(table_id, request_id)
                if earlier is None:
                    raise Unavailable("the store refused the move; retry") from None
                return self._duplicate(await self.table(table_id), seat, earlier)
        log.debug("move_applied", table_id=table_id, seat=seat, version=live.version,
                  request_id=request_id, kind=move.kind)
        if self.metrics is not None:
            self.metrics.moved(live.variant.id, kind)
        if live.version - live.snapshot_version >= self.settings.snapshot_every:
            await self._save_snapshot(live)
        self._schedule_bot(live)
        redacted = tuple(event.redacted_for(seat) for event in events)
        return MoveResult(entry.version, self.view_of(live, seat), redacted, False)

    def _duplicate(self, live: LiveTable, seat: int, earlier: LogEntry) -> MoveResult:
        if earlier.seat != seat:
            raise FailedPrecondition("request_id was used by another seat at this table",
                                     field="request_id", reason="REQUEST_ID_REUSED")
        events = tuple(self._events_for(earlier, seat, False))
        return MoveResult(earlier.version, self.view_of(live, seat), events, True)

    def _illegal(self, live: LiveTable, seat: int, move: Move, legal: Sequence[Move]
                 ) -> IllegalMove:
        game = live.game
        assert game is not None
        shoe = game.shoe

        def describe(m: Move) -> str:
            cards = " ".join(shoe.code(c) if 0 <= c < len(shoe) else f"#{c}" for c in m.cards)
            return " ".join(p for p in (m.kind, m.label, cards,
                                        str(m.amount) if m.amount else "") if p)

        if not legal:
            why = ("the game is over" if live.finished else
                   f"it is not seat {seat}'s turn (to move: {list(game.to_move)})")
        else:
            why = "it is not one of your legal moves"
        return IllegalMove(f"move '{describe(move)}' refused in phase {game.phase!r}: {why}",
                           [describe(m) for m in legal])

    # ------------------------------------------------------------------ watching

    def _publish(self, live: LiveTable, entry: LogEntry) -> None:
        if live.watchers:
            broadcast = Broadcast(entry)
            for viewer in {watcher.viewer for watcher in live.watchers}:
                broadcast.views[viewer] = self.view_of(live, viewer)
            for watcher in list(live.watchers):
                if watcher.queue.qsize() >= self.settings.limits.watch_queue:
                    live.watchers.discard(watcher)
                    watcher.queue.put_nowait(None)
                else:
                    watcher.queue.put_nowait(broadcast)
        if entry.kind in MOVE_KINDS and self.registry.observed:
            events = [Event.from_dict(raw) for raw in entry.payload.get("events", ())]
            try:
                self.registry.notify_events(live.table_id, live.variant.id, entry.version, events)
            except Exception as exc:  # an observer plugin must not break the table
                log.warning("observer_failed", table_id=live.table_id, error=str(exc))

    async def watch(self, table_id: str, token: str | None, from_version: int
                    ) -> AsyncIterator[Update]:
        """Every update after ``from_version`` the caller may see, then live ones, each once."""
        if from_version < 0:
            raise InvalidArgument("from_version must be >= 0", field="from_version")
        live = await self.table(table_id)
        viewer = self.seat_of(live, token)
        limits = self.settings.limits
        if len(live.watchers) >= limits.max_watchers_per_table:
            raise ResourceExhausted(f"table {table_id} has its limit of "
                                    f"{limits.max_watchers_per_table} watchers")
        watcher = Watcher(viewer, asyncio.Queue(limits.watch_queue + 1))
        # Hold the lock while subscribing and reading the backlog, so no entry falls between.
        async with live.lock:
            await self._catch_up_locked(live)
            if from_version > live.version:
                raise InvalidArgument(f"from_version {from_version} is ahead of the table "
                                      f"(version {live.version})", field="from_version")
            live.watchers.add(watcher)
            backlog = await self.store.read_log(table_id, from_version)
            current = self.view_of(live, viewer)
        try:
            last = from_version
            for index, entry in enumerate(backlog):
                last = entry.version
                yield self._update(entry, viewer, live.finished,
                                   current if index == len(backlog) - 1 else None, None)
            while not self.closing:
                broadcast = await watcher.queue.get()
                if broadcast is None and self.closing:
                    raise Unavailable(f"the server is shutting down; resume from version {last} "
                                      "on another replica", metadata={"resume_from": str(last)})
                if broadcast is None:
                    raise ResourceExhausted(f"watcher fell behind; resume from version {last}",
                                            reason="WATCHER_BEHIND",
                                            metadata={"resume_from": str(last)})
                if broadcast.entry.version <= last:
                    continue
                last = broadcast.entry.version
                yield self._update(broadcast.entry, viewer, live.finished,
                                   broadcast.views.get(viewer), broadcast)
        finally:
            live.watchers.discard(watcher)

    def _update(self, entry: LogEntry, viewer: int | None, finished: bool,
                view: ViewResult | None, broadcast: Broadcast | None) -> Update:
        if broadcast is None:
            events = tuple(self._events_for(entry, viewer, finished))
        else:
            cached = broadcast.events.get(viewer)
            if cached is None:
                cached = broadcast.events[viewer] = tuple(
                    self._events_for(entry, viewer, finished))
            events = cached
        return Update(entry.version, entry.kind, entry.seat, events, view, broadcast)

    # ------------------------------------------------------------------ bots and clocks

    def _schedule_bot(self, live: LiveTable) -> None:
        """Start the bot of the seat to move, if that seat is a bot's (one task per table)."""
        game = live.game
        if self.closing or game is None or live.finished or live.table_id in self._bot_tasks:
            return
        if not any(live.seats[s].bot for s in game.to_move):
            return
        task = asyncio.get_running_loop().create_task(self._run_bots(live))
        self._bot_tasks[live.table_id] = task

    async def _run_bots(self, live: LiveTable) -> None:
        table_id = live.table_id
        try:
            while not self.closing:
                live = await self.table(table_id)
                await self.catch_up(live)
                game = live.game
                if game is None or live.finished:
                    return
                seats = [s for s in game.to_move if live.seats[s].bot]
                if not seats:
                    return
                await asyncio.sleep(self.settings.bot_delay)
                seat, version = seats[0], live.version
                if seat not in game.to_move or version != live.version:
                    continue
                policy = self.registry.bot_policies(live.variant.id)[live.seats[seat].bot]
                rng = random.Random(f"{table_id}:{version}")
                move = policy.choose(game.view(seat), game.legal_moves(seat), rng)
                with contextlib.suppress(StaleVersion):
                    await self.submit(table_id, seat, move, version, f"bot:{version}:{seat}",
                                      kind="bot_move")
        except Exception as exc:
            log.error("bot_failed", table_id=table_id, error=repr(exc))
        finally:
            self._bot_tasks.pop(table_id, None)

    async def fire_due_deadlines(self, now: float | None = None) -> int:
        """Apply the default move of every seat whose turn clock ran out; exactly once, since
        the move is a compare-and-set append at the version the deadline belongs to."""
        fired = 0
        for table_id, version in await self.store.due_deadlines(now or time.time()):
            with contextlib.suppress(StaleVersion, FailedPrecondition, NotFound):
                live = await self.table(table_id)
                await self.catch_up(live)
                game = live.game
                if game is None or live.version != version or not game.to_move:
                    continue
                seat = game.to_move[0]
                await self.submit(table_id, seat, game.default_move(seat), version,
                                  f"timeout:{version}", kind="timeout")
                fired += 1
        return fired

    async def close(self) -> None:
        self.closing = True
        for task in list(self._bot_tasks.values()):
            task.cancel()
        for live in self._tables.values():
            for watcher in list(live.watchers):
                with contextlib.suppress(asyncio.QueueFull):
                    watcher.queue.put_nowait(None)
