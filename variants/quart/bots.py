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
from bezique.variants.quart.evaluator import HandRules, evaluate


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
        rules = HandRules(str(detail.get("bezique_cards", "QS+JD")),
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
        raises = [m for m in legal if m.kind == "raise"]
        affordable = _raise_up_to(raises, budget)
        if affordable is not None and (level == 0 or level < target // 2 + min_bet) \
                and strength >= 11:
            # raise to the target, within the budget and what is offered
            return _raise_up_to(raises, min(target, budget)) or _lowest(raises)
        if calls and level <= budget:
            return calls[0]
        if level == 0 and affordable is not None:
            return _lowest(raises)
        if "allin" in by_kind and total <= budget:
            return by_kind["allin"]
        if calls and to_call == 0:
            return calls[0]
        return by_kind.get("fold", legal[0])


def _raise_up_to(raises: Sequence[Move], cap: int) -> Move | None:
    """The highest raise offered at or below ``cap`` (an offer with a range: its allowed amount
    nearest ``cap``), or None when every offer starts above it. One offer with a range
    (version 2) and a ladder of fixed levels (a version 1 table) are served alike: the bot
    chooses on a version 1 table exactly as version 1's bot did."""
    best: Move | None = None
    for offer in raises:
        span = offer.amount_range
        if (offer.amount if span is None else span.minimum) > cap:
            continue
        move = offer if span is None else offer.with_amount(span.nearest(cap))
        if best is None or move.amount > best.amount:
            best = move
    return best


def _lowest(raises: Sequence[Move]) -> Move:
    """The lowest raise offered (``raises`` is not empty)."""
    moves = [m if m.amount_range is None else m.with_amount(m.amount_range.minimum)
             for m in raises]
    return min(moves, key=lambda move: move.amount)
