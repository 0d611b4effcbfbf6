"""Registration through the entry point, and the variants' facts and options."""

from __future__ import annotations

import pytest

from bezique.variants.api import OptionError, RandomPolicy
from bezique.variants.bezique import plugin
from bezique.variants.bezique.variant import BEZIQUE_2P, BEZIQUE_3P, BeziqueVariant
from bezique.variants.chance import SeededChance
from bezique.variants.host import resolve_options
from bezique.variants.registry import load_registry


def test_plugin_registers_both_variants_the_heuristic_and_the_search_levels() -> None:
    registry = load_registry(entry_points=False, plugins=[plugin])
    assert {"bezique-2p", "bezique-3p"} <= set(registry.variants)
    for variant_id in ("bezique-2p", "bezique-3p"):
        policies = registry.bot_policies(variant_id)
        assert list(policies) == [RandomPolicy.name, "heuristic", "search-easy", "search",
                                  "search-hard"]
    assert plugin.bezique_bot_policies(variant_id="quart") == []


def test_the_installed_entry_point_is_this_module() -> None:
    registry = load_registry()
    assert registry.variant("bezique-2p") is BEZIQUE_2P
    assert registry.variant("bezique-3p") is BEZIQUE_3P


def test_facts() -> None:
    assert (BEZIQUE_2P.min_seats, BEZIQUE_2P.max_seats, len(BEZIQUE_2P.shoe({}))) == (2, 2, 64)
    assert (BEZIQUE_3P.min_seats, BEZIQUE_3P.max_seats, len(BEZIQUE_3P.shoe({}))) == (3, 3, 96)


@pytest.mark.parametrize(("variant", "target"), [(BEZIQUE_2P, 1000), (BEZIQUE_3P, 1500)])
def test_option_defaults(variant: object, target: int) -> None:
    options = resolve_options(variant.options, {})  # type: ignore[attr-defined]
    assert options == {
        "target": target, "direction": "counterclockwise", "deal_packets": "2-2-2-2",
        "last_trick": "final", "bezique_cards": "QS+JD", "seven_is_declaration": True,
        "seven_scores_when_played": False, "show_stock_size": False, "claims": True,
        "target_tie": "highest", "declare_prompt": "always",
    }


@pytest.mark.parametrize(("name", "value"), [
    ("target", 5), ("target", 100_001), ("target", "lots"), ("direction", "widdershins"),
    ("deal_packets", "4-4"), ("last_trick", "first"), ("bezique_cards", "QH+JS"),
    ("claims", "perhaps"), ("no_such", 1),
])
def test_bad_options_are_refused(name: str, value: object) -> None:
    with pytest.raises(OptionError) as caught:
        resolve_options(BEZIQUE_2P.options, {name: value})
    assert caught.value.option == name


@pytest.mark.parametrize("variant", [BEZIQUE_2P, BEZIQUE_3P], ids=lambda v: v.id)
def test_version_2_still_replays_version_1_logs(variant: BeziqueVariant) -> None:
    """Version 2 added ``declare_prompt``; a version 1 table's stored options lack it and
    start prompting ``when_possible`` as it did, so its log replays identically."""
    assert variant.version == 2
    assert [variant.accepts_log_version(v) for v in (0, 1, 2, 3)] == [False, True, True, False]
    stored_v1 = resolve_options(variant.options, {})
    del stored_v1["declare_prompt"]
    assert not variant.start(stored_v1, SeededChance(bytes(16)))[0].rules.declare_always
    assert variant.start(resolve_options(variant.options, {}),
                         SeededChance(bytes(16)))[0].rules.declare_always
