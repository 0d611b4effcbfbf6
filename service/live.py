"""A table held in memory: its record, its game rebuilt from the log, its seats and watchers.

Rebuilding is replay: start the variant from the table's seed (or test-mode stack), then apply
every move entry, checking that each produces exactly the events the log holds. A log that
replays differently under the installed plugin is refused, never silently reinterpreted.
"""

from __future__ import annotations

import asyncio
import pickle
import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bezique.service.store import LogEntry, Snapshot, TableRecord, TableState
from bezique.service.terms import MOVE_KINDS, REVEAL_TIMEOUT, EntryKind, jsonable
from bezique.variants.api import (
    ABORTED,
    BaseGame,
    Census,
    Event,
    Game,
    LogVersionError,
    Move,
    Outcome,
    Variant,
    View,
)
from bezique.variants.chance import Chance, SeededChance, bot_random, mixed_seed, stacked_shoe
from bezique.variants.host import abort_game
from bezique.variants.host import start_game as start_variant


@dataclass(frozen=True)
class Seat:
    """Who holds a seat: a display name, the hash of its token, or a bot policy. Frozen: a
    change to a seat replaces the record, so a view keeps the seats of its own version."""

    name: str = ""
    token_hash: str = ""
    bot: str = ""
    entropy: str = ""
    """The randomness the seat contributed, hex (public): sent when it joined, or revealed
    after every seat was taken when it joined with a commitment."""
    player_id: str = ""
    """The platform's opaque id of the player holding the seat (public)."""
    buy_in: int = 0
    """The seat's own starting stack (0: the table's default)."""
    token_expires: float | None = None
    """When the seat's current token expires (epoch seconds, from its log entry); None: never."""
    entropy_commitment: str = ""
    """sha256 of the seat's secret entropy, hex, when it joined with a commitment."""

    @property
    def occupied(self) -> bool:
        return bool(self.token_hash or self.bot)

    def expired(self, now: float) -> bool:
        return self.token_expires is not None and now >= self.token_expires

    @property
    def owes_reveal(self) -> bool:
        """Whether the seat committed to entropy it has not revealed yet."""
        return bool(self.entropy_commitment) and not self.entropy

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"name": self.name, "bot": self.bot, "occupied": self.occupied}
        if self.player_id:
            found["player_id"] = self.player_id
        if self.buy_in:
            found["buy_in"] = self.buy_in
        if self.owes_reveal:
            found["owes_reveal"] = True
        return found


@dataclass(frozen=True)
class ViewResult:
    """A viewer's view of a table at ``version``, with what it needs to be rendered later
    (a watch update is rendered after the table may have moved on)."""

    live: LiveTable
    """For the table's fixed facts only (id, record, variant): the rest is captured below."""
    viewer: int | None
    version: int
    seats: tuple[Seat, ...]
    phase: str
    view: View | None
    legal: tuple[Move, ...]
    outcome: Outcome | None = None
    deadline: float | None = None
    awaiting_reveal: tuple[int, ...] = ()
    """The seats still to reveal their committed entropy (the reveal round), in order."""
    wire: list[Any] = field(default_factory=list, compare=False, repr=False)
    """Its wire form once rendered (service.translate): the mover's SubmitMove answer and
    its own stream's update share one ViewResult, so the view is rendered once per move."""

    @property
    def started(self) -> bool:
        return self.view is not None


@dataclass
class Broadcast:
    """One log entry as sent to watchers; ``rendered`` caches its form per viewer."""

    entry: LogEntry
    finished: bool = False
    """Whether the game was over after this entry (then nothing is hidden any more)."""
    views: dict[int | None, ViewResult] = field(default_factory=dict)
    events: dict[int | None, tuple[Event, ...]] = field(default_factory=dict)
    """The entry's events as each viewer may see them, parsed once per viewer, not per stream."""
    parsed: tuple[Event, ...] | None = None
    """The entry's events, parsed from its payload once for every viewer (then redacted)."""
    rendered: dict[Any, Any] = field(default_factory=dict)


class StreamEnd:
    """Put in a watcher's queue to end its stream; ``why`` names the cause (service.watch)."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why


@dataclass(eq=False)
class Watcher:
    """One open watch stream: whose view it gets, the hash of the token it opened with (a
    seat's stream ends when that token no longer holds the seat), and its queue."""

    viewer: int | None
    token_hash: str
    queue: asyncio.Queue[Broadcast | StreamEnd]
    last: int = 0
    """The version of the last entry put in the queue (or the table's when it subscribed)."""
    home: LiveTable | None = None
    """The table object the stream is attached to (a reloaded table adopts its streams)."""
    expires: float | None = None
    """When the stream's token expires (a seat's stream ends then); None: never."""


class LiveTable:
    """The committed state of one table, in memory.

    Read and changed only under ``lock``. A command changes the table in place while it holds
    the lock (the draft), and the lock is released only once the change is committed to the
    store or the table is ``discarded``: so no reader can ever see a draft, and a table whose
    change failed is never used again (it is rebuilt from the store).
    """

    def __init__(self, record: TableRecord, variant: Variant, seats: int) -> None:
        self.record = record
        self.variant = variant
        self.game: Game | None = None
        self.version = 0
        self.seats = [Seat() for _ in range(seats)]
        self.deadline: float | None = None
        self.lock = asyncio.Lock()
        self.watchers: set[Watcher] = set()
        self.snapshot_version = 0
        self.discarded = False
        """Set when a change failed half-way: this object is no longer the table."""
        self.left_at: list[float] = []
        """When each seat was given up (``left`` entries), from the log. Seat churn is no
        longer bounded per table but per caller (``CommandPath.churn``); kept for the
        snapshot's layout."""
        self.chance_version = 0
        """How the table draws (its ``created`` entry says): 0 for tables from before seats
        contributed entropy and bots drew from the secret seed; CHANCE_VERSION since."""
        self.last_used = 0.0
        """``time.monotonic()`` of the last call that used this table (idle eviction)."""
        self.revoked: dict[str, str] = {}
        """Hashes of the seat tokens that no longer hold their seat, and why (``reissued`` or
        ``left``): from the log, so every replica refuses them alike."""
        self.grant_jtis: set[str] = set()
        """The ``jti`` of every join grant a seat of this table was joined with (from the
        log): a grant is used once."""
        self.aborted = False
        """Set by an ``aborted`` entry: the table ended at an operator's request."""
        self.start_stacks: tuple[int, ...] = ()
        """Each seat's chips when the game started (betting variants): the results feed
        reports the change to the end."""
        self.ended: Outcome | None = None
        """How a table that ended before any deal ended (an ``ended`` entry): a seat did not
        reveal its committed entropy in time."""
        self.joins = ""
        """Who may take a seat, as the ``created`` entry says: PLATFORM_JOINS (only with a join
        grant or the API key), OPEN_JOINS (anyone: its creator opened it on purpose), or ``""``
        (anyone: a server without a platform rule, or a table from before it)."""
        self._views: dict[int | None, ViewResult] = {}
        """The views given out at ``_views_at``, by viewer (:meth:`view_for`)."""
        self._census: Census | None = None
        """The census at ``_views_at`` of a game whose views are derived from it."""
        self._views_at = -1

    def snapshot(self) -> Snapshot:
        """The table's state now, for a faster rebuild (the log stays the truth)."""
        state = pickle.dumps((self.game, self.seats, self.version, self.deadline,
                              self.left_at, self.chance_version, self.revoked,
                              self.grant_jtis, self.aborted, self.start_stacks, self.ended,
                              self.joins),
                             protocol=pickle.HIGHEST_PROTOCOL)
        return Snapshot(self.version, self.variant.version, state)

    def restore(self, snapshot: Snapshot) -> None:
        state = pickle.loads(snapshot.state)
        self.game, self.seats, self.version, self.deadline = state[:4]
        # older snapshots: 4 fields, then a count where the times are now (taken after the
        # start, when churn no longer matters)
        self.left_at = state[4] if len(state) > 4 and isinstance(state[4], list) else []
        self.chance_version = state[5] if len(state) > 5 else 0
        self.revoked = dict(state[6]) if len(state) > 6 else {}
        self.grant_jtis = set(state[7]) if len(state) > 7 else set()
        self.aborted = bool(state[8]) if len(state) > 8 else False
        # an older snapshot: the stacks the game started with are lost (no chip changes)
        self.start_stacks = tuple(state[9]) if len(state) > 9 else ()
        self.ended = state[10] if len(state) > 10 else None
        self.joins = str(state[11]) if len(state) > 11 else ""
        self.snapshot_version = snapshot.version

    @property
    def table_id(self) -> str:
        return self.record.table_id

    @property
    def started(self) -> bool:
        return self.game is not None

    @property
    def finished(self) -> bool:
        if self.game is None:
            return self.aborted or self.ended is not None
        return self.game.outcome() is not None

    @property
    def awaiting_reveal(self) -> tuple[int, ...]:
        """The seats that must reveal their committed entropy before the game can start: only
        once every seat is taken (every commitment is in), and never after an end."""
        if self.game is not None or self.finished or self.free_seats:
            return ()
        return tuple(index for index, seat in enumerate(self.seats) if seat.owes_reveal)

    @property
    def free_seats(self) -> int:
        return sum(1 for seat in self.seats if not seat.occupied)

    @property
    def phase(self) -> str:
        if self.game is None:
            if self.aborted:
                return "aborted"
            if self.ended is not None:
                return "over"
            return "reveal" if self.awaiting_reveal else "waiting"
        return self.game.phase

    def chance(self) -> Chance:
        """The table's chance source: its seed mixed with its seats' entropy as they are now
        (the game starts when the last seat is taken, so these are the seats at the start)."""
        contributions = [(index, bytes.fromhex(seat.entropy))
                         for index, seat in enumerate(self.seats) if seat.entropy]
        if self.chance_version < CHANCE_VERSION:
            contributions = []
        source = SeededChance(mixed_seed(self.record.seed, contributions))
        stacked = self.record.test.get("stacked_shoe")
        if stacked:
            order = self.variant.shoe(self.record.options).order_from_codes(stacked)
            return stacked_shoe(source, order)
        return source

    def buy_ins(self) -> dict[int, int]:
        """The seats' own starting stacks (only seats that bought in)."""
        return {index: seat.buy_in for index, seat in enumerate(self.seats) if seat.buy_in}

    def start_game(self) -> tuple[Event, ...]:
        first = self.record.test.get("first_dealer")
        # as the variant version that wrote the log plays (a table from before an upgrade)
        game, events = start_variant(self.variant, self.record.options, self.chance(),
                                    None if first is None else int(first), self.buy_ins(),
                                    self.record.variant_version)
        self.game = game
        self.start_stacks = self._starting_stacks(game)
        return events

    def _starting_stacks(self, game: Game) -> tuple[int, ...]:
        """The chips each seat brought: its join's ``buy_in``, else the table's option
        ``starting_stack`` (the convention of betting variants), else the stacks the game
        shows at its start (after any opening antes). Empty for a game without stacks."""
        shown = game.view(None).stacks
        if not shown:
            return ()
        default = self.record.options.get("starting_stack")
        bought = self.buy_ins()
        return tuple(bought.get(seat) or (int(default) if default is not None else stack)
                     for seat, stack in enumerate(shown))

    def abort(self) -> tuple[Event, ...]:
        """End the table at an operator's request, settling as the variant says (part of a
        draft, or replaying an ``aborted`` entry)."""
        self.aborted = True
        if self.game is None:
            return ()
        self.game, events = abort_game(self.game)
        return events

    def bot_random(self, seat: int) -> random.Random:
        """The random source of the bot that makes the next entry for ``seat``."""
        if self.chance_version < CHANCE_VERSION:  # tables from before: a public source
            return random.Random(f"{self.table_id}:{self.version}")
        return bot_random(self.record.seed, self.version + 1, seat)

    def view_for(self, viewer: int | None) -> ViewResult:
        """What ``viewer`` (a seat, or ``None`` for a spectator) may see of the table now.

        Kept per (version, viewer) while the table is watched: every entry moves the version,
        so a view of this version is the view of its committed log (a draft moves the
        version too, and a table whose draft failed is discarded with its views). The
        watchers of a viewer, the mover's answer and GetView share one, rendered once
        (``ViewResult.wire``). An unwatched table keeps none (an idle table costs no memory
        for them); the game keeps nothing between views. A game whose views
        :class:`BaseGame` derives from its census has its census taken once a version for
        every viewer (:meth:`_derived`)."""
        views = self._views
        if self._views_at != self.version:
            views.clear()
            self._census = None
            self._views_at = self.version
        found = views.get(viewer)
        if found is None:
            found = self._new_view(viewer)
            if self.watchers:
                views[viewer] = found
        return found

    def forget_views(self) -> None:
        """Let go of the views kept (the table is discarded, or its last watcher left)."""
        self._views.clear()
        self._census = None
        self._views_at = -1

    def _new_view(self, viewer: int | None) -> ViewResult:
        game = self.game
        seats = tuple(self.seats)
        if game is None:
            return ViewResult(self, viewer, self.version, seats, self.phase, None, (),
                              self.outcome(), self.deadline, self.awaiting_reveal)
        view = self._derived(game, viewer)
        legal = tuple(game.legal_moves(viewer)) if viewer is not None else ()
        return ViewResult(self, viewer, self.version, seats, view.phase, view, legal,
                          game.outcome(), self.deadline)

    def _derived(self, game: Game, viewer: int | None) -> View:
        """``game.view(viewer)``. For a game that keeps :meth:`BaseGame.view`, which derives
        each view from the census, the census of this version is taken once, while the
        table is watched, for the views of all its viewers (the same views: the census at a
        version is that of its committed log, and ``view_for`` copies what it shows)."""
        if getattr(type(game), "view", None) is not BaseGame.view:
            return game.view(viewer)
        census = self._census
        if census is None:
            census = game.census()
            if self.watchers:
                self._census = census
        return census.view_for(viewer, game.phase, game.to_move, game.shoe)

    def outcome(self) -> Outcome | None:
        """How the table ended: the game's outcome; for a table that ended before its game
        started, aborted (the reason alone) or a reveal round that timed out (``ended``)."""
        if self.game is not None:
            return self.game.outcome()
        if self.aborted:
            return Outcome((), (), ABORTED, self._withheld_at_abort())
        return self.ended

    def _withheld_at_abort(self) -> dict[str, Any]:
        """An abort in the reveal round (every seat taken, a commitment not revealed) names
        the seats that had not revealed, as the ``aborted`` entry does; nothing otherwise. The
        seats no longer change once the table ended, so they still say who owed a reveal."""
        if self.free_seats:
            return {}
        owing = [index for index, seat in enumerate(self.seats) if seat.owes_reveal]
        return {"withheld": owing} if owing else {}

    def state(self) -> TableState:
        return TableState(self.version, self.phase, self.free_seats, self.finished,
                          [seat.to_dict() for seat in self.seats], self.deadline)

    # ----------------------------------------------------------------- replay

    def apply_entry(self, entry: LogEntry) -> None:
        """Bring the table to ``entry.version`` by applying one stored entry."""
        if entry.version != self.version + 1:
            raise LogVersionError(
                f"table {self.table_id}: entry {entry.version} follows version {self.version}")
        payload = entry.payload
        if entry.kind == EntryKind.CREATED:
            self.chance_version = int(payload.get("chance", 0))
            self.joins = str(payload.get("joins", ""))
        elif entry.kind == EntryKind.JOINED and entry.seat is not None:
            expires = payload.get("token_expires")
            self.seats[entry.seat] = Seat(str(payload.get("name", "")),
                                          str(payload.get("token_hash", "")),
                                          str(payload.get("bot", "")),
                                          str(payload.get("entropy", "")),
                                          str(payload.get("player_id", "")),
                                          int(payload.get("buy_in", 0)),
                                          None if expires is None else float(expires),
                                          str(payload.get("entropy_commitment", "")))
            if payload.get("grant_jti"):
                self.grant_jtis.add(str(payload["grant_jti"]))
        elif entry.kind == EntryKind.REVEALED and entry.seat is not None:
            self.seats[entry.seat] = replace(self.seats[entry.seat],
                                             entropy=str(payload.get("entropy", "")))
        elif entry.kind == EntryKind.ENDED:
            self.ended = ended_outcome(len(self.seats), payload)
        elif entry.kind == EntryKind.LEFT and entry.seat is not None:
            if self.seats[entry.seat].token_hash:
                self.revoked[self.seats[entry.seat].token_hash] = "left"
            self.seats[entry.seat] = Seat()
            self.left_at.append(entry.created_at)
        elif entry.kind == EntryKind.TOKEN_REISSUED and entry.seat is not None:
            held = self.seats[entry.seat]
            if held.token_hash:
                self.revoked[held.token_hash] = "reissued"
            expires = payload.get("token_expires")
            self.seats[entry.seat] = replace(held, token_hash=str(payload["token_hash"]),
                                             token_expires=None if expires is None
                                             else float(expires))
        elif entry.kind == EntryKind.STARTED:
            self._check_replay(entry, self.start_game())
        elif entry.kind == EntryKind.ABORTED:
            self._check_replay(entry, self.abort())
        elif entry.kind in MOVE_KINDS:
            if self.game is None or entry.seat is None:
                raise LogVersionError(f"table {self.table_id}: move before the game started")
            move = Move.from_dict(payload["move"])
            self._check_replay(entry, self.game.apply(entry.seat, move))
        self.advance(entry)

    def advance(self, entry: LogEntry) -> None:
        """Take the version and turn deadline of an entry the table's state already reflects
        (replayed above, or just made by the table manager)."""
        self.deadline = entry.payload.get("deadline")
        self.version = entry.version

    def _check_replay(self, entry: LogEntry, events: Sequence[Event]) -> None:
        if jsonable(events_json(events)) != jsonable(entry.payload.get("events", [])):
            raise LogVersionError(
                f"table {self.table_id}: entry {entry.version} replays differently under "
                f"{self.variant.id} version {self.variant.version}")


def events_json(events: Sequence[Event]) -> list[dict[str, Any]]:
    """Events as a log entry holds them (JSON-able; a store may turn tuples into lists)."""
    return [event.to_dict() for event in events]


CHANCE_VERSION = 2
"""The chance construction of new tables: the seed mixed with the seats' entropy, bots drawing
from the secret seed (docs/fairness.md)."""


def ended_outcome(seats: int, payload: dict[str, Any]) -> Outcome:
    """The outcome of a table that ended before any deal: nobody won, nothing was scored;
    ``detail.withheld`` names the seats that did not reveal."""
    withheld = [int(seat) for seat in payload.get("withheld", ())]
    return Outcome((), (0,) * seats, str(payload.get("reason", REVEAL_TIMEOUT)),
                   {"withheld": withheld, "dealt": False})


def rebuild(record: TableRecord, variant: Variant, seats: int,
            entries: Sequence[LogEntry], snapshot: Snapshot | None = None) -> LiveTable:
    """A table replayed from its log (after ``snapshot``, when one is given)."""
    if not variant.accepts_log_version(record.variant_version):
        raise LogVersionError(
            f"table {record.table_id} was written by {variant.id} version "
            f"{record.variant_version}; the installed version {variant.version} cannot replay it")
    live = LiveTable(record, variant, seats)
    if snapshot is not None:
        live.restore(snapshot)
    for entry in entries:
        live.apply_entry(entry)
    return live
