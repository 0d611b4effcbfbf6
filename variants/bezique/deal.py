"""The chance steps of Bezique: the lot for the first dealer, and each deal's shuffle, cut and
dealing in packets (spec section 2). Pure functions of the injected :class:`Chance`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bezique.variants.api import Event
from bezique.variants.bezique.lookup import SUIT_LETTERS, CardLookup
from bezique.variants.chance import Chance

MAX_LOT_ROUNDS = 64
"""A lot tied this often (never, with a fair source) is settled for the lowest seat tied."""


def draw_lot(chance: Chance, seats: int, t: CardLookup) -> tuple[int, list[Event]]:
    """Each contender gets one card of a freshly shuffled shoe (purpose ``lot/N``); the lowest by
    trick order deals, and players tied for lowest draw again. Every card drawn is public, as a
    face in ``detail["card"]``."""
    contenders = list(range(seats))
    events: list[Event] = []
    for round_no in range(1, MAX_LOT_ROUNDS + 1):
        order = chance.shuffled(f"lot/{round_no}", list(t.shoe.ids))
        drawn = dict(zip(contenders, order, strict=False))
        for seat in contenders:
            # a face, not an id: the lot's cards go back before the deal's shuffle, and an id
            # on the wire always means a card in a place the viewer may see
            events.append(Event("lot", seat, detail={"round": round_no,
                                                     "card": t.code(drawn[seat])}))
        low = min(t.strength[card] for card in drawn.values())
        contenders = [seat for seat in contenders if t.strength[drawn[seat]] == low]
        if len(contenders) == 1:
            break
    return contenders[0], events


@dataclass(slots=True)
class Dealt:
    """One deal's cards: the hands, the turn-up, and the stock with its top card last."""

    hands: list[list[int]]
    turnup: int
    stock: list[int]
    events: list[Event]


def deal_cards(chance: Chance, deal_no: int, dealer: int, cutter: int,
               play_order: Sequence[int], packets: Sequence[int], t: CardLookup) -> Dealt:
    """Shuffle (``deal/N``), cut (``cut/N``: the cut moves the top ``k`` cards to the bottom),
    deal ``packets`` to each player in play order from the first leader, turn up the next card.
    """
    order = chance.shuffled(f"deal/{deal_no}", list(t.shoe.ids))
    cut = chance.below(f"cut/{deal_no}", len(order))
    order = order[cut:] + order[:cut]
    events = [Event("shuffle", dealer, detail={"deal": deal_no}),
              Event("cut", cutter, detail={"deal": deal_no})]
    hands: list[list[int]] = [[] for _ in play_order]
    position = 0
    for packet_no, size in enumerate(packets, start=1):
        for seat in play_order:
            cards = order[position:position + size]
            position += size
            hands[seat].extend(cards)
            events.append(Event("deal", seat, tuple(cards), visible_to=frozenset({seat}),
                                detail={"packet": packet_no}))
    turnup = order[position]
    events.append(Event("turnup", dealer, (turnup,),
                        detail={"trump": SUIT_LETTERS[t.suit[turnup]]}))
    stock = order[position + 1:]
    stock.reverse()
    return Dealt(hands, turnup, stock, events)
