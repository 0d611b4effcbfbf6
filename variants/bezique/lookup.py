"""Per-shoe card lookup: rank, suit, trick strength and points of every card id.

The hot paths (trick winners, legal moves, meld search) read plain tuples indexed by card id
instead of touching :class:`~bezique.variants.cards.Card` objects. The lookups of the shoes
Bezique plays (:data:`PACKS`) are built when this module is imported, once, and shared;
pickling a game stores only the pack count.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from bezique.variants.api import Move
from bezique.variants.cards import Rank, Shoe, Suit, piquet_shoe

SPADES, HEARTS, DIAMONDS, CLUBS = int(Suit.SPADES), int(Suit.HEARTS), int(Suit.DIAMONDS), \
    int(Suit.CLUBS)
SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = (int(r) for r in Rank)

TRICK_ORDER: tuple[int, ...] = (SEVEN, EIGHT, NINE, JACK, QUEEN, KING, TEN, ACE)
"""Ranks from lowest to highest in a trick: 7 8 9 J Q K 10 A."""

STRENGTH: Mapping[int, int] = MappingProxyType(
    {rank: index for index, rank in enumerate(TRICK_ORDER)})
"""Rank -> trick strength, 0 (the seven) to 7 (the ace)."""

SUIT_LETTERS = "SHDC"


@dataclass(frozen=True, slots=True, eq=False)
class CardLookup:
    """Everything the rules need to know about each card id of a ``packs``-pack piquet shoe."""

    packs: int
    shoe: Shoe
    suit: tuple[int, ...]
    rank: tuple[int, ...]
    strength: tuple[int, ...]
    points: tuple[int, ...]
    low_key: tuple[int, ...]
    """Sort key of the default move: trick strength, then suit order S H D C, then id."""
    codes: tuple[str, ...]
    play: tuple[Move, ...]
    """The ``play`` move of each card id, built once (legal moves are rebuilt every turn)."""

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (lookup_for, (self.packs,))

    def ids_of(self, rank: int, suit: int) -> tuple[int, ...]:
        """Every copy of one face, lowest pack first."""
        return self.shoe.ids_of(Rank(rank), Suit(suit))

    def code(self, card: int) -> str:
        return self.codes[card]


def lookup_for(packs: int) -> CardLookup:
    """The shared lookup of a ``packs``-pack shoe (:data:`LOOKUPS`; another pack count gets
    one of its own)."""
    found = LOOKUPS.get(packs)
    return found if found is not None else _built(packs)


def _built(packs: int) -> CardLookup:
    shoe = piquet_shoe(packs)
    size = len(shoe)
    suit = tuple(int(card.suit) for card in shoe.cards)
    rank = tuple(int(card.rank) for card in shoe.cards)
    strength = tuple(STRENGTH[r] for r in rank)
    points = tuple(10 if r in (ACE, TEN) else 0 for r in rank)
    low_key = tuple((strength[i] * 4 + suit[i]) * size + i for i in range(size))
    codes = tuple(card.code for card in shoe.cards)
    play = tuple(Move("play", (i,)) for i in range(size))
    return CardLookup(packs, shoe, suit, rank, strength, points, low_key, codes, play)


PACKS = (2, 3)
"""The pack counts Bezique plays with (one per player: 2 and 3 players)."""

LOOKUPS: Mapping[int, CardLookup] = MappingProxyType({packs: _built(packs) for packs in PACKS})
"""The lookup of each shoe Bezique plays, built once."""
