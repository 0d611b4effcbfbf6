"""Each betting rule as a named sequence (rules §3, §4 ties and carry-over)."""

from __future__ import annotations

import pytest

from bezique.variants.api import AmountRange, IllegalMoveError, Move, NotYourTurnError
from bezique.variants.quart.betting import (
    LAST_STANDING,
    OPEN,
    SHOWDOWN,
    Betting,
    Pot,
    side_pots,
    split,
)
from bezique.variants.quart.game import QuartGame
from tests.quart.helpers import ALLIN, BET, FOLD, RAISE, SHOW, kinds, play, stacked_game

STRONG = ("KS", "QS", "JS", "JD")  # 14 points
MEDIUM = ("KH", "QH", "AS", "9C")  # marriage: 6 points
WEAK = ("9H", "9C", "9D", "AS")  # three nines: 6 points
NOTHING = ("AS", "9H", "TD", "KC")  # no combination


def test_opener_must_put_in_at_least_min_bet() -> None:
    game, _ = stacked_game({"min_bet": 20}, dealer=3, hands={})
    assert game.to_move == (0,)
    legal = game.legal_moves(0)
    assert Move("bet") not in legal and Move("show") not in legal
    assert min(m.amount for m in legal if m.kind == "raise") == 20
    with pytest.raises(IllegalMoveError, match="from 20 to"):
        game.apply(0, RAISE(19))
    with pytest.raises(NotYourTurnError):
        game.apply(1, RAISE(20))


def test_raise_makes_earlier_players_make_up_the_difference() -> None:
    game, _ = stacked_game({}, dealer=3, hands={0: STRONG, 1: MEDIUM, 2: WEAK, 3: NOTHING})
    play(game, (0, RAISE(10)), (1, BET), (2, RAISE(30)))
    assert game.to_move == (3,)
    play(game, (3, FOLD))
    # seat 0 and seat 1 put in 10; the level is 30: each must make up 20 (or fold)
    assert game.to_move == (0,)
    assert game.betting is not None and game.betting.to_call(0) == 20
    play(game, (0, BET))
    assert game.to_move == (1,) and game.betting.to_call(1) == 20
    events = play(game, (1, BET))
    assert [e.seat for e in kinds(events, "reveal")] == [0, 1, 2]
    won = kinds(events, "pot_won")
    assert [(e.seat, e.amount) for e in won] == [(0, 40 + 90)]  # antes + 3 x 30


def test_any_raise_amount_in_range_is_accepted() -> None:
    game, _ = stacked_game({}, dealer=3, hands={})
    offers = [m for m in game.legal_moves(0) if m.kind == "raise"]
    assert len(offers) == 1 and offers[0].amount_range == AmountRange(10, 990)
    assert offers[0].accepts(RAISE(37)) and not offers[0].accepts(RAISE(9))
    play(game, (0, RAISE(37)))
    assert game.betting is not None and game.betting.level == 37
    with pytest.raises(IllegalMoveError):
        game.apply(1, RAISE(37 + 9))  # below level + min_bet
    with pytest.raises(IllegalMoveError):
        game.apply(1, RAISE(991))  # beyond the stack (990 after the ante)
    play(game, (1, RAISE(990)))  # all-in as the highest raise


def _raise_span(legal: tuple[Move, ...]) -> AmountRange | None:
    """The range of the one raise offered."""
    [offer] = [m for m in legal if m.kind == "raise"]
    return offer.amount_range


def test_max_bet_limits_each_raise() -> None:
    game, _ = stacked_game({"max_bet": 50}, dealer=3, hands={})
    assert _raise_span(game.legal_moves(0)) == AmountRange(10, 50)
    play(game, (0, RAISE(50)))
    assert _raise_span(game.legal_moves(1)) == AmountRange(60, 100)
    with pytest.raises(IllegalMoveError):
        game.apply(1, RAISE(101))


def test_show_with_two_left() -> None:
    game, _ = stacked_game({"players": 3}, dealer=2, hands={0: MEDIUM, 1: STRONG, 2: NOTHING})
    play(game, (0, RAISE(10)), (1, RAISE(40)))
    assert Move("show") not in game.legal_moves(2)  # three still in: bet, not show
    play(game, (2, FOLD))
    legal = game.legal_moves(0)
    assert Move("show") in legal and Move("bet") not in legal
    events = play(game, (0, SHOW))
    assert [e.seat for e in kinds(events, "reveal")] == [0, 1]
    assert [(e.seat, e.amount) for e in kinds(events, "pot_won")] == [(1, 30 + 80)]


def test_two_player_game_goes_raise_raise_show() -> None:
    game, _ = stacked_game({"players": 2}, dealer=1, hands={0: STRONG, 1: WEAK})
    play(game, (0, RAISE(10)), (1, RAISE(20)), (0, RAISE(50)))
    events = play(game, (1, SHOW))
    assert kinds(events, "pot_won")[0].seat == 0
    assert kinds(events, "deal_end")[0].detail["stacks"] == [1060, 940]


def test_all_fold_but_one_takes_the_pot_unseen() -> None:
    game, _ = stacked_game({}, dealer=3, hands={0: NOTHING, 1: NOTHING, 2: NOTHING})
    events = play(game, (0, RAISE(10)), (1, FOLD), (2, FOLD), (3, FOLD))
    assert not kinds(events, "reveal")
    (won,) = kinds(events, "pot_won")
    assert (won.seat, won.amount, won.detail["reason"]) == (0, 50, "last-standing")


def test_multiway_showdown_when_all_match() -> None:
    game, _ = stacked_game({}, dealer=3, hands={0: MEDIUM, 1: STRONG, 2: WEAK, 3: NOTHING})
    events = play(game, (0, RAISE(10)), (1, BET), (2, BET), (3, BET))
    assert [e.seat for e in kinds(events, "reveal")] == [0, 1, 2, 3]
    assert [(e.seat, e.amount) for e in kinds(events, "pot_won")] == [(1, 80)]


def test_multiway_showdown_off_keeps_going_until_two_are_left() -> None:
    game, _ = stacked_game({"multiway_showdown": False, "players": 3}, dealer=2,
                           hands={0: MEDIUM, 1: STRONG, 2: WEAK})
    events = play(game, (0, RAISE(10)), (1, BET), (2, BET))
    assert not kinds(events, "reveal")
    assert game.to_move == (0,)
    assert {m.kind for m in game.legal_moves(0)} == {"fold", "raise"}  # no free check
    assert game.default_move(0) == FOLD
    play(game, (0, FOLD))
    # two left: the two-player rule again, so showing is free (and the timeout move)
    assert game.to_move == (1,) and game.default_move(1) == SHOW
    events = play(game, (1, SHOW))
    assert [e.seat for e in kinds(events, "reveal")] == [1, 2]
    assert [(e.seat, e.amount) for e in kinds(events, "pot_won")] == [(1, 60)]


def test_all_in_and_side_pots_with_three_different_stacks() -> None:
    game, _ = stacked_game({"players": 3}, dealer=2, stacks=[60, 130, 310],
                           hands={0: STRONG, 1: MEDIUM, 2: NOTHING})
    # after antes of 10: stacks 50, 120, 300
    play(game, (0, RAISE(50)))  # all-in as a raise
    play(game, (1, RAISE(120)))  # all-in, re-raise
    assert game.betting is not None and Move("allin") not in game.legal_moves(2)
    assert all(m.kind != "raise" for m in game.legal_moves(2))  # nobody left to answer
    events = play(game, (2, BET))
    won = [(e.seat, e.amount, e.detail["pot"], e.detail["reason"])
           for e in kinds(events, "pot_won")]
    # main pot: antes 30 + 3 x 50; side pot: 2 x 70 between seats 1 and 2
    assert won == [(0, 180, 0, "showdown"), (1, 140, 1, "showdown")]
    assert kinds(events, "deal_end")[0].detail["stacks"] == [180, 140, 180]
    assert game.stacks == [170, 130, 170]  # the next deal's antes are in


def test_all_in_for_less_returns_the_uncalled_part() -> None:
    game, _ = stacked_game({"players": 2}, dealer=1, stacks=[1000, 40],
                           hands={0: NOTHING, 1: WEAK})
    play(game, (0, RAISE(100)))
    assert game.legal_moves(1) == (FOLD, ALLIN)
    events = play(game, (1, ALLIN))
    won = [(e.seat, e.amount, e.detail["reason"]) for e in kinds(events, "pot_won")]
    assert won == [(1, 20 + 60, "showdown"), (0, 70, "uncontested")]


def test_odd_chip_goes_to_the_first_tied_player_from_the_dealers_left() -> None:
    game, _ = stacked_game({"players": 3, "ante": 5}, dealer=1,
                           hands={2: ("KH", "QH", "AS", "9C"), 0: ("KD", "QD", "AH", "9S"),
                                  1: NOTHING})
    play(game, (2, RAISE(5)), (0, BET), (1, FOLD))
    assert game.to_move == (2,)  # the fold left two level: seat 2 may show (rules §3 [R])
    events = play(game, (2, SHOW))
    won = [(e.seat, e.amount) for e in kinds(events, "pot_won")]
    assert won == [(2, 13), (0, 12)]  # 15 antes + 10: seat 2 is first from dealer 1's left


def test_no_combination_carries_the_pot_over() -> None:
    game, _ = stacked_game({"players": 2}, dealer=1, hands={0: NOTHING, 1: NOTHING},
                           later={2: {1: STRONG, 0: WEAK}})
    events = play(game, (0, RAISE(10)), (1, SHOW))
    assert [e.amount for e in kinds(events, "carry_over")] == [40]
    assert not kinds(events, "pot_won")
    assert game.pot == 40 + 20 and game.deal_no == 2  # carried + the new antes
    assert game.census().chips == 2000
    events = play(game, (1, RAISE(10)), (0, SHOW))
    assert [(e.seat, e.amount) for e in kinds(events, "pot_won")] == [(1, 80)]


def test_no_combination_split_option() -> None:
    game, _ = stacked_game({"players": 2, "no_combination": "split"}, dealer=1,
                           hands={0: NOTHING, 1: NOTHING})
    events = play(game, (0, RAISE(11)), (1, SHOW))
    won = [(e.seat, e.amount, e.detail["reason"]) for e in kinds(events, "pot_won")]
    assert won == [(0, 21, "no-combination-split"), (1, 21, "no-combination-split")]


def test_no_combination_on_the_last_deal_splits() -> None:
    game, _ = stacked_game({"players": 2, "deals": 1}, dealer=1, hands={0: NOTHING, 1: NOTHING})
    events = play(game, (0, RAISE(10)), (1, SHOW))
    assert not kinds(events, "carry_over")
    assert game.stacks == [1000, 1000] and game.outcome() is not None


def test_engine_side_pots_and_split_directly() -> None:
    stacks = [50, 120, 300]
    betting = Betting([0, 1, 2], stacks, min_bet=10)
    assert betting.status == OPEN and betting.turn == 0
    betting.raise_to(0, 50)
    betting.raise_to(1, 120)
    betting.bet(2)
    assert betting.status == SHOWDOWN and stacks == [0, 0, 180]
    assert side_pots(betting.contrib, betting.live, betting.order, 30) == [
        Pot(180, (0, 1, 2)), Pot(140, (1, 2))]
    assert split(7, [2, 0, 1]) == [(2, 3), (0, 2), (1, 2)]


def test_engine_last_standing_and_closed_betting() -> None:
    betting = Betting([1, 2, 0], [100, 100, 100], min_bet=5)
    betting.raise_to(1, 5)
    betting.fold(2)
    betting.fold(0)
    assert betting.status == LAST_STANDING and betting.live == [1]
    with pytest.raises(ValueError, match="closed"):
        betting.fold(1)


# ------------------------------------------------ rules §3 [R]: a fold that leaves two level
# "When a fold leaves exactly two players whose contributions are level, the betting goes on
# with the next of them to act: he may show (at no cost), raise or fold."


def _two_level_after_a_fold() -> QuartGame:
    """Three players, dealer 2: seat 0 opens 10, seat 1 calls, seat 2 folds."""
    game, _ = stacked_game({"players": 3}, dealer=2, hands={0: MEDIUM, 1: STRONG, 2: NOTHING})
    play(game, (0, RAISE(10)), (1, BET), (2, FOLD))
    return game


def test_a_fold_leaving_two_level_does_not_go_straight_to_the_showdown() -> None:
    game = _two_level_after_a_fold()
    betting = game.betting
    assert betting is not None and betting.status == OPEN
    assert game.to_move == (0,)  # the next of the two after the folder
    legal = game.legal_moves(0)
    assert FOLD in legal and SHOW in legal and Move("bet") not in legal
    assert any(m.kind == "raise" for m in legal)
    assert betting.to_call(0) == 0


def test_after_the_fold_the_next_may_show_at_no_cost() -> None:
    game = _two_level_after_a_fold()
    assert game.default_move(0) == SHOW  # a turn that runs out shows: it costs nothing
    events = play(game, (0, SHOW))
    assert [e.amount for e in kinds(events, "show")] == [0]
    assert [e.seat for e in kinds(events, "reveal")] == [0, 1]
    assert [(e.seat, e.amount) for e in kinds(events, "pot_won")] == [(1, 30 + 20)]


def test_after_the_fold_the_next_may_raise() -> None:
    game = _two_level_after_a_fold()
    play(game, (0, RAISE(30)))
    assert game.to_move == (1,) and game.betting is not None and game.betting.to_call(1) == 20
    assert SHOW in game.legal_moves(1)
    events = play(game, (1, SHOW))
    assert [(e.seat, e.amount) for e in kinds(events, "pot_won")] == [(1, 30 + 60)]


def test_after_the_fold_the_next_may_fold() -> None:
    game = _two_level_after_a_fold()
    events = play(game, (0, FOLD))
    assert not kinds(events, "reveal")  # the last player takes the pot without showing
    assert [(e.seat, e.amount) for e in kinds(events, "pot_won")] == [(1, 30 + 20)]


def test_the_next_of_the_two_is_the_first_after_the_folder() -> None:
    game, _ = stacked_game({"players": 3}, dealer=2, hands={0: MEDIUM, 1: STRONG, 2: WEAK})
    play(game, (0, RAISE(10)), (1, RAISE(20)), (2, BET), (0, FOLD))
    assert game.to_move == (1,)  # seats 1 and 2 level at 20: seat 1 comes first after seat 0
    assert SHOW in game.legal_moves(1)


def test_with_one_of_the_two_all_in_the_showdown_follows_at_once() -> None:
    betting = Betting([0, 1, 2], [100, 20, 100], min_bet=10)
    betting.raise_to(0, 20)
    betting.bet(1)  # all of seat 1's stack: all-in
    betting.fold(2)
    assert betting.status == SHOWDOWN  # nobody is left to bet against


def test_a_fold_leaving_three_level_is_still_a_multiway_showdown() -> None:
    game, _ = stacked_game({}, dealer=3, hands={0: STRONG, 1: MEDIUM, 2: WEAK, 3: NOTHING})
    events = play(game, (0, RAISE(10)), (1, BET), (2, BET), (3, FOLD))
    assert [e.seat for e in kinds(events, "reveal")] == [0, 1, 2]
