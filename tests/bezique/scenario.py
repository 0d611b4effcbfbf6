"""Test helpers: stacked shoes described by hands, scripted moves named by card codes, and the
class rule's deal (seat 0 wins trick after trick)."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from bezique.variants.api import Event, Move
from bezique.variants.bezique.game import BeziqueGame
from bezique.variants.bezique.rules import BeziqueRules
from bezique.variants.bezique.variant import BEZIQUE_2P, BEZIQUE_3P, BeziqueVariant
from bezique.variants.chance import SeededChance, stacked_shoe
from bezique.variants.host import resolve_options

FALLBACK = SeededChance(hashlib.sha256(b"bezique-tests").digest())


def variant_for(seats: int) -> BeziqueVariant:
    return BEZIQUE_2P if seats == 2 else BEZIQUE_3P


def stack_order(variant: BeziqueVariant, hands: Sequence[Sequence[str]], turnup: str,
                stock_top: Sequence[str] = (), *, dealer: int = 0,
                options: Mapping[str, object] | None = None) -> list[int]:
    """The shoe order (card ids, top first) that deals ``hands`` (one list of 8 codes per seat),
    turns up ``turnup``, and puts ``stock_top`` on top of the stock (first drawn first). The
    rest of the stock follows in canonical order."""
    resolved = resolve_options(variant.options, dict(options or {}))
    rules = BeziqueRules.from_options(variant.seats, resolved)
    shoe = variant.shoe(resolved)
    first = rules.next_seat(dealer)
    play_order = [first]
    while len(play_order) < rules.seats:
        play_order.append(rules.next_seat(play_order[-1]))
    codes: list[str] = []
    taken = [0] * rules.seats
    for size in rules.packets:
        for seat in play_order:
            codes += hands[seat][taken[seat]:taken[seat] + size]
            taken[seat] += size
    assert all(n == 8 for n in taken) and all(len(h) == 8 for h in hands), "8 cards each"
    codes += [turnup, *stock_top]
    left = Counter(card.code for card in shoe.cards)
    left.subtract(Counter(c.upper().replace("10", "T") for c in codes))
    assert all(n >= 0 for n in left.values()), f"too many copies: {+left - left}"
    for card in shoe.cards:
        if left[card.code] > 0:
            codes.append(card.code)
            left[card.code] -= 1
    return shoe.order_from_codes(codes)


def stacked_game(seats: int, hands: Sequence[Sequence[str]], turnup: str,
                 stock_top: Sequence[str] = (), *, dealer: int = 0,
                 options: Mapping[str, object] | None = None
                 ) -> tuple[BeziqueGame, tuple[Event, ...]]:
    """A game whose first deal is exactly the given one (test mode: stacked shoe, dealer)."""
    variant = variant_for(seats)
    order = stack_order(variant, hands, turnup, stock_top, dealer=dealer, options=options)
    resolved = resolve_options(variant.options, dict(options or {}))
    return variant.start(resolved, stacked_shoe(FALLBACK, order), first_dealer=dealer)


def seeded_game(seats: int, seed: int, options: Mapping[str, object] | None = None,
                first_dealer: int | None = None) -> tuple[BeziqueGame, tuple[Event, ...]]:
    variant = variant_for(seats)
    resolved = resolve_options(variant.options, dict(options or {}))
    chance = SeededChance(hashlib.sha256(f"bezique-{seed}".encode()).digest())
    return variant.start(resolved, chance, first_dealer=first_dealer)


def codes(game: BeziqueGame, cards: Iterable[int]) -> list[str]:
    return [game.lookup.code(c) for c in cards]


def holding(game: BeziqueGame, seat: int, code: str, *, table: bool = False) -> int:
    """The id of a card with ``code`` in ``seat``'s hand (or, with ``table``, its melds)."""
    place = game.melded[seat] if table else game.hands[seat]
    for card in sorted(place):
        if game.lookup.code(card) == code:
            return card
    raise AssertionError(f"seat {seat} holds no {code} in its {'melds' if table else 'hand'}: "
                         f"hand {codes(game, game.hands[seat])} "
                         f"melds {codes(game, game.melded[seat])}")


def play(game: BeziqueGame, seat: int, code: str, *, table: bool = False) -> tuple[Event, ...]:
    return game.apply(seat, Move("play", (holding(game, seat, code, table=table),)))


def trick(game: BeziqueGame, *plays: tuple[int, str]) -> tuple[Event, ...]:
    """Play one card per (seat, code); returns every event of the trick."""
    events: list[Event] = []
    for seat, code in plays:
        events += play(game, seat, code)
    return tuple(events)


def declarations(game: BeziqueGame, seat: int, label: str, wanted: Sequence[str]
                 ) -> list[Move]:
    """The legal ``declare`` moves of ``seat`` named ``label`` whose cards have these codes."""
    want = Counter(wanted)
    return [m for m in game.legal_moves(seat) if m.kind == "declare" and m.label == label
            and Counter(codes(game, m.cards)) == want]


def declare(game: BeziqueGame, seat: int, label: str, wanted: Sequence[str]
            ) -> tuple[Event, ...]:
    """Declare the one (or, among equivalents, the most table-reusing) matching meld."""
    found = declarations(game, seat, label, wanted)
    assert found, (f"{label} {wanted} is not legal; legal: "
                   f"{[(m.label, codes(game, m.cards)) for m in game.legal_moves(seat)]}")
    best = max(found, key=lambda m: sum(c in game.melded[seat] for c in m.cards))
    return game.apply(seat, best)


def points(events: Iterable[Event], seat: int | None = None) -> int:
    return sum(e.amount for e in events if seat is None or e.seat == seat)


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]


def play_defaults(game: BeziqueGame, until: object = None, limit: int = 10_000) -> list[Event]:
    """Apply default (timeout) moves until ``until(game)`` is true or the game ends; returns
    every event."""
    events: list[Event] = []
    for _ in range(limit):
        if game.outcome() is not None or (callable(until) and until(game)):
            return events
        seat = game.to_move[0]
        events += game.apply(seat, game.default_move(seat))
    raise AssertionError("play_defaults did not stop")


def card_ids(packs: int, *wanted: str) -> tuple[int, ...]:
    """Distinct card ids for codes (repeated codes take the next pack's copy)."""
    from bezique.variants.bezique.lookup import lookup_for
    from bezique.variants.cards import parse_code

    t = lookup_for(packs)
    used: Counter[str] = Counter()
    found = []
    for code in wanted:
        rank, suit = parse_code(code)
        copies = t.shoe.ids_of(rank, suit)
        found.append(copies[used[code]])
        used[code] += 1
    return tuple(found)


# ---------------------------------------------------------------------------- the class rule
# Seat 0 wins trick after trick by leading clubs the others cannot follow (a heart turned up).

SEAT1 = ["7D", "8D", "9D", "7S", "8S", "9S", "8D", "9D"]
SEAT2 = ["7D", "TD", "9D", "7S", "8S", "9S", "TS", "JS"]
DRAWS_2P = ["TC", "TS", "AC", "TS", "7C", "JS"]  # seat 0 draws clubs, seat 1 spades
DRAWS_3P = ["9C", "TS", "JS", "JC", "AS", "AS", "9C", "AS", "TS"]


def start(hand: Sequence[str], seats: int = 2, stock_top: Sequence[str] | None = None
          ) -> BeziqueGame:
    """Seat 0 holds ``hand`` and leads first; trumps are hearts."""
    hands = [list(hand), SEAT1] + [SEAT2] * (seats - 2)
    draws = stock_top if stock_top is not None else (DRAWS_2P if seats == 2 else DRAWS_3P)
    game, _ = stacked_game(seats, hands, "9H", draws, dealer=1)
    return game


def win(game: BeziqueGame, lead: str, *, table: bool = False) -> None:
    """Seat 0 leads ``lead``; the others throw a diamond and lose."""
    play(game, 0, lead, table=table)
    others = [1] if game.rules.seats == 2 else [2, 1]
    for seat in others:
        throw = next(c for c in sorted(game.hands[seat]) if game.lookup.code(c)[1] == "D")
        game.apply(seat, Move("play", (throw,)))
    assert game.last_winner == 0
