"""The table's own state, as an immutable record, and the one reducer over it: :func:`evolve`.

The table's own state is who holds each seat, the revoked tokens, the grants used, who may
join, whether and how the table ended, the stacks the game started with, the
chance construction, the version and the turn or reveal deadline. The game is not in it: a
variant's ``Game`` is mutable and copying it per move costs more than a whole SubmitMove
(docs/architecture.md), so the service applies it in place under the table's lock and tells
``evolve`` what it needs to know of it (:class:`GameFacts`). The server and the verifier
replay with this reducer; it refuses an entry the table could not have taken
(:class:`EntryRejected`), so a log that a decision could never have produced does not load,
and does not verify.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from bezique.table.entries import (
    Aborted,
    Created,
    Ended,
    Entry,
    Joined,
    Left,
    Moved,
    Revealed,
    Started,
    TokenReissued,
)
from bezique.variants.api import Outcome


class EntryRejected(ValueError):
    """An entry the table's state cannot take (the log was not written by a decision)."""


@dataclass(frozen=True, slots=True)
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
        """A joined seat always has a name (a bot's, the player's or ``seat N``); a free one
        has none. The name, not the token, so a replay from a public history (which holds no
        token hashes) sees the same seats."""
        return bool(self.name or self.token_hash or self.bot)

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

    @classmethod
    def joined(cls, entry: Joined) -> Seat:
        """The seat a join makes (the one mapping from a join to a seat)."""
        return cls(entry.name, entry.token_hash, entry.bot, entry.entropy, entry.player_id,
                   entry.buy_in, entry.token_expires, entry.entropy_commitment)


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What the game says after an entry it took part in (the game is applied outside)."""

    over: bool = False
    """The game has an outcome."""
    start_stacks: tuple[int, ...] = ()
    """For ``started``: each seat's chips at the start (betting variants), else empty."""


class Table(NamedTuple):
    """The table's own state at ``version``. Immutable: :func:`evolve` returns a new one (its
    ``revoked`` mapping is copied on change, never changed in place). A named tuple, not a
    frozen dataclass: a move makes a new state, and a frozen dataclass takes about six times
    as long to build (its fields are set one by one through ``object.__setattr__``)."""

    seats: tuple[Seat, ...]
    table_id: str = ""
    """For messages only."""
    version: int = 0
    deadline: float | None = None
    chance_version: int = 0
    """How the table draws (its ``created`` entry says): 0 for tables from before seats
    contributed entropy and bots drew from the secret seed."""
    revoked: Mapping[str, str] = {}  # read-only, shared by empty tables: evolve copies it
    """Hashes of the seat tokens that no longer hold their seat, and why (``reissued`` or
    ``left``): from the log, so every replica refuses them alike."""
    grant_jtis: frozenset[str] = frozenset()
    """The ``jti`` of every join grant a seat was joined with: a grant is used once."""
    joins: str = ""
    """Who may take a seat, as the ``created`` entry says: PLATFORM_JOINS (only with a join
    grant or the API key), OPEN_JOINS (anyone: its creator opened it on purpose), or ``""``
    (anyone: a server without a platform rule, or a table from before it)."""
    started: bool = False
    game_over: bool = False
    aborted: bool = False
    """An ``aborted`` entry: the table ended at an operator's request (or was abandoned)."""
    ended: Outcome | None = None
    """How a table that ended before any deal ended (an ``ended`` entry)."""
    start_stacks: tuple[int, ...] = ()
    """Each seat's chips when the game started: the results feed reports the change."""
    abort_reason: str = ""
    """The ``aborted`` entry's reason when it is not an operator's (``abandoned``): the
    outcome's reason then (:meth:`outcome_of`)."""

    @classmethod
    def empty(cls, seats: int, table_id: str = "") -> Table:
        return cls(tuple(Seat() for _ in range(seats)), table_id)

    @property
    def finished(self) -> bool:
        return self.aborted or self.ended is not None or self.game_over

    @property
    def free_seats(self) -> int:
        return sum(1 for seat in self.seats if not seat.occupied)

    @property
    def owing(self) -> tuple[int, ...]:
        """The seats that committed to entropy and have not revealed it."""
        return tuple(index for index, seat in enumerate(self.seats) if seat.owes_reveal)

    @property
    def awaiting_reveal(self) -> tuple[int, ...]:
        """The seats that must reveal before the game can start: only once every seat is
        taken (every commitment is in), and never after an end."""
        if self.started or self.finished or self.free_seats:
            return ()
        return self.owing

    @property
    def ready(self) -> bool:
        """Every seat is taken and revealed: the game starts now (a ``started`` entry)."""
        return not (self.started or self.finished or self.free_seats or self.owing)

    @property
    def phase(self) -> str:
        """The phase before the game (the game names its own once it started)."""
        if self.aborted:
            return "aborted"
        if self.ended is not None:
            return "over"
        return "reveal" if self.awaiting_reveal else "waiting"

    def buy_ins(self) -> dict[int, int]:
        """The seats' own starting stacks (only seats that bought in)."""
        return {index: seat.buy_in for index, seat in enumerate(self.seats) if seat.buy_in}

    def contributions(self) -> list[tuple[int, bytes]]:
        """The seats' entropy that goes into the deals, by seat (none for chance version 0)."""
        if self.chance_version < CHANCE_VERSION:
            return []
        return [(index, bytes.fromhex(seat.entropy))
                for index, seat in enumerate(self.seats) if seat.entropy]


CHANCE_VERSION = 2
"""The chance construction of new tables: the seed mixed with the seats' entropy, bots drawing
from the secret seed (docs/fairness.md)."""


def ended_outcome(seats: int, withheld: tuple[int, ...], reason: str) -> Outcome:
    """The outcome of a table that ended before any deal: nobody won, nothing was scored;
    ``detail.withheld`` names the seats that did not reveal."""
    return Outcome((), (0,) * seats, reason, {"withheld": list(withheld), "dealt": False})


def outcome_of(table: Table, outcome: Outcome | None) -> Outcome | None:
    """The table's outcome from its game's (or its end's): an abandoned table's reason is
    ``abandoned`` whatever the game's settlement calls it (the same settlement as an abort),
    so the server and ``verify`` say the same."""
    if outcome is None or not table.abort_reason:
        return outcome
    return replace(outcome, reason=table.abort_reason)


def evolve(table: Table, entry: Entry, game: GameFacts | None = None) -> Table:
    """The table after ``entry``, or EntryRejected. ``game`` is what the game says after an
    entry it took part in (``started``, a move, ``aborted``)."""
    if type(entry) is Moved:  # the hot path: built directly (dataclasses.replace is slower)
        return _moved(table, entry, game)
    if table.aborted:
        raise EntryRejected(f"a {entry.kind!r} entry follows the abort")
    if table.ended is not None:
        raise EntryRejected(f"a {entry.kind!r} entry follows the end of the table")
    after = _evolve(table, entry, game or GameFacts())
    return after._replace(version=table.version + 1, deadline=entry.deadline)


def _moved(table: Table, entry: Moved, game: GameFacts | None) -> Table:
    """A move of the game: only the version, the deadline and whether the game is over."""
    if table.aborted:
        raise EntryRejected(f"a {entry.kind!r} entry follows the abort")
    if not table.started:
        raise EntryRejected("a move comes before the game started")
    if not 0 <= entry.seat < len(table.seats):
        _check_seat(table, entry.seat)
    # built field by field, in the order Table declares them (tests/table/test_evolve.py
    # checks it against _replace): a move is the hot path
    return Table(table.seats, table.table_id, table.version + 1, entry.deadline,
                 table.chance_version, table.revoked, table.grant_jtis, table.joins, True,
                 game is not None and game.over, False, None, table.start_stacks)


def _evolve(table: Table, entry: Entry, game: GameFacts) -> Table:
    if isinstance(entry, Moved):  # evolve takes it first; here for the type's sake
        return _moved(table, entry, game)
    if isinstance(entry, Joined | Left):
        return _seating(table, entry)
    if isinstance(entry, Created):
        if table.version:
            raise EntryRejected("a 'created' entry follows the first one")
        return table._replace(chance_version=entry.chance, joins=entry.joins)
    if isinstance(entry, TokenReissued):
        held = table.seats[_check_seat(table, entry.seat)]
        if not held.occupied or held.bot:
            raise EntryRejected(f"seat {entry.seat}'s token is reissued, but no player holds it")
        revoked = dict(table.revoked)
        if held.token_hash:
            revoked[held.token_hash] = "reissued"
        seat = replace(held, token_hash=entry.token_hash, token_expires=entry.token_expires)
        return table._replace(seats=_with(table.seats, entry.seat, seat), revoked=revoked)
    if isinstance(entry, Revealed):
        return _reveal(table, entry)
    if isinstance(entry, Started):
        if table.started:
            raise EntryRejected("the game starts a second time")
        free = [index for index, seat in enumerate(table.seats) if not seat.occupied]
        if free:
            raise EntryRejected(f"the game starts with seats {free} free")
        if table.owing:
            raise EntryRejected(f"the game starts before seats {list(table.owing)} revealed "
                                "their committed entropy")
        return table._replace(started=True, game_over=game.over,
                       start_stacks=game.start_stacks)
    if isinstance(entry, Aborted):
        if table.game_over:
            raise EntryRejected("the game is aborted after it ended")
        if entry.withheld and list(entry.withheld) != list(table.awaiting_reveal):
            raise EntryRejected(f"the abort names seats {list(entry.withheld)} as not revealed, "
                                f"but the seats that owed a reveal are "
                                f"{list(table.awaiting_reveal)}")
        return table._replace(aborted=True, game_over=game.over, abort_reason=entry.reason)
    return _end(table, entry)


def _seating(table: Table, entry: Joined | Left) -> Table:
    if table.started:
        raise EntryRejected(f"a {entry.kind!r} entry follows the start of the game")
    seat = _check_seat(table, entry.seat)
    held = table.seats[seat]
    if isinstance(entry, Joined):
        if held.occupied:
            raise EntryRejected(f"seat {seat} is joined while it is held")
        if entry.bot and entry.token_hash:
            raise EntryRejected(f"seat {seat} joins as a bot with a player's token")
        if entry.entropy and entry.entropy_commitment:
            raise EntryRejected(f"seat {seat} joins with both entropy and a commitment")
        jtis = table.grant_jtis | {entry.grant_jti} if entry.grant_jti else table.grant_jtis
        return table._replace(seats=_with(table.seats, seat, Seat.joined(entry)),
                       grant_jtis=jtis)
    if not held.occupied:
        raise EntryRejected(f"seat {seat} is given up while it is free")
    if not table.free_seats and table.owing:
        raise EntryRejected("a seat is given up in the reveal round (a new holder could "
                            "choose its entropy after the reveals)")
    revoked = table.revoked
    if held.token_hash:
        revoked = {**revoked, held.token_hash: "left"}
    return table._replace(seats=_with(table.seats, seat, Seat()), revoked=revoked)


def _reveal(table: Table, entry: Revealed) -> Table:
    """Only once every seat is taken (so every commitment came first), only once, and only
    the value the seat committed to."""
    seat = _check_seat(table, entry.seat)
    held = table.seats[seat]
    if table.started:
        raise EntryRejected(f"seat {seat} reveals entropy after the start")
    if not held.entropy_commitment:
        raise EntryRejected(f"seat {seat} reveals entropy it never committed to")
    if held.entropy:
        raise EntryRejected(f"seat {seat} reveals its entropy a second time")
    if table.free_seats:
        raise EntryRejected(f"seat {seat} reveals its entropy before every seat is taken (a "
                            "later seat could choose its own after it)")
    try:
        digest = hashlib.sha256(bytes.fromhex(entry.entropy)).hexdigest()
    except ValueError:
        raise EntryRejected(f"seat {seat}'s revealed entropy is not hex") from None
    if digest != held.entropy_commitment:
        raise EntryRejected(f"seat {seat}'s revealed entropy does not match its commitment: "
                            f"sha256 is {digest}, the seat committed to "
                            f"{held.entropy_commitment}")
    return table._replace(seats=_with(table.seats, seat, replace(held, entropy=entry.entropy)))


def _end(table: Table, entry: Ended) -> Table:
    """The table ends before any deal: exactly the seats that owed a reveal withheld it."""
    if table.started:
        raise EntryRejected("an 'ended' entry follows the start of the game")
    withheld = sorted(entry.withheld)
    if table.free_seats or not table.owing or withheld != list(table.owing):
        raise EntryRejected(f"the table ends with seats {withheld} named as withholding their "
                            f"entropy, but the seats that owed a reveal are {list(table.owing)}")
    return table._replace(ended=ended_outcome(len(table.seats), entry.withheld, entry.reason))


def _check_seat(table: Table, seat: int) -> int:
    if not 0 <= seat < len(table.seats):
        raise EntryRejected(f"seat {seat} is not a seat of this table "
                            f"(0..{len(table.seats) - 1})")
    return seat


def _with(seats: tuple[Seat, ...], index: int, seat: Seat) -> tuple[Seat, ...]:
    return (*seats[:index], seat, *seats[index + 1:])
