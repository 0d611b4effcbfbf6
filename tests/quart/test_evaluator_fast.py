"""The four-card fast path of the evaluator against the generic reference, on every hand.

Every multiset of four faces of the 24 (17,550 hands) under every evaluator option the variants
use: the reports must be equal field by field (points, combination names, classes, points,
card ids and their order, so the same ties are chosen), and the showdown's shortcut
(:meth:`Evaluator.score`) must give the report's points and public summary.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import pytest

from bezique.variants.quart.evaluator import BEZIQUE_CHOICES, HandRules, evaluator_for
from tests.quart.helpers import SHOE

FACES = sorted({(int(card.rank), int(card.suit)) for card in SHOE.cards})
COPIES: dict[tuple[int, int], list[int]] = {}
for _card_id, _card in enumerate(SHOE.cards):
    COPIES.setdefault((int(_card.rank), int(_card.suit)), []).append(_card_id)
HANDS = list(combinations_with_replacement(FACES, 4))
RULES = [HandRules(bezique, trump, doubles) for bezique in BEZIQUE_CHOICES
         for trump in (None, 0, 1, 2, 3) for doubles in (False, True)]


def hand_ids(faces: tuple[tuple[int, int], ...]) -> list[int]:
    """Distinct card ids for the faces (a face's next copy for each repeat), last face first,
    so the evaluator has to sort them."""
    seen: dict[tuple[int, int], int] = {}
    result = []
    for face in faces:
        result.append(COPIES[face][seen.get(face, 0)])
        seen[face] = seen.get(face, 0) + 1
    return result[::-1]


def test_every_face_multiset_is_counted() -> None:
    assert len(FACES) == 24
    assert len(HANDS) == 17_550


@pytest.mark.parametrize("bezique", BEZIQUE_CHOICES)
def test_fast_path_matches_the_reference_on_every_hand(bezique: str) -> None:
    evaluator = evaluator_for(SHOE)
    rules = [r for r in RULES if r.bezique_cards == bezique]
    for faces in HANDS:
        cards = hand_ids(faces)
        for rule in rules:
            fast = evaluator.evaluate(cards, rule)
            reference = evaluator.reference(cards, rule)
            assert fast == reference, (faces, rule)
            if rule.trump in (None, 0) and rule.trump_doubles_combinations == (
                    rule.trump is not None):  # the same code for any trump suit
                score = evaluator.score(cards, rule)
                assert score == (reference.points, reference.has_combination,
                                 reference.summary()), (faces, rule)
