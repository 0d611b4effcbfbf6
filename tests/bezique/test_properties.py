"""Properties over random games: conservation, 8-card hands, scores as sums of events,
termination, deterministic replay."""

from __future__ import annotations

import pickle
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bezique.variants.api import Event, Move
from bezique.variants.bezique.game import BeziqueGame
from tests.bezique.scenario import seeded_game

OPTION_SETS: list[dict[str, object]] = [
    {"claims": False, "target": 400},
    {"claims": True},
    {"claims": False, "target": 600, "deal_packets": "3-2-3", "direction": "clockwise",
     "seven_is_declaration": False, "seven_scores_when_played": True},
    {"claims": False, "target": 300, "last_trick": "last_of_stock",
     "bezique_cards": "trump_dependent", "target_tie": "another_deal"},
]


def snapshot(game: BeziqueGame) -> tuple[object, ...]:
    seats = game.rules.seats
    return (game.census(), game.outcome(), game.to_move, tuple(game.scores),
            tuple(game.view(v) for v in [None, *range(seats)]),
            tuple(game.legal_moves(s) for s in range(seats)))


def random_play(seats: int, seed: int, options: dict[str, object], choice_seed: int,
                check: bool = True) -> tuple[BeziqueGame, list[tuple[int, Move]],
                                             list[Event]]:
    game, opening = seeded_game(seats, seed, options)
    rng = random.Random(choice_seed)
    moves: list[tuple[int, Move]] = []
    events = list(opening)
    shoe_ids = list(game.shoe.ids)
    for _ in range(20_000):
        if game.outcome() is not None:
            return game, moves, events
        if check:
            cards = sorted(c for pile in game.census().piles for c in pile.cards)
            assert cards == shoe_ids, "a card is missing or in two places"
            if game.stage == "play" and not game.trick:
                assert [len(h) + len(t) for h, t in zip(game.hands, game.melded,
                                                        strict=True)] == [8] * seats
            for s in range(seats):
                assert game.scores[s] == sum(e.amount for e in events if e.seat == s)
        seat = game.to_move[0]
        legal = game.legal_moves(seat)
        move = legal[rng.randrange(len(legal))]
        moves.append((seat, move))
        events += game.apply(seat, move)
    raise AssertionError("the game did not end in 20000 moves")


@settings(max_examples=12, deadline=None)
@given(seats=st.sampled_from([2, 3]), seed=st.integers(0, 10**6),
       options=st.sampled_from(OPTION_SETS), choice_seed=st.integers(0, 10**6))
def test_random_games_keep_every_invariant_and_end(seats: int, seed: int,
                                                   options: dict[str, object],
                                                   choice_seed: int) -> None:
    game, _moves, events = random_play(seats, seed, options, choice_seed)
    outcome = game.outcome()
    assert outcome is not None and game.to_move == ()
    assert outcome.scores == tuple(game.scores)
    for s in range(seats):
        assert game.scores[s] == sum(e.amount for e in events if e.seat == s)
    assert all(not game.legal_moves(s) for s in range(seats))


@settings(max_examples=8, deadline=None)
@given(seats=st.sampled_from([2, 3]), seed=st.integers(0, 10**6),
       options=st.sampled_from(OPTION_SETS), choice_seed=st.integers(0, 10**6),
       cut=st.floats(0.0, 1.0))
def test_replaying_rebuilds_the_same_state(seats: int, seed: int, options: dict[str, object],
                                           choice_seed: int, cut: float) -> None:
    game, moves, events = random_play(seats, seed, options, choice_seed, check=False)
    again, opening = seeded_game(seats, seed, options)
    replayed = list(opening)
    stop = int(len(moves) * cut)
    for seat, move in moves[:stop]:
        replayed += again.apply(seat, move)
    middle = pickle.loads(pickle.dumps(again))
    for seat, move in moves[stop:]:
        replayed += again.apply(seat, move)
        middle.apply(seat, move)
    assert replayed == events
    assert snapshot(again) == snapshot(game) == snapshot(middle)
