"""Search bots: information-set Monte Carlo tree search over a variant's own rules, from
what one seat has seen (its view and its record), at three strengths."""

from __future__ import annotations

from collections.abc import Sequence

from bezique.variants.api import Move, SeatRecord, View
from bezique.variants.bezique.bots import HeuristicPolicy as BeziqueHeuristic
from bezique.variants.bezique.lookup import lookup_for
from bezique.variants.bezique.variant import BeziqueVariant
from bezique.variants.quart.bots import HeuristicPolicy as QuartHeuristic
from bezique.variants.quart.variant import QuartBezique
from bezique.variants.search.bezique import BeziqueKnowledge, distinct
from bezique.variants.search.engine import Budget, Position
from bezique.variants.search.policy import LEVEL_NAMES, SearchPolicy, levels
from bezique.variants.search.quart import QuartKnowledge
from bezique.variants.search.quart import root_moves as quart_root_moves

__all__ = ["BEZIQUE_BUDGETS", "LEVEL_NAMES", "QUART_BUDGETS", "bezique_levels", "quart_levels"]

BEZIQUE_BUDGETS = (Budget(20, 1_000), Budget(160, 7_000), Budget(640, 28_000))
"""search-easy, search, search-hard for Bezique: the tree search, playouts to the end of the
deal. The move cap binds early in a deal (long playouts), the iterations later."""
QUART_BUDGETS = (Budget(12, 1_200, max_depth=1), Budget(40, 4_000, max_depth=1),
                 Budget(160, 16_000, max_depth=1))
"""search-easy, search, search-hard for Quart-Bezique: flat Monte Carlo over the moves open
now, every move played out on each sample (the rest of the deal by the heuristic), hands
weighed by the actions seen."""


def bezique_levels(variant: BeziqueVariant) -> list[SearchPolicy]:
    """The search policies of a Bezique variant (2 or 3 players)."""
    def knowledge(view: View, record: SeatRecord) -> Position:
        return BeziqueKnowledge(variant, view, record)

    def root_moves(view: View, legal: Sequence[Move]) -> Sequence[Move]:
        zone = view.zone("melds", view.viewer)
        return distinct(legal, zone.cards if zone else (), lookup_for(variant.seats))

    return levels(BEZIQUE_BUDGETS, knowledge, BeziqueHeuristic(), root_moves,
                  what=" to the end of the deal")


def quart_levels(variant: QuartBezique) -> list[SearchPolicy]:
    """The search policies of a Quart-Bezique variant."""
    def knowledge(view: View, record: SeatRecord) -> Position:
        return QuartKnowledge(variant, view, record)

    return levels(QUART_BUDGETS, knowledge, QuartHeuristic(), quart_root_moves,
                  what=" to the end of the deal (hands weighed by the bets it saw)")
