"""What each player may see (spec section 7) and the default move (section 8)."""

from __future__ import annotations

import json

import pytest

from bezique.variants.api import Move
from bezique.variants.bezique.game import BeziqueGame
from tests.bezique.scenario import declare, play_defaults, seeded_game, stacked_game, start, win


def census_visible(game: BeziqueGame, viewer: int | None) -> set[int]:
    seen: set[int] = set()
    for pile in game.census().piles:
        if pile.visible_to is None or (viewer is not None and viewer in pile.visible_to):
            seen.update(pile.cards)
    return seen


@pytest.mark.parametrize("seats", [2, 3])
def test_views_show_own_hand_and_counts_of_others(seats: int) -> None:
    game, _ = seeded_game(seats, 40, first_dealer=0)
    for viewer in [None, *range(seats)]:
        view = game.view(viewer)
        assert view.hand == (tuple(sorted(game.hands[viewer])) if viewer is not None else ())
        for seat in range(seats):
            zone = view.zone("hand", seat)
            if seat == viewer:
                assert zone is None
            else:
                assert zone is not None and zone.cards == () and zone.hidden == 8
        assert view.card_ids() <= census_visible(game, viewer)
        assert view.shoe is game.shoe and view.to_move == game.to_move
        assert view.scores == tuple(game.scores)
        assert game.lookup.code(view.zone("trump").cards[0]) == game.lookup.code(game.turnup)  # type: ignore[union-attr]


def test_no_stock_size_and_no_won_tricks_by_default() -> None:
    game, _ = seeded_game(2, 41, {"claims": False}, first_dealer=0)
    play_defaults(game, until=lambda g: g.tricks == 5 and not g.trick)
    view = game.view(0)
    assert view.zone("stock") is None and "stock_size" not in view.detail
    assert not [z for z in view.zones if z.name.startswith("won")]
    assert all(p.visible_to == frozenset() for p in game.census().piles
               if p.name.startswith("won/") or p.name == "stock")
    shown = seeded_game(2, 41, {"show_stock_size": True}, first_dealer=0)[0].view(None)
    assert shown.detail["stock_size"] == 48 and shown.zone("stock").hidden == 48  # type: ignore[union-attr]


def test_the_last_trick_is_visible_until_the_next_card_is_led() -> None:
    game, _ = seeded_game(2, 42, {"claims": False}, first_dealer=0)
    play_defaults(game, until=lambda g: g.tricks == 3 and not g.trick and g.stage == "play")
    last = game.view(None).zone("last_trick")
    assert last is not None and len(last.cards) == 2
    assert game.view(1).detail["last_trick_winner"] == game.last_winner
    seat = game.to_move[0]
    game.apply(seat, game.default_move(seat))
    assert game.view(None).zone("last_trick") is None


def test_melds_are_seen_by_everyone_and_the_trump_card_while_it_lies() -> None:
    game = start(["KH", "QH", "AH", "TH", "JH", "7C", "8C", "JC"])
    win(game, "7C")
    assert game.view(None).detail["declaration_pending"] is True
    assert game.view(1).detail["declaring"] == 0
    declare(game, 0, "royal_marriage", ["KH", "QH"])
    for viewer in (None, 0, 1):
        view = game.view(viewer)
        assert set(view.zone("melds", 0).cards) == set(game.melded[0])  # type: ignore[union-attr]
        assert view.detail["melds"] == [["royal_marriage"], []]
        assert view.detail["trump"] == "H" and view.detail["dealer"] == 1
    play_defaults(game, until=lambda g: g.stage == "endgame")
    assert game.view(None).zone("trump") is None and game.turnup == -1
    assert game.view(None).detail["trump"] == "H"


def test_melds_return_to_the_hands_at_the_first_lead_of_the_last_tricks() -> None:
    game = start(["KH", "QH", "AH", "TH", "JH", "7C", "8C", "JC"])
    win(game, "7C")
    declare(game, 0, "royal_marriage", ["KH", "QH"])
    while game.stage != "endgame":  # play from the hand only, so the marriage stays out
        seat = game.to_move[0]
        legal = [m for m in game.legal_moves(seat) if m.kind in ("play", "pass")
                 and not (m.cards and m.cards[0] in game.melded[seat])]
        game.apply(seat, min(legal, key=lambda m: game.lookup.low_key[m.cards[0]] if m.cards
                             else -1))
    melds_left = [len(t) for t in game.melded]
    seat = game.turn
    events = game.apply(seat, game.default_move(seat))
    assert sum(melds_left) > 0  # still out, and seen by all, until the first lead
    assert events[0].kind == "melds_returned" and all(not t for t in game.melded)
    assert game.view(None).zone("melds", 0).cards == ()  # type: ignore[union-attr]
    assert sum(len(h) for h in game.hands) == 15


def test_draws_are_private_except_the_turnup() -> None:
    game, _ = seeded_game(2, 43, {"claims": False}, first_dealer=0)
    events = play_defaults(game, until=lambda g: g.stage == "endgame")
    draws = [e for e in events if e.kind == "draw"]
    assert len(draws) == 48
    assert all(e.visible_to == frozenset({e.seat}) for e in draws[:-1])
    assert draws[-1].visible_to is None and draws[-1].detail == {"turnup": True}
    hidden = draws[0].redacted_for(1 - (draws[0].seat or 0))
    assert hidden.cards == () and hidden.hidden == 1


@pytest.mark.parametrize("seats", [2, 3])
def test_details_hold_no_card_ids_and_are_json(seats: int) -> None:
    game, _ = seeded_game(seats, 44, {"claims": False, "target": 300}, first_dealer=0)
    while game.outcome() is None:
        detail = game.view(None).detail
        json.dumps(dict(detail))
        assert set(detail) >= {"trump", "dealer", "deal", "leader", "melds",
                               "declaration_pending", "target"}
        seat = game.to_move[0]
        for event in game.apply(seat, game.default_move(seat)):
            json.dumps(dict(event.detail))


def test_spectator_sees_only_what_all_players_see() -> None:
    game, _ = seeded_game(3, 45, {"claims": False}, first_dealer=0)
    play_defaults(game, until=lambda g: g.tricks == 4 and len(g.trick) == 1)
    spectator = game.view(None).card_ids()
    common = census_visible(game, None)
    assert spectator <= common
    for seat in range(3):
        assert spectator <= game.view(seat).card_ids()


# ------------------------------------------------------------------ default (timeout) moves


def test_default_move_passes_on_a_declaration() -> None:
    game = start(["KH", "QH", "AH", "TH", "JH", "7C", "8C", "JC"])
    win(game, "7C")
    assert game.default_move(0) == Move("pass")


@pytest.mark.parametrize(("hand", "lowest"), [
    (["TS", "KS", "9H", "9C", "9D", "AC", "8C", "JC"], "8C"),
    (["TS", "KS", "9H", "9C", "9D", "AC", "JD", "JC"], "9H"),  # among 9s: ♥ before ♦ ♣
    (["TS", "KS", "AH", "AC", "TD", "AD", "TC", "AS"], "KS"),  # the king is below 10 and A
])
def test_default_move_is_the_lowest_card_by_trick_order_then_suit(hand: list[str],
                                                                  lowest: str) -> None:
    other = ["7S", "8S", "7H", "8H", "7D", "8D", "QD", "QC"]
    game, _ = stacked_game(2, [hand, other], "9S", dealer=1)
    assert game.lookup.code(game.default_move(0).cards[0]) == lowest


def test_default_move_in_the_endgame_never_claims() -> None:
    game, _ = seeded_game(2, 46, first_dealer=0)
    play_defaults(game, until=lambda g: g.stage == "endgame")
    assert game.default_move(game.turn).kind == "play"
