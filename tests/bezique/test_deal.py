"""The deal (spec section 2): lot, shuffle, cut, packets, turn-up, rotation; and the seed's
misdeal and extra-card penalties shown impossible."""

from __future__ import annotations

import pytest

from bezique.variants.bezique.lookup import lookup_for
from bezique.variants.chance import StackedChance, stacked_shoe
from bezique.variants.host import resolve_options
from tests.bezique.scenario import FALLBACK, play_defaults, seeded_game, stack_order, variant_for


def lot_order(packs: int, first: list[str]) -> list[int]:
    """A shuffled-shoe order whose top cards have the given codes."""
    t = lookup_for(packs)
    taken: list[int] = []
    for code in first:
        taken.append(next(c for c in t.shoe.ids if t.code(c) == code and c not in taken))
    return taken + [c for c in t.shoe.ids if c not in taken]


@pytest.mark.parametrize("seats", [2, 3])
def test_lot_lowest_card_deals_and_is_shown(seats: int) -> None:
    draws = ["AS", "7H", "KD"][:seats]
    chance = StackedChance(FALLBACK, orders={"lot/1": lot_order(seats, draws)})
    variant = variant_for(seats)
    game, events = variant.start(resolve_options(variant.options, {}), chance)
    lots = [e for e in events if e.kind == "lot"]
    assert [(e.seat, e.detail["card"]) for e in lots] == list(enumerate(draws))
    assert not any(e.cards for e in lots)
    assert all(e.visible_to is None for e in lots)
    assert game.dealer == 1
    assert next(e for e in events if e.kind == "dealer").detail["by"] == "lot"


def test_lot_ties_among_the_lowest_draw_again() -> None:
    orders = {"lot/1": lot_order(3, ["7S", "AH", "7D"]), "lot/2": lot_order(3, ["9S", "8C"])}
    variant = variant_for(3)
    game, events = variant.start(resolve_options(variant.options, {}),
                                 StackedChance(FALLBACK, orders=orders))
    lots = [(e.seat, e.detail["round"]) for e in events if e.kind == "lot"]
    assert lots == [(0, 1), (1, 1), (2, 1), (0, 2), (2, 2)]  # seat 1 (the ace) is out
    assert game.dealer == 2


def test_ten_is_high_in_the_lot() -> None:
    chance = StackedChance(FALLBACK, orders={"lot/1": lot_order(2, ["TS", "KS"])})
    variant = variant_for(2)
    game, _ = variant.start(resolve_options(variant.options, {}), chance)
    assert game.dealer == 1  # the king is lower than the ten


def test_first_dealer_skips_the_lot() -> None:
    game, events = seeded_game(3, 1, first_dealer=2)
    assert game.dealer == 2 and not [e for e in events if e.kind == "lot"]


@pytest.mark.parametrize(("seats", "direction", "dealer", "cutter", "leader"), [
    (2, "counterclockwise", 0, 1, 1),
    (2, "clockwise", 1, 0, 0),
    (3, "counterclockwise", 0, 1, 2),  # the dealer's left cuts, his right leads (seed)
    (3, "clockwise", 0, 2, 1),
])
def test_cutter_and_first_leader(seats: int, direction: str, dealer: int, cutter: int,
                                 leader: int) -> None:
    game, events = seeded_game(seats, 3, {"direction": direction}, first_dealer=dealer)
    cut = [e for e in events if e.kind == "cut"]
    assert len(cut) == 1 and cut[0].seat == cutter and cut[0].visible_to is None
    assert game.turn == leader == game.leader


@pytest.mark.parametrize(("seats", "packets", "sizes"), [
    (2, "2-2-2-2", [2] * 8),
    (2, "3-2-3", [3, 3, 2, 2, 3, 3]),
    (3, "2-2-2-2", [2] * 12),
    (3, "3-2-3", [3, 3, 3, 2, 2, 2, 3, 3, 3]),
])
def test_dealing_in_packets_from_the_first_leader(seats: int, packets: str,
                                                  sizes: list[int]) -> None:
    game, events = seeded_game(seats, 4, {"deal_packets": packets}, first_dealer=0)
    deals = [e for e in events if e.kind == "deal"]
    assert [len(e.cards) for e in deals] == sizes
    first = game.rules.next_seat(0)
    assert deals[0].seat == first
    for event in deals:
        assert event.visible_to == frozenset({event.seat})
    assert all(len(hand) == 8 for hand in game.hands)


@pytest.mark.parametrize("seats", [2, 3])
def test_the_turnup_is_the_17th_or_25th_card(seats: int) -> None:
    variant = variant_for(seats)
    order = stack_order(variant, [["8C", "9C", "JC", "QC", "KC", "TC", "AC", "7S"]]
                        + [["8S", "9S", "JS", "QS", "KS", "TS", "AS", "7D"]]
                        + [["8D", "9D", "JD", "QD", "KD", "TD", "AD", "7H"]] * (seats - 2),
                        "KH")
    game, events = variant.start(resolve_options(variant.options, {}),
                                 stacked_shoe(FALLBACK, order), first_dealer=0)
    position = 16 if seats == 2 else 24
    assert game.turnup == order[position]
    assert game.lookup.code(game.turnup) == "KH" and game.trump == 1
    turnup = next(e for e in events if e.kind == "turnup")
    assert turnup.visible_to is None and turnup.detail["trump"] == "H"
    assert len(game.stock) == len(order) - position - 1
    assert game.stock[-1] == order[position + 1]  # the top of the stock is drawn first


def test_the_cut_rotates_the_shuffled_order() -> None:
    variant = variant_for(2)
    order = list(range(64))
    chance = StackedChance(FALLBACK, orders={"deal/1": order}, picks={"cut/1": 5})
    game, _ = variant.start(resolve_options(variant.options, {}), chance, first_dealer=0)
    assert game.turnup == order[5 + 16]


@pytest.mark.parametrize(("seats", "direction", "next_dealer"), [
    (2, "counterclockwise", 1), (3, "counterclockwise", 2), (3, "clockwise", 1)])
def test_the_deal_passes_in_play_order(seats: int, direction: str, next_dealer: int) -> None:
    game, _ = seeded_game(seats, 5, {"claims": False, "target": 100_000,
                                     "direction": direction}, first_dealer=0)
    events = play_defaults(game, until=lambda g: g.deal_no == 2)
    assert game.dealer == next_dealer
    dealer = [e for e in events if e.kind == "dealer"][-1]
    assert dealer.seat == next_dealer and dealer.detail == {"deal": 2, "by": "rotation"}
    assert [e.kind for e in events].index("deal_end") < [e.kind for e in events].index("shuffle")


@pytest.mark.parametrize("seats", [2, 3])
def test_no_misdeal_and_no_extra_card_is_possible(seats: int) -> None:
    """The seed's misdeal and extra-card penalties cannot arise: the server deals and draws, no
    move draws a card, and every hand holds 8 cards (with its melds) whenever a trick starts."""
    kinds: set[str] = set()
    for seed in range(6):
        game, _ = seeded_game(seats, seed, {"claims": False, "target": 300})
        while game.outcome() is None:
            if game.stage == "play" and not game.trick:
                assert all(len(game.hands[s]) + len(game.melded[s]) == 8
                           for s in range(seats))
            seat = game.to_move[0]
            legal = game.legal_moves(seat)
            kinds.update(m.kind for m in legal)
            game.apply(seat, legal[(seed * 7 + len(game.stock)) % len(legal)])
    assert kinds <= {"play", "declare", "exchange_seven", "show_seven", "pass"}
    assert "draw" not in kinds
