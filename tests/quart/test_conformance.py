"""Both variants pass the conformance kit, with short sessions of 2, 4 and 6 players."""

from __future__ import annotations

import pytest

from bezique.variants.api import Options, Variant
from bezique.variants.conformance import check_variant
from tests.quart.helpers import QUART, TRUMP

OPTION_SETS = (
    {"deals": 6},
    {"players": 2, "deals": 8, "no_combination": "split"},
    {"players": 6, "deals": 4, "multiway_showdown": False, "bezique_cards": "any_QJ"},
    {"players": 3, "deals": 5, "max_bet": 30, "min_bet": 5, "ante": 5, "starting_stack": 60},
)


@pytest.mark.parametrize("variant", [QUART, TRUMP], ids=lambda v: v.id)
def test_conformance_kit(variant: Variant) -> None:
    check_variant(variant, options=OPTION_SETS, games=3)


def test_trump_variant_conformance_with_doubled_combinations() -> None:
    check_variant(TRUMP, options=({"deals": 5, "trump_doubles_combinations": True},), games=2)


def test_plugin_registers_both_variants_the_heuristic_and_the_search_levels() -> None:
    from bezique.variants.quart import plugin
    from bezique.variants.registry import load_registry

    registry = load_registry(entry_points=False, plugins=[plugin])
    assert set(registry.variants) == {"quart-bezique", "trump-quart-bezique"}
    for variant_id in registry.variants:
        assert list(registry.bot_policies(variant_id)) == [
            "random", "heuristic", "search-easy", "search", "search-hard"]


def test_the_kit_catches_options_accepted_at_creation_that_cannot_start() -> None:
    """Without its ``check_options``, Quart would accept an ante above the starting stack (or
    a buy-in range that is empty) at creation and refuse to start when the last seat is taken
    (or take no buy-in): the kit says so."""
    from bezique.variants.conformance import ConformanceError, check_accepted_options_start
    from bezique.variants.quart.variant import QuartBezique

    class Unchecked(QuartBezique):
        def check_options(self, options: Options) -> None:
            return None

    check_accepted_options_start(QUART)
    with pytest.raises(ConformanceError, match="were accepted but"):
        check_accepted_options_start(Unchecked())
