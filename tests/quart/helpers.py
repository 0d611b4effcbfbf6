"""Shared helpers for the Quart-Bezique tests: stacked deals and hands by card code, and the
betting rules stated apart from the code."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from bezique.variants.api import Event, Move
from bezique.variants.cards import Shoe, parse_code, short_shoe
from bezique.variants.chance import SeededChance, StackedChance
from bezique.variants.host import resolve_options
from bezique.variants.quart.betting import Betting
from bezique.variants.quart.game import QuartGame
from bezique.variants.quart.variant import QuartBezique, TrumpQuartBezique

SHOE = short_shoe(6)
QUART = QuartBezique()
TRUMP = TrumpQuartBezique()


def ids(*codes: str, shoe: Shoe = SHOE, taken: set[int] | None = None) -> list[int]:
    """Card ids for codes, each copy distinct (the lowest unused pack first)."""
    used = taken if taken is not None else set()
    result = []
    for code in codes:
        card = next(c for c in shoe.ids_of(*parse_code(code)) if c not in used)
        used.add(card)
        result.append(card)
    return result


def stacked_order(dealer: int, seats: int, hands: Mapping[int, Sequence[str]],
                  stock_top: Sequence[str] = (), players: Sequence[int] | None = None
                  ) -> list[int]:
    """A whole-shoe order that deals ``hands`` (seat -> 4 codes; unnamed seats get filler)
    one card at a time clockwise from the dealer's left, with ``stock_top`` next."""
    order_seats = [s for s in ((dealer + i) % seats for i in range(1, seats + 1))
                   if players is None or s in players]
    taken: set[int] = set()
    named = {seat: ids(*codes, taken=taken) for seat, codes in hands.items()}
    top = ids(*stock_top, taken=taken)
    # filler: aces and nines of mixed suits, no combination among four of them
    filler_codes = ["AS", "9H", "AD", "9C"]
    for seat in order_seats:
        if seat not in named:
            named[seat] = ids(*filler_codes, taken=taken)
    dealt = [named[order_seats[i % len(order_seats)]][i // len(order_seats)]
             for i in range(4 * len(order_seats))]
    rest = [c for c in SHOE.ids if c not in taken]
    return dealt + top + rest


def seed(n: int = 0) -> bytes:
    return hashlib.sha256(f"quart-test-{n}".encode()).digest()


def stacked_game(options: Mapping[str, Any], dealer: int, hands: Mapping[int, Sequence[str]],
                 *, trump: bool = False, stock_top: Sequence[str] = (),
                 later: Mapping[int, Mapping[int, Sequence[str]]] | None = None,
                 stacks: Sequence[int] | None = None) -> tuple[QuartGame, tuple[Event, ...]]:
    """A game whose first dealer is ``dealer`` and whose deal 1 deals ``hands``; ``later``
    stacks later deals (deal number -> hands), the dealer moving one seat each deal."""
    variant = TRUMP if trump else QUART
    resolved = resolve_options(variant.options, dict(options))
    seats = variant.seat_count(resolved)
    players = None if stacks is None else [s for s in range(seats)
                                           if stacks[s] >= int(resolved["ante"])]
    orders = {"deal/1": stacked_order(dealer, seats, hands, stock_top, players)}
    for number, more in (later or {}).items():
        orders[f"deal/{number}"] = stacked_order((dealer + number - 1) % seats, seats, more)
    chance = StackedChance(SeededChance(seed()), orders=orders)
    rules = variant.table_rules(resolved)
    return QuartGame.begin(variant.shoe(resolved), rules, chance, dealer, stacks)


def play(game: QuartGame, *moves: tuple[int, Move]) -> list[Event]:
    """Apply moves in order; return all their events."""
    events: list[Event] = []
    for seat, move in moves:
        events += game.apply(seat, move)
    return events


def kinds(events: Sequence[Event], kind: str) -> list[Event]:
    return [e for e in events if e.kind == kind]


FOLD, BET, SHOW, ALLIN = Move("fold"), Move("bet"), Move("show"), Move("allin")


def RAISE(level: int) -> Move:
    return Move("raise", amount=level)


def check_session_end(reason: str, stacks: Sequence[int], options: Mapping[str, object],
                      deals: int) -> None:
    """What holds at the end of every session, whatever the cards and the players did: no chip
    made or lost, at most the agreed deals, and fewer only when fewer than two seats can pay
    the ante. (Bots choose at random, so a session may end after a single deal.)"""
    assert reason
    text = {name: str(value).lower() for name, value in options.items()}
    assert sum(stacks) == int(text["starting_stack"]) * int(text["players"]), stacks
    planned = None if text["deals"] == "none" else int(text["deals"])
    payers = sum(1 for stack in stacks if stack >= int(text["ante"]))
    assert deals >= 1 and (planned is None or deals <= planned), (deals, planned)
    if planned is None or deals < planned:
        assert payers < 2, (reason, stacks, deals)


Stated = tuple[bool, bool, tuple[int, int] | None, bool]
"""bet, show, the raise range (or None) and all-in: what a seat may do besides fold."""


def rules_as_written(betting: Betting, seat: int) -> Stated:
    """The betting rules as written (bezique/variants/quart/betting.py's docstring), stated
    apart from the code: what ``seat`` may do besides fold (bet, show, raise range, all-in)."""
    level, min_bet, max_bet = betting.level, betting.min_bet, betting.max_bet
    players_in = [s for s in betting.order if not betting.folded[s]]
    can_still_act = [s for s in players_in if s != seat and not betting.all_in[s]]
    stack, call = betting.stacks[seat], level - betting.contrib[seat]
    whole = betting.contrib[seat] + stack  # the level the whole stack reaches
    bet = len(players_in) >= 3 and call > 0 and stack >= call
    show = len(players_in) == 2 and level > 0 and stack >= call
    raise_range = None
    top = whole if max_bet is None else min(whole, level + max_bet)
    if can_still_act and top >= level + min_bet:
        raise_range = (level + min_bet, top)
    short_call = whole < level
    short_raise = level < whole < level + min_bet and bool(can_still_act)
    return bet, show, raise_range, stack > 0 and (short_call or short_raise)
