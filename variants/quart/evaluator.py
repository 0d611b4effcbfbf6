"""The Quart-Bezique hand evaluator: card points plus combination points of four cards.

Rules (docs/rules/quart-bezique.md §4): K Q J 10 score 1 card point each, A and 9 nothing.
Combinations come in three classes (same suit, same rank, bezique). Within a class a card counts
at most once and the best-scoring set of disjoint combinations is taken, so a koronka absorbs the
marriage made of its cards; the classes are summed, so one card may count in several classes.

Four-card hands (every Quart hand) are scored straight from their ranks and suits; the generic
search over every combination (:func:`reference_evaluate_faces`) serves other sizes and is the
reference the tests hold the fast path to, hand by hand. The result is a frozen
:class:`HandReport` that says which combinations made the score and with which card ids (the ids
stay in the report; the game puts only names and points into public event details).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from types import MappingProxyType

from bezique.variants.cards import Rank, Shoe, Suit, short_shoe

SAME_SUIT = "same-suit"
SAME_RANK = "same-rank"
BEZIQUE = "bezique"
CLASSES = (SAME_SUIT, SAME_RANK, BEZIQUE)

BEZIQUE_QS_JD = "QS+JD"
BEZIQUE_ANY_QJ = "any_QJ"
BEZIQUE_CHOICES = (BEZIQUE_QS_JD, BEZIQUE_ANY_QJ)

_CARD_POINTS: Mapping[Rank, int] = MappingProxyType(
    {Rank.TEN: 1, Rank.JACK: 1, Rank.QUEEN: 1, Rank.KING: 1})
_KING, _QUEEN, _JACK = int(Rank.KING), int(Rank.QUEEN), int(Rank.JACK)
_SPADES, _DIAMONDS = int(Suit.SPADES), int(Suit.DIAMONDS)


@dataclass(frozen=True, slots=True)
class Combination:
    """One scored combination: its name, class, points (after any trump doubling) and cards."""

    name: str
    cls: str
    points: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandReport:
    """What a hand scores and why."""

    cards: tuple[int, ...]
    card_points: int
    combination_points: int
    combinations: tuple[Combination, ...]

    @property
    def points(self) -> int:
        return self.card_points + self.combination_points

    @property
    def has_combination(self) -> bool:
        return bool(self.combinations)

    def summary(self) -> dict[str, object]:
        """A public summary: names and points only, no card ids."""
        return {
            "points": self.points,
            "card_points": self.card_points,
            "combination_points": self.combination_points,
            "has_combination": self.has_combination,
            "combinations": [{"name": c.name, "class": c.cls, "points": c.points}
                             for c in self.combinations],
        }


@dataclass(frozen=True, slots=True)
class HandRules:
    """The evaluator's options: which cards make a bezique, the trump suit (or none), and
    whether an all-trump combination scores double."""

    bezique_cards: str = BEZIQUE_QS_JD
    trump: int | None = None
    trump_doubles_combinations: bool = False

    def __post_init__(self) -> None:
        if self.bezique_cards not in BEZIQUE_CHOICES:
            raise ValueError(f"bezique_cards must be one of {BEZIQUE_CHOICES}, "
                             f"got {self.bezique_cards!r}")


# A face is rank * 4 + suit: an int that sorts by rank and is cheap to hash.
Face = int
_Found = tuple[str, str, int, tuple[int, ...]]  # name, class, points, positions in sorted faces


def _rank(face: Face) -> int:
    return face >> 2


def _suit(face: Face) -> int:
    return face & 3


def _candidates(faces: tuple[Face, ...], any_qj: bool) -> dict[str, list[_Found]]:
    """Every combination the faces hold, by class, as positions into ``faces``."""
    found: dict[str, list[_Found]] = {cls: [] for cls in CLASSES}
    positions = range(len(faces))
    for suit in range(4):
        same = [i for i in positions if _suit(faces[i]) == suit]
        if len(same) >= 4:
            for four in combinations(same, 4):
                found[SAME_SUIT].append(("koronka-4", SAME_SUIT, 9, four))
        if len(same) >= 3:
            for three in combinations(same, 3):
                found[SAME_SUIT].append(("koronka-3", SAME_SUIT, 6, three))
        kings = [i for i in same if _rank(faces[i]) == _KING]
        queens = [i for i in same if _rank(faces[i]) == _QUEEN]
        found[SAME_SUIT] += [("marriage", SAME_SUIT, 4, (k, q)) for k in kings for q in queens]
    for rank in sorted({_rank(f) for f in faces}):
        same = [i for i in positions if _rank(faces[i]) == rank]
        if len(same) >= 4:
            name, points = ("four-kings", 8) if rank == _KING else ("four-of-a-kind", 9)
            for four in combinations(same, 4):
                found[SAME_RANK].append((name, SAME_RANK, points, four))
        if len(same) >= 3:
            for three in combinations(same, 3):
                found[SAME_RANK].append(("three-of-a-kind", SAME_RANK, 6, three))
    if any_qj:
        queens = [i for i in positions if _rank(faces[i]) == _QUEEN]
        jacks = [i for i in positions if _rank(faces[i]) == _JACK]
    else:
        queens = [i for i in positions if faces[i] == _QUEEN * 4 + _SPADES]
        jacks = [i for i in positions if faces[i] == _JACK * 4 + _DIAMONDS]
    singles = [(q, j) for q in queens for j in jacks]
    found[BEZIQUE] += [("bezique", BEZIQUE, 4, pair) for pair in singles]
    for (q1, j1), (q2, j2) in combinations(singles, 2):
        if q1 != q2 and j1 != j2:
            found[BEZIQUE].append(("two-beziques", BEZIQUE, 9, tuple(sorted((q1, j1, q2, j2)))))
    return found


def _best_disjoint(items: list[_Found]) -> tuple[int, tuple[_Found, ...]]:
    """The highest-scoring set of combinations no two of which share a card (first found wins
    a tie, and candidates are listed higher combinations first)."""
    best: tuple[int, tuple[_Found, ...]] = (0, ())

    def extend(start: int, used: frozenset[int], total: int, chosen: tuple[_Found, ...]) -> None:
        nonlocal best
        if total > best[0]:
            best = (total, chosen)
        for index in range(start, len(items)):
            item = items[index]
            if used.isdisjoint(item[3]):
                extend(index + 1, used | frozenset(item[3]), total + item[2], (*chosen, item))

    extend(0, frozenset(), 0, ())
    return best


def _generic_chosen(faces: tuple[Face, ...], any_qj: bool) -> tuple[_Found, ...]:
    """The best disjoint combinations of every class, before any trump doubling."""
    chosen: list[_Found] = []
    found = _candidates(faces, any_qj)
    for cls in CLASSES:
        items = sorted(found[cls], key=lambda item: -item[2])
        chosen += _best_disjoint(items)[1]
    return tuple(chosen)


def reference_evaluate_faces(faces: tuple[Face, ...], rules: HandRules
                             ) -> tuple[int, tuple[_Found, ...]]:
    """The generic evaluation of sorted faces of any number of cards: card points and the
    chosen combinations (positions into ``faces``). It enumerates every combination and
    searches the best disjoint set of each class; the four-card fast path of
    :meth:`Evaluator.evaluate` must agree with it on every hand (the tests check all of them)."""
    card_points = 0
    for face in faces:
        value = _CARD_POINTS.get(Rank(_rank(face)), 0)
        if rules.trump is not None and _suit(face) == rules.trump:
            value *= 2
        card_points += value
    chosen = list(_generic_chosen(faces, rules.bezique_cards == BEZIQUE_ANY_QJ))
    if rules.trump is not None and rules.trump_doubles_combinations:
        chosen = [(name, cls, points * 2, where) if all(_suit(faces[i]) == rules.trump
                                                         for i in where)
                  else (name, cls, points, where) for name, cls, points, where in chosen]
    return card_points, tuple(chosen)


# Per-face tables of the four-card fast path (a face is rank * 4 + suit, below 64).
_FACE_POINTS = tuple(1 if Rank.TEN <= face >> 2 <= Rank.KING else 0 for face in range(64))
# card points by face under each trump suit (index 4: no trump): a trump card counts double
_POINTS_BY_TRUMP = tuple(tuple(points * 2 if face & 3 == trump else points
                               for face, points in enumerate(_FACE_POINTS))
                         for trump in range(5))
_QS_FACE, _JD_FACE = _QUEEN * 4 + _SPADES, _JACK * 4 + _DIAMONDS
_ALL, _LOW3, _HIGH3 = (0, 1, 2, 3), (0, 1, 2), (1, 2, 3)


def _four(fs: tuple[Face, ...], rules: HandRules) -> tuple[int, tuple[_Found, ...]]:
    """Score four sorted faces straight from their ranks and suits: the card points and the
    combinations (positions into ``fs``, points after any doubling) that
    :func:`reference_evaluate_faces` finds, in the same order, with the same ties."""
    trump = rules.trump
    points_of = _POINTS_BY_TRUMP[4 if trump is None else trump]
    f0, f1, f2, f3 = fs
    card_points = points_of[f0] + points_of[f1] + points_of[f2] + points_of[f3]
    found = _four_combinations(fs, rules.bezique_cards)
    if trump is not None and rules.trump_doubles_combinations:
        found = tuple([(name, cls, points * 2, where) if all(fs[i] & 3 == trump for i in where)
                       else (name, cls, points, where) for name, cls, points, where in found])
    return card_points, found


def _four_combinations(fs: tuple[Face, ...], bezique_cards: str) -> tuple[_Found, ...]:
    """The combinations of four sorted faces before any trump doubling, as positions into
    ``fs`` (under a microsecond: a showdown scores a few hands, so nothing is kept).

    Four cards hold at most one same-rank combination (four of a rank, else three), either one
    suit of three or four (a koronka absorbs its marriage) or up to two marriages (by suit), and
    one bezique or two beziques (the first queen with the first jack)."""
    f0, f1, f2, f3 = fs
    found: list[_Found] = []  # with positions into ``fs``
    suits = (f0 & 3, f1 & 3, f2 & 3, f3 & 3)
    for suit in range(4):
        count = suits.count(suit)
        if count == 4:
            found.append(("koronka-4", SAME_SUIT, 9, _ALL))
        elif count == 3:
            found.append(("koronka-3", SAME_SUIT, 6, tuple([i for i in _ALL
                                                            if suits[i] == suit])))
        elif count == 2:
            low = suits.index(suit)
            high = suits.index(suit, low + 1)  # ordered by rank: a queen comes before its king
            if fs[low] >> 2 == _QUEEN and fs[high] >> 2 == _KING:
                found.append(("marriage", SAME_SUIT, 4, (high, low)))
    ranks = (f0 >> 2, f1 >> 2, f2 >> 2, f3 >> 2)
    if ranks[0] == ranks[3]:
        found.append(("four-kings", SAME_RANK, 8, _ALL) if ranks[0] == _KING
                     else ("four-of-a-kind", SAME_RANK, 9, _ALL))
    elif ranks[0] == ranks[2]:
        found.append(("three-of-a-kind", SAME_RANK, 6, _LOW3))
    elif ranks[1] == ranks[3]:
        found.append(("three-of-a-kind", SAME_RANK, 6, _HIGH3))
    among: tuple[int, ...]
    if bezique_cards == BEZIQUE_ANY_QJ:
        among, queen, jack = ranks, _QUEEN, _JACK
    else:
        among, queen, jack = fs, _QS_FACE, _JD_FACE
    queens, jacks = among.count(queen), among.count(jack)
    if queens >= 2 and jacks >= 2:
        found.append(("two-beziques", BEZIQUE, 9, _ALL))
    elif queens and jacks:  # the first queen with the first jack
        found.append(("bezique", BEZIQUE, 4, (among.index(queen), among.index(jack))))
    return tuple(found)


class Evaluator:
    """Scores hands of one shoe: the faces of its cards are computed once per shoe, with
    what a table shows of them (each card's code; a turned-up card's code, suit and suit
    letter)."""

    __slots__ = ("_faces", "_keys", "codes", "turn_ups")

    def __init__(self, shoe: Shoe) -> None:
        self._faces: tuple[Face, ...] = tuple(int(c.rank) * 4 + int(c.suit) for c in shoe.cards)
        size = len(self._faces)
        # one int per card that sorts like (face, id)
        self._keys: tuple[int, ...] = tuple(face * size + c for c, face in enumerate(self._faces))
        self.codes: tuple[str, ...] = tuple(card.code for card in shoe.cards)
        """Each card's code, by id."""
        self.turn_ups: tuple[tuple[str, int, str], ...] = tuple(
            (card.code, int(card.suit), card.suit.letter) for card in shoe.cards)
        """Each card as a turned-up trump, by id: its code, its suit and the suit's letter."""

    def evaluate(self, cards: Sequence[int], rules: HandRules) -> HandReport:
        faces = self._faces
        ordered = tuple(sorted(cards, key=self._keys.__getitem__))
        if len(ordered) != 4:
            return self.reference(ordered, rules)
        card_points, found = _four(tuple([faces[c] for c in ordered]), rules)
        combos = tuple([Combination(name, cls, points, tuple([ordered[i] for i in where]))
                        for name, cls, points, where in found])
        return HandReport(ordered, card_points, sum(c.points for c in combos), combos)

    def score(self, cards: Sequence[int], rules: HandRules) -> tuple[int, bool, dict[str, object]]:
        """Points, whether the hand holds a combination, and :meth:`HandReport.summary`: what a
        showdown needs, without building the report (card ids play no part in it)."""
        if len(cards) != 4:
            report = self.evaluate(cards, rules)
            return report.points, report.has_combination, report.summary()
        faces = self._faces
        card_points, found = _four(tuple(sorted([faces[c] for c in cards])), rules)
        combination_points = sum([item[2] for item in found])
        points = card_points + combination_points
        return points, bool(found), {
            "points": points, "card_points": card_points,
            "combination_points": combination_points, "has_combination": bool(found),
            "combinations": [{"name": name, "class": cls, "points": value}
                             for name, cls, value, _ in found]}

    def reference(self, cards: Sequence[int], rules: HandRules) -> HandReport:
        """The generic evaluation of any number of cards (:func:`reference_evaluate_faces`)."""
        faces = self._faces
        ordered = tuple(sorted(cards, key=lambda c: (faces[c], c)))
        card_points, chosen = reference_evaluate_faces(tuple(faces[c] for c in ordered), rules)
        combos = tuple(Combination(name, cls, points, tuple(ordered[i] for i in where))
                       for name, cls, points, where in chosen)
        return HandReport(ordered, card_points, sum(c.points for c in combos), combos)


PACKS = 6
QUART_SHOE = short_shoe(PACKS)
"""Quart-Bezique's shoe: six 24-card packs."""

EVALUATORS: Mapping[Shoe, Evaluator] = MappingProxyType({QUART_SHOE: Evaluator(QUART_SHOE)})
"""The evaluator of Quart-Bezique's shoe, built once and shared by every table."""


def evaluator_for(shoe: Shoe) -> Evaluator:
    """The shared evaluator of ``shoe`` (:data:`EVALUATORS`), or a new one for another shoe."""
    found = EVALUATORS.get(shoe)
    return found if found is not None else Evaluator(shoe)


def evaluate(shoe: Shoe, cards: Sequence[int], rules: HandRules | None = None) -> HandReport:
    """Score ``cards`` (ids of ``shoe``) under ``rules`` (default: no trump, Q♠+J♦)."""
    return evaluator_for(shoe).evaluate(cards, rules or HandRules())
