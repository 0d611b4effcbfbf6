"""What each viewer may see (spec section 7), and the full census for audits.

Seen by all: every player's melds on the table, the trump card while it lies there, the trick in
progress, the last completed trick until the next card is led, the scores. Seen by the owner
only: the hand. Seen by nobody: the stock (not even its size, unless ``show_stock_size``) and the
contents of won tricks. The public part of a view (:class:`~bezique.variants.api.Public`) is
built once per state and shared.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from bezique.variants.api import HAND, Census, Pile, Public, View, Zone
from bezique.variants.bezique.lookup import SUIT_LETTERS

if TYPE_CHECKING:
    from bezique.variants.bezique.game import BeziqueGame

NOBODY: frozenset[int] = frozenset()


def public_part(game: BeziqueGame) -> Public:
    """What every viewer sees of ``game`` now: every hand's size, the melds, the trump card,
    the tricks on the table, the scores and the public details."""
    rules, t = game.rules, game.lookup
    seats = range(rules.seats)
    zones = [Zone("melds", seat, tuple(game.melded[seat])) for seat in seats]
    if game.turnup >= 0:
        zones.append(Zone("trump", None, (game.turnup,)))
    zones.append(Zone("trick", None, tuple(game.trick)))
    if game.last:
        zones.append(Zone("last_trick", None, game.last))
    queen, jack = game.bezique
    detail: dict[str, Any] = {
        "deal": game.deal_no, "dealer": game.dealer, "leader": game.leader,
        "trump": SUIT_LETTERS[game.trump], "target": rules.target,
        "bezique": [f"{'789TJQKA'[queen[0] - 7]}{SUIT_LETTERS[queen[1]]}",
                    f"{'789TJQKA'[jack[0] - 7]}{SUIT_LETTERS[jack[1]]}"],
        "trick_seats": list(game.trick_seats),
        "last_trick_seats": list(game.last_seats),
        "last_trick_winner": game.last_winner if game.last else None,
        "melds": [list(names) for names in game.meld_names()],
        "declaration_pending": game.stage == "declare",
        "declaring": game.turn if game.stage == "declare" else None,
        "stock_exhausted": not game.stock and game.turnup < 0,
        "seven_exchange_open": game.turnup >= 0 and t.rank[game.turnup] != 7,
    }
    if rules.show_stock_size:
        size = len(game.stock) + (game.turnup >= 0)
        zones.append(Zone("stock", None, (), size))
        detail["stock_size"] = size
    hands = tuple([Zone(HAND, seat, (), len(hand)) for seat, hand in enumerate(game.hands)])
    return Public(hands, tuple(zones), scores=tuple(game.scores),
                  detail=MappingProxyType(detail))


def view_for(game: BeziqueGame, viewer: int | None, public: Public) -> View:
    """``viewer``'s view: its own hand (sorted), the other hands as counts, then the public
    zones."""
    hand = tuple(sorted(game.hands[viewer])) if viewer is not None else ()
    return public.view_for(viewer, game.phase, game.to_move, hand, game.lookup.shoe)


def census_of(game: BeziqueGame) -> Census:
    """Every card's place. Won tricks are seen by nobody. Public although held: a card everyone
    saw go into a hand (the turn-up, drawn or exchanged; pile ``known/<seat>``), and the one card
    still held in the final trick (every other card has been face up, so it is known)."""
    held = sum(len(hand) for hand in game.hands)
    last_card_known = held == 1 and game.stage == "endgame"
    piles = [Pile("stock", tuple(game.stock), NOBODY)]
    if game.turnup >= 0:
        piles.append(Pile("trump", (game.turnup,)))
    known = game.known
    for seat in range(game.rules.seats):
        hand = game.hands[seat]
        piles.append(Pile(f"hand/{seat}", tuple(c for c in hand if c not in known),
                          None if last_card_known else frozenset({seat})))
        piles.append(Pile(f"known/{seat}", tuple(c for c in hand if c in known)))
        piles.append(Pile(f"melds/{seat}", tuple(game.melded[seat])))
        piles.append(Pile(f"won/{seat}", tuple(c for c in game.won[seat] if c not in game.last),
                          NOBODY))
    piles.append(Pile("trick", tuple(game.trick)))
    piles.append(Pile("last_trick", game.last))
    return Census(tuple(piles))
