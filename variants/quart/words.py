"""Quart-Bezique's words for people: what a generic client calls its phases, events, zones,
details and moves (sent by ListVariants, see :class:`~bezique.variants.api.Vocabulary`)."""

from __future__ import annotations

from bezique.variants.api import Vocabulary

VOCABULARY = Vocabulary(
    phases={"betting": "Betting", "over": "Over"},
    events={"ante": "puts {amount} in as the ante", "deal": "is dealt",
            "dealer": "is the first dealer", "deal_start": "deals", "lot": "draws for the deal",
            "fold": "folds", "bet": "calls, putting in {amount}",
            "raise": "raises, putting in {amount}", "allin": "goes all-in with {amount}",
            "show": "shows, putting in {amount}", "reveal": "shows",
            "pot_won": "wins {amount} from the pot",
            "carry_over": "{amount} chips are carried over to the next deal",
            "sit_out": "sits the deal out (no chips for the ante)",
            "trump": "turns up the trump card", "deal_end": "the deal ends",
            "table_end": "the table ends"},
    zones={"hand": "Hand", "stock": "Stock", "trump": "Trump card",
           "muck/folded": "Folded cards", "muck/shown": "Shown cards"},
    details={"all_in": "all-in", "by": "by", "card": "card", "card_points": "card points",
             "carried": "carried pot", "combination_points": "combination points",
             "combinations": "combinations", "contribution": "in the pot",
             "deal": "deal", "dealer": "dealer", "deals": "deals", "draw": "draw",
             "hand": "hand", "has_combination": "has a combination", "level": "level",
             "points": "points", "pot": "pot", "reason": "reason", "seats": "seats",
             "stack": "stack", "stacks": "stacks", "suit": "suit", "ante": "ante",
             "bezique_cards": "bezique cards", "contributions": "in the pot",
             "folded": "folded", "in_deal": "in the deal", "max_bet": "max raise",
             "min_bet": "min raise", "players_in": "players in", "raise_range": "raise to",
             "to_call": "to call", "trump": "trumps",
             "trump_doubles_combinations": "trump doubles combinations"},
    moves={"fold": "give up this deal and what you put in",
           "bet": "call: match the level",
           "show": "match the level; the hands still in are compared",
           "raise": "lift the level; the others match it or fold",
           "allin": "put in your whole stack"},
)
