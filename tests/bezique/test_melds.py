"""Every declaration's value, and the seven of trumps (spec section 5)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bezique.variants.api import IllegalMoveError, Move
from bezique.variants.bezique.game import BeziqueGame
from tests.bezique.scenario import (
    codes,
    declarations,
    declare,
    kinds,
    play,
    points,
    stacked_game,
    trick,
)

JUNK_2P = ["7D", "8D", "9D", "7S", "8S", "9S", "8D", "9D"]  # seat 1 (and seat 2 below)
JUNK_3P = ["7D", "TD", "9D", "7S", "8S", "9S", "TS", "JS"]
FILL = ["7C", "8C", "9C", "8C", "9C", "7C", "JC", "JC"]


def winner_holding(meld: Sequence[str], seats: int = 2, turnup: str = "9H",
                   stock_top: Sequence[str] = (), options: dict[str, object] | None = None,
                   lead: str = "7C") -> BeziqueGame:
    """Seat 0 holds ``meld`` (filled with clubs) and has just won the first trick."""
    hand = list(meld) + [c for c in FILL if c != lead][:8 - len(meld) - 1] + [lead]
    others = [JUNK_2P, JUNK_3P][seats - 2]
    hands = [hand, JUNK_2P] + [others] * (seats - 2)
    # dealer 1 (2p) / 1 (3p, counterclockwise): seat 0 leads first
    game, _ = stacked_game(seats, hands, turnup, stock_top, dealer=1, options=options)
    assert game.turn == 0
    plays = [(0, lead)] + [(s, "7D") for s in ([1] if seats == 2 else [2, 1])]
    trick(game, *plays)
    assert game.stage == "declare" and game.turn == 0, game.stage
    return game


@pytest.mark.parametrize(("label", "meld", "value"), [
    ("common_marriage", ["KS", "QS"], 20),
    ("royal_marriage", ["KH", "QH"], 40),
    ("sequence", ["AH", "TH", "KH", "QH", "JH"], 250),
    ("bezique", ["QS", "JD"], 40),
    ("double_bezique", ["QS", "JD", "QS", "JD"], 500),
    ("four_aces", ["AS", "AH", "AD", "AC"], 100),
    ("four_aces", ["AS", "AS", "AD", "AC"], 100),  # duplicates allowed
    ("four_kings", ["KS", "KH", "KD", "KC"], 80),
    ("four_queens", ["QS", "QH", "QD", "QC"], 60),
    ("four_jacks", ["JS", "JH", "JD", "JC"], 40),
])
def test_declaration_value(label: str, meld: list[str], value: int) -> None:
    game = winner_holding(meld)
    before = game.scores[0]
    events = declare(game, 0, label, meld)
    scored = [e for e in events if e.kind == "declare"]
    assert scored[0].amount == value and scored[0].label == label
    assert game.scores[0] - before == value
    assert sorted(codes(game, game.melded[0])) == sorted(meld)  # melds stay on the table


def test_triple_bezique_scores_1500_and_wins_at_once() -> None:
    meld = ["QS", "QS", "QS", "JD", "JD", "JD"]
    game = winner_holding(meld, seats=3)
    events = declare(game, 0, "triple_bezique", meld)
    assert points(events, 0) == 1500
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert outcome.reason == "triple_bezique" and game.to_move == ()


def test_triple_bezique_does_not_exist_with_two_packs() -> None:
    game = winner_holding(["QS", "QS", "JD", "JD"])
    assert not [m for m in game.legal_moves(0) if m.label == "triple_bezique"]


def test_marriage_kinds_follow_the_trump() -> None:
    game = winner_holding(["KH", "QH", "KS", "QS"])
    labels = {(m.label, tuple(sorted(codes(game, m.cards)))) for m in game.legal_moves(0)}
    assert ("royal_marriage", ("KH", "QH")) in labels
    assert ("common_marriage", ("KS", "QS")) in labels
    assert not any(label == "common_marriage" and "KH" in cs for label, cs in labels)


def test_bezique_cards_trump_dependent_option() -> None:
    game = winner_holding(["QC", "JH", "QS", "JD"], turnup="9S",
                          options={"bezique_cards": "trump_dependent"})
    assert declarations(game, 0, "bezique", ["QC", "JH"])
    assert not declarations(game, 0, "bezique", ["QS", "JD"])
    default = winner_holding(["QC", "JH", "QS", "JD"], turnup="9S")
    assert declarations(default, 0, "bezique", ["QS", "JD"])
    assert not declarations(default, 0, "bezique", ["QC", "JH"])


def test_only_one_declaration_per_trick() -> None:
    game = winner_holding(["KS", "QS", "KD", "QD"])
    declare(game, 0, "common_marriage", ["KS", "QS"])
    assert game.stage == "play"  # drew at once: the other marriage waits for another trick


def test_declaring_is_optional_and_pass_draws() -> None:
    game = winner_holding(["KS", "QS"])
    assert Move("pass") in game.legal_moves(0)
    events = game.apply(0, Move("pass"))
    assert kinds(events) == ["pass", "draw", "draw"]
    assert game.stage == "play" and len(game.hands[0]) == 8


WHEN_POSSIBLE: dict[str, object] = {"declare_prompt": "when_possible"}


def test_a_winner_with_nothing_to_declare_gets_the_step_by_default() -> None:
    """Spec section 5, ``declare_prompt=always``: the step is there, ``pass`` its one move."""
    game, _ = stacked_game(2, [FILL, JUNK_2P], "9H", dealer=1)
    events = trick(game, (0, "7C"), (1, "7D"))
    assert "draw" not in kinds(events)
    assert game.stage == "declare" and game.turn == 0
    assert game.legal_moves(0) == (Move("pass"),) and game.default_move(0) == Move("pass")
    assert kinds(game.apply(0, Move("pass")))[:2] == ["pass", "draw"]
    assert game.stage == "play"


def test_a_winner_with_nothing_to_declare_is_not_asked_when_possible() -> None:
    game, _ = stacked_game(2, [FILL, JUNK_2P], "9H", dealer=1, options=WHEN_POSSIBLE)
    events = trick(game, (0, "7C"), (1, "7D"))
    assert game.stage == "play" and "draw" in kinds(events)


def test_after_a_declaration_the_step_ends_by_itself_with_always() -> None:
    """The always-prompt only hides whether a winner can declare; once he has, nothing is
    left to hide, so the draws follow at once as before."""
    game = winner_holding(["KS", "QS"])
    events = declare(game, 0, "common_marriage", ["KS", "QS"])
    assert "draw" in kinds(events) and game.stage == "play"


@pytest.mark.parametrize("options", [None, WHEN_POSSIBLE], ids=["always", "when_possible"])
def test_only_the_winner_declares(options: dict[str, object] | None) -> None:
    hands = [["7C", "8C", "9C", "JC", "8C", "9C", "7C", "AD"],
             ["KS", "QS", "7D", "8D", "9D", "7S", "8S", "9S"]]
    game, _ = stacked_game(2, hands, "9H", dealer=1, options=options)
    trick(game, (0, "7C"), (1, "7D"))
    if options is None:  # always: seat 0 won the trick and is asked, though he holds nothing
        assert game.stage == "declare" and game.legal_moves(0) == (Move("pass"),)
        game.apply(0, Move("pass"))
    assert game.stage == "play"  # seat 1 holds a marriage but lost the trick
    with pytest.raises(IllegalMoveError):
        game.apply(1, Move("declare", tuple(sorted(game.hands[1][:2])), label="common_marriage"))


def test_melded_cards_can_be_played_from_the_table() -> None:
    game = winner_holding(["KS", "QS"])
    declare(game, 0, "common_marriage", ["KS", "QS"])
    events = play(game, 0, "KS", table=True)
    assert events[-1].detail["from"] == "table"
    assert "KS" not in codes(game, game.melded[0])


# ------------------------------------------------------------------ the seven of trumps


def test_turned_up_seven_scores_the_dealer() -> None:
    game, events = stacked_game(2, [FILL, JUNK_2P], "7H", dealer=1)
    scored = [e for e in events if e.kind == "turnup_seven"]
    assert len(scored) == 1 and scored[0].seat == 1 and scored[0].amount == 10
    assert game.scores == [0, 10]


def test_exchange_seven_for_the_turnup() -> None:
    game = winner_holding(["7H"], turnup="AH")
    move = next(m for m in game.legal_moves(0) if m.kind == "exchange_seven")
    events = game.apply(0, move)
    assert events[0].kind == "exchange_seven" and events[0].amount == 10
    assert codes(game, game.hands[0]).count("AH") == 1
    assert game.lookup.code(game.turnup) == "7H"


def test_show_seven_scores_and_lies_with_the_melds() -> None:
    game = winner_holding(["7H"], turnup="AH")
    move = next(m for m in game.legal_moves(0) if m.kind == "show_seven")
    events = game.apply(0, move)
    assert events[0].amount == 10 and codes(game, game.melded[0]) == ["7H"]
    assert game.lookup.code(game.turnup) == "AH"


def test_no_exchange_once_the_turnup_is_a_seven() -> None:
    game = winner_holding(["7H"], turnup="7H")
    assert {m.kind for m in game.legal_moves(0)} == {"show_seven", "pass"}


def test_seven_is_the_tricks_declaration_by_default() -> None:
    game = winner_holding(["7H", "KS", "QS"], turnup="AH")
    exchange = next(m for m in game.legal_moves(0) if m.kind == "exchange_seven")
    game.apply(0, exchange)
    assert game.stage == "play"  # the one declaration is used: drew at once


def test_seven_not_a_declaration_option() -> None:
    game = winner_holding(["7H", "KS", "QS"], turnup="AH",
                          options={"seven_is_declaration": False})
    exchange = next(m for m in game.legal_moves(0) if m.kind == "exchange_seven")
    game.apply(0, exchange)
    assert game.stage == "declare"
    events = declare(game, 0, "common_marriage", ["KS", "QS"])
    assert points(events, 0) == 20 and game.stage == "play"


def test_seven_scores_when_played_option() -> None:
    off = winner_holding(["7H"], turnup="AH")
    off.apply(0, Move("pass"))
    assert points(play(off, 0, "7H"), 0) == 0
    on = winner_holding(["7H"], turnup="AH", options={"seven_scores_when_played": True})
    on.apply(0, Move("pass"))
    events = play(on, 0, "7H")
    assert [e.kind for e in events if e.amount] == ["seven_played"] and points(events, 0) == 10


def test_a_shown_seven_does_not_score_again_when_played() -> None:
    game = winner_holding(["7H"], turnup="AH", options={"seven_scores_when_played": True})
    game.apply(0, next(m for m in game.legal_moves(0) if m.kind == "show_seven"))
    assert points(play(game, 0, "7H", table=True), 0) == 0


def test_exchange_on_the_last_stock_trick_is_known_to_all() -> None:
    """The exchanged seven is then drawn face up by the last drawer: everyone knows he holds
    it, so the census shows it as public although it is in a hand."""
    from bezique.variants.bezique.lookup import SEVEN
    from tests.bezique.scenario import play_defaults, seeded_game

    for seed in range(60):
        game, _ = seeded_game(2, seed, {"claims": False}, first_dealer=0)
        play_defaults(game, until=lambda g: g.stage == "play" and not g.trick
                      and len(g.stock) == 1)
        if game.lookup.rank[game.turnup] == SEVEN:
            continue
        leader, other = game.turn, 1 - game.turn
        sevens = [c for c in game.lookup.ids_of(SEVEN, game.trump) if c not in game.sevens_scored]
        # put an unscored seven of trumps in the leader's hand by swapping it with a plain card
        seven = next((c for c in sevens if c in game.hands[other]), None)
        if seven is None or seven in game.hands[leader]:
            continue
        plain = next(c for c in game.hands[leader] if game.lookup.suit[c] != game.trump)
        game.hands[other][game.hands[other].index(seven)] = plain
        game.hands[leader][game.hands[leader].index(plain)] = seven
        game._legal = game._public = None
        lead = max((c for c in game.hands[leader] if c != seven),
                   key=lambda c: (game.lookup.suit[c] == game.trump, game.lookup.strength[c]))
        game.apply(leader, Move("play", (lead,)))
        losing = [m for m in game.legal_moves(other)
                  if game.lookup.suit[m.cards[0]] not in (game.trump, game.lookup.suit[lead])]
        if not losing:
            continue
        game.apply(other, losing[0])
        exchange = Move("exchange_seven", (seven,))
        assert exchange in game.legal_moves(leader)
        before = {c for p in game.census().piles if p.visible_to is None for c in p.cards}
        events = game.apply(leader, exchange)
        after = {c for p in game.census().piles if p.visible_to is None for c in p.cards}
        assert [e.kind for e in events][-2:] == ["draw", "endgame"]
        assert seven in game.hands[other] and seven in game.known
        for event in events:
            if event.visible_to is None:
                assert set(event.cards) <= before | after
        return
    pytest.fail("no seed gave a usable last stock trick")
