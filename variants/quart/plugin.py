"""Registers the Quart-Bezique variants and their bot policy through the ``bezique`` entry
points, like any third-party plugin."""

from __future__ import annotations

from collections.abc import Sequence

from bezique.variants.api import BotPolicy, Variant
from bezique.variants.hookspecs import hookimpl
from bezique.variants.quart.bots import HeuristicPolicy
from bezique.variants.quart.variant import QuartBezique, TrumpQuartBezique

VARIANT_IDS = (QuartBezique.id, TrumpQuartBezique.id)


@hookimpl
def bezique_variants() -> Sequence[Variant]:
    return [QuartBezique(), TrumpQuartBezique()]


@hookimpl
def bezique_bot_policies(variant_id: str) -> Sequence[BotPolicy]:
    return [HeuristicPolicy()] if variant_id in VARIANT_IDS else []
