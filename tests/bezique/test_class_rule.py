"""The class rule in all five points (spec section 5): seat 0 wins trick after trick by leading
clubs that the other players cannot follow, and tries each declaration in turn."""

from __future__ import annotations

import pytest

from bezique.variants.api import IllegalMoveError, Move
from tests.bezique.scenario import declarations, declare, points, start, trick, win


def test_rule1_a_card_serves_again_in_another_class() -> None:
    game = start(["KS", "QS", "JD", "QD", "QC", "QH", "7C", "8C"])
    win(game, "7C")
    assert points(declare(game, 0, "common_marriage", ["KS", "QS"]), 0) == 20
    win(game, "8C")
    found = declarations(game, 0, "bezique", ["QS", "JD"])
    assert found and all(m.cards[0] in game.melded[0] or m.cards[1] in game.melded[0]
                         for m in found)  # the married Q♠ serves the bezique
    assert points(declare(game, 0, "bezique", ["QS", "JD"]), 0) == 40
    win(game, "TC")
    assert points(declare(game, 0, "four_queens", ["QS", "QD", "QC", "QH"]), 0) == 60
    assert game.scores[0] == 120


def test_rule2_royal_marriage_builds_up_to_the_sequence() -> None:
    game = start(["KH", "QH", "AH", "TH", "JH", "7C", "8C", "JC"])
    win(game, "7C")
    assert declarations(game, 0, "sequence", ["AH", "TH", "KH", "QH", "JH"])
    assert points(declare(game, 0, "royal_marriage", ["KH", "QH"]), 0) == 40
    win(game, "8C")
    events = declare(game, 0, "sequence", ["AH", "TH", "KH", "QH", "JH"])
    declared = next(e for e in events if e.kind == "declare")
    assert declared.amount == 250 and declared.detail["upgrade"] is True
    assert game.scores[0] == 290


def test_rule2_never_the_marriage_out_of_a_declared_sequence() -> None:
    game = start(["KH", "QH", "AH", "TH", "JH", "KH", "7C", "8C"])
    win(game, "7C")
    declare(game, 0, "sequence", ["AH", "TH", "KH", "QH", "JH"])
    win(game, "8C")  # a second K♥ in the hand, the Q♥ on the table in the sequence
    assert not declarations(game, 0, "royal_marriage", ["KH", "QH"])


def test_rule2_bezique_builds_up_to_double() -> None:
    game = start(["QS", "JD", "QS", "JD", "7C", "8C", "9C", "JC"])
    win(game, "7C")
    assert declarations(game, 0, "double_bezique", ["QS", "JD", "QS", "JD"])
    declare(game, 0, "bezique", ["QS", "JD"])
    win(game, "8C")
    events = declare(game, 0, "double_bezique", ["QS", "JD", "QS", "JD"])
    assert points(events, 0) == 500 and game.scores[0] == 540


def test_rule2_bezique_double_triple_with_three_packs() -> None:
    game = start(["QS", "QS", "QS", "JD", "JD", "JD", "7C", "8C"], seats=3)
    win(game, "7C")
    declare(game, 0, "bezique", ["QS", "JD"])
    win(game, "8C")
    declare(game, 0, "double_bezique", ["QS", "JD", "QS", "JD"])
    win(game, "9C")
    events = declare(game, 0, "triple_bezique", ["QS", "QS", "QS", "JD", "JD", "JD"])
    assert points(events, 0) == 1500 and game.scores[0] == 2040
    assert game.outcome() is not None and game.outcome().winners == (0,)  # type: ignore[union-attr]


def test_rule2_never_a_single_out_of_a_declared_double() -> None:
    game = start(["QS", "QS", "QS", "JD", "JD", "7C", "8C", "JC"], seats=3)
    win(game, "7C")
    declare(game, 0, "double_bezique", ["QS", "JD", "QS", "JD"])
    win(game, "8C")  # a third Q♠ in the hand, both J♦ in the double on the table
    assert not declarations(game, 0, "bezique", ["QS", "JD"])


def test_rule3_a_broken_four_is_not_re_formed_with_a_like_card() -> None:
    game = start(["KS", "KH", "KD", "KC", "7C", "8C", "9C", "JC"], stock_top=["KS", "TS"])
    win(game, "7C")
    declare(game, 0, "four_kings", ["KS", "KH", "KD", "KC"])
    win(game, "KS", table=True)  # one king of the four is played; a new K♠ was drawn
    assert [game.lookup.code(c) for c in game.hands[0]].count("KS") == 1
    assert not declarations(game, 0, "four_kings", ["KS", "KH", "KD", "KC"])


def test_rule4_a_declaration_must_add_a_card_from_the_hand() -> None:
    game = start(["QS", "JD", "QS", "JD", "7C", "8C", "9C", "JC"])
    win(game, "7C")
    declare(game, 0, "bezique", ["QS", "JD"])
    win(game, "8C")
    on_table = [m for m in declarations(game, 0, "bezique", ["QS", "JD"])
                if all(c in game.melded[0] for c in m.cards)]
    assert not on_table  # the same bezique again: nothing from the hand
    declare(game, 0, "bezique", ["QS", "JD"])  # the second pair, as a second single
    win(game, "9C")  # two singles on the table: the double would add no card
    assert not declarations(game, 0, "double_bezique", ["QS", "JD", "QS", "JD"])
    with pytest.raises(IllegalMoveError):
        game.apply(0, Move("declare", tuple(sorted(game.melded[0])), label="double_bezique"))


def test_rule5_a_double_needs_all_its_cards_on_the_table_at_once() -> None:
    game = start(["QS", "JD", "QS", "JD", "7C", "8C", "9C", "JC"])
    win(game, "7C")
    declare(game, 0, "bezique", ["QS", "JD"])
    win(game, "QS", table=True)  # the declared Q♠ is played
    assert not declarations(game, 0, "double_bezique", ["QS", "JD", "QS", "JD"])
    pairs = declarations(game, 0, "bezique", ["QS", "JD"])
    assert pairs and all(c not in game.melded[0] for m in pairs for c in m.cards)  # only new


def test_the_class_rule_refusal_names_the_move() -> None:
    game = start(["KH", "QH", "AH", "TH", "JH", "KH", "7C", "8C"])
    win(game, "7C")
    declare(game, 0, "sequence", ["AH", "TH", "KH", "QH", "JH"])
    win(game, "8C")
    queen = next(c for c in game.melded[0] if game.lookup.code(c) == "QH")
    king = next(c for c in game.hands[0] if game.lookup.code(c) == "KH")
    with pytest.raises(IllegalMoveError, match="royal_marriage"):
        game.apply(0, Move("declare", tuple(sorted((king, queen))), label="royal_marriage"))


def test_melds_shown_to_everyone_by_name() -> None:
    game = start(["KH", "QH", "AH", "TH", "JH", "7C", "8C", "JC"])
    win(game, "7C")
    declare(game, 0, "royal_marriage", ["KH", "QH"])
    assert game.view(1).detail["melds"][0] == ["royal_marriage"]
    win(game, "8C")
    declare(game, 0, "sequence", ["AH", "TH", "KH", "QH", "JH"])
    spectator = game.view(None)
    assert spectator.detail["melds"][0] == ["sequence"]
    assert set(spectator.zone("melds", 0).cards) == set(game.melded[0])  # type: ignore[union-attr]
    trick(game, (0, "JC"))
