"""The plugin module named by the ``bezique`` entry point: it only registers hooks."""

from __future__ import annotations

from collections.abc import Sequence

from bezique.variants.api import BotPolicy, Variant
from bezique.variants.hookspecs import hookimpl
from bezique_highcard.game import HighCard, HighestCardPolicy


@hookimpl
def bezique_variants() -> Sequence[Variant]:
    return [HighCard()]


@hookimpl
def bezique_bot_policies(variant_id: str) -> Sequence[BotPolicy]:
    return [HighestCardPolicy()] if variant_id == HighCard.id else []
