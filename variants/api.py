"""The plugin API: what a variant declares, and the records a game hands to the server.

A :class:`Variant` holds a game's *facts* (id, title, seats, options, shoe); a :class:`Game` is one
table's *state*. Every action is a frozen :class:`Move`; everything that happens is a frozen
:class:`Event` that says who may see it. The server offers ``game.legal_moves(seat)`` and accepts
exactly those (a move offered with an :class:`AmountRange` stands for every amount in it), so
the legal moves are the single source of truth. A game derived from :class:`BaseGame` writes
its state once, as a :class:`Census` of piles that say who may see them: the base refuses the
moves that are not legal and derives every :class:`View` from the census.

This module imports nothing from grpc, protobuf or storage: the rules core is pure.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from bezique.variants.cards import Shoe
from bezique.variants.chance import Chance

Detail = Mapping[str, Any]
"""Variant-specific, JSON-able details (str, int, bool, lists, nested mappings).

Details are always public to whoever sees the record that carries them: never put a hidden card
in a detail; hidden cards travel only in ``cards`` fields, which the server redacts."""

EMPTY: Detail = MappingProxyType({})


# --------------------------------------------------------------------------- errors


class VariantError(ValueError):
    """Base of every error a variant raises on bad input; the message quotes the input."""


QUOTE_LIMIT = 40
"""How much of a client's input an error message quotes (the rest is counted, not echoed)."""


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``value`` as an error message quotes input: its repr, cut to ``limit`` characters (a
    client's input can be megabytes long; the message must not be). A string is cut before it
    is quoted, so the quote stays a string's repr.

    The one quoter: the rules core quotes with it, and the service (``service/errors.py``
    passes it on) too, since the rules core cannot import the service."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}... ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


class OptionError(VariantError):
    """An option is unknown, of the wrong type, or out of range."""

    def __init__(self, option: str, reason: str) -> None:
        super().__init__(f"option {quoted(option)}: {reason}")
        self.option = option
        self.reason = reason


class IllegalMoveError(VariantError):
    """A move that is not among the seat's legal moves now. Nothing was changed."""

    def __init__(self, seat: int, move: Move, reason: str, phase: str = "") -> None:
        where = f" in phase {phase!r}" if phase else ""
        super().__init__(f"seat {seat} cannot play {move}{where}: {reason}")
        self.seat = seat
        self.move = move
        self.reason = reason
        self.phase = phase


class NotYourTurnError(IllegalMoveError):
    """The seat is not one of the seats to move."""


class GameOverError(IllegalMoveError):
    """The game has ended; no move is legal."""


class LogVersionError(VariantError):
    """A stored log was written by a variant version this one cannot replay faithfully."""


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class AmountRange:
    """The amounts an offered move may carry: ``minimum`` to ``maximum`` in steps of ``step``
    counted from ``minimum``. A variant offers one move with a range (a raise "to any sum") where
    a list of every amount would be long; the server accepts any amount in it, and the variant's
    ``apply`` still has the last word.

    >>> raises = AmountRange(10, 990)
    >>> 37 in raises, 991 in raises, raises.nearest(2000), str(AmountRange(10, 100, step=5))
    (True, False, 990, '10..100 step 5')
    """

    minimum: int
    maximum: int
    step: int = 1

    def __post_init__(self) -> None:
        if self.step < 1 or self.maximum < self.minimum:
            raise ValueError(f"need minimum <= maximum and step >= 1, got {self.minimum}, "
                             f"{self.maximum}, {self.step}")

    def __contains__(self, amount: object) -> bool:
        return (isinstance(amount, int) and not isinstance(amount, bool)
                and self.minimum <= amount <= self.maximum
                and (amount - self.minimum) % self.step == 0)

    def nearest(self, amount: int) -> int:
        """The allowed amount closest to ``amount`` from below (the minimum if below it)."""
        if amount <= self.minimum:
            return self.minimum
        top = min(amount, self.maximum)
        return top - (top - self.minimum) % self.step

    def pick(self, rng: random.Random) -> int:
        """A uniformly random allowed amount."""
        return self.minimum + self.step * rng.randrange((self.maximum - self.minimum)
                                                        // self.step + 1)

    def __str__(self) -> str:
        text = f"{self.minimum}..{self.maximum}"
        return text if self.step == 1 else f"{text} step {self.step}"


@dataclass(frozen=True, slots=True)
class Move:
    """One action of a seat.

    ``kind`` names the action (``play``, ``declare``, ``pass``, ``raise``, ...); ``cards`` are
    card ids; ``amount`` is an integer quantity (chips); ``label`` names a choice such as a meld.

    ``amount_range`` is set only on a move a variant *offers* in ``legal_moves``: the seat may
    submit the same move with any amount in the range (``amount`` is then the suggested one,
    usually the minimum). It is an annotation of the offer, not part of the move's identity:
    it is left out of equality and hashing, so the offered move equals the concrete move at its
    suggested amount, and logs hold concrete moves only.

    >>> move = Move("play", (12,))
    >>> str(move), Move.from_dict(move.to_dict()) == move
    ('play cards=12', True)
    >>> offer = Move("raise", amount=20, amount_range=AmountRange(20, 90))
    >>> offer == Move("raise", amount=20), offer.accepts(Move("raise", amount=55)), str(offer)
    (True, True, 'raise amount=20..90')
    """

    kind: str
    cards: tuple[int, ...] = ()
    amount: int = 0
    label: str = ""
    amount_range: AmountRange | None = field(default=None, compare=False)

    def __str__(self) -> str:
        parts = [str(self.kind)]  # str(): an error message may quote a malformed move
        if self.label:
            parts.append(str(self.label))
        if self.cards:
            parts.append("cards=" + ",".join(map(str, self.cards)))
        if self.amount_range is not None:
            parts.append(f"amount={self.amount_range}")
        elif self.amount:
            parts.append(f"amount={self.amount}")
        return " ".join(parts)

    def with_amount(self, amount: int) -> Move:
        """This move made concrete with ``amount`` (no range: what is submitted and logged)."""
        return Move(self.kind, self.cards, amount, self.label)

    def accepts(self, move: Move) -> bool:
        """Whether the submitted ``move`` is this offered one: equal, or the same kind, cards
        and label with an amount in this move's range."""
        if move == self:
            return True
        return (self.amount_range is not None and move.amount in self.amount_range
                and move.kind == self.kind and move.cards == self.cards
                and move.label == self.label)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "cards": list(self.cards),
                                "amount": self.amount, "label": self.label}
        if self.amount_range is not None:
            span = self.amount_range
            data["amount_range"] = [span.minimum, span.maximum, span.step]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Move:
        span = data.get("amount_range")
        return cls(str(data["kind"]), tuple(int(c) for c in data.get("cards", ())),
                   int(data.get("amount", 0)), str(data.get("label", "")),
                   None if span is None else AmountRange(*(int(v) for v in span)))


def _matched_offer(move: Move, legal: Sequence[Move]) -> Move | None:
    """The offered move in ``legal`` that the submitted ``move`` is (:meth:`Move.accepts`),
    or None: what :meth:`BaseGame.apply` checks (the server's ``match_move``)."""
    if move in legal:
        return move
    for offered in legal:
        if offered.amount_range is not None and offered.accepts(move):
            return offered
    return None


def _missed_range(move: Move, legal: Sequence[Move]) -> AmountRange | None:
    """The range of an offered move that ``move`` matches but for its amount, or None (the
    server's ``range_missed``)."""
    for offered in legal:
        span = offered.amount_range
        if (span is not None and move.kind == offered.kind and move.cards == offered.cards
                and move.label == offered.label and move.amount not in span):
            return span
    return None


EVERYONE: frozenset[int] | None = None
"""``visible_to`` of a public record."""


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened. ``visible_to`` is ``None`` (everyone) or the seats that may see
    its ``cards``; any other viewer gets the event with its cards removed (``hidden`` counts them).
    ``detail`` is public to whoever sees the event: never put a hidden card there.

    >>> deal = Event("deal", 0, (3, 17), visible_to=frozenset({0}))
    >>> deal.visible_for(0), deal.visible_for(1), deal.visible_for(None)
    (True, False, False)
    >>> deal.redacted_for(1)
    Event(kind='deal', seat=0, cards=(), amount=0, label='', detail=mappingproxy({}), \
visible_to=frozenset({0}), hidden=2)
    """

    kind: str
    seat: int | None = None
    cards: tuple[int, ...] = ()
    amount: int = 0
    label: str = ""
    detail: Detail = field(default_factory=lambda: EMPTY)
    visible_to: frozenset[int] | None = None
    hidden: int = 0

    def visible_for(self, viewer: int | None) -> bool:
        """Whether ``viewer`` (a seat, or ``None`` for a spectator) may see the cards."""
        return self.visible_to is None or (viewer is not None and viewer in self.visible_to)

    def redacted_for(self, viewer: int | None) -> Event:
        """The event as ``viewer`` may see it."""
        if self.visible_for(viewer) or not self.cards:
            return self
        return Event(self.kind, self.seat, (), self.amount, self.label, self.detail,
                     self.visible_to, len(self.cards))

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "seat": self.seat, "cards": list(self.cards),
            "amount": self.amount, "label": self.label, "detail": dict(self.detail),
            "visible_to": None if self.visible_to is None else sorted(self.visible_to),
            "hidden": self.hidden,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        visible = data.get("visible_to")
        return cls(
            str(data["kind"]), data.get("seat"), tuple(data.get("cards", ())),
            int(data.get("amount", 0)), str(data.get("label", "")),
            MappingProxyType(dict(data.get("detail") or {})),
            None if visible is None else frozenset(visible), int(data.get("hidden", 0)),
        )


@dataclass(frozen=True, slots=True)
class Zone:
    """A named place with cards a viewer can see (``cards``) or only count (``hidden``)."""

    name: str
    owner: int | None = None
    cards: tuple[int, ...] = ()
    hidden: int = 0


@dataclass(frozen=True, slots=True)
class View:
    """What one viewer (a seat, or ``None`` for a spectator) may see of a game now: its own
    ``hand``, and ``zones`` whose cards it may see or only count. A game derives it from its
    census (:class:`BaseGame`, :meth:`Census.view_for`) or builds it itself.

    >>> view = View(0, "play", (0,), hand=(3, 17), zones=(Zone("table", None, (5,)),
    ...                                                 Zone("hand", 1, (), hidden=2)))
    >>> view.zone("hand", 1), sorted(view.card_ids())
    (Zone(name='hand', owner=1, cards=(), hidden=2), [3, 5, 17])
    """

    viewer: int | None
    phase: str
    to_move: tuple[int, ...]
    hand: tuple[int, ...]
    zones: tuple[Zone, ...] = ()
    scores: tuple[int, ...] = ()
    stacks: tuple[int, ...] = ()
    pot: int = 0
    detail: Detail = field(default_factory=lambda: EMPTY)
    shoe: Shoe | None = field(default=None, compare=False, repr=False)

    def zone(self, name: str, owner: int | None = None) -> Zone | None:
        for zone in self.zones:
            if zone.name == name and zone.owner == owner:
                return zone
        return None

    def card_ids(self) -> set[int]:
        """Every card id this view shows (the leak checks read this)."""
        ids = set(self.hand)
        for zone in self.zones:
            ids.update(zone.cards)
        return ids


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``winners`` (several on a split), final ``scores`` or stacks, why."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str
    detail: Detail = field(default_factory=lambda: EMPTY)


HAND = "hand"
"""The name of a pile, and a zone, that is its owner's hand (:meth:`Census.view_for`)."""


@dataclass(frozen=True, slots=True)
class Pile:
    """A place in the full state: every card in it, who may see them, and whose place it is.

    ``visible_to`` is ``None`` (everyone) or the seats that may see the cards; any other
    viewer sees only how many there are. ``owner`` is the seat the place belongs to (its hand,
    the tricks it won), ``None`` for the table's. A pile named ``hand`` (:data:`HAND`) is its
    owner's hand: :meth:`hand` builds one, seen by its owner only.

    >>> Pile.hand(1, [9, 4])
    Pile(name='hand', cards=(9, 4), visible_to=frozenset({1}), owner=1)
    >>> Pile("stock", (2, 3), visible_to=frozenset()).visible_for(1)
    False
    """

    name: str
    cards: tuple[int, ...]
    visible_to: frozenset[int] | None = None
    owner: int | None = None

    @classmethod
    def hand(cls, seat: int, cards: Sequence[int]) -> Pile:
        """``seat``'s hand: its cards, seen by that seat only."""
        return cls(HAND, tuple(cards), frozenset((seat,)), seat)

    def visible_for(self, viewer: int | None) -> bool:
        """Whether ``viewer`` (a seat, or ``None`` for a spectator) may see the cards."""
        return self.visible_to is None or (viewer is not None and viewer in self.visible_to)


@dataclass(frozen=True, slots=True)
class Census:
    """The full, unredacted state of a game: where every card is and who may see it, the chips
    in play, and what every view shows besides cards (``scores``, ``stacks``, ``pot``,
    ``detail``, all public).

    The conformance kit checks cards and chips against it after every move. It is also the one
    description a view can be derived from (:meth:`view_for`, what :class:`BaseGame` does), so
    a game that writes its census writes no view and cannot show a card its census hides. A
    game with a view of its own may leave the public fields empty.

    >>> census = Census((Pile("table", (5,)), Pile.hand(0, (3, 17)), Pile.hand(1, (8, 9)),
    ...                  Pile("stock", (1, 2, 4), frozenset())), scores=(1, 0))
    >>> view = census.view_for(0, "play", (0,))
    >>> view.hand, view.scores
    ((3, 17), (1, 0))
    >>> view.zones  # the other hand and the stock as counts only
    (Zone(name='table', owner=None, cards=(5,), hidden=0), \
Zone(name='hand', owner=1, cards=(), hidden=2), Zone(name='stock', owner=None, cards=(), hidden=3))
    >>> census.view_for(None, "play", (0,)).card_ids()  # a spectator sees the table only
    {5}
    """

    piles: tuple[Pile, ...]
    chips: int | None = None
    scores: tuple[int, ...] = ()
    stacks: tuple[int, ...] = ()
    pot: int = 0
    detail: Detail = field(default_factory=lambda: EMPTY)

    def view_for(self, viewer: int | None, phase: str, to_move: tuple[int, ...],
                 shoe: Shoe | None = None) -> View:
        """What ``viewer`` may see: its own hand (the pile :data:`HAND` it owns, if it may see
        it), then every other pile in order as a zone, with its cards where the viewer may see
        them and else only their number; the public fields as they are.

        The view is a copy of the state now: a census given the game's own lists (an untyped
        plugin's ``Pile("table", self.table)``) would otherwise make a view that changes with
        the game, and the service renders a watcher's view later, perhaps while the next move
        is drafted and not yet committed."""
        return self.views(phase, to_move, shoe).view_for(viewer)

    def views(self, phase: str, to_move: tuple[int, ...], shoe: Shoe | None = None
              ) -> CensusViews:
        """The views of this census (:meth:`view_for`) for any number of viewers, sharing what
        they see alike."""
        return CensusViews(self, phase, to_move, shoe)


class CensusViews:
    """The views of one census (:meth:`Census.view_for`) for several viewers: a pile's zone,
    shown or counted, and the public fields are made once, when a view first needs them, and
    shared by every view (they are immutable). The piles' cards are taken now, like every
    view's, so a later viewer is shown the census as it was even if a plugin's pile holds
    the game's own list (the service keeps one per table version).

    >>> views = Census((Pile("table", (5,)), Pile.hand(0, (3,)), Pile.hand(1, (8,)))).views(
    ...     "play", (0,))
    >>> ann, bob = views.view_for(0), views.view_for(1)
    >>> ann.hand, bob.hand, ann.zones[0] is bob.zones[0]
    ((3,), (8,), True)
    """

    __slots__ = ("cards", "counted", "detail", "phase", "piles", "pot", "scores", "shoe",
                 "shown", "stacks", "to_move")

    def __init__(self, census: Census, phase: str, to_move: tuple[int, ...],
                 shoe: Shoe | None) -> None:
        self.phase = phase
        self.to_move = tuple(to_move)
        self.shoe = shoe
        self.scores, self.stacks, self.pot = tuple(census.scores), tuple(census.stacks), census.pot
        self.detail = MappingProxyType(_copied(census.detail)) if census.detail else EMPTY
        self.piles = tuple(census.piles)  # an untyped plugin's list or generator, taken once
        self.cards = [tuple(pile.cards) for pile in self.piles]
        """Each pile's cards, as they are now."""
        self.shown: list[Zone | None] = [None] * len(self.piles)
        """Each pile's zone as a viewer who may see its cards sees it, once made."""
        self.counted: list[Zone | None] = [None] * len(self.piles)
        """Each pile's zone as a viewer who may only count its cards sees it, once made."""

    def view_for(self, viewer: int | None) -> View:
        """``viewer``'s view (see :meth:`Census.view_for`)."""
        hand: tuple[int, ...] = ()
        zones: list[Zone] = []
        for index, pile in enumerate(self.piles):
            if not pile.visible_for(viewer):
                zone = self.counted[index]
                if zone is None:
                    zone = self.counted[index] = Zone(pile.name, pile.owner, (),
                                                      len(self.cards[index]))
            elif viewer is not None and pile.owner == viewer and pile.name == HAND:
                hand = self.cards[index]
                continue
            else:
                zone = self.shown[index]
                if zone is None:
                    zone = self.shown[index] = Zone(pile.name, pile.owner, self.cards[index])
            zones.append(zone)
        return View(viewer, self.phase, self.to_move, hand, tuple(zones), self.scores,
                    self.stacks, self.pot, self.detail, self.shoe)


@dataclass(frozen=True, slots=True)
class Public:
    """What every viewer of one position sees alike, for a game that writes its own view
    (:meth:`Game.view`; Bezique and Quart-Bezique do): every hand as a count, then the
    table's zones and the public numbers. A game builds it once per position;
    :meth:`view_for` adds the viewer's own hand.

    >>> public = Public(hands=(Zone(HAND, 0, (), 2), Zone(HAND, 1, (), 3)),
    ...                 zones=(Zone("table", None, (5,)),), scores=(4, 0))
    >>> view = public.view_for(1, "play", (0,), hand=(7, 8, 9))
    >>> view.hand, [(zone.name, zone.owner) for zone in view.zones], view.scores
    ((7, 8, 9), [('hand', 0), ('table', None)], (4, 0))
    """

    hands: tuple[Zone, ...]
    """A zone :data:`HAND` per seat shown, its cards only counted (its owner sees them)."""
    zones: tuple[Zone, ...]
    scores: tuple[int, ...] = ()
    stacks: tuple[int, ...] = ()
    pot: int = 0
    detail: Detail = field(default_factory=lambda: EMPTY)

    def view_for(self, viewer: int | None, phase: str, to_move: tuple[int, ...],
                 hand: tuple[int, ...] = (), shoe: Shoe | None = None) -> View:
        """``viewer``'s view: its own ``hand``, every other hand counted, then the zones."""
        hands = self.hands if viewer is None else tuple(
            [zone for zone in self.hands if zone.owner != viewer])
        return View(viewer, phase, to_move, hand, hands + self.zones, self.scores,
                    self.stacks, self.pot, self.detail, shoe)


def _copied(value: Any) -> Any:
    """``value`` with every dict, list and set in it copied (a view's detail, taken now)."""
    if isinstance(value, Mapping):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_copied(item) for item in value)
    if isinstance(value, set):
        return set(value)
    return value


# --------------------------------------------------------------------------- options


class OptionType(Enum):
    INT = "int"
    BOOL = "bool"
    CHOICE = "choice"


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One declared option: its type, default, allowed range or values, and what it means.

    ``nullable`` ints accept ``none`` (e.g. "no limit"); ``default`` may then be ``None``.
    """

    name: str
    type: OptionType
    default: int | bool | str | None
    description: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    nullable: bool = False

    def parse(self, value: object) -> int | bool | str | None:
        """Check one given value (native or its string form) and return it typed."""
        if self.type is OptionType.BOOL:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0"):
                return value.strip().lower() in ("true", "1")
            raise OptionError(self.name, f"expected true or false, got {quoted(value)}")
        if self.type is OptionType.CHOICE:
            if isinstance(value, str) and value in self.choices:
                return value
            allowed = ", ".join(self.choices)
            raise OptionError(self.name, f"expected one of {allowed}, got {quoted(value)}")
        if self.nullable and (value is None or (isinstance(value, str) and
                                                value.strip().lower() in ("none", ""))):
            return None
        if isinstance(value, bool):
            raise OptionError(self.name, f"expected an integer, got {quoted(value)}")
        try:
            number = int(value) if isinstance(value, int) else int(str(value).strip())
        except ValueError:
            raise OptionError(self.name, f"expected an integer, got {quoted(value)}") from None
        if self.minimum is not None and number < self.minimum:
            raise OptionError(self.name, f"{quoted(number)} is below the minimum {self.minimum}")
        if self.maximum is not None and number > self.maximum:
            raise OptionError(self.name, f"{quoted(number)} is above the maximum {self.maximum}")
        return number


Options = Mapping[str, Any]


# --------------------------------------------------------------------------- vocabulary


def _labels(labels: Mapping[str, str] | None) -> Mapping[str, str]:
    return MappingProxyType(dict(labels or {}))


@dataclass(frozen=True, slots=True, init=False)
class Vocabulary:
    """A variant's words for people in one language, so a generic client reads its game as
    well as a built-in one: ``phases`` (phase -> label, "betting"), ``events`` (event kind ->
    what the seat does, "wins from the pot"), ``zones`` (zone name -> title, "Current trick"),
    ``details`` (detail key -> label, "min bet"), ``moves`` (move kind -> a sentence that
    explains it, shown with the legal moves), ``outcomes`` (``Outcome.reason`` -> the result
    in words, "won on points"; a reason that varies has a key that names ``Outcome.detail``
    keys in braces, "{deals} deals played"), ``labels`` (a move's or event's label, a
    combination's name or class in a detail, an option's choice value -> words, "royal
    marriage"), ``options`` (option name -> what it changes), and the variant's ``title``
    and ``description`` in this ``language`` (a BCP 47 primary tag: "en", "ru"). A value may
    name detail keys in braces ("{amount}"). Any key left out is shown as it comes,
    underscores as spaces; a translation (:attr:`BaseVariant.translations`) falls back to the
    variant's own vocabulary."""

    phases: Mapping[str, str]
    events: Mapping[str, str]
    zones: Mapping[str, str]
    details: Mapping[str, str]
    moves: Mapping[str, str]
    outcomes: Mapping[str, str]
    labels: Mapping[str, str]
    options: Mapping[str, str]
    title: str
    description: str
    language: str

    def __init__(self, *, phases: Mapping[str, str] | None = None,
                 events: Mapping[str, str] | None = None,
                 zones: Mapping[str, str] | None = None,
                 details: Mapping[str, str] | None = None,
                 moves: Mapping[str, str] | None = None,
                 outcomes: Mapping[str, str] | None = None,
                 labels: Mapping[str, str] | None = None,
                 options: Mapping[str, str] | None = None,
                 title: str = "", description: str = "", language: str = "en") -> None:
        for name, labels_ in (("phases", phases), ("events", events), ("zones", zones),
                              ("details", details), ("moves", moves), ("outcomes", outcomes),
                              ("labels", labels), ("options", options)):
            object.__setattr__(self, name, _labels(labels_))
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "language", language)

    def maps(self) -> dict[str, Mapping[str, str]]:
        """Every map of words by its name (``phases`` ... ``options``): what a translation
        must match key for key."""
        return {name: getattr(self, name) for name in VOCABULARY_MAPS}

    def merged(self, base: Vocabulary) -> Vocabulary:
        """These words over ``base``: every key of either, this one's where both have it (the
        server adds its own outcome words to a variant's this way)."""
        maps = {name: {**base.maps()[name], **mine} for name, mine in self.maps().items()}
        return Vocabulary(**maps, title=self.title or base.title,
                          description=self.description or base.description,
                          language=self.language)


VOCABULARY_MAPS = ("phases", "events", "zones", "details", "moves", "outcomes", "labels",
                   "options")
"""The names of a :class:`Vocabulary`'s maps of words."""


NO_VOCABULARY = Vocabulary()


# --------------------------------------------------------------------------- protocols


@runtime_checkable
class Game(Protocol):
    """One table's game state. Mutable; changed only by :meth:`apply`.

    Chance steps use the :class:`~bezique.variants.chance.Chance` given at the start, with purposes
    ``lot/N`` (the N-th draw for the deal), ``deal/N`` (the shuffle of deal N) and ``cut/N``,
    so a game replays exactly from its seed and its moves.
    """

    @property
    def phase(self) -> str:
        """A short name of where the game is (``deal``, ``play``, ``betting``, ``over``, ...)."""
        ...

    @property
    def to_move(self) -> tuple[int, ...]:
        """The seats that must act now; empty when the game is over."""
        ...

    @property
    def shoe(self) -> Shoe: ...

    def legal_moves(self, seat: int) -> tuple[Move, ...]:
        """Every move ``seat`` may make now (empty if it is not to move)."""
        ...

    def apply(self, seat: int, move: Move) -> tuple[Event, ...]:
        """Make a legal move and return what happened; raise IllegalMoveError and change nothing
        for anything else."""
        ...

    def view(self, viewer: int | None) -> View:
        """What ``viewer`` may see now (``None``: a spectator, who sees what all players see)."""
        ...

    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""
        ...

    def default_move(self, seat: int) -> Move:
        """The move made for a seat whose turn clock ran out (one of its legal moves)."""
        ...

    def census(self) -> Census:
        """Every card's place and who may see it, and the chips in play (for audits/tests)."""
        ...


def _malformed(move: object) -> str | None:
    """Why ``move`` is no :class:`Move` of the declared field types (a caller of the plugin API
    without a type checker; the wire's moves are typed), or ``None``."""
    if type(move) is not Move:
        return f"a move must be a Move, not {type(move).__name__}"
    if type(move.kind) is not str or type(move.label) is not str:
        return "a move's kind and label must be strings"
    if type(move.amount) is not int:
        return f"the amount must be a whole number, not {quoted(move.amount)}"
    if type(move.cards) is not tuple or any(type(card) is not int for card in move.cards):
        return f"cards must be a tuple of card ids, not {quoted(move.cards)}"
    return None


def _whose_turn(to_move: tuple[int, ...]) -> str:
    if len(to_move) == 1:
        return f"it is seat {to_move[0]}'s turn"
    return f"it is the turn of seats {', '.join(map(str, to_move))}"


class BaseGame(ABC):
    """A base for a :class:`Game` that owns what every ``apply`` repeats and derives its views.

    A subclass writes ``phase``, ``to_move``, ``shoe``, ``legal_moves``, ``census``,
    ``outcome``, ``default_move`` and :meth:`apply_legal`, and gets

    * :meth:`apply`, which refuses a move that is not legal now, changing nothing: with
      :class:`GameOverError` once the game is over (reason :attr:`over_reason`),
      :class:`NotYourTurnError` for a seat not to move, else :class:`IllegalMoveError` with
      :meth:`why_illegal`'s reason; a legal move (or an amount in an offered range) goes to
      :meth:`apply_legal`;
    * :meth:`view`, its census as the viewer may see it (:meth:`Census.view_for`): the state
      is written once, with who may see each part, and no view can show more.

    It declares the optional :meth:`abort` (default: the game does not settle an abort).

    A game whose view is on a hot path may override :meth:`view` (Bezique and Quart-Bezique
    do); the conformance kit keeps checking it against the census.

    >>> from bezique.variants.cards import piquet_shoe
    >>> class Flip(BaseGame):
    ...     "Seats 0 and 1 each hold one card face down and turn it up in turn."
    ...     phase, shoe = "play", piquet_shoe(1)
    ...     def __init__(self) -> None:
    ...         self.hands: list[list[int]] = [[7], [12]]
    ...         self.shown: list[int] = []
    ...     @property
    ...     def to_move(self) -> tuple[int, ...]:
    ...         return (len(self.shown),) if len(self.shown) < 2 else ()
    ...     def legal_moves(self, seat: int) -> tuple[Move, ...]:
    ...         turn = seat in self.to_move
    ...         return tuple(Move("flip", (card,)) for card in self.hands[seat] if turn)
    ...     def apply_legal(self, seat: int, move: Move) -> tuple[Event, ...]:
    ...         self.shown += self.hands[seat]
    ...         self.hands[seat] = []
    ...         return (Event("flip", seat, move.cards),)
    ...     def census(self) -> Census:
    ...         hands = [Pile.hand(seat, hand) for seat, hand in enumerate(self.hands)]
    ...         return Census((*hands, Pile("shown", tuple(self.shown))))
    >>> game = Flip()
    >>> game.apply(1, Move("flip", (12,)))
    Traceback (most recent call last):
    bezique.variants.api.NotYourTurnError: seat 1 cannot play flip cards=12 in phase 'play': \
it is seat 0's turn
    >>> game.apply(0, Move("flip", (12,)))
    Traceback (most recent call last):
    bezique.variants.api.IllegalMoveError: seat 0 cannot play flip cards=12 in phase 'play': \
not among the legal moves (flip cards=7)
    >>> [event.kind for event in game.apply(0, Move("flip", (7,)))]
    ['flip']
    >>> game.view(1).hand, game.view(1).zones
    ((12,), (Zone(name='hand', owner=0, cards=(), hidden=0), \
Zone(name='shown', owner=None, cards=(7,), hidden=0)))
    >>> game.view(None).zones[1]  # a spectator counts the hand it may not see
    Zone(name='hand', owner=1, cards=(), hidden=1)
    """

    over_reason: ClassVar[str] = "the game is over"
    """The reason :class:`GameOverError` gives for any move once the game is over."""

    @property
    @abstractmethod
    def phase(self) -> str: ...

    @property
    @abstractmethod
    def to_move(self) -> tuple[int, ...]: ...

    @property
    @abstractmethod
    def shoe(self) -> Shoe: ...

    @abstractmethod
    def legal_moves(self, seat: int) -> tuple[Move, ...]: ...

    @abstractmethod
    def census(self) -> Census: ...

    @abstractmethod
    def apply_legal(self, seat: int, move: Move) -> tuple[Event, ...]:
        """Make ``move``, known to be legal for ``seat`` now, and return what happened."""

    def apply(self, seat: int, move: Move) -> tuple[Event, ...]:
        """Make a legal move (see the class); refuse anything else, changing nothing."""
        to_move = self.to_move
        if seat not in to_move:  # first, so legal_moves need not look at the seat to be safe
            if not to_move:
                raise GameOverError(seat, move, self.over_reason, self.phase)
            raise NotYourTurnError(seat, move, _whose_turn(to_move), self.phase)
        legal = self.legal_moves(seat)
        for offered in legal:
            if offered is move:  # the usual case, a move taken from legal_moves: no comparing
                break
        else:  # compares once (``in``), then the offered ranges
            malformed = _malformed(move)
            if malformed is not None:  # 10.0 == 10 and True == 1 would pass the comparison
                raise IllegalMoveError(seat, move, malformed, self.phase)
            if _matched_offer(move, legal) is None:
                why = self.why_illegal(seat, move)
                if why is not None:
                    raise IllegalMoveError(seat, move, why, self.phase)
        return self.apply_legal(seat, move)

    def why_illegal(self, seat: int, move: Move) -> str | None:
        """Why ``move`` by ``seat``, whose turn it is, is none of its legal moves: the reason
        :class:`IllegalMoveError` gives. Override it to say it narrowly ("8S breaks the duty
        to follow"). Returning ``None`` accepts the move after all, for a game that takes more
        than it offers (Quart-Bezique's version 1 tables accept every raise level in range,
        not only those of the ladder its bots choose from)."""
        legal = self.legal_moves(seat)
        span = _missed_range(move, legal)
        if span is not None:
            return f"the amount must be {span}"
        return f"not among the legal moves ({', '.join(map(str, legal))})"

    def view(self, viewer: int | None) -> View:
        """The census as ``viewer`` may see it (:meth:`Census.view_for`), taken now. Nothing
        is kept between views: the server keeps the views it publishes, per table version
        and viewer."""
        return self.census().view_for(viewer, self.phase, self.to_move, self.shoe)

    def abort(self) -> Sequence[Event] | None:
        """End the game now, at an operator's request (the service's ``AbortTable``), and
        return the events of the settlement; or ``None`` (the default): this game does not
        settle an abort, and the server ends it with its current scores (or stacks) and no
        winner.

        A game that settles (a betting game gives the current deal's stakes back to who
        staked them) is over from then on: no seat to move, no legal move, ``outcome()``
        with the reason :data:`ABORTED`. Like ``apply``, it must be deterministic
        (``verify`` replays it); the conformance kit aborts games at many points and checks
        that cards and chips are conserved."""
        return None


@runtime_checkable
class Variant(Protocol):
    """A game's facts and its start: what every variant must have. Registered through the
    ``bezique_variants`` hook.

    The optional abilities (whole-set option checks, buy-ins, playing as an older version,
    a vocabulary) are declared by :class:`BaseVariant` with their defaults: derive from it
    and override what your game has. A variant written before they were declared, with none
    or some of them as plain attributes, keeps working: the host completes it
    (``bezique.variants.host.declared``)."""

    id: str
    """Stable identifier used on the wire, e.g. ``bezique-2p``."""
    version: int
    """Bumped whenever the same log would replay differently; stored with every table."""
    title: str
    description: str
    min_seats: int
    max_seats: int
    options: tuple[OptionSpec, ...]

    def seat_count(self, options: Options) -> int:
        """How many seats a table with these (resolved) options has."""
        ...

    def shoe(self, options: Options) -> Shoe:
        """The cards of a table with these options (a stacked shoe must be exactly this)."""
        ...

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None
              ) -> tuple[Game, tuple[Event, ...]]:
        """A new game with resolved options; the events of its opening chance steps."""
        ...

    def accepts_log_version(self, version: int) -> bool:
        """Whether a log written by ``version`` of this variant replays faithfully here
        (:meth:`BaseVariant.accepts_log_version`)."""
        ...


class BaseVariant(Variant, ABC):
    """A base for a :class:`Variant` that declares every optional ability with its default,
    so the server calls each directly. A subclass sets the facts of :class:`Variant` (``id``,
    ``version``, ``title``, ``description``, ``min_seats``, ``max_seats``, ``options``), writes
    ``seat_count``, ``shoe`` and ``start``, and overrides only the abilities its game has:

    * :attr:`vocabulary`: its words for people (default: none, raw keys are shown), and
      :attr:`translations`: the same in other languages (default: none);
    * :meth:`accepts_log_version`: older versions whose logs replay here (default: its own);
    * :attr:`start_takes_log_version`: ``start`` takes the keyword ``log_version``, to play a
      table as the older version that wrote its log (default: no);
    * :meth:`check_options`: refuse option values that clash (default: every set in range);
    * :meth:`buy_in_range`: seats may buy in, and ``start`` takes the keyword ``buy_ins``
      (default: no buy-ins).

    The conformance kit checks each one a variant declares.

    >>> from bezique.variants.cards import piquet_shoe
    >>> class Solo(BaseVariant):
    ...     id, version, title, description = "solo", 1, "Solo", "One seat, no game."
    ...     min_seats = max_seats = 1
    ...     options = ()
    ...     def seat_count(self, options: Options) -> int: return 1
    ...     def shoe(self, options: Options) -> Shoe: return piquet_shoe(1)
    ...     def start(self, options: Options, chance: Chance, first_dealer: int | None = None
    ...               ) -> tuple[Game, tuple[Event, ...]]: raise NotImplementedError
    >>> solo = Solo()
    >>> solo.buy_in_range({}), solo.accepts_log_version(1), solo.accepts_log_version(0)
    (None, True, False)
    >>> solo.vocabulary is NO_VOCABULARY, solo.start_takes_log_version
    (True, False)
    """

    vocabulary: Vocabulary = NO_VOCABULARY
    """The variant's words for people (:class:`Vocabulary`): ``ListVariants`` sends them, so a
    generic client reads the game in words. Default: none (raw keys, underscores as spaces)."""

    translations: Mapping[str, Vocabulary] = MappingProxyType({})
    """The same words in other languages, by language tag ("ru" -> a :class:`Vocabulary` with
    ``language="ru"``): ``ListVariants`` sends them as ``VariantInfo.translations`` and a
    client picks the player's language. Each must have every key :attr:`vocabulary` has and
    a ``title`` (the conformance kit's ``check_vocabulary``). Default: none."""

    start_takes_log_version: bool = False
    """``True`` when ``start`` takes the keyword ``log_version``: for a table whose log an
    older version (one :meth:`accepts_log_version` takes) wrote, the server and ``verify``
    start the game with that version, and the game offers the moves that version offered, so
    its bots choose, and ``verify`` recomputes them, as they did (Quart-Bezique's version 1
    raise ladder). Leave it ``False`` when older logs replay alike anyway (Bezique's version
    1): ``start`` is then never given the keyword."""

    @abstractmethod
    def seat_count(self, options: Options) -> int: ...

    @abstractmethod
    def shoe(self, options: Options) -> Shoe: ...

    @abstractmethod
    def start(self, options: Options, chance: Chance, first_dealer: int | None = None
              ) -> tuple[Game, tuple[Event, ...]]:
        """A new game with resolved options; the events of its opening chance steps. With
        :attr:`start_takes_log_version` it also takes ``log_version: int | None = None``;
        with :meth:`buy_in_range` it also takes ``buy_ins: Mapping[int, int] | None = None``
        (seat -> starting stack; seats left out start with the table's default), both
        keyword-only. The server passes either only when it applies (an older log, a seat
        that bought in), so a table without them starts exactly as before."""

    def accepts_log_version(self, version: int) -> bool:
        """Whether a log written by ``version`` of this variant replays faithfully here.
        Default: its own version only. Override it to take older versions whose logs
        replay alike (or, with :attr:`start_takes_log_version`, play as they played); the
        conformance kit plays and replays a game as each older version it takes."""
        return version == self.version

    def check_options(self, options: Options) -> None:
        """Check resolved options as a whole (values that depend on each other: an ante above
        the starting stack) and raise :class:`OptionError` naming one of them. The server calls
        it when a table is created, so a table is refused then rather than when its last seat
        is taken: whatever this accepts, ``start`` must start (the conformance kit checks that
        promise). Default: every set of options in their declared ranges is fine."""
        return None

    def buy_in_range(self, options: Options) -> tuple[int, int] | None:
        """The smallest and largest starting stack, in chips, a seat may buy in with at a
        table with these options (a platform's buy-ins, ``JoinTableRequest.buy_in``), or
        ``None``: this variant takes no buy-ins (the default). A variant that returns a range
        takes the keyword ``buy_ins`` in ``start``; the conformance kit's ``check_buy_ins``
        checks that the chips in play are exactly the buy-ins, are conserved, and replay."""
        return None


@runtime_checkable
class BuyInVariant(Protocol):
    """A variant whose seats may start with stacks of their own (a platform's buy-ins), as
    plugins wrote it before :meth:`BaseVariant.buy_in_range` declared the ability: kept for
    the plugins that name it; a new variant overrides :meth:`BaseVariant.buy_in_range`."""

    id: str

    def buy_in_range(self, options: Options) -> tuple[int, int]:
        """The smallest and largest buy-in, in chips, at a table with these options."""
        ...

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None, *,
              buy_ins: Mapping[int, int] | None = None) -> tuple[Game, tuple[Event, ...]]:
        """As :meth:`Variant.start`, with per-seat starting stacks."""
        ...


@runtime_checkable
class BotPolicy(Protocol):
    """A way of choosing moves, given only what the seat may see."""

    name: str
    description: str

    def choose(self, view: View, legal: Sequence[Move], rng: random.Random) -> Move:
        """One of ``legal``. ``view`` is the seat's redacted view (``view.shoe`` decodes ids)."""
        ...


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """What one seat has seen of its game, as the host builds it from the committed log: the
    table's ``options`` and every event of the game so far (the opening included), each as
    this seat may see it (:meth:`Event.redacted_for`). A bot that reads it remembers what a
    player at the table would (cards played, melds shown, a failure to follow suit, hands shown
    at a showdown) and still sees nothing its seat may not: it never receives the game."""

    seat: int
    options: Mapping[str, Any]
    events: tuple[Event, ...]

    @classmethod
    def of(cls, seat: int, options: Mapping[str, Any], events: Sequence[Event]) -> SeatRecord:
        """The record of ``seat`` from the game's ``events`` as they were made (redacted
        here, so a host cannot hand a seat more than it saw)."""
        return cls(seat, MappingProxyType(dict(options)),
                   tuple([event.redacted_for(seat) for event in events]))


@runtime_checkable
class RecordPolicy(BotPolicy, Protocol):
    """A bot policy that also reads its seat's :class:`SeatRecord` (the search bots): hosts
    (the server, ``verify``, the conformance kit) call :meth:`choose_seen` with the record of
    the seat to move; :meth:`BotPolicy.choose` stays for callers without one."""

    def choose_seen(self, view: View, legal: Sequence[Move], rng: random.Random,
                    record: SeatRecord) -> Move:
        """One of ``legal``, from ``view`` and what the seat has seen (``record``)."""
        ...


class RandomPolicy:
    """Uniformly random legal play: the baseline every variant gets for free."""

    name = "random"
    description = "Chooses uniformly among the legal moves (and an amount in a move's range)."

    def choose(self, view: View, legal: Sequence[Move], rng: random.Random) -> Move:
        move = legal[rng.randrange(len(legal))]
        span = move.amount_range
        # an offer with a range: any amount in it (the rng is drawn only for such a move)
        return move if span is None else move.with_amount(span.pick(rng))


ABORTED = "aborted"
"""``Outcome.reason`` of a game an operator ended (the service's ``AbortTable``)."""




# --------------------------------------------------------------------------- moved names

_MOVED = ("resolve_options", "check_options", "buy_in_range", "start_game", "vocabulary_of",
          "match_move", "range_missed", "abort_game", "AbortedGame", "takes_log_version")
"""The host's helpers that lived here before :mod:`bezique.variants.host` took them: still
importable from this module (with a DeprecationWarning), so no plugin that used one breaks."""

if TYPE_CHECKING:
    from bezique.variants.host import AbortedGame as AbortedGame
    from bezique.variants.host import abort_game as abort_game
    from bezique.variants.host import buy_in_range as buy_in_range
    from bezique.variants.host import check_options as check_options
    from bezique.variants.host import match_move as match_move
    from bezique.variants.host import range_missed as range_missed
    from bezique.variants.host import resolve_options as resolve_options
    from bezique.variants.host import start_game as start_game
    from bezique.variants.host import takes_log_version as takes_log_version
    from bezique.variants.host import vocabulary_of as vocabulary_of


def __getattr__(name: str) -> object:
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import warnings

    from bezique.variants import host

    warnings.warn(f"bezique.variants.api.{name} moved to bezique.variants.host",
                  DeprecationWarning, stacklevel=2)
    return getattr(host, name)
