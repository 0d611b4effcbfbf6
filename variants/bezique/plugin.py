"""Registers the built-in Bezique variants (2 and 3 players) and their bot policy."""

from __future__ import annotations

from collections.abc import Sequence

from bezique.variants.api import BotPolicy, Variant
from bezique.variants.bezique.bots import HeuristicPolicy
from bezique.variants.bezique.variant import BEZIQUE_2P, BEZIQUE_3P
from bezique.variants.hookspecs import hookimpl

VARIANTS = (BEZIQUE_2P, BEZIQUE_3P)


@hookimpl
def bezique_variants() -> Sequence[Variant]:
    return list(VARIANTS)


@hookimpl
def bezique_bot_policies(variant_id: str) -> Sequence[BotPolicy]:
    if variant_id in {variant.id for variant in VARIANTS}:
        return [HeuristicPolicy()]
    return []
