"""Bezique's words for people: what a generic client calls its phases, events, zones, details
and moves (sent by ListVariants, see :class:`~bezique.variants.api.Vocabulary`)."""

from __future__ import annotations

from bezique.variants.api import Vocabulary

VOCABULARY = Vocabulary(
    phases={"play": "Play", "declare": "Declaring", "endgame": "Endgame (strict play)",
            "over": "Over"},
    events={"play": "plays", "trick": "takes the trick", "deal": "is dealt", "draw": "draws",
            "declare": "declares", "pass": "passes", "dealer": "deals",
            "lot": "draws for the deal", "shuffle": "shuffles", "cut": "cuts",
            "turnup": "turns up the trump card", "claim": "claims the match",
            "exchange_seven": "exchanges the seven of trumps",
            "show_seven": "shows the seven of trumps", "brisques": "counts brisques",
            "endgame": "starts the endgame", "melds_returned": "takes back the melds",
            "deal_end": "the deal ends", "match_end": "the match ends"},
    zones={"trick": "Current trick", "last_trick": "Last trick", "trump": "Trump card",
           "melds": "Melds", "hand": "Hand", "stock": "Stock"},
    details={"by": "by", "card": "card", "class": "class", "count": "count", "deal": "deal",
             "from": "from", "packet": "packet", "reason": "reason", "right": "right",
             "round": "round", "scores": "scores", "seats": "seats", "target": "target",
             "trump": "trumps", "turnup": "turn-up", "upgrade": "upgrade",
             "winners": "winners", "bezique": "bezique cards", "dealer": "dealer",
             "declaration_pending": "declaration pending", "declaring": "declaring",
             "last_trick_winner": "last trick won by", "leader": "leads",
             "melds": "melds", "seven_exchange_open": "seven of trumps may be exchanged",
             "stock_exhausted": "stock exhausted"},
    moves={"play": "play this card to the trick",
           "declare": "meld these cards for points (they stay on the table, playable)",
           "pass": "declare nothing this time",
           "exchange_seven": "swap the seven of trumps for the turned-up trump card",
           "show_seven": "show the seven of trumps for its points",
           "claim": "claim the match: your score plus the brisques you have won this deal is "
                    "counted; at or above the target you win at once, below it you LOSE the "
                    "match at once"},
)
