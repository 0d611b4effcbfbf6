"""Who wins a trick, and what a player may play to one once the stock is gone.

Both rules are the spec's section 3 and 4 verbatim: the highest trump wins, else the highest card
of the suit led; of identical cards the one played first wins (so "beating" always means strictly
higher). While the stock lasts any card may be played; afterwards a player must follow suit and
beat the winning card with that suit if he can, else trump (over-trumping a trump already played
if he can), else play anything.
"""

from __future__ import annotations

from collections.abc import Sequence

from bezique.variants.bezique.lookup import CardLookup


def winning_index(trick: Sequence[int], trump: int, t: CardLookup) -> int:
    """Index (in play order) of the card that wins ``trick`` so far."""
    suit, strength = t.suit, t.strength
    best = trick[0]
    best_index = 0
    for index in range(1, len(trick)):
        card = trick[index]
        if suit[card] == suit[best]:
            if strength[card] > strength[best]:
                best, best_index = card, index
        elif suit[card] == trump:
            best, best_index = card, index
    return best_index


def beats(card: int, winner: int, trump: int, t: CardLookup) -> bool:
    """Whether ``card`` played now would take the trick from the current ``winner`` card."""
    if t.suit[card] == t.suit[winner]:
        return t.strength[card] > t.strength[winner]
    return t.suit[card] == trump


def endgame_cards(hand: Sequence[int], trick: Sequence[int], trump: int, t: CardLookup
                  ) -> list[int]:
    """The cards of ``hand`` that may be played to ``trick`` once the stock is exhausted."""
    if not trick:
        return list(hand)
    suit, strength = t.suit, t.strength
    led = suit[trick[0]]
    winner = trick[winning_index(trick, trump, t)]
    follow = [c for c in hand if suit[c] == led]
    if follow:
        if suit[winner] == led:
            beat = [c for c in follow if strength[c] > strength[winner]]
            return beat or follow
        return follow  # a trump is winning a plain-suit trick: the suit cannot beat it
    trumps = [c for c in hand if suit[c] == trump]
    if trumps:
        if suit[winner] == trump:
            over = [c for c in trumps if strength[c] > strength[winner]]
            return over or trumps
        return trumps
    return list(hand)
