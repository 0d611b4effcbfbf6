"""The hand evaluator: the seed's worked example, every worked hand of the rules, the options."""

from __future__ import annotations

from bezique.variants.cards import Suit
from bezique.variants.quart.evaluator import BEZIQUE_ANY_QJ, HandRules, evaluate
from tests.quart.helpers import SHOE, ids


def score(*codes: str, rules: HandRules | None = None) -> tuple[int, list[tuple[str, int]]]:
    report = evaluate(SHOE, ids(*codes), rules)
    return report.points, [(c.name, c.points) for c in report.combinations]


def test_seed_worked_example_ks_qs_js_jd_scores_14() -> None:
    # koronka in spades 6 + bezique 4 = 10 combination points (the marriage is inside the
    # koronka), + 4 card points
    points, combos = score("KS", "QS", "JS", "JD")
    assert points == 14
    assert sorted(combos) == [("bezique", 4), ("koronka-3", 6)]
    report = evaluate(SHOE, ids("KS", "QS", "JS", "JD"))
    assert (report.card_points, report.combination_points) == (4, 10)


def test_ks_qs_ks_qs_koronka4_beats_two_marriages_13() -> None:
    assert score("KS", "QS", "KS", "QS") == (13, [("koronka-4", 9)])


def test_qs_qs_jd_jd_two_beziques_13() -> None:
    assert score("QS", "QS", "JD", "JD") == (13, [("two-beziques", 9)])


def test_four_kings_of_spades_four_kings_plus_koronka4_21() -> None:
    points, combos = score("KS", "KS", "KS", "KS")
    assert points == 21
    assert sorted(combos) == [("four-kings", 8), ("koronka-4", 9)]


def test_three_nines_6() -> None:
    assert score("9H", "9C", "9D", "AS") == (6, [("three-of-a-kind", 6)])


def test_no_combination_cannot_win_points_2() -> None:
    report = evaluate(SHOE, ids("AS", "9H", "TD", "KC"))
    assert report.points == 2
    assert not report.has_combination


def test_four_of_another_rank_9_and_marriage() -> None:
    assert score("TS", "TH", "TD", "TC")[1] == [("four-of-a-kind", 9)]
    assert score("KH", "QH", "AS", "9C") == (6, [("marriage", 4)])
    assert score("KH", "QS", "AS", "9C") == (2, [])  # king and queen of different suits


def test_two_marriages_of_different_suits_8() -> None:
    assert score("KH", "QH", "KC", "QC") == (12, [("marriage", 4), ("marriage", 4)])


def test_classes_add_three_queens_and_bezique() -> None:
    # same rank: three queens 6; bezique Q♠ J♦ 4; card points 4
    points, combos = score("QS", "QH", "QC", "JD")
    assert points == 14
    assert sorted(combos) == [("bezique", 4), ("three-of-a-kind", 6)]


def test_bezique_cards_default_is_queen_of_spades_with_jack_of_diamonds() -> None:
    assert score("QH", "JC", "AS", "9D") == (2, [])
    assert score("QS", "JD", "AH", "9C") == (6, [("bezique", 4)])


def test_bezique_cards_any_qj() -> None:
    rules = HandRules(BEZIQUE_ANY_QJ)
    assert score("QH", "JC", "AS", "9D", rules=rules) == (6, [("bezique", 4)])
    assert score("QH", "JC", "QD", "JS", rules=rules) == (13, [("two-beziques", 9)])
    # the seed's hand is still 14: Q♠ can make only one bezique
    assert score("KS", "QS", "JS", "JD", rules=rules)[0] == 14


def test_trump_doubles_card_points_only() -> None:
    hearts = HandRules(trump=int(Suit.HEARTS))
    # K♥ Q♥ of trumps: 2 + 2 card points, marriage 4 unchanged
    assert score("KH", "QH", "AS", "9C", rules=hearts) == (8, [("marriage", 4)])
    assert score("TH", "JH", "AS", "9C", rules=hearts)[0] == 4
    assert score("AH", "9H", "AS", "9C", rules=hearts)[0] == 0  # fat stays fat


def test_trump_doubles_combinations_option_doubles_all_trump_combinations() -> None:
    hearts = HandRules(trump=int(Suit.HEARTS), trump_doubles_combinations=True)
    assert score("KH", "QH", "AS", "9C", rules=hearts) == (12, [("marriage", 8)])
    # the bezique is not all trumps: unchanged
    assert score("QS", "JD", "AH", "9C", rules=hearts) == (6, [("bezique", 4)])
