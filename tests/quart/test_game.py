"""The session: lot, ante, deal order, trump turn-up, visibility, sitting out, table end."""

from __future__ import annotations

import pytest

from bezique.variants.api import OptionError
from bezique.variants.chance import SeededChance, StackedChance
from bezique.variants.host import resolve_options
from bezique.variants.quart.game import QuartGame
from tests.quart.helpers import (
    BET,
    FOLD,
    QUART,
    RAISE,
    SHOE,
    SHOW,
    TRUMP,
    kinds,
    play,
    seed,
    stacked_game,
)

STRONG = ("KS", "QS", "JS", "JD")
NOTHING = ("AS", "9H", "TD", "KC")


def test_dealer_by_lot_lowest_card_ties_draw_again() -> None:
    # the lot pack starts in canonical order: 9♠ 10♠ J♠ Q♠ K♠ A♠ 9♥ ...
    picks = {"lot/1": 0, "lot/2": 5, "lot/3": 1, "lot/4": 0}  # 9♠, 9♥: tie; J♠, 10♠
    chance = StackedChance(SeededChance(seed()), picks=picks)
    options = resolve_options(QUART.options, {"players": 2})
    game, events = QUART.start(options, chance)
    lots = [(e.seat, e.detail["card"]) for e in kinds(events, "lot")]
    assert lots == [(0, "9S"), (1, "9H"), (0, "JS"), (1, "TS")]
    assert kinds(events, "dealer")[0].seat == 1 and game.dealer == 1
    assert all(e.visible_to is None for e in kinds(events, "lot"))


def test_first_dealer_skips_the_lot() -> None:
    options = resolve_options(QUART.options, {})
    game, events = QUART.start(options, SeededChance(seed()), first_dealer=2)
    assert not kinds(events, "lot") and game.dealer == 2 and game.to_move == (3,)


def test_ante_and_deal_one_card_at_a_time_from_the_dealers_left() -> None:
    order_hands = {3: ("KS", "KH", "KD", "KC"), 0: ("QS", "QH", "QD", "QC"),
                   1: ("JS", "JH", "JD", "JC"), 2: ("TS", "TH", "TD", "TC")}
    game, events = stacked_game({}, dealer=2, hands=order_hands)
    assert [(e.seat, e.amount) for e in kinds(events, "ante")] == [(3, 10), (0, 10), (1, 10),
                                                                    (2, 10)]
    deals = {e.seat: SHOE.codes(e.cards) for e in kinds(events, "deal")}
    assert deals == {seat: list(codes) for seat, codes in order_hands.items()}
    assert all(e.visible_to == frozenset({e.seat}) for e in kinds(events, "deal"))
    assert game.pot == 40 and game.stacks == [990] * 4 and game.to_move == (3,)


def test_trump_card_is_the_top_of_the_stock_turned_up() -> None:
    game, events = stacked_game({}, dealer=3, hands={0: ("KH", "QH", "AS", "9C")}, trump=True,
                                stock_top=("TH",))
    (trump,) = kinds(events, "trump")
    assert trump.visible_to is None and SHOE.code(trump.cards[0]) == "TH"
    assert trump.detail == {"suit": "H", "card": "TH"}
    view = game.view(None)
    assert view.detail["trump"] == "H"
    zone = view.zone("trump")
    assert zone is not None and zone.cards == trump.cards
    assert game.stock_size == 144 - 16 - 1
    stock = next(p for p in game.census().piles if p.name == "stock")
    assert len(stock.cards) == game.stock_size and game.trump_card not in stock.cards


def test_trump_doubles_card_points_at_the_showdown() -> None:
    game, _ = stacked_game({"players": 2}, dealer=1, trump=True, stock_top=("9H",),
                           hands={0: ("KH", "QH", "AS", "9C"), 1: ("KS", "QS", "JS", "JD")})
    events = play(game, (0, RAISE(10)), (1, SHOW))
    points = {e.seat: e.detail["points"] for e in kinds(events, "reveal")}
    assert points == {0: 8, 1: 14}


def test_views_show_own_hand_stacks_pot_and_hide_the_rest() -> None:
    game, _ = stacked_game({}, dealer=3, hands={0: STRONG})
    mine = game.view(0)
    assert sorted(SHOE.codes(mine.hand)) == sorted(STRONG)
    assert mine.stacks == (990,) * 4 and mine.pot == 40
    assert mine.detail["level"] == 0 and mine.detail["to_call"] == 0
    other = mine.zone("hand", 1)
    assert other is not None and other.cards == () and other.hidden == 4
    assert game.view(None).hand == () and game.view(None).card_ids() == set()


def test_folded_hand_is_never_revealed_and_only_players_in_show() -> None:
    game, _ = stacked_game({"players": 3}, dealer=2, hands={0: STRONG, 1: NOTHING, 2: NOTHING})
    folded = list(game.hands[1])
    play(game, (0, RAISE(10)), (1, FOLD))
    census = {pile.name: pile for pile in game.census().piles}
    assert set(folded) <= set(census["muck/folded"].cards)
    assert census["muck/folded"].visible_to == frozenset()
    assert game.view(1).hand == ()
    events = play(game, (2, SHOW))
    reveals = kinds(events, "reveal")
    assert [e.seat for e in reveals] == [0, 2]
    assert sorted(reveals[0].detail["hand"]) == sorted(STRONG)
    assert reveals[0].cards == () and reveals[0].detail["points"] == 14
    assert {c["name"] for c in reveals[0].detail["combinations"]} == {"koronka-3", "bezique"}
    assert all(not e.cards for e in events if e.visible_to is None)  # no card ids published


def test_shown_hands_stay_public_when_the_table_ends() -> None:
    game, _ = stacked_game({"players": 2, "deals": 1}, dealer=1, hands={0: STRONG, 1: NOTHING})
    play(game, (0, RAISE(10)), (1, SHOW))
    assert game.outcome() is not None and game.to_move == ()
    shown = {p.name: p for p in game.census().piles}["muck/shown"]
    assert shown.visible_to is None and len(shown.cards) == 8
    zone = game.view(None).zone("muck/shown")
    assert zone is not None and set(zone.cards) == set(shown.cards)


def test_default_move_folds_or_shows_when_free() -> None:
    game, _ = stacked_game({"players": 2}, dealer=1, hands={})
    assert game.default_move(0) == FOLD
    play(game, (0, RAISE(10)))
    assert game.default_move(1) == FOLD  # showing costs 10


def test_dealer_moves_clockwise_and_seat_that_cannot_pay_sits_out() -> None:
    game, events = stacked_game({"players": 3}, dealer=0, stacks=[1000, 5, 1000], hands={})
    assert [e.seat for e in kinds(events, "sit_out")] == [1]
    assert game.dealer == 0 and game.betting is not None and game.betting.order == (2, 0)
    more = play(game, (2, FOLD))
    assert kinds(more, "deal_start")[0].detail["dealer"] == 2  # seat 1 cannot deal
    assert game.hands[1] == [] and game.view(0).zone("hand", 1) is None


def test_table_ends_when_fewer_than_two_can_pay_the_ante() -> None:
    game, _ = stacked_game({"players": 2}, dealer=1, stacks=[1000, 20],
                           hands={0: STRONG, 1: NOTHING})
    events = play(game, (0, RAISE(10)), (1, SHOW))
    (end,) = kinds(events, "table_end")
    assert end.detail["reason"] == "fewer than two seats can pay the ante"
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (0,) and outcome.scores == (1020, 0)
    assert game.legal_moves(0) == () and game.phase == "over"


def test_table_ends_after_the_deals_option() -> None:
    game, _ = stacked_game({"players": 2, "deals": 2}, dealer=1, hands={})
    play(game, (0, FOLD))
    assert game.deal_no == 2 and game.outcome() is None
    play(game, (1, FOLD))
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "2 deals played"
    assert sum(outcome.scores) == 2000


def test_deal_where_nobody_can_act_settles_by_itself() -> None:
    game, events = stacked_game({"players": 2}, dealer=1, stacks=[10, 10],
                                hands={0: STRONG, 1: NOTHING})
    assert kinds(events, "reveal") and game.outcome() is not None
    assert all(e.cards == () for e in kinds(events, "deal"))  # dealt and reshuffled at once
    assert game.stacks == [20, 0]


def test_cross_option_errors() -> None:
    with pytest.raises(OptionError, match="ante"):
        QUART.start(resolve_options(QUART.options, {"ante": 50, "starting_stack": 40}),
                    SeededChance(seed()))
    with pytest.raises(OptionError, match="max_bet"):
        QUART.start(resolve_options(QUART.options, {"min_bet": 20, "max_bet": 10}),
                    SeededChance(seed()))
    assert resolve_options(QUART.options, {"min_bet": "none"})["min_bet"] is None
    assert "trump_doubles_combinations" not in {o.name for o in QUART.options}
    assert "trump_doubles_combinations" in {o.name for o in TRUMP.options}


def test_option_defaults() -> None:
    defaults = resolve_options(TRUMP.options, {})
    assert defaults == {"players": 4, "starting_stack": 1000, "ante": 10, "min_bet": None,
                        "max_bet": None, "multiway_showdown": True,
                        "no_combination": "carry_over", "bezique_cards": "QS+JD",
                        "deals": None, "min_buy_in": None, "max_buy_in": None,
                        "trump_doubles_combinations": False}
    assert QUART.seat_count({"players": 6}) == 6


def test_bet_is_a_call_with_three_or_more() -> None:
    game, _ = stacked_game({}, dealer=3, hands={})
    play(game, (0, RAISE(10)))
    assert BET in game.legal_moves(1) and SHOW not in game.legal_moves(1)
    assert isinstance(game, QuartGame)
