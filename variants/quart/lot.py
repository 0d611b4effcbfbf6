"""The draw for the first dealer: a chance step of its own, with public events."""

from __future__ import annotations

from bezique.variants.api import Event
from bezique.variants.cards import Shoe
from bezique.variants.chance import Chance


def draw_dealer(shoe: Shoe, seats: int, chance: Chance) -> tuple[int, list[Event]]:
    """Each candidate, in seat order, draws a card face up from the unshuffled pack; the lowest
    rank deals (9 < 10 < J < Q < K < A, suits do not matter); only the tied seats draw again.

    Each draw is a public ``lot`` event with the card's face in ``detail["card"]``.
    Draw number ``k`` picks uniformly among the cards not yet drawn with purpose ``lot/k`` (one
    purpose per draw, since ``below`` answers once per purpose).
    """
    events: list[Event] = []
    pack = list(shoe.ids)
    candidates = list(range(seats))
    draw = 0
    while True:
        drawn: dict[int, int] = {}
        for seat in candidates:
            if not pack:  # pragma: no cover - 144 cards outlast any run of ties
                pack = list(shoe.ids)
            draw += 1
            card = pack.pop(chance.below(f"lot/{draw}", len(pack)))
            drawn[seat] = card
            # a face, not an id: the card goes back into the shoe before the deal, and an id
            # on the wire always means a card in a place the viewer may see
            events.append(Event("lot", seat, detail={"draw": draw, "card": shoe.code(card)}))
        low = min(shoe[card].rank for card in drawn.values())
        candidates = [seat for seat in candidates if shoe[drawn[seat]].rank == low]
        if len(candidates) == 1:
            events.append(Event("dealer", candidates[0], detail={"by": "lot"}))
            return candidates[0], events
