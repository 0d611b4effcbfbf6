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

import hashlib
import secrets
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from bezique.service import auth, names
from bezique.service.errors import (
    FailedPrecondition,
    IllegalMove,
    InvalidArgument,
    PermissionDenied,
    ResourceExhausted,
    StaleVersion,
    Unauthenticated,
    Unavailable,
    quoted,
)
from bezique.service.limits import SeatChurn
from bezique.service.live import (
    CHANCE_VERSION,
    LiveTable,
    ViewResult,
    events_json,
)
from bezique.service.metrics import Metrics
from bezique.service.repository import TableRepository
from bezique.service.settings import Settings
from bezique.service.store import (
    LogEntry,
    RequestIdTaken,
    Store,
    StoreError,
    TableRecord,
    TableResult,
    VersionConflict,
)
from bezique.service.terms import (
    MOVE_KINDS,
    OPEN_JOINS,
    PLATFORM_JOINS,
    REVEAL_TIMEOUT,
    SEAT_KINDS,
    EntryKind,
    describe_move,
)
from bezique.service.watch import WatchHub
from bezique.variants.api import ABORTED, Event, Game, Move, OptionError, Variant
from bezique.variants.chance import commitment
from bezique.variants.host import (
    buy_in_range,
    check_options,
    match_move,
    range_missed,
    resolve_options,
)
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
COMMITMENT_BYTES = 32
"""An entropy commitment is a sha256 digest."""
MAX_JOINERS = 100_000
"""Most seats whose joiner a process remembers for the seat churn budget."""

_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                           "\u2066\u2067\u2068\u2069"
                           # invisible: a name that looks like another's
                           "\u00ad\u200b\u2060\ufeff"
                           # letters that show as blank space (Hangul fillers)
                           "\u115f\u1160\u3164\uffa0")
_JOINERS = frozenset("\u200c\u200d")
"""The format characters a name may hold: the zero-width (non-)joiners of emoji sequences and
of scripts such as Persian. Every other format character (tag characters, invisible operators,
...) shows nothing, so a name holding them looks like another's."""


def unsafe_characters(text: str) -> str:
    """The characters of ``text`` a terminal or a page would act on instead of showing: C0
    and C1 controls (escape sequences), line and paragraph separators, bidi overrides, and
    the invisible characters a look-alike name would hide in."""
    return "".join(c for c in text if unicodedata.category(c) in ("Cc", "Zl", "Zp")
                   or c in _BIDI_CONTROLS
                   or (unicodedata.category(c) == "Cf" and c not in _JOINERS))


def displayed(name: str) -> str:
    """A display name as the log keeps it (service/names.py); empty stays empty (the seat's
    label is used)."""
    try:
        return names.stored(name) if name else ""
    except names.NameRefused as exc:
        raise InvalidArgument(str(exc), field="display_name") from exc


def events_for(entry: LogEntry, viewer: int | None, finished: bool) -> list[Event]:
    """An entry's events as ``viewer`` may see them (everything, once the game is over)."""
    return list(redacted(parsed_events(entry), viewer, finished))


def parsed_events(entry: LogEntry) -> tuple[Event, ...]:
    """An entry's events as the log holds them (nothing redacted yet)."""
    return tuple(Event.from_dict(raw) for raw in entry.payload.get("events", ()))


def redacted(events: Sequence[Event], viewer: int | None, finished: bool) -> tuple[Event, ...]:
    """``events`` as ``viewer`` may see them (everything, once the game is over)."""
    return tuple(events) if finished else tuple(event.redacted_for(viewer) for event in events)


def seat_of(live: LiveTable, token: str | None, now: float | None = None) -> int | None:
    """The seat a token holds at this table; None for no token (a spectator). A token that
    was replaced or given up is SEAT_TOKEN_REVOKED, one past its expiry SEAT_TOKEN_EXPIRED."""
    return None if token is None else held_seat(live, token, now)


def held_seat(live: LiveTable, token: str, now: float | None = None) -> int:
    """The seat a given token holds, refused as :func:`seat_of` says."""
    found = None
    presented = auth.token_hash(token)  # hashed once, not once per seat
    for index, seat in enumerate(live.seats):  # every seat compared: constant time
        if auth.hash_matches(presented, seat.token_hash) and found is None:
            found = index
    if found is None:
        why = live.revoked.get(presented)
        if why is not None:
            raise PermissionDenied("this seat token was " + (
                "replaced by a newer one (ReissueSeatToken)" if why == "reissued"
                else "given up (LeaveTable)"), field="authorization",
                reason="SEAT_TOKEN_REVOKED")
        raise PermissionDenied("this token holds no seat at this table", field="authorization")
    if live.seats[found].expired(time.time() if now is None else now):
        raise Unauthenticated("this seat token has expired; ask the platform for a new one",
                              field="authorization", reason="SEAT_TOKEN_EXPIRED")
    return found


@dataclass(frozen=True)
class Binding:
    """Who a seat is joined for, as the platform (API key or join grant) says: its player,
    its buy-in, and the grant used (its ``jti`` is recorded so it is never used twice);
    ``vouched``: the join came with the platform's API key or one of its grants."""

    player_id: str = ""
    buy_in: int = 0
    grant_jti: str = ""
    vouched: bool = False


def _players(player_id: str) -> tuple[str, ...]:
    """The seat churn budget of a seat bound to a platform's player, if it is bound."""
    return ("player:" + player_id,) if player_id else ()


def table_result(live: LiveTable, last: LogEntry) -> TableResult:
    """The result of a table that ``last`` ends (part of the draft that ends it): who held
    each seat, the outcome, each seat's chip change for a betting variant, the seed."""
    record = live.record
    outcome = live.outcome()
    chips: list[int] = []
    if live.game is not None and live.start_stacks:
        end = live.game.view(None).stacks
        if len(end) == len(live.start_stacks):
            chips = [after - before for before, after in zip(live.start_stacks, end, strict=True)]
    data: dict[str, Any] = {
        "variant_id": record.variant_id, "variant_version": record.variant_version,
        "seats": [{"player_id": seat.player_id, "name": seat.name, "bot": seat.bot}
                  for seat in live.seats],
        "reason": outcome.reason if outcome is not None else ABORTED,
        "outcome": None if outcome is None else {
            "winners": list(outcome.winners), "scores": list(outcome.scores),
            "reason": outcome.reason, "detail": dict(outcome.detail)},
        "chip_changes": chips, "start_stacks": list(live.start_stacks) if chips else [],
        "commitment": record.commitment, "seed": record.seed.hex()}
    return TableResult(record.table_id, last.version, data, last.created_at)


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
        self.churn = SeatChurn(settings.limits.max_seat_changes,
                               settings.limits.seat_churn_window)
        """Seats each caller gave up before the start (in memory, per process)."""
        self._joiners: OrderedDict[str, tuple[str, ...]] = OrderedDict()
        """Whom each seat's join was charged to, by its token's hash: a leave is charged to
        them too, so a seat joined from one address and given up from another still spends
        the budget its joins are checked against (at most :data:`MAX_JOINERS` remembered,
        the oldest forgotten first; in memory, per process)."""
        repo.on_left = self._joiner_left
        self.on_committed: Callable[[LiveTable], None] = lambda live: None
        """Called after every committed change (the scheduler starts the bot to move)."""
        self.on_result: Callable[[], None] = lambda: None
        """Called after a change that ended a table committed (the results feed wakes)."""

    # ------------------------------------------------------------------ the one commit

    async def _commit(self, live: LiveTable, draft: Callable[[], list[LogEntry]], *,
                      past_limit: bool = False) -> dict[int | None, ViewResult]:
        """Work ``draft`` out on ``live`` (held), append it, then publish it. On any failure
        ``live`` is discarded, so memory never holds what the store does not. A change that
        ends the table carries its result, stored in the same transaction. Only an abort
        (``past_limit``) may go past the log's limit: it is how a full table ends. Returns
        the views published after the change, by viewer (a mover's answer reuses its own)."""
        expected = live.version
        limit = self.settings.limits.max_log_entries
        if expected >= limit and not past_limit:
            raise ResourceExhausted(f"table {live.table_id} holds its limit of {limit} log "
                                    "entries", reason="LOG_FULL")
        self._check_not_finished(live)
        result = None
        try:
            entries = draft()
            if live.finished:
                result = table_result(live, entries[-1])
            await self.store.append(live.table_id, expected, entries, live.state(),
                                    result=result)
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
        views: dict[int | None, ViewResult] = {}
        for entry in entries:
            views = self.hub.publish(live, entry, with_views=entry is entries[-1])
            self._observe(live, entry)
        if any(entry.kind in SEAT_KINDS for entry in entries):
            self.repo.index(live)
        self.on_committed(live)
        if result is not None:
            log.info("table_finished", table_id=live.table_id, version=live.version,
                     reason=result.data["reason"])
            self.on_result()
        return views

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
        if live.started or live.free_seats or live.awaiting_reveal or live.ended:
            return []
        events = live.start_game()
        entry = LogEntry(live.version + 1, EntryKind.STARTED, None,
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
                     test: Mapping[str, Any] | None = None, open_seats: bool = False
                     ) -> LiveTable:
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
        joins = self._joins(variant, resolved, open_seats)
        if await self.store.count_tables() >= limits.max_tables:
            raise ResourceExhausted(f"this server holds its limit of {limits.max_tables} tables")
        record = TableRecord(secrets.token_hex(8), variant.id, variant.version, resolved, seed,
                             commitment(seed), time.time(), turn_seconds, test_settings)
        live = LiveTable(record, variant, seats)
        self._check_start(live)
        now = time.time()
        created: dict[str, Any] = {
            "variant": variant.id, "variant_version": variant.version,
            "options": resolved, "commitment": record.commitment, "chance": CHANCE_VERSION}
        if joins:
            created["joins"] = joins
        entries = [self._entry(live, EntryKind.CREATED, None, created, now)]
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
            entries.append(self._entry(live, EntryKind.JOINED, seat, {"name": f"{policy} bot",
                                                              "bot": policy}, now))
        entries += self._start_if_full(live, now)
        # Nobody can reach ``live`` before it is in the repository: the draft is private.
        await self.store.create_table(record, live.state(), entries)
        self.repo.add(live)
        log.info("table_created", table_id=record.table_id, variant=variant.id,
                 version=live.version)
        self.on_committed(live)
        return live

    def _joins(self, variant: Variant, options: Mapping[str, Any], open_seats: bool) -> str:
        """Who may take the new table's seats (its ``created`` entry records it, so every
        replica and every reload agree): on a server with an API key, only the platform (its
        key or its grants) at a table that takes buy-ins, and at every table of a server that
        takes grants unless its creator opened the seats on purpose."""
        try:
            buy_ins = buy_in_range(variant, options) is not None
        except OptionError as exc:
            raise InvalidArgument(str(exc), field=f"options[{exc.option}]") from exc
        if not self.settings.platform:
            return OPEN_JOINS if open_seats else ""
        if buy_ins and open_seats:
            raise InvalidArgument(f"{variant.id} takes buy-ins: its seats are taken only with a "
                                  "join grant or the API key, never opened to anyone",
                                  field="open_seats")
        if buy_ins or (self.settings.grants and not open_seats):
            return PLATFORM_JOINS
        return OPEN_JOINS if open_seats else ""

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

    def _expiry(self, now: float) -> float | None:
        """When a token issued now expires (``--seat-token-ttl``); None: never. Written into
        the token's log entry, so every replica agrees whatever its own setting."""
        ttl = self.settings.seat_token_ttl
        return now + ttl if ttl > 0 else None

    async def join(self, table_id: str, seat: int | None, name: str, entropy: bytes = b"",
                   binding: Binding | None = None, entropy_commitment: bytes = b"",
                   caller: Sequence[str] = ()) -> tuple[int, str, ViewResult]:
        """Take a seat. ``caller``: who the join comes from (its address block; none for the
        platform's own), whose seat churn budget must not be spent."""
        binding = binding or Binding()
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
        name = displayed(name)
        if len(name) > limits.max_name_length:  # NFC makes some characters two or three
            raise InvalidArgument(f"display_name is longer than {limits.max_name_length} "
                                  "characters once normalized (NFC)", field="display_name")
        if entropy and not MIN_ENTROPY <= len(entropy) <= MAX_ENTROPY:
            raise InvalidArgument(f"entropy must be {MIN_ENTROPY} to {MAX_ENTROPY} bytes, or "
                                  "empty", field="entropy")
        if entropy_commitment and (entropy or len(entropy_commitment) != COMMITMENT_BYTES):
            raise InvalidArgument("entropy_commitment must be sha256 of the seat's entropy "
                                  f"({COMMITMENT_BYTES} bytes), sent instead of entropy",
                                  field="entropy_commitment")
        async with self.repo.hold(table_id) as live:
            self._check_not_finished(live)
            self._check_admitted(live, binding)
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
            self._check_churn([*caller, *_players(binding.player_id)])
            self._check_binding(live, binding)
            self._check_name(live, name)
            token = auth.new_token()
            taken = seat

            def draft() -> list[LogEntry]:
                now = time.time()
                payload: dict[str, Any] = {"name": name or f"seat {taken}",
                                           "token_hash": auth.token_hash(token)}
                if entropy:
                    payload["entropy"] = entropy.hex()
                if binding.player_id:
                    payload["player_id"] = binding.player_id
                if binding.buy_in:
                    payload["buy_in"] = binding.buy_in
                if binding.grant_jti:
                    payload["grant_jti"] = binding.grant_jti
                expires = self._expiry(now)
                if expires is not None:
                    payload["token_expires"] = expires
                if entropy_commitment:
                    payload["entropy_commitment"] = entropy_commitment.hex()
                if live.free_seats == 1 and (entropy_commitment or any(
                        other.owes_reveal for other in live.seats)):
                    # this join takes the last seat and opens the reveal round: its deadline
                    payload["deadline"] = now + self.settings.reveal_seconds
                entries = [self._entry(live, EntryKind.JOINED, taken, payload, now)]
                return entries + self._start_if_full(live, now)

            await self._commit(live, draft)
            self._remember_joiner(auth.token_hash(token), caller)
            return seat, token, live.view_for(seat)

    def _joiner_left(self, token_hash: str) -> None:
        """A seat joined here was given up through another replica: charge its joiner here,
        where its joins are checked."""
        joiner = self._joiners.pop(token_hash, ())
        if joiner:
            self.churn.charge(joiner)

    def _remember_joiner(self, token_hash: str, caller: Sequence[str]) -> None:
        if not caller:
            return
        if len(self._joiners) >= MAX_JOINERS:
            self._joiners.popitem(last=False)
        self._joiners[token_hash] = tuple(caller)

    def _check_name(self, live: LiveTable, name: str) -> None:
        """A name no seated player's looks like, and none of the server's own labels (a
        bot's, an unnamed seat's); no name at all takes the seat's label."""
        if not name:
            return
        why = names.reserved(name, names.server_labels(
            len(live.seats), self.registry.bot_policies(live.variant.id)))
        if why is not None:
            raise InvalidArgument(f"display_name {quoted(name)} {why}: the names of bots and "
                                  "of unnamed seats are the server's", field="display_name")
        seated = names.clash(name, [seat.name for seat in live.seats if seat.occupied])
        if seated is not None:
            raise FailedPrecondition(f"display_name {quoted(name)} is taken: it looks like "
                                     f"{quoted(seated)}, who sits at this table (case, "
                                     "invisible characters and look-alike letters aside); "
                                     "choose another", field="display_name",
                                     reason="NAME_TAKEN")

    @staticmethod
    def _check_admitted(live: LiveTable, binding: Binding) -> None:
        """Whether this join may take a seat at all, before which seat is asked: a grant is
        used once per table (its jti is in the log: every replica agrees; a replay is told so
        even when its seat is taken), and a table of the platform's takes only joins it
        vouches for."""
        if binding.grant_jti and binding.grant_jti in live.grant_jtis:
            raise PermissionDenied("this join grant was used already (its jti is in the "
                                   "table's log)", field="join_grant", reason="GRANT_REPLAYED")
        if live.joins == PLATFORM_JOINS and not binding.vouched:
            raise Unauthenticated(f"table {live.table_id} takes joins only with a join grant "
                                  "(join_grant) or the platform API key (x-api-key): the "
                                  "platform did not open its seats to anyone",
                                  field="join_grant", reason="GRANT_REQUIRED")

    @staticmethod
    def _check_binding(live: LiveTable, binding: Binding) -> None:
        """A buy-in must be one the variant takes, within the table's bounds."""
        if not binding.buy_in:
            return
        try:
            bounds = buy_in_range(live.variant, live.record.options)
        except OptionError as exc:
            raise FailedPrecondition(f"this table's buy-in options clash: {exc}",
                                     field="buy_in") from exc
        if bounds is None:
            raise InvalidArgument(f"{live.variant.id} takes no buy-ins", field="buy_in")
        low, high = bounds
        if not low <= binding.buy_in <= high:
            raise InvalidArgument(f"buy_in must be {low}..{high} chips at this table",
                                  field="buy_in")

    def _check_churn(self, callers: Sequence[str]) -> None:
        """A caller (an address block, a platform's player) that gave up its budget of seats
        (``max_seat_changes`` a ``seat_churn_window``) joins none until it refills: a
        stranger's join-leave loop is charged to him, never to the table, so it locks no table
        for the others; and the log of a table grows by a loop only as fast as many callers'
        budgets allow (``max_log_entries`` bounds it in the end)."""
        spent = self.churn.spent(callers)
        if spent is not None:
            limits = self.settings.limits
            who = "this player" if spent.startswith("player:") else "this address"
            raise ResourceExhausted(f"{who} gave up more than {limits.max_seat_changes} seats "
                                    f"in {limits.seat_churn_window:g} s before their games "
                                    "started; try again later", reason="SEAT_CHURN")

    async def leave(self, table_id: str, token: str, caller: Sequence[str] = ()) -> int:
        """Give a seat back before the start; charged to ``caller`` (as :meth:`join`), to
        whoever joined with this token (when this process remembers it) and to the seat's
        player."""
        async with self.repo.hold(table_id) as live:
            seat = await self.seat_for(live, token)
            self._check_not_finished(live)
            if live.started:
                raise FailedPrecondition("the game has started: a seat cannot be given up now",
                                         reason="GAME_STARTED")
            self._check_not_revealing(live)
            player = live.seats[seat].player_id
            await self._commit(
                live, lambda: [self._entry(live, EntryKind.LEFT, seat, {}, time.time())])
            joiner = self._joiners.pop(auth.token_hash(token), ())
            self.churn.charge(list(dict.fromkeys([*caller, *joiner, *_players(player)])))
            return live.version

    async def reissue(self, table_id: str, seat: int) -> tuple[str, float | None, int]:
        """A new token for a seat a player holds; the old one is revoked by the same
        committed entry (``token_reissued``), so every replica refuses it from then on and
        its streams end. Returns the token, its expiry and the entry's version."""
        async with self.repo.hold(table_id) as live:
            if not 0 <= seat < len(live.seats):
                raise InvalidArgument(f"seat {seat} does not exist (0..{len(live.seats) - 1})",
                                      field="seat")
            held = live.seats[seat]
            if not held.token_hash:
                raise FailedPrecondition(f"seat {seat} is " + ("played by a bot" if held.bot
                                                               else "free") +
                                         ": it has no token to reissue", field="seat")
            token = auth.new_token()
            expires: float | None = None

            def draft() -> list[LogEntry]:
                nonlocal expires
                now = time.time()
                expires = self._expiry(now)
                payload: dict[str, Any] = {"token_hash": auth.token_hash(token),
                                           "deadline": live.deadline}
                if expires is not None:
                    payload["token_expires"] = expires
                return [self._entry(live, EntryKind.TOKEN_REISSUED, seat, payload, now)]

            await self._commit(live, draft)
            log.info("seat_token_reissued", table_id=table_id, seat=seat, version=live.version)
            return token, expires, live.version

    @classmethod
    def _check_not_finished(cls, live: LiveTable) -> None:
        cls._check_not_ended(live)  # the more telling reason for a table that never dealt
        if live.finished:
            raise FailedPrecondition(f"table {live.table_id} has ended", field="table_id",
                                     reason="TABLE_FINISHED")

    # ------------------------------------------------------------------ operator controls

    async def abort(self, table_id: str, note: str = "") -> int:
        """End a table at an operator's request: an ``aborted`` entry, settled by the variant
        (its optional ``abort``; else current scores, no winner). It also ends a table whose
        log is full. Bots and clocks stop, watch streams get the entry and end, and the result
        goes to the feed. Returns the entry's version."""
        limit = self.settings.limits.max_note_length
        if len(note) > limit:
            raise InvalidArgument(f"note is longer than {limit} characters", field="note")
        if unsafe_characters(note):
            raise InvalidArgument("note holds control or bidi-override characters",
                                  field="note")
        async with self.repo.hold(table_id) as live:
            self._check_not_finished(live)

            def draft() -> list[LogEntry]:
                now = time.time()
                withheld = list(live.awaiting_reveal)  # an abort in the reveal round names them
                events = live.abort()
                payload: dict[str, Any] = {"events": events_json(events), "deadline": None}
                if note:
                    payload["note"] = note
                if withheld:
                    payload["withheld"] = withheld
                entry = LogEntry(live.version + 1, EntryKind.ABORTED, None, payload, None, now)
                live.advance(entry)
                return [entry]

            await self._commit(live, draft, past_limit=True)
            log.info("table_aborted", table_id=table_id, version=live.version)
            return live.version

    @staticmethod
    def _check_not_ended(live: LiveTable) -> None:
        if live.ended is not None:
            raise FailedPrecondition(
                f"table {live.table_id} ended before any deal ({live.ended.reason}): start a "
                "new table", reason="REVEAL_TIMED_OUT")

    @classmethod
    def _check_not_revealing(cls, live: LiveTable) -> None:
        """Refuse a change that the reveal round, or an end before any deal, does not allow.
        A seat is never given up in the round: a new holder could then choose its entropy
        after seeing the seats' revealed entropy."""
        cls._check_not_ended(live)
        awaiting = live.awaiting_reveal
        if awaiting:
            raise FailedPrecondition(
                f"table {live.table_id} waits for seats {list(awaiting)} to reveal their "
                "entropy (RevealEntropy): no move yet, and no seat may be given up",
                reason="REVEAL_ROUND")

    # ------------------------------------------------------------------ the reveal round

    async def reveal(self, table_id: str, token: str, entropy: bytes) -> ViewResult:
        """A seat reveals the entropy it committed to; the last reveal starts the game. A
        repeat of a reveal already made changes nothing (a client may retry it)."""
        if not MIN_ENTROPY <= len(entropy) <= MAX_ENTROPY:
            raise InvalidArgument(f"entropy must be {MIN_ENTROPY} to {MAX_ENTROPY} bytes",
                                  field="entropy")
        async with self.repo.hold(table_id) as live:
            seat = await self.seat_for(live, token)
            held = live.seats[seat]
            if not held.entropy_commitment:
                raise FailedPrecondition(f"seat {seat} joined without an entropy commitment: "
                                         "it has nothing to reveal", field="entropy",
                                         reason="NOTHING_TO_REVEAL")
            if hashlib.sha256(entropy).hexdigest() != held.entropy_commitment:
                raise InvalidArgument(f"sha256 of this entropy is not the commitment seat {seat} "
                                      "joined with", field="entropy", reason="REVEAL_MISMATCH")
            if held.entropy:
                return live.view_for(seat)  # revealed before: nothing to do
            if live.ended is None and live.free_seats:
                raise FailedPrecondition(
                    f"table {table_id} has {live.free_seats} free seat(s): the reveal round "
                    "opens once every seat is taken (and every commitment is in)",
                    reason="REVEAL_NOT_OPEN")
            self._check_not_ended(live)

            def draft() -> list[LogEntry]:
                now = time.time()
                entries = [self._entry(live, EntryKind.REVEALED, seat, {
                    "entropy": entropy.hex(), "deadline": live.deadline}, now)]
                return entries + self._start_if_full(live, now)

            await self._commit(live, draft)
            log.info("entropy_revealed", table_id=table_id, seat=seat, version=live.version)
            return live.view_for(seat)

    async def end_reveal_round(self, table_id: str, version: int) -> bool:
        """The reveal round's deadline passed at ``version``: end the table before any deal,
        naming the seats that withheld their entropy. Never a re-seat or a deal without them:
        either would let a withholding seat re-roll against the entropy already revealed.
        Compare-and-set at ``version``, so with several replicas exactly one ends it."""
        async with self.repo.hold(table_id, fresh=False) as live:
            if version > live.version:
                await self.repo.catch_up_locked(live)
            if live.version != version:
                raise StaleVersion(table_id, version, live.version)
            withheld = list(live.awaiting_reveal)
            if not withheld:
                return False

            def draft() -> list[LogEntry]:
                event = Event(REVEAL_TIMEOUT, detail={"withheld": withheld})
                return [self._entry(live, EntryKind.ENDED, None, {
                    "reason": REVEAL_TIMEOUT, "withheld": withheld,
                    "events": events_json((event,)), "deadline": None}, time.time())]

            await self._commit(live, draft)
            log.info("reveal_timeout", table_id=table_id, withheld=withheld,
                     version=live.version)
            return True

    async def seat_for(self, live: LiveTable, token: str) -> int:
        """The seat ``token`` holds at the held table; on a shared store a token this replica
        does not know yet is checked again after catching up."""
        try:
            return held_seat(live, token)
        except PermissionDenied:
            if not self.store.shared:
                raise
            await self.repo.catch_up_locked(live)
            return held_seat(live, token)

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
                return await self._move(live, seat, move, expected_version, request_id,
                                        EntryKind.MOVE)
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
                self._check_not_revealing(live)
                raise FailedPrecondition(f"table {live.table_id} is waiting for players",
                                         reason="WAITING_FOR_PLAYERS")
            raise self._illegal(live, game, seat, move, legal)
        events: tuple[Event, ...] = ()

        def draft() -> list[LogEntry]:  # game is not None: every other case raised above
            nonlocal events
            now = time.time()
            events = game.apply(seat, move)
            entry = LogEntry(live.version + 1, kind, seat, {
                "move": move.to_dict(), "events": events_json(events),
                "deadline": self._deadline(live, now)}, request_id or None, now)
            live.advance(entry)
            return [entry]

        try:
            published = await self._commit(live, draft)
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
        # the view the mover's own stream was just given (the same object: rendered once)
        after = published.get(seat) or live.view_for(seat)
        return MoveResult(live.version, after, redacted, False)

    @staticmethod
    def _duplicate(live: LiveTable, seat: int, earlier: LogEntry) -> MoveResult:
        if earlier.seat != seat:
            raise FailedPrecondition("request_id was used by another seat at this table",
                                     field="request_id", reason="REQUEST_ID_REUSED")
        events = tuple(events_for(earlier, seat, False))
        return MoveResult(earlier.version, live.view_for(seat), events, True)

    @staticmethod
    def _illegal(live: LiveTable, game: Game, seat: int, move: Move, legal: Sequence[Move]
                 ) -> IllegalMove:
        said = describe_move(move, game.shoe)
        offered = [describe_move(m, game.shoe) for m in legal]
        if not legal:
            why = ("the game is over" if live.finished else
                   f"it is not seat {seat}'s turn (to move: {list(game.to_move)})")
        else:
            span = range_missed(move, legal)
            if span is not None:
                return IllegalMove(
                    f"move '{said}' refused in phase {game.phase!r}: amount "
                    f"{move.amount} is outside the offered range {span}",
                    offered, field="move.amount", metadata={
                        "field": "move.amount", "amount_min": str(span.minimum),
                        "amount_max": str(span.maximum), "amount_step": str(span.step)})
            why = "it is not one of your legal moves"
        return IllegalMove(f"move '{said}' refused in phase {game.phase!r}: {why}", offered)
