"""The conformance kit, for both variants and several option sets."""

from __future__ import annotations

import pytest

from bezique.variants.api import Options
from bezique.variants.bezique.variant import BEZIQUE_2P, BEZIQUE_3P, BeziqueVariant
from bezique.variants.conformance import check_variant

OPTION_SETS: tuple[Options, ...] = (
    {},  # defaults: random play ends the match by a claim in the first deal
    {"claims": False, "target": 300},  # short matches of a few deals
    {"claims": False, "target": 250, "direction": "clockwise", "deal_packets": "3-2-3",
     "last_trick": "last_of_stock", "bezique_cards": "trump_dependent",
     "seven_is_declaration": False, "seven_scores_when_played": True,
     "show_stock_size": True, "target_tie": "another_deal"},
)


@pytest.mark.parametrize("variant", [BEZIQUE_2P, BEZIQUE_3P], ids=lambda v: v.id)
def test_conformance(variant: BeziqueVariant) -> None:
    check_variant(variant, options=OPTION_SETS, games=2)
