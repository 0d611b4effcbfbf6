"""Registers the Quart-Bezique variants and their bot policies (the heuristic, and the search
bot at three strengths) through the ``bezique`` entry points, like any third-party plugin."""

from __future__ import annotations

from collections.abc import Sequence

from bezique.variants.api import BotPolicy, Variant
from bezique.variants.hookspecs import hookimpl
from bezique.variants.quart.bots import HeuristicPolicy
from bezique.variants.quart.variant import QuartBezique, TrumpQuartBezique
from bezique.variants.search import quart_levels

VARIANT_IDS = (QuartBezique.id, TrumpQuartBezique.id)


@hookimpl
def bezique_variants() -> Sequence[Variant]:
    return [QuartBezique(), TrumpQuartBezique()]


@hookimpl
def bezique_bot_policies(variant_id: str) -> Sequence[BotPolicy]:
    for variant in (QuartBezique(), TrumpQuartBezique()):
        if variant.id == variant_id:
            return [HeuristicPolicy(), *quart_levels(variant)]
    return []
