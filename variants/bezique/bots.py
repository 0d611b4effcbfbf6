"""A heuristic Bezique player that sees only its own redacted view.

While the stock lasts it keeps meld material (trumps, bezique cards, kings and queens of a suit,
cards towards a four) and brisques, leads and throws its cheapest cards, takes tricks that hold
brisques or that it can take cheaply (a won trick is the right to declare), and always declares
its most valuable meld, passing when the declaration step offers nothing else (with
``declare_prompt=always``, most steps). Once the stock is gone it wins tricks as cheaply as it
can, leads aces, and claims only when its running score alone reaches the target (it cannot see
its brisques).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bezique.variants.api import Move, View
from bezique.variants.bezique.lookup import (
    ACE,
    JACK,
    KING,
    QUEEN,
    SEVEN,
    SUIT_LETTERS,
    CardLookup,
    lookup_for,
)
from bezique.variants.bezique.melds import KINDS, bezique_faces
from bezique.variants.bezique.tricks import beats, winning_index


class HeuristicPolicy:
    """Keeps meld material, declares the best meld, takes brisques, plays the endgame soundly."""

    name = "heuristic"
    description = ("Keeps meld material and brisques, declares its best meld, takes brisques, "
                   "plays the last tricks to win them cheaply.")

    def choose(self, view: View, legal: Sequence[Move], rng: random.Random) -> Move:
        if view.shoe is None or view.viewer is None:
            raise ValueError("a bot chooses from a seat's view, which names its shoe and seat")
        t = lookup_for(view.shoe.packs)
        trump = SUIT_LETTERS.index(str(view.detail.get("trump", "S")))
        me = view.viewer
        if view.phase == "declare":
            return self._declare(legal, t, trump)
        for move in legal:
            if move.kind == "claim" and view.scores[me] >= int(view.detail.get("target", 0)):
                return move
        plays = [m for m in legal if m.kind == "play"]
        trick_zone = view.zone("trick")
        trick = trick_zone.cards if trick_zone else ()
        if view.phase == "endgame":
            return self._endgame(plays, trick, t, trump)
        melds_zone = view.zone("melds", me)
        table = melds_zone.cards if melds_zone else ()
        held = [*view.hand, *table]
        bezique = bezique_faces(trump, view.detail.get("bezique") == ["QC", "JH"])
        value = {m.cards[0]: keep_value(m.cards[0], held, table, trump, t, bezique)
                 for m in plays}
        if not trick:
            return min(plays, key=lambda m: (value[m.cards[0]], m.cards[0]))
        winner = trick[winning_index(trick, trump, t)]
        stake = sum(t.points[c] for c in trick)
        winning = [m for m in plays if beats(m.cards[0], winner, trump, t)]
        if winning:
            best = min(winning, key=lambda m: (value[m.cards[0]], m.cards[0]))
            if value[best.cards[0]] <= 12 + stake:
                return best
        losing = [m for m in plays if m not in winning] or plays
        return min(losing, key=lambda m: (value[m.cards[0]], m.cards[0]))

    @staticmethod
    def _declare(legal: Sequence[Move], t: CardLookup, trump: int) -> Move:
        melds = [m for m in legal if m.kind == "declare"]
        best_meld = max(melds, key=lambda m: KINDS[m.label].points, default=None)
        if best_meld is not None and KINDS[best_meld.label].points > 10:
            return best_meld
        for kind in ("exchange_seven", "show_seven"):
            for move in legal:
                if move.kind == kind:
                    return move
        return best_meld if best_meld is not None else Move("pass")

    @staticmethod
    def _endgame(plays: Sequence[Move], trick: Sequence[int], t: CardLookup, trump: int) -> Move:
        strength, points = t.strength, t.points

        def cheap(m: Move) -> tuple[int, int, int]:
            card = m.cards[0]
            return (points[card], strength[card] + (8 if t.suit[card] == trump else 0), card)

        if not trick:
            aces = [m for m in plays if t.rank[m.cards[0]] == ACE]
            if aces:
                return min(aces, key=lambda m: (t.suit[m.cards[0]] == trump, m.cards[0]))
            return min(plays, key=cheap)
        winner = trick[winning_index(trick, trump, t)]
        winning = [m for m in plays if beats(m.cards[0], winner, trump, t)]
        if winning:
            return min(winning, key=lambda m: (strength[m.cards[0]], m.cards[0]))
        return min(plays, key=cheap)


def keep_value(card: int, held: Sequence[int], table: Sequence[int], trump: int, t: CardLookup,
               bezique: tuple[tuple[int, int], tuple[int, int]]) -> int:
    """How much a card is worth keeping while the stock lasts (higher: keep longer)."""
    rank, suit = t.rank[card], t.suit[card]
    value = t.strength[card] + t.points[card]
    if suit == trump:
        value += 8
        if rank == SEVEN:
            value += 12
    queen, jack = bezique
    is_bezique = (rank, suit) in (queen, jack)
    if is_bezique:
        value += 12
    if rank in (KING, QUEEN):
        partner = QUEEN if rank == KING else KING
        if any(t.rank[c] == partner and t.suit[c] == suit for c in held):
            value += 10 if suit == trump else 6
    if rank in (ACE, KING, QUEEN, JACK):
        value += 2 * sum(1 for c in held if t.rank[c] == rank)
    if card in table and not is_bezique and suit != trump:
        value -= 6  # declared, and no build-up left in it: its points are banked
    return value
