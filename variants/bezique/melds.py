"""Declarations (melds), their values, and the class rule that decides which may be declared.

The three classes are marriages/sequence, beziques and fours. The spec's five points of the class
rule reduce to one test per card already on the table: if the card was used before in the *same*
class, the new declaration must be an upgrade of that earlier declaration (royal marriage ->
sequence, bezique -> double -> triple) and contain all of its cards; a card used only in other
classes is free (point 1). Building down, re-forming a broken declaration with a like card, and
re-declaring the same cards all fail that test (points 2 and 3). Every declaration must take at
least one card from the hand (point 4), and every card of it must be held at once, unplayed (5).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, product
from types import MappingProxyType

from bezique.variants.bezique.lookup import (
    ACE,
    CLUBS,
    DIAMONDS,
    HEARTS,
    JACK,
    KING,
    QUEEN,
    SPADES,
    TEN,
    CardLookup,
)

MARRIAGES, BEZIQUES, FOURS = 0, 1, 2
CLASS_NAMES = ("marriages", "beziques", "fours")

COMMON_MARRIAGE = "common_marriage"
ROYAL_MARRIAGE = "royal_marriage"
SEQUENCE = "sequence"
BEZIQUE = "bezique"
DOUBLE_BEZIQUE = "double_bezique"
TRIPLE_BEZIQUE = "triple_bezique"
FOUR_ACES = "four_aces"
FOUR_KINGS = "four_kings"
FOUR_QUEENS = "four_queens"
FOUR_JACKS = "four_jacks"


@dataclass(frozen=True, slots=True)
class MeldKind:
    """One kind of declaration: its class, its points, and what it may be built up from."""

    name: str
    cls: int
    points: int
    builds_on: frozenset[str] = frozenset()


KINDS: Mapping[str, MeldKind] = MappingProxyType({kind.name: kind for kind in (
    MeldKind(COMMON_MARRIAGE, MARRIAGES, 20),
    MeldKind(ROYAL_MARRIAGE, MARRIAGES, 40),
    MeldKind(SEQUENCE, MARRIAGES, 250, frozenset({ROYAL_MARRIAGE})),
    MeldKind(BEZIQUE, BEZIQUES, 40),
    MeldKind(DOUBLE_BEZIQUE, BEZIQUES, 500, frozenset({BEZIQUE})),
    MeldKind(TRIPLE_BEZIQUE, BEZIQUES, 1500, frozenset({BEZIQUE, DOUBLE_BEZIQUE})),
    MeldKind(FOUR_ACES, FOURS, 100),
    MeldKind(FOUR_KINGS, FOURS, 80),
    MeldKind(FOUR_QUEENS, FOURS, 60),
    MeldKind(FOUR_JACKS, FOURS, 40),
)})

FOUR_OF: tuple[tuple[int, str], ...] = (
    (ACE, FOUR_ACES), (KING, FOUR_KINGS), (QUEEN, FOUR_QUEENS), (JACK, FOUR_JACKS))


def bezique_faces(trump: int, trump_dependent: bool) -> tuple[tuple[int, int], tuple[int, int]]:
    """(queen face, jack face) of the bezique: Q♠ J♦, or Q♣ J♥ with spades/diamonds trumps."""
    if trump_dependent and trump in (SPADES, DIAMONDS):
        return (QUEEN, CLUBS), (JACK, HEARTS)
    return (QUEEN, SPADES), (JACK, DIAMONDS)


def candidates(cards: Sequence[int], trump: int, t: CardLookup,
               bezique: tuple[tuple[int, int], tuple[int, int]]
               ) -> Iterator[tuple[str, tuple[int, ...]]]:
    """Every (kind, card ids) a holding of ``cards`` forms, ignoring the class rule."""
    rank, suit = t.rank, t.suit
    faces: dict[tuple[int, int], list[int]] = {}
    for card in cards:
        faces.setdefault((rank[card], suit[card]), []).append(card)
    empty: list[int] = []
    for s in range(4):
        kings = faces.get((KING, s), empty)
        queens = faces.get((QUEEN, s), empty)
        kind = ROYAL_MARRIAGE if s == trump else COMMON_MARRIAGE
        for k in kings:
            for q in queens:
                yield kind, (k, q)
    run = [faces.get((r, trump), empty) for r in (ACE, TEN, KING, QUEEN, JACK)]
    if all(run):
        for combo in product(*run):
            yield SEQUENCE, combo
    queens = faces.get(bezique[0], empty)
    jacks = faces.get(bezique[1], empty)
    for q in queens:
        for j in jacks:
            yield BEZIQUE, (q, j)
    for size, kind in ((2, DOUBLE_BEZIQUE), (3, TRIPLE_BEZIQUE)):
        if len(queens) >= size and len(jacks) >= size:
            for qs in combinations(queens, size):
                for js in combinations(jacks, size):
                    yield kind, qs + js
    for four_rank, kind in FOUR_OF:
        of_rank = [c for c in cards if rank[c] == four_rank]
        if len(of_rank) >= 4:
            for combo in combinations(of_rank, 4):
                yield kind, combo


class MeldBook:
    """The declarations made in one deal, and which class each table card was used in.

    ``used[cls][card]`` is the index of the latest declaration of class ``cls`` that used
    ``card``, or -1. Plain lists only, so a game pickles cheaply.
    """

    __slots__ = ("cards", "kinds", "owners", "superseded", "used")

    def __init__(self, shoe_size: int) -> None:
        self.kinds: list[str] = []
        self.cards: list[tuple[int, ...]] = []
        self.owners: list[int] = []
        self.superseded: list[bool] = []
        self.used: list[list[int]] = [[-1] * shoe_size for _ in range(3)]

    def allowed(self, kind: str, cards: Sequence[int], hand: Sequence[int] | set[int]) -> bool:
        """Whether the class rule lets this holding be declared now as ``kind``."""
        if not any(card in hand for card in cards):
            return False  # point 4: at least one card from the hand
        meld_kind = KINDS[kind]
        used = self.used[meld_kind.cls]
        for card in cards:
            index = used[card]
            if index < 0:
                continue
            if self.kinds[index] not in meld_kind.builds_on:
                return False  # same class, not a build-up (points 2 and 3)
            if not all(c in cards for c in self.cards[index]):
                return False  # a build-up must keep the whole earlier declaration
        return True

    def options(self, hand: Sequence[int], table: Sequence[int], trump: int, t: CardLookup,
                bezique: tuple[tuple[int, int], tuple[int, int]]
                ) -> list[tuple[str, tuple[int, ...]]]:
        """Every declaration the holder of ``hand`` + ``table`` may make now, cards sorted."""
        in_hand = set(hand)
        found: list[tuple[str, tuple[int, ...]]] = []
        for kind, cards in candidates([*hand, *table], trump, t, bezique):
            if self.allowed(kind, cards, in_hand):
                found.append((kind, tuple(sorted(cards))))
        return found

    def record(self, owner: int, kind: str, cards: Sequence[int]) -> bool:
        """Enter a declaration; returns whether it built up an earlier one."""
        meld_kind = KINDS[kind]
        used = self.used[meld_kind.cls]
        index = len(self.kinds)
        upgrade = False
        for card in cards:
            earlier = used[card]
            if earlier >= 0 and not self.superseded[earlier]:
                self.superseded[earlier] = True
                upgrade = True
            used[card] = index
        self.kinds.append(kind)
        self.cards.append(tuple(cards))
        self.owners.append(owner)
        self.superseded.append(False)
        return upgrade

    def on_table(self, owner: int, table: Sequence[int] | set[int]) -> list[str]:
        """Names of ``owner``'s declarations still whole on the table (not built up further)."""
        return [kind for kind, cards, who, gone in zip(self.kinds, self.cards, self.owners,
                                                      self.superseded, strict=True)
                if who == owner and not gone and all(c in table for c in cards)]
