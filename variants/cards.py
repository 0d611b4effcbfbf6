"""Card primitives: ranks, suits, packs, multi-pack shoes and card identity.

A card's identity is a small integer, its index in the shoe's canonical (unshuffled) order. Two
physically distinct but identical cards (Q♠ of pack 0 and Q♠ of pack 1) have different ids, so
"of identical cards the one played first wins" and "every card is in exactly one place" can be
stated exactly. An id reveals the card and its pack, nothing else: the shuffle never touches ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from types import MappingProxyType


class Suit(IntEnum):
    """The four suits, in the order the rules use to break ties (♠ ♥ ♦ ♣)."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def letter(self) -> str:
        return "SHDC"[self]

    @property
    def symbol(self) -> str:
        return "♠♥♦♣"[self]

    @classmethod
    def from_letter(cls, letter: str) -> Suit:
        index = "SHDC".find(letter.upper())
        if index < 0 or len(letter) != 1:
            raise ValueError(f"unknown suit letter {letter!r} (expected one of S H D C)")
        return cls(index)


class Rank(IntEnum):
    """Ranks by face value. The order that decides tricks is each game's business, not this one."""

    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def letter(self) -> str:
        return "789TJQKA"[self - 7]

    @classmethod
    def from_letter(cls, letter: str) -> Rank:
        index = "789TJQKA".find(letter.upper())
        if index < 0 or len(letter) != 1:
            raise ValueError(f"unknown rank letter {letter!r} (expected one of 7 8 9 T J Q K A)")
        return cls(index + 7)


PIQUET_RANKS: tuple[Rank, ...] = tuple(Rank)  # 7 8 9 10 J Q K A: the 32-card pack
SHORT_RANKS: tuple[Rank, ...] = tuple(r for r in Rank if r >= Rank.NINE)  # 9..A: the 24-card pack


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card of a shoe."""

    id: int
    rank: Rank
    suit: Suit
    pack: int

    @property
    def code(self) -> str:
        """The wire code: rank letter then suit letter, e.g. ``TS``, ``QS``, ``JD``."""
        return self.rank.letter + self.suit.letter

    @property
    def face(self) -> tuple[Rank, Suit]:
        """Rank and suit: equal for identical cards of different packs."""
        return (self.rank, self.suit)

    def __str__(self) -> str:
        return self.code


def parse_code(code: str) -> tuple[Rank, Suit]:
    """Parse a wire code such as ``TS`` into rank and suit; ``10S`` is accepted for ``TS``.

    >>> parse_code("10s") == parse_code("TS") == (Rank.TEN, Suit.SPADES)
    True
    """
    text = code.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    if len(text) != 2:
        raise ValueError(f"card code {code!r} must be a rank letter and a suit letter, e.g. 'QS'")
    return Rank.from_letter(text[0]), Suit.from_letter(text[1])


class Shoe:
    """Every card of a game, in canonical order: pack by pack, suit by suit, rank by rank.

    Shoes are immutable and shared by every table of the same make-up. A card's id is its
    place in that order; identical cards of different packs share a code, never an id. A
    shoe is equal to, and hashes like, any shoe of the same ranks and packs; it pickles as its
    make-up and unpickles as the shared shoe (:data:`SHOES`):

    >>> shoe = piquet_shoe(2)
    >>> len(shoe), shoe.code(0), shoe.code(7)
    (64, '7S', 'AS')
    >>> shoe.ids_of(*parse_code("QS"))
    (5, 37)
    >>> shoe.codes(shoe.order_from_codes(["10s", "AS"] + ["7H"] * 62)[:2])
    Traceback (most recent call last):
    ...
    ValueError: card 4: '7H' appears more often than the shoe holds it (2 times)
    """

    __slots__ = ("_by_face", "cards", "packs", "ranks")

    def __init__(self, ranks: Sequence[Rank], packs: int) -> None:
        if packs < 1:
            raise ValueError("a shoe needs at least one pack")
        self.ranks: tuple[Rank, ...] = tuple(ranks)
        self.packs = packs
        cards: list[Card] = []
        for pack in range(packs):
            for suit in Suit:
                for rank in self.ranks:
                    cards.append(Card(len(cards), rank, suit, pack))
        self.cards: tuple[Card, ...] = tuple(cards)
        by_face: dict[tuple[Rank, Suit], list[int]] = {}
        for card in cards:
            by_face.setdefault(card.face, []).append(card.id)
        self._by_face = {face: tuple(ids) for face, ids in by_face.items()}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Shoe):
            return NotImplemented
        return self is other or (self.ranks, self.packs) == (other.ranks, other.packs)

    def __hash__(self) -> int:
        # from ints only (an IntEnum hashes by a Python call) and from no attribute a shoe
        # pickled before this method existed would lack; equal shoes have equal sizes
        return hash((len(self.cards), self.packs))

    def __reduce__(self) -> tuple[object, tuple[tuple[Rank, ...], int]]:
        return (shoe_of, (self.ranks, self.packs))

    def __len__(self) -> int:
        return len(self.cards)

    def __getitem__(self, card_id: int) -> Card:
        return self.cards[card_id]

    @property
    def ids(self) -> range:
        return range(len(self.cards))

    def code(self, card_id: int) -> str:
        return self.cards[card_id].code

    def codes(self, card_ids: Iterable[int]) -> list[str]:
        return [self.cards[i].code for i in card_ids]

    def ids_of(self, rank: Rank, suit: Suit) -> tuple[int, ...]:
        """The ids of every copy of one face, lowest pack first."""
        return self._by_face.get((rank, suit), ())

    def order_from_codes(self, codes: Sequence[str]) -> list[int]:
        """Turn a stacked order of codes (top card first) into card ids.

        The codes must be exactly this shoe (each face as many times as there are packs);
        identical codes take the copies in pack order. Raises ValueError naming what is wrong.
        """
        if len(codes) != len(self.cards):
            raise ValueError(f"a stacked shoe must hold {len(self.cards)} cards, got {len(codes)}")
        taken: dict[tuple[Rank, Suit], int] = {}
        order: list[int] = []
        for position, code in enumerate(codes):
            try:
                face = parse_code(code)
            except ValueError as exc:
                raise ValueError(f"card {position}: {exc}") from None
            copies = self._by_face.get(face, ())
            used = taken.get(face, 0)
            if used >= len(copies):
                raise ValueError(
                    f"card {position}: {code!r} appears more often than the shoe holds it "
                    f"({len(copies)} times)"
                )
            taken[face] = used + 1
            order.append(copies[used])
        return order


SHOES: Mapping[tuple[tuple[Rank, ...], int], Shoe] = MappingProxyType(
    {(ranks, packs): Shoe(ranks, packs)
     for ranks, counts in ((PIQUET_RANKS, range(1, 5)), (SHORT_RANKS, range(1, 7)))
     for packs in counts})
"""The shoes the built-in games and the example plugin play (1 to 4 piquet packs, 1 to 6
short ones), by ranks and packs: built once, shared by every table (a snapshot's shoe
unpickles as the shared one)."""


def shoe_of(ranks: Sequence[Rank], packs: int) -> Shoe:
    """The shared shoe of ``packs`` packs of the given ranks (:data:`SHOES`), or a new one of
    any other make-up."""
    key = (tuple(ranks), packs)
    found = SHOES.get(key)
    return found if found is not None else Shoe(*key)


def piquet_shoe(packs: int) -> Shoe:
    """``packs`` 32-card packs (7 to A) shuffled together, as Bezique uses."""
    return shoe_of(PIQUET_RANKS, packs)


def short_shoe(packs: int) -> Shoe:
    """``packs`` 24-card packs (9 to A) shuffled together, as Quart-Bezique uses."""
    return shoe_of(SHORT_RANKS, packs)
