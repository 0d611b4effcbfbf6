"""Trick winners and the duties of the last tricks (spec sections 3 and 4)."""

from __future__ import annotations

import pytest

from bezique.variants.api import IllegalMoveError, Move
from bezique.variants.bezique.lookup import CLUBS, DIAMONDS, HEARTS, SPADES, lookup_for
from bezique.variants.bezique.tricks import endgame_cards, winning_index
from tests.bezique.scenario import card_ids, codes, play_defaults, stacked_game, trick

T2 = lookup_for(2)
T3 = lookup_for(3)


@pytest.mark.parametrize(("cards", "trump", "winner"), [
    (("9S", "KS"), HEARTS, 1),           # higher card of the suit led
    (("KS", "TS"), HEARTS, 1),           # the ten ranks above the king
    (("TS", "AS"), HEARTS, 1),           # the ace is highest
    (("AS", "7H"), HEARTS, 1),           # any trump beats the suit led
    (("AS", "AD"), HEARTS, 0),           # another plain suit never wins
    (("JD", "7D"), HEARTS, 0),           # trick order A 10 K Q J 9 8 7
    (("8H", "7H"), HEARTS, 0),           # trump led, lower trump loses
])
def test_trick_winner_two_players(cards: tuple[str, ...], trump: int, winner: int) -> None:
    assert winning_index(card_ids(2, *cards), trump, T2) == winner


@pytest.mark.parametrize(("cards", "trump", "winner"), [
    (("9C", "7S", "8C"), SPADES, 1),     # trumped
    (("9C", "7S", "8S"), SPADES, 2),     # over-trumped
    (("9C", "KC", "QS"), DIAMONDS, 1),   # highest of the suit led
    (("AD", "AD", "AD"), SPADES, 0),     # identical cards: the first played wins
    (("7H", "9S", "9S"), SPADES, 1),     # identical trumps: the first played wins
])
def test_trick_winner_three_players(cards: tuple[str, ...], trump: int, winner: int) -> None:
    assert winning_index(card_ids(3, *cards), trump, T3) == winner


def test_identical_cards_first_played_wins_in_a_real_trick() -> None:
    hands = [["AS", "7C", "8C", "9C", "7D", "8D", "9D", "7H"],
             ["AS", "KC", "QC", "JC", "KD", "QD", "JD", "8H"]]
    game, _ = stacked_game(2, hands, "9H")  # dealer 0: seat 1 leads
    events = trick(game, (1, "AS"), (0, "AS"))
    won = next(e for e in events if e.kind == "trick")
    assert won.seat == 1


def test_phase_one_allows_any_card() -> None:
    hands = [["AS", "KS", "8C", "9C", "7D", "8D", "9D", "7H"],
             ["9S", "KC", "QC", "JC", "KD", "QD", "JD", "8H"]]
    game, _ = stacked_game(2, hands, "9H")
    trick(game, (1, "9S"))
    legal = {game.lookup.code(m.cards[0]) for m in game.legal_moves(0)}
    assert legal == {"AS", "KS", "8C", "9C", "7D", "8D", "9D", "7H"}  # no duty to follow


# ------------------------------------------------------------------ the last tricks, 2 players


def legal_codes(hand: tuple[str, ...], played: tuple[str, ...], trump: int, packs: int = 2
                ) -> list[str]:
    ids = card_ids(packs, *hand, *played)
    t = lookup_for(packs)
    allowed = endgame_cards(ids[:len(hand)], ids[len(hand):], trump, t)
    return sorted(t.code(c) for c in allowed)


def test_endgame_must_follow_and_beat() -> None:
    assert legal_codes(("7S", "AS", "KH"), ("TS",), CLUBS) == ["AS"]


def test_endgame_must_follow_even_when_unable_to_beat() -> None:
    assert legal_codes(("7S", "9S", "KH"), ("TS",), CLUBS) == ["7S", "9S"]


def test_endgame_identical_card_does_not_beat() -> None:
    assert legal_codes(("TS", "9S"), ("TS",), CLUBS) == ["9S", "TS"]


def test_endgame_void_must_trump() -> None:
    assert legal_codes(("7C", "AH", "KD"), ("TS",), CLUBS) == ["7C"]


def test_endgame_void_without_trump_plays_anything() -> None:
    assert legal_codes(("AH", "KD"), ("TS",), CLUBS) == ["AH", "KD"]


def test_endgame_leader_plays_anything() -> None:
    assert legal_codes(("AH", "KD", "7C"), (), CLUBS) == ["7C", "AH", "KD"]


def test_endgame_trump_led_must_beat_with_a_trump() -> None:
    assert legal_codes(("8C", "AC", "AH"), ("KC",), CLUBS) == ["AC"]


# ------------------------------------------------------------------ the last tricks, 3 players


def test_endgame_three_must_over_trump() -> None:
    assert legal_codes(("8C", "AC", "AH"), ("9S", "TC"), CLUBS, 3) == ["AC"]


def test_endgame_three_must_trump_when_unable_to_over_trump() -> None:
    assert legal_codes(("8C", "9C", "AH"), ("9S", "TC"), CLUBS, 3) == ["8C", "9C"]


def test_endgame_three_follows_suit_when_a_trump_is_winning() -> None:
    assert legal_codes(("7S", "AS", "AC"), ("9S", "TC"), CLUBS, 3) == ["7S", "AS"]


def test_endgame_three_must_beat_the_suit_led() -> None:
    assert legal_codes(("7S", "AS", "AC"), ("9S", "KS"), CLUBS, 3) == ["AS"]


def test_endgame_three_no_suit_no_trump_plays_anything() -> None:
    assert legal_codes(("7D", "AH"), ("9S", "TC"), CLUBS, 3) == ["7D", "AH"]


@pytest.mark.parametrize("seats", [2, 3])
def test_engine_refuses_a_card_that_breaks_the_endgame_duties(seats: int) -> None:
    from tests.bezique.scenario import seeded_game

    for seed in range(40):
        game, _ = seeded_game(seats, seed, {"claims": False}, first_dealer=0)
        play_defaults(game, until=lambda g: g.stage == "endgame" and len(g.trick) == 1)
        seat = game.turn
        legal = {m.cards[0] for m in game.legal_moves(seat) if m.kind == "play"}
        refused = [c for c in game.hands[seat] if c not in legal]
        if refused:
            with pytest.raises(IllegalMoveError, match="follow, beat or trump"):
                game.apply(seat, Move("play", (refused[0],)))
            assert sorted(legal) == sorted(endgame_cards(game.hands[seat], game.trick,
                                                         game.trump, game.lookup))
            return
    pytest.fail(f"no seed gave a refusable endgame card: {codes(game, game.hands[seat])}")
