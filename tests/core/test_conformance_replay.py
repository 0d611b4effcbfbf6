"""The conformance kit names the likely cause when a game does not replay from its log:
variants that take randomness from outside the chance source are caught, at the right move."""

from __future__ import annotations

import random
import time

import pytest

from bezique.variants.api import Event, Move, Options
from bezique.variants.chance import Chance
from bezique.variants.conformance import ConformanceError, check_variant
from bezique_highcard.game import HighCard, HighCardGame

CAUSE = "randomness outside the chance source"


class ShuffledByRandom(HighCard):
    """Deals with the module ``random`` instead of the chance source."""

    id = "shuffled-by-random"

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None
              ) -> tuple[HighCardGame, tuple[Event, ...]]:
        game, _ = super().start(options, chance, first_dealer)
        hands = [card for hand in game.hands for card in hand] + game.stock
        random.shuffle(hands)
        size = len(game.hands[0])
        game.hands = [sorted(hands[s * size:(s + 1) * size]) for s in range(game.seats)]
        game.stock = hands[game.seats * size:]
        return game, tuple(Event("deal", s, tuple(game.hands[s]), visible_to=frozenset({s}))
                           for s in range(game.seats))


class ClockedGame(HighCardGame):
    """Stamps each round with the wall clock: the same moves give other events later."""

    def apply(self, seat: int, move: Move) -> tuple[Event, ...]:
        events = super().apply(seat, move)
        if len(events) == 1:
            return events
        return (*events, Event("round_timed", seat, amount=time.perf_counter_ns()))


class Clocked(HighCard):
    id = "clocked"

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None
              ) -> tuple[HighCardGame, tuple[Event, ...]]:
        game, events = super().start(options, chance, first_dealer)
        game.__class__ = ClockedGame
        return game, events


def test_a_deal_from_the_random_module_is_named_at_the_opening() -> None:
    with pytest.raises(ConformanceError) as caught:
        check_variant(ShuffledByRandom(), games=1)
    message = str(caught.value)
    assert "the replay of the log produced a different opening" in message, message
    assert CAUSE in message and "random, time" in message, message


def test_events_from_the_clock_are_named_at_the_first_move_that_differs() -> None:
    with pytest.raises(ConformanceError) as caught:
        check_variant(Clocked(), games=1)
    message = str(caught.value)
    # Two seats: a round ends, with its clocked event, at every second move.
    assert "the replay of the log produced different events at move 2 " in message, message
    assert "round_timed" in message and CAUSE in message, message


def test_the_example_still_replays() -> None:
    check_variant(HighCard(), games=2)
