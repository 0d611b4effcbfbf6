"""Registers the built-in Bezique variants (2 and 3 players) and their bot policies: the
heuristic, and the search bot at three strengths."""

from __future__ import annotations

from collections.abc import Sequence

from bezique.variants.api import BotPolicy, Variant
from bezique.variants.bezique.bots import HeuristicPolicy
from bezique.variants.bezique.variant import BEZIQUE_2P, BEZIQUE_3P
from bezique.variants.hookspecs import hookimpl
from bezique.variants.search import bezique_levels

VARIANTS = (BEZIQUE_2P, BEZIQUE_3P)


@hookimpl
def bezique_variants() -> Sequence[Variant]:
    return list(VARIANTS)


@hookimpl
def bezique_bot_policies(variant_id: str) -> Sequence[BotPolicy]:
    for variant in VARIANTS:
        if variant.id == variant_id:
            return [HeuristicPolicy(), *bezique_levels(variant)]
    return []
