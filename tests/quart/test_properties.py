"""Hypothesis properties: chips are conserved, combinations are made of the hand's cards, and a
showdown is only won by a hand holding a combination."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bezique.variants.api import RandomPolicy
from bezique.variants.cards import Rank, Suit
from bezique.variants.chance import SeededChance
from bezique.variants.host import resolve_options
from bezique.variants.quart.evaluator import (
    BEZIQUE,
    BEZIQUE_ANY_QJ,
    BEZIQUE_CHOICES,
    SAME_RANK,
    SAME_SUIT,
    HandRules,
    evaluate,
)
from tests.quart.helpers import QUART, SHOE, TRUMP

options_strategy = st.fixed_dictionaries({
    "players": st.integers(2, 6),
    "starting_stack": st.integers(20, 400),
    "ante": st.integers(1, 20),
    "min_bet": st.one_of(st.none(), st.integers(1, 15)),
    "max_bet": st.one_of(st.none(), st.integers(15, 200)),
    "multiway_showdown": st.booleans(),
    "no_combination": st.sampled_from(["carry_over", "split"]),
    "bezique_cards": st.sampled_from(BEZIQUE_CHOICES),
    "deals": st.integers(1, 12),
})


def _valid(face: tuple[Rank, Suit], combo_name: str, cards: list[tuple[Rank, Suit]],
           any_qj: bool) -> bool:
    ranks = [r for r, _ in cards]
    suits = [s for _, s in cards]
    if combo_name == "marriage":
        return sorted(ranks) == [Rank.QUEEN, Rank.KING] and len(set(suits)) == 1
    if combo_name.startswith("koronka-"):
        return len(cards) == int(combo_name[-1]) and len(set(suits)) == 1
    if combo_name == "three-of-a-kind":
        return len(cards) == 3 and len(set(ranks)) == 1
    if combo_name == "four-kings":
        return ranks == [Rank.KING] * 4
    if combo_name == "four-of-a-kind":
        return len(cards) == 4 and len(set(ranks)) == 1 and ranks[0] != Rank.KING
    queens = [c for c in cards if c[0] == Rank.QUEEN and (any_qj or c[1] == Suit.SPADES)]
    jacks = [c for c in cards if c[0] == Rank.JACK and (any_qj or c[1] == Suit.DIAMONDS)]
    if combo_name == "bezique":
        return len(cards) == 2 and len(queens) == 1 and len(jacks) == 1
    if combo_name == "two-beziques":
        return len(cards) == 4 and len(queens) == 2 and len(jacks) == 2
    return False


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, len(SHOE) - 1), min_size=4, max_size=4, unique=True),
       st.sampled_from(BEZIQUE_CHOICES), st.one_of(st.none(), st.integers(0, 3)),
       st.booleans())
def test_evaluator_never_scores_a_combination_without_its_cards(
        hand: list[int], bezique: str, trump: int | None, doubles: bool) -> None:
    rules = HandRules(bezique, trump, doubles)
    report = evaluate(SHOE, hand, rules)
    by_class: dict[str, list[int]] = {SAME_SUIT: [], SAME_RANK: [], BEZIQUE: []}
    for combo in report.combinations:
        assert set(combo.cards) <= set(hand)
        faces = [SHOE[c].face for c in combo.cards]
        assert _valid(faces[0], combo.name, faces, bezique == BEZIQUE_ANY_QJ), combo
        by_class[combo.cls] += combo.cards
    for cards in by_class.values():
        assert len(cards) == len(set(cards))  # disjoint within a class
    assert report.combination_points == sum(c.points for c in report.combinations)
    base = sum(1 for c in hand if SHOE[c].rank in (Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING))
    trumps = sum(1 for c in hand if trump is not None and SHOE[c].suit == trump
                 and SHOE[c].rank in (Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING))
    assert report.card_points == base + trumps


@settings(max_examples=60, deadline=None)
@given(options_strategy, st.integers(0, 2**32), st.booleans())
def test_chips_conserved_and_showdowns_won_with_a_combination(
        given_options: dict[str, Any], game_seed: int, trump: bool) -> None:
    variant = TRUMP if trump else QUART
    options = dict(given_options)
    options["starting_stack"] = max(options["starting_stack"], options["ante"])
    min_bet = options["min_bet"] or options["ante"]
    if options["max_bet"] is not None and options["max_bet"] < min_bet:
        options["max_bet"] = min_bet
    resolved = resolve_options(variant.options, options)
    game, events = variant.start(resolved, SeededChance(game_seed.to_bytes(16, "big")))
    total = resolved["starting_stack"] * resolved["players"]
    rng = random.Random(game_seed)
    policy = RandomPolicy()
    history = list(events)
    for _ in range(5000):
        if game.outcome() is not None:
            break
        seat = game.to_move[0]
        history += game.apply(seat, policy.choose(game.view(seat), game.legal_moves(seat), rng))
        assert game.census().chips == total
        assert sum(game.stacks) + game.pot == total
    assert game.outcome() is not None
    assert sum(game.stacks) == total  # nothing is left in the middle at the end
    reveals: dict[int, Any] = {}
    for event in history:
        if event.kind == "deal_start":
            reveals = {}
        elif event.kind == "reveal" and event.seat is not None:
            reveals[event.seat] = event.detail
        elif event.kind == "pot_won" and event.detail["reason"] == "showdown":
            assert event.seat is not None and reveals[event.seat]["has_combination"]
        elif event.kind == "deal_end":
            assert sum(event.detail["stacks"]) + event.detail["carried"] == total
