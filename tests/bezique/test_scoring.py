"""Scoring a deal and the match (spec section 6): last trick, brisques, carry-over, the target
and its tie-break, claims."""

from __future__ import annotations

import copy

import pytest

from bezique.variants.api import IllegalMoveError, Move
from bezique.variants.bezique.game import BeziqueGame
from bezique.variants.bezique.scoring import target_decision, wrong_claim_winners
from bezique.variants.bezique.tricks import winning_index
from tests.bezique.scenario import play_defaults, seeded_game

CLAIM = Move("claim")


@pytest.mark.parametrize("seats", [2, 3])
def test_last_trick_scores_ten_to_the_winner_of_the_final_trick(seats: int) -> None:
    game, _ = seeded_game(seats, 11, {"claims": False, "target": 100_000}, first_dealer=0)
    events = play_defaults(game, until=lambda g: g.deal_no == 2)
    tricks = [e for e in events if e.kind == "trick"]
    last = [e for e in events if e.kind == "last_trick"]
    assert len(tricks) == 32 and len(last) == 1
    assert last[0].seat == tricks[-1].seat and last[0].amount == 10


def test_last_trick_option_last_of_stock() -> None:
    game, _ = seeded_game(2, 11, {"claims": False, "target": 100_000,
                                  "last_trick": "last_of_stock"}, first_dealer=0)
    events = play_defaults(game, until=lambda g: g.deal_no == 2)
    tricks = [e for e in events if e.kind == "trick"]
    last = [e for e in events if e.kind == "last_trick"]
    assert len(last) == 1 and last[0].seat == tricks[23].seat
    assert events.index(last[0]) == events.index(tricks[23]) + 1


@pytest.mark.parametrize(("seats", "total"), [(2, 160), (3, 240)])
def test_brisques_count_aces_and_tens_won(seats: int, total: int) -> None:
    game, _ = seeded_game(seats, 12, {"claims": False, "target": 100_000}, first_dealer=0)
    won: list[list[int]] = []

    def deal_over(g: BeziqueGame) -> bool:
        if g.stage == "endgame" and sum(map(len, g.hands)) == 1:
            won.extend(copy.deepcopy(g.won))
            return True
        return False

    play_defaults(game, until=deal_over)
    events = play_defaults(game, until=lambda g: g.deal_no == 2)
    final = [e for e in events if e.kind == "trick"][-1]
    assert final.seat is not None
    won[final.seat].extend(final.cards)
    brisques = [e for e in events if e.kind == "brisques"]
    assert [e.seat for e in brisques] == list(range(seats))
    for seat, event in enumerate(brisques):
        aces_tens = sum(1 for c in won[seat] if game.lookup.code(c)[0] in "AT")
        assert event.amount == 10 * aces_tens == 10 * event.detail["count"]
    assert sum(e.amount for e in brisques) == total


@pytest.mark.parametrize("seats", [2, 3])
def test_scores_carry_over_deals(seats: int) -> None:
    game, opening = seeded_game(seats, 13, {"claims": False, "target": 100_000},
                                first_dealer=0)
    events = list(opening) + play_defaults(game, until=lambda g: g.deal_no == 3)
    for seat in range(seats):
        assert game.scores[seat] == sum(e.amount for e in events if e.seat == seat)
    ends = [e.detail["scores"] for e in events if e.kind == "deal_end"]
    assert len(ends) == 2 and all(b >= a for a, b in zip(ends[0], ends[1], strict=True))


# ------------------------------------------------------------------ the target


def test_target_one_player_reaches_it() -> None:
    assert target_decision([1010, 990], 1000, 1, True) == (0, "target")
    assert target_decision([990, 990], 1000, 1, True) is None


def test_target_several_reach_it_last_trick_decides() -> None:
    assert target_decision([1200, 1010], 1000, 1, True) == (1, "target_last_trick")
    assert target_decision([1600, 1510, 900], 1500, 1, True) == (1, "target_last_trick")


def test_target_fallback_highest_wins_then_another_deal() -> None:
    assert target_decision([1600, 1510, 900], 1500, 2, True) == (0, "target_highest")
    assert target_decision([1600, 1600, 900], 1500, 2, True) is None
    assert target_decision([1600, 1510, 900], 1500, 2, False) is None  # target_tie=another_deal


def final_trick_state(seats: int, seed: int, options: dict[str, object]
                      ) -> tuple[BeziqueGame, int]:
    """A game just before the last trick of its first deal, and who will take that trick."""
    game, _ = seeded_game(seats, seed, {"claims": False, **options}, first_dealer=0)
    play_defaults(game, until=lambda g: g.stage == "endgame" and not g.trick
                  and all(len(h) == 1 for h in g.hands))
    order = [game.turn]
    while len(order) < seats:
        order.append(game.rules.next_seat(order[-1]))
    cards = [game.hands[seat][0] for seat in order]  # one card each: the plays are forced
    return game, order[winning_index(cards, game.trump, game.lookup)]


def test_engine_tie_break_two_players_last_trick_wins() -> None:
    game, taker = final_trick_state(2, 21, {"target": 1000})
    game.scores[taker], game.scores[1 - taker] = 1000, 1300
    play_defaults(game)
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (taker,)
    assert outcome.reason == "target_last_trick"


def test_engine_tie_break_three_players_fallback() -> None:
    game, taker = final_trick_state(3, 22, {"target": 1500})
    high, low = [s for s in range(3) if s != taker]
    game.scores[taker], game.scores[high], game.scores[low] = 0, 2000, 1600
    play_defaults(game)
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (high,)
    assert outcome.reason == "target_highest"


def test_engine_tie_break_three_players_equal_plays_another_deal() -> None:
    game, taker = final_trick_state(3, 22, {"target": 1500})
    a, b = [s for s in range(3) if s != taker]
    game.scores[taker] = 0  # a and b end level at 3000 with their brisques
    game.scores[a], game.scores[b] = 3000 - game._brisques(a), 3000 - game._brisques(b)
    events = play_defaults(game, until=lambda g: g.deal_no == 2)
    assert next(e.detail["scores"] for e in events if e.kind == "deal_end")[a] == 3000
    assert game.outcome() is None and game.deal_no == 2


def test_engine_target_tie_another_deal_option() -> None:
    game, taker = final_trick_state(3, 22, {"target": 1500, "target_tie": "another_deal"})
    a, b = [s for s in range(3) if s != taker]
    game.scores[taker], game.scores[a], game.scores[b] = 0, 3000, 1600
    play_defaults(game, until=lambda g: g.deal_no == 2)
    assert game.outcome() is None and game.deal_no == 2


# ------------------------------------------------------------------ claims


def endgame(seats: int, seed: int = 30, **options: object) -> BeziqueGame:
    game, _ = seeded_game(seats, seed, {"target": 1000, **options}, first_dealer=0)
    play_defaults(game, until=lambda g: g.stage == "endgame")
    return game


def test_claim_is_not_legal_while_the_stock_lasts() -> None:
    game, _ = seeded_game(2, 31, first_dealer=0)
    for _ in range(30):
        seat = game.to_move[0]
        assert CLAIM not in game.legal_moves(seat)
        with pytest.raises(IllegalMoveError, match="claim"):
            game.apply(seat, CLAIM)
        game.apply(seat, game.default_move(seat))


@pytest.mark.parametrize("seats", [2, 3])
def test_right_claim_wins_at_once(seats: int) -> None:
    game = endgame(seats)
    seat = game.turn
    brisques = game._brisques(seat)
    game.scores[seat] = 1000 - brisques
    events = game.apply(seat, CLAIM)
    claim = next(e for e in events if e.kind == "claim")
    assert claim.detail == {"count": 1000, "target": 1000, "right": True}
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (seat,) and outcome.reason == "claim"
    assert game.scores[seat] == 1000 and game.to_move == ()


def test_wrong_claim_loses_at_once_two_players() -> None:
    game = endgame(2)
    seat = game.turn
    game.scores[seat] = 990 - game._brisques(seat)
    game.apply(seat, CLAIM)
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (1 - seat,)
    assert outcome.reason == "wrong_claim"


def test_wrong_claim_three_players_best_other_wins() -> None:
    game = endgame(3)
    seat = game.turn
    a, b = [s for s in range(3) if s != seat]
    game.scores[a], game.scores[b] = 300, 500
    game.scores[seat] = 900 - game._brisques(seat)
    game.apply(seat, CLAIM)
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (b,)
    assert wrong_claim_winners([100, 300, 300], 0) == (1, 2)


def test_claims_can_be_switched_off() -> None:
    game = endgame(2, claims=False)
    assert CLAIM not in game.legal_moves(game.turn)
    with pytest.raises(IllegalMoveError):
        game.apply(game.turn, CLAIM)
