"""The command path: the one way any table changes (create, join, leave, start, move, bot
move, timeout).

Every command holds the table (its lock), checks what it may, works the change out on the
table as a draft, appends the new entries with compare-and-set on the version, and only then
publishes them. While the draft exists the lock is held, so no reader sees it; if anything
fails after the draft began (the store, the variant, a cancelled call), the table is
discarded and rebuilt from the store. So every view and update anyone receives is derivable
from the committed log.
"""

from __future__ import annotations

import secrets
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from bezique.service import auth
from bezique.service.errors import (
    FailedPrecondition,
    IllegalMove,
    InvalidArgument,
    PermissionDenied,
    ResourceExhausted,
    StaleVersion,
    Unavailable,
    quoted,
)
from bezique.service.live import CHANCE_VERSION, MOVE_KINDS, LiveTable, ViewResult, events_json
from bezique.service.metrics import Metrics
from bezique.service.repository import SEAT_KINDS, TableRepository
from bezique.service.settings import Settings
from bezique.service.store import (
    LogEntry,
    RequestIdTaken,
    Store,
    StoreError,
    TableRecord,
    VersionConflict,
)
from bezique.service.watch import WatchHub
from bezique.variants.api import (
    Event,
    Move,
    OptionError,
    Variant,
    check_options,
    match_move,
    range_missed,
    resolve_options,
)
from bezique.variants.chance import commitment
from bezique.variants.registry import Registry, UnknownVariantError

log = structlog.get_logger("bezique.tables")


@dataclass(frozen=True)
class MoveResult:
    version: int
    after: ViewResult
    events: tuple[Event, ...]
    duplicate: bool


class _AnsweredBefore(Exception):
    """The request id is in the log already: answer with its first result (after the hold)."""


MIN_ENTROPY, MAX_ENTROPY = 16, 64
"""Bounds on a seat's entropy in bytes: enough to be unguessable, small enough for the log."""

_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                           "\u2066\u2067\u2068\u2069"
                           # invisible: a name that looks like another's
                           "\u00ad\u200b\u2060\ufeff")


def unsafe_characters(text: str) -> str:
    """The characters of ``text`` a terminal or a page would act on instead of showing: C0
    and C1 controls (escape sequences), line and paragraph separators, bidi overrides."""
    return "".join(c for c in text if unicodedata.category(c) in ("Cc", "Zl", "Zp")
                   or c in _BIDI_CONTROLS)


def events_for(entry: LogEntry, viewer: int | None, finished: bool) -> list[Event]:
    """An entry's events as ``viewer`` may see them (everything, once the game is over)."""
    events = [Event.from_dict(raw) for raw in entry.payload.get("events", ())]
    return events if finished else [event.redacted_for(viewer) for event in events]


def seat_of(live: LiveTable, token: str | None) -> int | None:
    """The seat a token holds at this table; None for no token (a spectator)."""
    if token is None:
        return None
    found = None
    presented = auth.token_hash(token)  # hashed once, not once per seat
    for index, seat in enumerate(live.seats):  # every seat compared: constant time
        if auth.hash_matches(presented, seat.token_hash) and found is None:
            found = index
    if found is None:
        raise PermissionDenied("this token holds no seat at this table", field="authorization")
    return found


class CommandPath:
    """Creates tables and applies every change to them, committed before it is seen."""

    def __init__(self, registry: Registry, store: Store, repo: TableRepository, hub: WatchHub,
                 settings: Settings, metrics: Metrics | None = None) -> None:
        self.registry = registry
        self.store = store
        self.repo = repo
        self.hub = hub
        self.settings = settings
        self.metrics = metrics
        self.on_committed: Callable[[LiveTable], None] = lambda live: None
        """Called after every committed change (the scheduler starts the bot to move)."""

    # ------------------------------------------------------------------ the one commit

    async def _commit(self, live: LiveTable, draft: Callable[[], list[LogEntry]]
                      ) -> list[LogEntry]:
        """Work ``draft`` out on ``live`` (held), append it, then publish it. On any failure
        ``live`` is discarded, so memory never holds what the store does not."""
        expected = live.version
        limit = self.settings.limits.max_log_entries
        if expected >= limit:
            raise ResourceExhausted(f"table {live.table_id} holds its limit of {limit} log "
                                    "entries", reason="LOG_FULL")
        try:
            entries = draft()
            await self.store.append(live.table_id, expected, entries, live.state())
        except VersionConflict as exc:
            self.repo.discard(live)
            raise StaleVersion(live.table_id, expected, exc.current) from exc
        except RequestIdTaken:
            self.repo.discard(live)
            raise
        except StoreError as exc:
            self.repo.discard(live)
            log.warning("store_append_failed", table_id=live.table_id, error=str(exc))
            raise Unavailable(f"the store did not take the change: {exc}; retry",
                              reason="STORE_UNAVAILABLE") from exc
        except BaseException:
            self.repo.discard(live)
            raise
        for entry in entries:
            self.hub.publish(live, entry, with_views=entry is entries[-1])
            self._observe(live, entry)
        if any(entry.kind in SEAT_KINDS for entry in entries):
            self.repo.index(live)
        self.on_committed(live)
        return entries

    def _observe(self, live: LiveTable, entry: LogEntry) -> None:
        if entry.kind not in MOVE_KINDS or not self.registry.observed:
            return
        events = [Event.from_dict(raw) for raw in entry.payload.get("events", ())]
        try:
            self.registry.notify_events(live.table_id, live.variant.id, entry.version, events)
        except Exception as exc:  # an observer plugin must not break the table
            log.warning("observer_failed", table_id=live.table_id, error=str(exc))

    @staticmethod
    def _entry(live: LiveTable, kind: str, seat: int | None, payload: dict[str, Any],
               now: float, request_id: str | None = None) -> LogEntry:
        """The next entry, applied to ``live`` (part of a draft)."""
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

    @staticmethod
    def _deadline(live: LiveTable, now: float) -> float | None:
        seconds = live.record.turn_seconds
        if not seconds or live.game is None or live.finished:
            return None
        return now + seconds

    # ------------------------------------------------------------------ creating

    async def create(self, variant_id: str, options: Mapping[str, str],
                     bots: Sequence[tuple[int, str]] = (), turn_seconds: int = 0,
                     test: Mapping[str, Any] | None = None) -> LiveTable:
        try:
            variant = self.registry.variant(variant_id)
        except UnknownVariantError:
            known = ", ".join(sorted(self.registry.variants))
            raise InvalidArgument(f"unknown variant {quoted(variant_id)} (known: {known})",
                                  field="variant_id") from None
        try:
            resolved = resolve_options(variant.options, options)
            check_options(variant, resolved)
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
        seed = test_settings.pop("seed", b"")
        if seed:
            if len(seed) < 16:
                raise InvalidArgument("test.seed needs at least 16 bytes", field="test.seed")
            test_settings["seed_fixed"] = True  # verify then says the seed was chosen
        else:
            seed = secrets.token_bytes(32)
        seats = variant.seat_count(resolved)
        self._check_test_settings(variant, resolved, seats, test_settings)
        if await self.store.count_tables() >= limits.max_tables:
            raise ResourceExhausted(f"this server holds its limit of {limits.max_tables} tables")
        record = TableRecord(secrets.token_hex(8), variant.id, variant.version, resolved, seed,
                             commitment(seed), time.time(), turn_seconds, test_settings)
        live = LiveTable(record, variant, seats)
        self._check_start(live)
        now = time.time()
        entries = [self._entry(live, "created", None, {
            "variant": variant.id, "variant_version": variant.version,
            "options": resolved, "commitment": record.commitment,
            "chance": CHANCE_VERSION}, now)]
        taken = set()
        for seat, policy in bots:
            if not 0 <= seat < seats or seat in taken:
                raise InvalidArgument(f"bot seat {seat} is not a free seat 0..{seats - 1}",
                                      field="bots.seat")
            if policy not in self.registry.bot_policies(variant.id):
                known = ", ".join(self.registry.bot_policies(variant.id))
                raise InvalidArgument(f"no bot policy {quoted(policy)} for {variant.id} "
                                      f"({known})", field="bots.policy")
            taken.add(seat)
            entries.append(self._entry(live, "joined", seat, {"name": f"{policy} bot",
                                                              "bot": policy}, now))
        entries += self._start_if_full(live, now)
        # Nobody can reach ``live`` before it is in the repository: the draft is private.
        await self.store.create_table(record, live.state(), entries)
        self.repo.add(live)
        log.info("table_created", table_id=record.table_id, variant=variant.id,
                 version=live.version)
        self.on_committed(live)
        return live

    @staticmethod
    def _check_start(live: LiveTable) -> None:
        """Start the game once, aside, so a table that creation accepts always starts (a
        variant whose options clash must say so now, not when the last seat is taken)."""
        first = live.record.test.get("first_dealer")
        try:
            live.variant.start(live.record.options, live.chance(),
                               None if first is None else int(first))
        except OptionError as exc:
            raise InvalidArgument(str(exc), field=f"options[{exc.option}]") from exc
        except ValueError as exc:
            raise InvalidArgument(f"{live.variant.id} cannot start with these options: {exc}",
                                  field="options") from exc

    @staticmethod
    def _check_test_settings(variant: Variant, options: Mapping[str, Any], seats: int,
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

    # ------------------------------------------------------------------ seating

    async def join(self, table_id: str, seat: int | None, name: str, entropy: bytes = b""
                   ) -> tuple[int, str, ViewResult]:
        limits = self.settings.limits
        if len(name) > limits.max_name_length:
            raise InvalidArgument(f"display_name is longer than {limits.max_name_length} "
                                  "characters", field="display_name")
        unsafe = unsafe_characters(name)
        if unsafe:
            raise InvalidArgument(f"display_name holds control or bidi-override characters "
                                  f"({', '.join(f'U+{ord(c):04X}' for c in unsafe[:5])}): "
                                  "they would paint other players' screens",
                                  field="display_name")
        if entropy and not MIN_ENTROPY <= len(entropy) <= MAX_ENTROPY:
            raise InvalidArgument(f"entropy must be {MIN_ENTROPY} to {MAX_ENTROPY} bytes, or "
                                  "empty", field="entropy")
        async with self.repo.hold(table_id) as live:
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
            self._check_churn(live)
            token = auth.new_token()
            taken = seat

            def draft() -> list[LogEntry]:
                now = time.time()
                payload = {"name": name or f"seat {taken}", "token_hash": auth.token_hash(token)}
                if entropy:
                    payload["entropy"] = entropy.hex()
                entries = [self._entry(live, "joined", taken, payload, now)]
                return entries + self._start_if_full(live, now)

            await self._commit(live, draft)
            return seat, token, live.view_for(seat)

    def _check_churn(self, live: LiveTable) -> None:
        """At most ``max_seat_changes`` seats given up in ``seat_churn_window`` seconds: a
        stranger's join-leave loop fills neither the log nor the table for good."""
        limits = self.settings.limits
        since = time.time() - limits.seat_churn_window
        recent = sum(1 for at in live.left_at if at > since)
        if recent >= limits.max_seat_changes:
            raise ResourceExhausted(f"table {live.table_id} has had {recent} seats given up in "
                                    f"the last {limits.seat_churn_window:g} s; try again later",
                                    reason="SEAT_CHURN")

    async def leave(self, table_id: str, token: str) -> int:
        async with self.repo.hold(table_id) as live:
            seat = await self.seat_for(live, token)
            if live.started:
                raise FailedPrecondition("the game has started: a seat cannot be given up now",
                                         reason="GAME_STARTED")
            await self._commit(live, lambda: [self._entry(live, "left", seat, {}, time.time())])
            return live.version

    async def seat_for(self, live: LiveTable, token: str) -> int:
        """The seat ``token`` holds at the held table; on a shared store a token this replica
        does not know yet is checked again after catching up."""
        try:
            seat = seat_of(live, token)
        except PermissionDenied:
            if not self.store.shared:
                raise
            await self.repo.catch_up_locked(live)
            seat = seat_of(live, token)
        assert seat is not None  # a token was given
        return seat

    # ------------------------------------------------------------------ moving

    async def submit(self, table_id: str, token: str, move: Move, expected_version: int,
                     request_id: str) -> MoveResult:
        """A seat's move, by its token; a repeated ``request_id`` gets its first answer."""
        if len(request_id) > self.settings.limits.max_request_id_length:
            raise InvalidArgument(f"request_id is longer than "
                                  f"{self.settings.limits.max_request_id_length} characters",
                                  field="request_id")
        if not request_id.isprintable():
            raise InvalidArgument("request_id holds control characters", field="request_id")
        try:
            async with self.repo.hold(table_id, fresh=False) as live:
                if expected_version > live.version:
                    # a lagging replica: catch up before the token is checked, so a seat that
                    # changed hands meanwhile is never answered for with the old holder's token
                    await self.repo.catch_up_locked(live)
                seat = await self.seat_for(live, token)
                return await self._move(live, seat, move, expected_version, request_id, "move")
        except _AnsweredBefore:
            pass
        # The request id is in the store (another replica, or an earlier call, stored it): the
        # first answer, to the seat the token holds once caught up with the store (on a
        # lagging replica the token may hold a seat that has changed hands since).
        earlier = await self.store.find_request(table_id, request_id)
        async with self.repo.hold(table_id) as live:
            if earlier is None:
                raise StaleVersion(table_id, expected_version, live.version)
            return self._duplicate(live, await self.seat_for(live, token), earlier)

    async def server_move(self, table_id: str, seat: int, move: Move, expected_version: int,
                          kind: str) -> MoveResult:
        """A move the server makes for a seat (``bot_move`` or ``timeout``). It carries no
        request id, so it can never collide with a client's: the compare-and-set on the
        version alone makes it happen at most once."""
        async with self.repo.hold(table_id, fresh=False) as live:
            if expected_version > live.version:
                await self.repo.catch_up_locked(live)
            return await self._move(live, seat, move, expected_version, "", kind)

    async def _move(self, live: LiveTable, seat: int, move: Move, expected: int,
                    request_id: str, kind: str) -> MoveResult:
        game = live.game
        legal = game.legal_moves(seat) if game is not None else ()
        # an offer with an amount range stands for every amount in it; what is applied and
        # logged is the concrete move (the variant's apply still checks it)
        offered = match_move(move, legal)
        move = move.with_amount(move.amount) if move.amount_range is not None else move
        if expected != live.version or game is None or offered is None:
            # A repeat of a stored move finds the table moved on (the version it expected is
            # gone), so a fresh move that can be applied needs no lookup at all.
            if request_id:
                earlier = await self.store.find_request(live.table_id, request_id)
                if earlier is not None:
                    if self.store.shared:
                        raise _AnsweredBefore()  # answered after catching up, see submit
                    return self._duplicate(live, seat, earlier)
            if expected != live.version:
                raise StaleVersion(live.table_id, expected, live.version)
            if game is None:
                raise FailedPrecondition(f"table {live.table_id} is waiting for players",
                                         reason="WAITING_FOR_PLAYERS")
            raise self._illegal(live, seat, move, legal)
        events: tuple[Event, ...] = ()

        def draft() -> list[LogEntry]:
            nonlocal events
            assert game is not None
            now = time.time()
            events = game.apply(seat, move)
            entry = LogEntry(live.version + 1, kind, seat, {
                "move": move.to_dict(), "events": events_json(events),
                "deadline": self._deadline(live, now)}, request_id or None, now)
            live.advance(entry)
            return [entry]

        try:
            await self._commit(live, draft)
        except RequestIdTaken:
            raise _AnsweredBefore() from None
        except StaleVersion:
            if request_id and self.store.shared:
                raise _AnsweredBefore() from None
            raise
        log.debug("move_applied", table_id=live.table_id, seat=seat, version=live.version,
                  request_id=request_id, kind=move.kind)
        if self.metrics is not None:
            self.metrics.moved(live.variant.id, kind)
        if live.version - live.snapshot_version >= self.settings.snapshot_every:
            await self.repo.save_snapshot(live)
        redacted = tuple(event.redacted_for(seat) for event in events)
        return MoveResult(live.version, live.view_for(seat), redacted, False)

    @staticmethod
    def _duplicate(live: LiveTable, seat: int, earlier: LogEntry) -> MoveResult:
        if earlier.seat != seat:
            raise FailedPrecondition("request_id was used by another seat at this table",
                                     field="request_id", reason="REQUEST_ID_REUSED")
        events = tuple(events_for(earlier, seat, False))
        return MoveResult(earlier.version, live.view_for(seat), events, True)

    @staticmethod
    def _illegal(live: LiveTable, seat: int, move: Move, legal: Sequence[Move]) -> IllegalMove:
        game = live.game
        assert game is not None
        shoe = game.shoe

        def describe(m: Move) -> str:
            cards = " ".join(shoe.code(c) if 0 <= c < len(shoe) else f"#{c}"
                             for c in m.cards[:8])
            more = f" (+{len(m.cards) - 8} cards)" if len(m.cards) > 8 else ""
            amount = (f"amount {m.amount_range}" if m.amount_range is not None
                      else str(m.amount) if m.amount else "")
            return " ".join(p for p in (m.kind[:40], m.label[:40], cards + more, amount) if p)

        if not legal:
            why = ("the game is over" if live.finished else
                   f"it is not seat {seat}'s turn (to move: {list(game.to_move)})")
        else:
            span = range_missed(move, legal)
            if span is not None:
                return IllegalMove(
                    f"move '{describe(move)}' refused in phase {game.phase!r}: amount "
                    f"{move.amount} is outside the offered range {span}",
                    [describe(m) for m in legal], field="move.amount", metadata={
                        "field": "move.amount", "amount_min": str(span.minimum),
                        "amount_max": str(span.maximum), "amount_step": str(span.step)})
            why = "it is not one of your legal moves"
        return IllegalMove(f"move '{describe(move)}' refused in phase {game.phase!r}: {why}",
                           [describe(m) for m in legal])
