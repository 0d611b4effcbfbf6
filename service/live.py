"""A table held in memory: its record, its own state (bezique.table), its game rebuilt from
the log, its lock and its watchers.

Rebuilding is replay: every entry through the one reducer (``evolve``), and every game entry
through the variant, started from the table's seed (or test-mode stack), checking that each
produces exactly the events the log holds. A log that replays differently under the installed
plugin, or that the table's state could not have taken, is refused, never silently
reinterpreted.
"""

from __future__ import annotations

import asyncio
import pickle
import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from bezique.service.store import LogEntry, Snapshot, TableRecord, TableState
from bezique.service.viewcache import ViewCache
from bezique.table.entries import (
    Aborted,
    Entry,
    EntryError,
    GameEntry,
    Moved,
    Started,
    decode,
    encode,
)
from bezique.table.state import (
    CHANCE_VERSION,
    EntryRejected,
    GameFacts,
    Seat,
    Table,
    evolve,
    outcome_of,
)
from bezique.terms import jsonable
from bezique.variants.api import (
    ABORTED,
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

__all__ = ["CHANCE_VERSION", "Broadcast", "Drafted", "Inbox", "LiveTable", "Seat", "StreamEnd",
           "ViewResult", "Watcher", "events_json", "rebuild"]


@dataclass(slots=True)
class ViewResult:
    """A viewer's view of a table at ``version``, with what it needs to be rendered later
    (a watch update is rendered after the table may have moved on). Never changed once made
    (its ``wire`` only filled in); not a frozen dataclass, whose constructor costs four times
    as much (one is made per viewer and move)."""

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
    wire: list[bytes] = field(default_factory=list, compare=False, repr=False)
    """Its serialised pb.View once rendered (service.translate.view_wire): the mover's
    SubmitMove answer and its viewer's streams share one ViewResult, so the view is rendered
    once per move."""

    @property
    def started(self) -> bool:
        return self.view is not None


@dataclass
class Broadcast:
    """One committed log entry as sent to watchers; ``wire`` keeps its serialised update per
    viewer (its audience: a seat, or ``None`` for every spectator)."""

    entry: LogEntry
    finished: bool = False
    """Whether the game was over after this entry (then nothing is hidden any more)."""
    views: dict[int | None, ViewResult] = field(default_factory=dict)
    events: dict[int | None, tuple[Event, ...]] = field(default_factory=dict)
    """The entry's events as each viewer may see them, parsed once per viewer, not per stream."""
    parsed: tuple[Event, ...] | None = None
    """The entry's events, parsed from its payload once for every viewer (then redacted)."""
    wire: dict[int | None, bytes] = field(default_factory=dict)
    """The WatchTableResponse each viewer's streams are sent (service.translate), serialised
    once for all of them."""
    heads: dict[tuple[int, ...], tuple[tuple[Event, ...], bytes]] = field(
        default_factory=dict)
    """The update's fields but its view, by the ids of the events shown (service.translate):
    the viewers who see the same events share them."""


class StreamEnd:
    """Put in a watcher's queue to end its stream; ``why`` names the cause (service.watch)."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why


class Inbox:
    """A watch stream's queue: what ``asyncio.Queue`` does for the one task that reads it,
    for a fraction of its memory (a list, and one future while the stream waits, where an
    asyncio.Queue holds three deques and an event: ~3 KB a stream) and of its work."""

    __slots__ = ("items", "maxsize", "waiter")

    def __init__(self, maxsize: int) -> None:
        self.items: list[Broadcast | StreamEnd] = []
        self.maxsize = maxsize
        self.waiter: asyncio.Future[None] | None = None

    def qsize(self) -> int:
        return len(self.items)

    def full(self) -> bool:
        return len(self.items) >= self.maxsize

    def put_nowait(self, item: Broadcast | StreamEnd) -> None:
        """Add ``item`` (the callers check ``full``/``qsize`` first, as the hub does)."""
        self.items.append(item)
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self, within: float | None = None) -> Broadcast | StreamEnd | None:
        """The oldest item, once there is one; None if none came ``within`` seconds, and at
        once if that time is up (a timer on the one future: ``asyncio.wait_for`` would make a
        task of every wait)."""
        if within is not None and within <= 0:
            return None
        if not self.items:
            loop = asyncio.get_running_loop()
            waiter = self.waiter = loop.create_future()
            timer = None if within is None else loop.call_later(within, _wake, waiter)
            try:
                while not self.items and not waiter.done():
                    await waiter
            finally:
                self.waiter = None
                if timer is not None:
                    timer.cancel()
            if not self.items:
                return None
        return self.items.pop(0)


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


@dataclass(eq=False, slots=True)
class Watcher:
    """One open watch stream: whose view it gets, the hash of the token it opened with (a
    seat's stream ends when that token no longer holds the seat), and its queue."""

    viewer: int | None
    token_hash: str
    queue: Inbox
    last: int = 0
    """The version of the last entry put in the queue (or the table's when it subscribed)."""
    home: LiveTable | None = None
    """The table object the stream is attached to (a reloaded table adopts its streams)."""
    expires: float | None = None
    """When the stream's token expires (a seat's stream ends then); None: never."""


class Drafted(NamedTuple):
    """An entry just added to a draft: as the log stores it, and as its record (a game
    entry's record holds the game's own events, ``made``). A named tuple: one per move."""

    log: LogEntry
    entry: Entry
    events: tuple[Event, ...] = ()
    """A game entry's events as the game made them (the log holds them as JSON)."""
    made_events: bool = False
    """Whether ``events`` are the game's (a game entry): then watchers and observers are given
    them as they are, not parsed back from the log's form."""


@dataclass(frozen=True)
class TableSnapshot:
    """What a snapshot holds, versioned: the table's own state and its game. A snapshot of
    another ``format`` (or the positional tuple of older servers) is ignored: the table is
    replayed from its log, which is the truth; snapshots only make loading faster."""

    format: int
    table: Table
    game: Game | None


SNAPSHOT_FORMAT = 1

_FACTS = {False: GameFacts(False), True: GameFacts(True)}
"""What a move tells the state of the game: built once, not once a move."""


class SnapshotError(ValueError):
    """A snapshot this server does not read (another format): replay the whole log instead."""


class LiveTable:
    """One table in memory: its own state (``table``, an immutable record evolved by the one
    reducer), its game, its lock and its watchers.

    Read and changed only under ``lock``. A command drafts its entries on the table while it
    holds the lock: the game is changed in place (a copy per move would cost more than the
    move), the state is replaced. The lock is released only once the change is committed to
    the store or the table is ``discarded``: so no reader can ever see a draft, and a table
    whose change failed is never used again (it is rebuilt from the store).
    """

    def __init__(self, record: TableRecord, variant: Variant, seats: int) -> None:
        self.record = record
        self.variant = variant
        self.table = Table.empty(seats, record.table_id)
        self.game: Game | None = None
        self.lock = asyncio.Lock()
        self.watchers: set[Watcher] = set()
        self.snapshot_version = 0
        self.discarded = False
        """Set when a change failed half-way: this object is no longer the table."""
        self.last_used = 0.0
        """``time.monotonic()`` of the last call that used this table (idle eviction)."""
        self.view_cache = ViewCache(self.watchers)
        """What the views of the current version share, while the table is watched."""
        self._seated: tuple[tuple[Seat, ...], list[dict[str, Any]], int] = ((), [], 0)
        """The seats the summary last showed, as the store keeps them, and how many are free:
        the seats are immutable, so they are mapped again only when they change."""

    def snapshot(self) -> Snapshot:
        """The table's state now, for a faster rebuild (the log stays the truth)."""
        state = pickle.dumps(TableSnapshot(SNAPSHOT_FORMAT, self.table, self.game),
                             protocol=pickle.HIGHEST_PROTOCOL)
        return Snapshot(self.version, self.variant.version, state)

    def restore(self, snapshot: Snapshot) -> None:
        found = pickle.loads(snapshot.state)
        if not isinstance(found, TableSnapshot) or found.format != SNAPSHOT_FORMAT:
            raise SnapshotError(f"a snapshot of another format ({type(found).__name__})")
        self.table, self.game = found.table, found.game
        self.snapshot_version = snapshot.version

    # the table's own state, read through (service code and tests read these)

    @property
    def table_id(self) -> str:
        return self.record.table_id

    @property
    def version(self) -> int:
        return self.table.version

    @property
    def seats(self) -> tuple[Seat, ...]:
        return self.table.seats

    @property
    def deadline(self) -> float | None:
        return self.table.deadline

    @property
    def revoked(self) -> Mapping[str, str]:
        return self.table.revoked

    @property
    def chance_version(self) -> int:
        return self.table.chance_version

    @property
    def aborted(self) -> bool:
        return self.table.aborted

    @property
    def ended(self) -> Outcome | None:
        return self.table.ended

    @property
    def joins(self) -> str:
        return self.table.joins

    @property
    def start_stacks(self) -> tuple[int, ...]:
        return self.table.start_stacks

    @property
    def started(self) -> bool:
        return self.game is not None

    @property
    def finished(self) -> bool:
        return self.table.finished

    @property
    def awaiting_reveal(self) -> tuple[int, ...]:
        return self.table.awaiting_reveal

    @property
    def free_seats(self) -> int:
        return self.table.free_seats

    @property
    def phase(self) -> str:
        return self.table.phase if self.game is None else self.game.phase

    def chance(self) -> Chance:
        """The table's chance source: its seed mixed with its seats' entropy as they are now
        (the game starts when the last seat is taken, so these are the seats at the start)."""
        source = SeededChance(mixed_seed(self.record.seed, self.table.contributions()))
        stacked = self.record.test.get("stacked_shoe")
        if stacked:
            order = self.variant.shoe(self.record.options).order_from_codes(stacked)
            return stacked_shoe(source, order)
        return source

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
        (``ViewResult.wire``). An unwatched table keeps none, nor a watched one waiting for
        a move (the housekeeping lets them go after ``--views-kept-seconds``); the game
        keeps nothing between views. A game whose views
        :class:`BaseGame` derives from its census has its census taken once a version for
        every viewer (:meth:`ViewCache.derived`)."""
        views = self.view_cache.of(self.version)
        found = views.get(viewer)
        if found is None:
            found = self._new_view(viewer)
            if self.watchers:
                views[viewer] = found
        return found

    def shared_wire(self, version: int, key: Hashable, render: Callable[[], bytes]) -> bytes:
        """Bytes that views of ``version`` render alike (service.translate: their zones,
        their seats), by what they are rendered from (``key``, with the version's own state):
        rendered once per version for every viewer while the table is watched, kept with its
        views (:meth:`ViewCache.shared`)."""
        return self.view_cache.shared(version, key, render, bool(self.watchers))

    def forget_views(self) -> None:
        """Let go of the views kept (the table is discarded, its last watcher left, or the
        housekeeping found them kept ``--views-kept-seconds``)."""
        self.view_cache.clear()

    def _new_view(self, viewer: int | None) -> ViewResult:
        game = self.game
        seats = self.table.seats
        if game is None:
            return ViewResult(self, viewer, self.version, seats, self.phase, None, (),
                              self.outcome(), self.deadline, self.awaiting_reveal)
        view = self.view_cache.derived(game, viewer, bool(self.watchers))
        legal = tuple(game.legal_moves(viewer)) if viewer is not None else ()
        return ViewResult(self, viewer, self.version, seats, view.phase, view, legal,
                          self.outcome(), self.deadline)

    def outcome(self) -> Outcome | None:
        """How the table ended: the game's outcome; for a table that ended before its game
        started, aborted (the reason alone) or a reveal round that timed out (``ended``)."""
        if self.game is not None:
            return outcome_of(self.table, self.game.outcome())
        if self.aborted:
            return Outcome((), (), self.table.abort_reason or ABORTED,
                           self._withheld_at_abort())
        return self.ended

    def _withheld_at_abort(self) -> dict[str, Any]:
        """An abort in the reveal round (every seat taken, a commitment not revealed) names
        the seats that had not revealed, as the ``aborted`` entry does; nothing otherwise. The
        seats no longer change once the table ended, so they still say who owed a reveal."""
        owing = self.table.owing
        return {"withheld": list(owing)} if owing and not self.free_seats else {}

    def summary(self) -> TableState:
        """What the store keeps of the table besides its log (updated with every append)."""
        seats = self.table.seats
        if self._seated[0] is not seats:
            self._seated = (seats, [seat.to_dict() for seat in seats], self.table.free_seats)
        shown, free = self._seated[1], self._seated[2]
        return TableState(self.version, self.phase, free, self.finished, shown, self.deadline)

    # ----------------------------------------------------------------- entries

    def draft(self, entry: Entry, now: float, request_id: str | None = None) -> Drafted:
        """The one way to add an entry to a draft: the game makes a game entry's events and
        deadline (in place), then the state evolves. Part of a held command's draft."""
        made, facts, events = self._play(entry, now)
        self.table = evolve(self.table, made, facts)
        return Drafted(LogEntry(self.version, made.kind, made.seat, encode(made), request_id,
                                now), made, events or (), events is not None)

    def apply_entry(self, stored: LogEntry) -> None:
        """Bring the table to ``stored.version`` by replaying one stored entry; the game must
        make exactly the events the log holds."""
        if stored.version != self.version + 1:
            raise LogVersionError(
                f"table {self.table_id}: entry {stored.version} follows version {self.version}")
        try:
            entry = decode(stored.kind, stored.seat, stored.payload)
            made, facts, _ = self._play(entry, stored.created_at, replaying=True)
            if isinstance(made, GameEntry) and isinstance(entry, GameEntry) and (
                    made.events != entry.events
                    and jsonable(list(made.events)) != jsonable(list(entry.events))):
                raise LogVersionError(
                    f"table {self.table_id}: entry {stored.version} replays differently under "
                    f"{self.variant.id} version {self.variant.version}")
            self.table = evolve(self.table, entry, facts)
        except (EntryError, EntryRejected) as exc:
            raise LogVersionError(f"table {self.table_id}: entry {stored.version}: {exc}"
                                  ) from exc

    def _play(self, entry: Entry, now: float, replaying: bool = False
              ) -> tuple[Entry, GameFacts | None, tuple[Event, ...] | None]:
        """The game's part of a game entry (start, move, abort), made in place: the entry
        with the game's events (and, when not replaying, its turn deadline), what the game
        says after it, and its events as the game made them (None: not a game entry)."""
        if isinstance(entry, Moved):
            if self.game is None:
                raise EntryRejected("a move comes before the game started")
            events = self.game.apply(entry.seat, entry.move)
            over = self.game.outcome() is not None
            seconds = self.record.turn_seconds
            return Moved(entry.kind, entry.seat, entry.move, tuple(events_json(events)),
                         entry.deadline if replaying else
                         now + seconds if seconds and not over else None,
                         events), _FACTS[over], events
        if isinstance(entry, Started):
            if self.game is not None:
                raise EntryRejected("the game starts a second time")
            events = self._start()
        elif isinstance(entry, Aborted):
            events = ()
            if self.game is not None:
                self.game, events = abort_game(self.game)
        else:
            return entry, None, None
        over = self.game is not None and self.game.outcome() is not None
        stacks = self._starting_stacks() if isinstance(entry, Started) else ()
        facts = GameFacts(over, stacks)
        stored = tuple(events_json(events))
        if replaying or isinstance(entry, Aborted):  # an abort has no deadline
            return replace(entry, events=stored, made=events), facts, events
        seconds = self.record.turn_seconds
        deadline = now + seconds if seconds and not over else None
        return replace(entry, events=stored, made=events, deadline=deadline), facts, events

    def _start(self) -> tuple[Event, ...]:
        first = self.record.test.get("first_dealer")
        # as the variant version that wrote the log plays (a table from before an upgrade)
        self.game, events = start_variant(self.variant, self.record.options, self.chance(),
                                          None if first is None else int(first),
                                          self.table.buy_ins(), self.record.variant_version)
        return events

    def _starting_stacks(self) -> tuple[int, ...]:
        """The chips each seat brought: its join's ``buy_in``, else the table's option
        ``starting_stack`` (the convention of betting variants), else the stacks the game
        shows at its start (after any opening antes). Empty for a game without stacks."""
        shown = self.game.view(None).stacks if self.game is not None else ()
        if not shown:
            return ()
        default = self.record.options.get("starting_stack")
        bought = self.table.buy_ins()
        return tuple(bought.get(seat) or (int(default) if default is not None else stack)
                     for seat, stack in enumerate(shown))


def events_json(events: Sequence[Event]) -> list[dict[str, Any]]:
    """Events as a log entry holds them (JSON-able; a store may turn tuples into lists)."""
    return [event.to_dict() for event in events]


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
