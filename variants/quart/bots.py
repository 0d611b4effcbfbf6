"""A heuristic bot for both Quart-Bezique variants: bet by hand strength and position.

It reads only its own view: its four cards (scored with the same evaluator the showdown uses,
under the trump and bezique rules the view's detail publishes), the level, its contribution and
stack, and how many players are still in. A hand without a combination can never win, so it
folds unless showing is free; with a combination it sets a budget it is willing to put in by
the hand's points (looser with fewer players in), raises up to a target while below it, and
calls or shows within the budget.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bezique.variants.api import Move, View
from bezique.variants.cards import Suit
from bezique.variants.quart.evaluator import Rules, evaluate


class HeuristicPolicy:
    """Strength-and-position betting for ``quart-bezique`` and ``trump-quart-bezique``."""

    name = "heuristic"
    description = ("Folds hands that cannot win; with a combination, raises and calls within "
                   "a budget set by the hand's points and the number of players in.")

    def choose(self, view: View, legal: Sequence[Move], rng: random.Random) -> Move:
        shoe, seat, detail = view.shoe, view.viewer, view.detail
        if shoe is None or seat is None or not view.hand:
            return legal[0]
        trump = detail.get("trump")
        rules = Rules(str(detail.get("bezique_cards", "QS+JD")),
                      None if trump is None else int(Suit.from_letter(str(trump))),
                      bool(detail.get("trump_doubles_combinations", False)))
        report = evaluate(shoe, view.hand, rules)
        by_kind = {move.kind: move for move in legal}
        calls = [by_kind[k] for k in ("show", "bet") if k in by_kind]
        to_call = int(detail.get("to_call", 0))
        if not report.has_combination:
            if to_call == 0 and calls:
                return calls[0]
            return by_kind.get("fold", legal[0])
        level = int(detail.get("level", 0))
        min_bet = int(detail.get("min_bet", 1))
        contribution = int(detail["contributions"][seat])
        total = contribution + view.stacks[seat]
        players_in = int(detail.get("players_in", 2))
        strength = report.points + 2 * (4 - min(players_in, 4))  # fewer rivals: looser
        if strength >= 15:
            budget, target = total, level + 4 * min_bet
        elif strength >= 11:
            budget, target = max(total // 3, 6 * min_bet), level + 2 * min_bet
        else:
            budget, target = 3 * min_bet, min_bet
        offer = next((m for m in legal if m.kind == "raise"), None)
        span = None if offer is None else offer.amount_range
        lowest = None if offer is None else (offer.amount if span is None else span.minimum)
        can_raise = lowest is not None and lowest <= budget
        if offer is not None and can_raise and (level == 0 or level < target // 2 + min_bet) \
                and strength >= 11:
            # raise to the target, within the budget and the offered range
            goal = min(max(target, lowest or 0), budget)
            return offer if span is None else offer.with_amount(span.nearest(goal))
        if calls and level <= budget:
            return calls[0]
        if level == 0 and offer is not None and can_raise:
            return offer if span is None else offer.with_amount(span.minimum)
        if "allin" in by_kind and total <= budget:
            return by_kind["allin"]
        if calls and to_call == 0:
            return calls[0]
        return by_kind.get("fold", legal[0])
