"""Moves with amounts in the plugin API: an offered move may stand for a range of amounts; what
matches it, what the kit checks, and that the kit catches a variant that gets it wrong."""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest

from bezique.variants.api import (
    AmountRange,
    Event,
    IllegalMoveError,
    Move,
    Options,
    RandomPolicy,
    View,
)
from bezique.variants.chance import Chance
from bezique.variants.conformance import ConformanceError, check_variant
from bezique.variants.host import match_move, range_missed
from bezique.variants.quart.game import QuartGame
from bezique.variants.quart.variant import QuartBezique

OFFER = Move("raise", amount=10, amount_range=AmountRange(10, 50, 5))


def test_a_range_holds_its_steps_only() -> None:
    span = OFFER.amount_range
    assert span is not None
    assert [a for a in range(0, 60) if a in span] == [10, 15, 20, 25, 30, 35, 40, 45, 50]
    assert True not in span and "20" not in span
    assert (span.nearest(3), span.nearest(23), span.nearest(99)) == (10, 20, 50)
    rng = random.Random(4)
    assert {span.pick(rng) for _ in range(200)} == {10, 15, 20, 25, 30, 35, 40, 45, 50}
    assert str(span) == "10..50 step 5" and str(AmountRange(1, 2)) == "1..2"
    with pytest.raises(ValueError):
        AmountRange(5, 4)
    with pytest.raises(ValueError):
        AmountRange(1, 9, 0)


def test_an_offer_matches_any_amount_in_its_range_and_nothing_else() -> None:
    legal = (Move("fold"), OFFER)
    assert Move("raise", amount=10) == OFFER  # the range is not part of the move's identity
    assert match_move(Move("raise", amount=35), legal) is OFFER
    assert match_move(Move("fold"), legal) == Move("fold")
    for wrong in (Move("raise", amount=33), Move("raise", amount=55),
                  Move("raise", (1,), 20), Move("raise", amount=20, label="x")):
        assert match_move(wrong, legal) is None
    assert range_missed(Move("raise", amount=55), legal) == OFFER.amount_range
    assert range_missed(Move("bet", amount=55), legal) is None
    assert OFFER.with_amount(25) == Move("raise", amount=25)
    assert OFFER.with_amount(25).amount_range is None
    assert str(OFFER) == "raise amount=10..50 step 5"
    assert Move.from_dict(OFFER.to_dict()).amount_range == OFFER.amount_range
    assert "amount_range" not in Move("raise", amount=25).to_dict()  # logs stay as they were


def test_the_random_policy_picks_an_amount_in_the_range() -> None:
    view = View(0, "betting", (0,), ())
    chosen = {RandomPolicy().choose(view, [OFFER], random.Random(n)).amount for n in range(60)}
    assert chosen <= {10, 15, 20, 25, 30, 35, 40, 45, 50} and len(chosen) > 3


class _LaxGame(QuartGame):
    """Takes a raise beyond the range (to the highest level instead of refusing it)."""

    def apply(self, seat: int, move: Move) -> tuple[Event, ...]:
        offer = next((m for m in self.legal_moves(seat) if m.amount_range), None)
        if move.kind == "raise" and offer is not None and offer.amount_range is not None \
                and move.amount > offer.amount_range.maximum:
            move = offer.with_amount(offer.amount_range.maximum)
        return super().apply(seat, move)


class _StrictGame(QuartGame):
    """Offers a range but takes only its suggested amount."""

    def apply(self, seat: int, move: Move) -> tuple[Event, ...]:
        if move.kind == "raise" and move not in self.legal_moves(seat):
            raise IllegalMoveError(seat, move, "only the suggested amount")
        return super().apply(seat, move)


def _variant(game_class: type[QuartGame]) -> QuartBezique:
    class Broken(QuartBezique):
        def start(self, options: Options, chance: Chance, first_dealer: int | None = None, *,
                  buy_ins: Mapping[int, int] | None = None, log_version: int | None = None
                  ) -> tuple[QuartGame, tuple[Event, ...]]:
            game, events = super().start(options, chance, first_dealer, buy_ins=buy_ins,
                                         log_version=log_version)
            game.__class__ = game_class
            return game, events

    return Broken()


@pytest.mark.parametrize(("game_class", "message"), [
    (_LaxGame, "accepted the illegal raise"),
    (_StrictGame, "legal raise amount=.* refused"),
])
def test_the_kit_catches_a_variant_that_mishandles_its_ranges(
        game_class: type[QuartGame], message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_variant(_variant(game_class), options=({"players": 3, "deals": 2},), games=1)


def test_the_kit_passes_quart_with_its_ranges() -> None:
    check_variant(QuartBezique(), options=({"players": 3, "deals": 2},), games=1)
