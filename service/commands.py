"""The command path: the one way any table changes (create, join, leave, reissue, reveal,
abort, move, bot move, timeout).

Every command holds the table (its lock), decides (service/decide.py: the table's rules
as a pure function of its state; a move's legality is the game's), drafts the decided entries
on the table (``LiveTable.draft``: the game in place, the state evolved), appends them with
compare-and-set on the version, and only then publishes them. While the draft exists the lock
is held, so no reader sees it; if anything fails after the draft began (the store, the
variant, a cancelled call), the table is discarded and rebuilt from the store. So every view
and update anyone receives is derivable from the committed log.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from bezique.service import auth
from bezique.service import decide as rules
from bezique.service.budgets import SeatBudgets
from bezique.service.creation import check_start, joins, new_record
from bezique.service.errors import (
    FailedPrecondition,
    IllegalMove,
    PermissionDenied,
    ResourceExhausted,
    StaleVersion,
    quoted,
    store_unavailable,
)
from bezique.service.limits import SeatChurn
from bezique.service.live import CHANCE_VERSION, Drafted, LiveTable, ViewResult
from bezique.service.metrics import Metrics
from bezique.service.redaction import events_for
from bezique.service.repository import TableRepository
from bezique.service.results import finished_result
from bezique.service.settings import Settings
from bezique.service.store import LogEntry, RequestIdTaken, Store, StoreError, VersionConflict
from bezique.service.watch import WatchHub
from bezique.table.entries import Created, Entry, Joined, Moved
from bezique.terms import MOVE_KINDS, SEAT_KINDS, EntryKind, describe_move
from bezique.variants.api import Event, Game, Move, OptionError
from bezique.variants.host import (
    buy_in_range,
    match_move,
    range_missed,
)
from bezique.variants.registry import Registry

log = structlog.get_logger("bezique.tables")
"""A move's debug line goes through ``log.bind()``: the proxy's own attribute lookup would
first make and drop an AttributeError, on every move, for a line usually filtered out."""

MOVE_QUOTE_LIMIT = 120
"""How much of a refused move's text its error quotes (its kind and label are the caller's)."""


@dataclass(frozen=True)
class MoveResult:
    version: int
    after: ViewResult
    events: tuple[Event, ...]
    duplicate: bool


class _AnsweredBefore(Exception):
    """The request id is in the log already: answer with its first result (after the hold)."""


@dataclass(frozen=True)
class Binding:
    """Who a seat is joined for, as the platform (API key or join grant) says: its player,
    its buy-in, and the grant used (its ``jti`` is recorded so it is never used twice);
    ``vouched``: the join came with the platform's API key or one of its grants."""

    player_id: str = ""
    buy_in: int = 0
    grant_jti: str = ""
    vouched: bool = False


def held_seat(live: LiveTable, token: str, now: float | None = None) -> int:
    """The seat a given token holds (decide.holder says how a token is refused)."""
    return rules.holder(live.table, auth.token_hash(token), time.time() if now is None else now)


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
        self.budgets = SeatBudgets(self.churn)
        repo.on_left = self.budgets.left_elsewhere
        self.on_committed: Callable[[LiveTable], None] = lambda live: None
        """Called after every committed change (the scheduler starts the bot to move)."""
        self.on_result: Callable[[], None] = lambda: None
        """Called after a change that ended a table committed (the results feed wakes)."""

    # ------------------------------------------------------------------ the one commit

    async def _commit(self, live: LiveTable, draft: Callable[[], list[Drafted]], *,
                      past_limit: bool = False) -> dict[int | None, ViewResult]:
        """Work ``draft`` out on ``live`` (held), append it, then publish it. On any failure
        ``live`` is discarded, so memory never holds what the store does not. A change that
        ends the table carries its result, stored in the same transaction. Only an abort
        (``past_limit``) may go past the log's limit: it is how a full table ends. Returns
        the views published after the change, by viewer (a mover's answer reuses its own)."""
        expected = live.version
        if not past_limit:
            rules.check_room(live.table, self.settings)
        rules.check_not_finished(live.table)
        result = None
        try:
            drafted = draft()
            entries = [item.log for item in drafted]
            if live.finished:
                result = finished_result(live, entries[-1])
            await self.store.append(live.table_id, expected, entries, live.summary(),
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
            raise store_unavailable() from exc
        except BaseException:
            self.repo.discard(live)
            raise
        views: dict[int | None, ViewResult] = {}
        for item in drafted:  # the game's own events go out as they are: not parsed again
            views = self.hub.publish(live, item.log, with_views=item is drafted[-1],
                                     events=item.events if item.made_events else None)
            self._observe(live, item)
        if any(entry.kind in SEAT_KINDS for entry in entries):
            self.repo.index(live)
        self.on_committed(live)
        if result is not None:
            log.info("table_finished", table_id=live.table_id, version=live.version,
                     reason=result.data["reason"])
            self.on_result()
        return views

    async def _decided(self, live: LiveTable, command: rules.Command, *,
                       past_limit: bool = False) -> list[Entry]:
        """Decide ``command`` on the held table and commit what it decides (nothing: a repeat
        that changes nothing). A refusal leaves the table as it is."""
        now = time.time()
        entries = rules.decide(live.table, command, now, self.settings)
        if entries:
            await self._commit(live, lambda: _draft(live, entries, now),
                               past_limit=past_limit)
        return entries

    def _observe(self, live: LiveTable, drafted: Drafted) -> None:
        if drafted.log.kind not in MOVE_KINDS or not self.registry.observed:
            return
        try:
            self.registry.notify_events(live.table_id, live.variant.id, drafted.log.version,
                                        list(drafted.events))
        except Exception as exc:  # an observer plugin must not break the table
            log.warning("observer_failed", table_id=live.table_id, error=str(exc))

    # ------------------------------------------------------------------ creating

    async def create(self, variant_id: str, options: Mapping[str, str],
                     bots: Sequence[tuple[int, str]] = (), turn_seconds: int = 0,
                     test: Mapping[str, Any] | None = None, open_seats: bool = False,
                     table_id: str = "") -> LiveTable:
        record, variant, seats = new_record(self.registry, self.settings, variant_id, options,
                                            bots, turn_seconds, test, table_id)
        who_joins = joins(self.settings, variant, record.options, open_seats)
        limit = self.settings.limits.max_tables
        if await self.store.count_tables() >= limit:
            raise ResourceExhausted(f"this server holds its limit of {limit} tables")
        live = LiveTable(record, variant, seats)
        check_start(live)
        now = time.time()
        entries = [live.draft(Created(variant.id, variant.version, record.options,
                                      record.commitment, CHANCE_VERSION, who_joins),
                              now).log]
        for seat, policy in bots:
            decided = rules.decide(live.table, rules.Join(seat, f"{policy} bot", bot=policy),
                                   now, self.settings)
            entries += [item.log for item in _draft(live, decided, now)]
        # Nobody can reach ``live`` before it is in the repository: the draft is private.
        await self.store.create_table(record, live.summary(), entries)
        self.repo.add(live)
        log.info("table_created", table_id=record.table_id, variant=variant.id,
                 version=live.version)
        self.on_committed(live)
        return live

    # ------------------------------------------------------------------ seating

    async def join(self, table_id: str, seat: int | None, name: str, entropy: bytes = b"",
                   binding: Binding | None = None, entropy_commitment: bytes = b"",
                   caller: Sequence[str] = ()) -> tuple[int, str, ViewResult]:
        """Take a seat. ``caller``: who the join comes from (its address block; none for the
        platform's own), whose seat churn budget must not be spent."""
        binding = binding or Binding()
        async with self.repo.hold(table_id) as live:
            token = auth.new_token()
            command = rules.Join(seat, name, auth.token_hash(token), "", entropy.hex(),
                                 entropy_commitment.hex(), binding.player_id, binding.buy_in,
                                 binding.grant_jti, _buy_ins(live, binding.buy_in),
                                 binding.vouched,
                                 self.budgets.spent(caller, binding.player_id),
                                 tuple(self.registry.bot_policies(live.variant.id)),
                                 live.variant.id)
            taken = next(entry.seat for entry in await self._decided(live, command)
                         if isinstance(entry, Joined))
            self.budgets.joined(command.token_hash, caller)
            return taken, token, live.view_for(taken)

    async def leave(self, table_id: str, token: str, caller: Sequence[str] = ()) -> int:
        """Give a seat back before the start; charged to ``caller`` (as :meth:`join`), to
        whoever joined with this token (when this process remembers it) and to the seat's
        player."""
        async with self.repo.hold(table_id) as live:
            seat = await self.seat_for(live, token)
            player = live.seats[seat].player_id
            await self._decided(live, rules.Leave(seat))
            self.budgets.left(auth.token_hash(token), caller, player)
            return live.version

    async def reissue(self, table_id: str, seat: int) -> tuple[str, float | None, int]:
        """A new token for a seat a player holds; the old one is revoked by the same
        committed entry (``token_reissued``), so every replica refuses it from then on and
        its streams end. Returns the token, its expiry and the entry's version."""
        async with self.repo.hold(table_id) as live:
            token = auth.new_token()
            await self._decided(live, rules.Reissue(seat, auth.token_hash(token)))
            log.info("seat_token_reissued", table_id=table_id, seat=seat, version=live.version)
            return token, live.seats[seat].token_expires, live.version

    # ------------------------------------------------------------------ operator controls

    async def abort(self, table_id: str, note: str = "", idle_at: int | None = None) -> int:
        """End a table at an operator's request: an ``aborted`` entry, settled by the variant
        (its optional ``abort``; else current scores, no winner). It also ends a table whose
        log is full. Bots and clocks stop, watch streams get the entry and end, and the result
        goes to the feed. Returns the entry's version. ``idle_at``: the abandon sweep found the
        table idle at that version; it ends so, reason ``abandoned``, unless a seat's stream
        opened here meanwhile (0: not ended)."""
        async with self.repo.hold(table_id) as live:
            if idle_at is not None and any(w.viewer is not None for w in live.watchers):
                return 0
            command = rules.Abort(note) if idle_at is None else rules.Abandon(idle_at)
            await self._decided(live, command, past_limit=True)
            log.info("table_aborted", table_id=table_id, version=live.version,
                     abandoned=idle_at is not None)
            return live.version

    # ------------------------------------------------------------------ the reveal round

    async def reveal(self, table_id: str, token: str, entropy: bytes) -> ViewResult:
        """A seat reveals the entropy it committed to; the last reveal starts the game. A
        repeat of a reveal already made changes nothing (a client may retry it)."""
        async with self.repo.hold(table_id) as live:
            seat = await self.seat_for(live, token)
            if await self._decided(live, rules.Reveal(seat, entropy.hex())):
                log.info("entropy_revealed", table_id=table_id, seat=seat, version=live.version)
            return live.view_for(seat)

    async def end_reveal_round(self, table_id: str, version: int) -> bool:
        """The reveal round's deadline passed at ``version``: end the table before any deal,
        naming the seats that withheld their entropy. Compare-and-set at ``version``, so with
        several replicas exactly one ends it."""
        async with self.repo.hold(table_id, fresh=False) as live:
            if version > live.version:
                await self.repo.catch_up_locked(live)
            if not await self._decided(live, rules.EndReveal(version)):
                return False
            log.info("reveal_timeout", table_id=table_id, version=live.version,
                     withheld=list(live.ended.detail["withheld"]) if live.ended else [])
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
            return _duplicate(live, await self.seat_for(live, token), earlier)

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
                    return _duplicate(live, seat, earlier)
            if expected != live.version:
                raise StaleVersion(live.table_id, expected, live.version)
            if game is None:
                rules.check_not_revealing(live.table)
                raise FailedPrecondition(f"table {live.table_id} is waiting for players",
                                         reason="WAITING_FOR_PLAYERS")
            raise _illegal(live, game, seat, move, legal)
        events: tuple[Event, ...] = ()

        def draft() -> list[Drafted]:
            nonlocal events
            drafted = live.draft(Moved(kind, seat, move), time.time(), request_id or None)
            events = drafted.events
            return [drafted]

        try:
            published = await self._commit(live, draft)
        except RequestIdTaken:
            raise _AnsweredBefore() from None
        except StaleVersion:
            if request_id and self.store.shared:
                raise _AnsweredBefore() from None
            raise
        log.bind().debug("move_applied", table_id=live.table_id, seat=seat,
                         version=live.version, request_id=request_id, kind=move.kind)
        if self.metrics is not None:
            self.metrics.moved(live.variant.id, kind)
        if live.version - live.snapshot_version >= self.settings.snapshot_every:
            await self.repo.save_snapshot(live)
        shown = tuple(event.redacted_for(seat) for event in events)
        # the view the mover's own stream was just given (the same object: rendered once)
        after = published.get(seat) or live.view_for(seat)
        return MoveResult(live.version, after, shown, False)

def _draft(live: LiveTable, entries: Sequence[Entry], now: float) -> list[Drafted]:
    return [live.draft(entry, now) for entry in entries]


def _buy_ins(live: LiveTable, buy_in: int) -> tuple[int, int] | None:
    """The buy-ins the table's variant takes (asked only for a join that buys in)."""
    if not buy_in:
        return None
    try:
        return buy_in_range(live.variant, live.record.options)
    except OptionError as exc:
        raise FailedPrecondition(f"this table's buy-in options clash: {exc}",
                                 field="buy_in") from exc


def _duplicate(live: LiveTable, seat: int, earlier: LogEntry) -> MoveResult:
    if earlier.seat != seat:
        raise FailedPrecondition("request_id was used by another seat at this table",
                                 field="request_id", reason="REQUEST_ID_REUSED")
    events = tuple(events_for(earlier, seat, False))
    return MoveResult(earlier.version, live.view_for(seat), events, True)


def _illegal(live: LiveTable, game: Game, seat: int, move: Move, legal: Sequence[Move]
             ) -> IllegalMove:
    """Why a move is refused, naming the moves offered (and an amount's range)."""
    # the caller's own text (kind and label): quoted as any input is, so control and bidi
    # characters come back escaped; long enough for any offered move's text
    said = quoted(describe_move(move, game.shoe), MOVE_QUOTE_LIMIT)
    offered = [describe_move(m, game.shoe) for m in legal]
    if not legal:
        why = ("the game is over" if live.finished else
               f"it is not seat {seat}'s turn (to move: {list(game.to_move)})")
    else:
        span = range_missed(move, legal)
        if span is not None:
            return IllegalMove(
                f"move {said} refused in phase {game.phase!r}: amount "
                f"{move.amount} is outside the offered range {span}",
                offered, field="move.amount", metadata={
                    "field": "move.amount", "amount_min": str(span.minimum),
                    "amount_max": str(span.maximum), "amount_step": str(span.step)})
        why = "it is not one of your legal moves"
    return IllegalMove(f"move {said} refused in phase {game.phase!r}: {why}", offered)
