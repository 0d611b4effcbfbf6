"""The registry's own isolation rules, in process: strict for plugins handed in, observers
told one by one, names compared as packaging does."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata

import pytest

from bezique.variants.api import Event, RandomPolicy
from bezique.variants.hookspecs import hookimpl
from bezique.variants.registry import (
    ClaimConflict,
    load_registry,
    normalize,
    origin_of_module,
    quick_check,
)
from bezique_highcard import plugin as highcard_plugin
from bezique_highcard.game import HighCard


def test_a_plugin_handed_in_that_raises_still_raises() -> None:
    class Raising:
        @hookimpl
        def bezique_variants(self) -> Sequence[object]:
            raise RuntimeError("own code: the caller should see it")

    with pytest.raises(RuntimeError, match="own code"):
        load_registry(entry_points=False, plugins=[Raising()])


def test_one_raising_observer_does_not_silence_the_others() -> None:
    heard: list[int] = []

    class Loud:
        @hookimpl
        def bezique_table_events(self, version: int) -> None:  # fewer arguments: allowed
            raise ValueError("observer broke")

    class Quiet:
        @hookimpl
        def bezique_table_events(self, table_id: str, variant_id: str, version: int,
                                 events: Sequence[Event]) -> None:
            heard.append(version)

    registry = load_registry(entry_points=False, plugins=[highcard_plugin, Loud(), Quiet()])
    with pytest.raises(ValueError, match="observer broke"):
        registry.notify_events("t", "highcard", 7, [])
    assert heard == [7]


def test_variants_handed_in_name_the_distribution_of_their_module() -> None:
    registry = load_registry(entry_points=False, plugins=[highcard_plugin])
    assert registry.origins["highcard"].name == "bezique-highcard"
    assert registry.excluded == []


def test_a_plugin_installed_editable_by_hatchling_is_named_by_its_entry_point(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """hatchling's editable install lists no package files (packages_distributions maps
    nothing): the distribution whose ``bezique`` entry point lives in the package names it."""
    monkeypatch.setattr(metadata, "packages_distributions", dict)
    assert origin_of_module("bezique_highcard.plugin").name == "bezique-highcard"
    assert origin_of_module("not_a_plugin.module").name == ""


def test_installed_variants_pass_the_quick_check() -> None:
    registry = load_registry()
    assert registry.excluded == []
    for variant in registry.variants.values():
        quick_check(variant)
    assert {o.name for o in registry.origins.values()} >= {"bezique-engine", "bezique-highcard"}


def test_distribution_names_compare_as_packaging_does() -> None:
    assert normalize("Bezique_High.Card") == normalize("bezique-high-card") == "bezique-high-card"
    only_engine = load_registry(allow=["Bezique_Engine"])
    assert "highcard" not in only_engine.variants and "bezique-2p" in only_engine.variants
    without = load_registry(deny=["bezique.highcard"])
    assert "highcard" not in without.variants


def test_an_allowed_distribution_that_is_not_installed_is_reported() -> None:
    registry = load_registry(allow=["bezique-engine", "bezique-no-such-dist"])
    assert registry.not_installed == ["bezique-no-such-dist"]
    assert "bezique-2p" in registry.variants


def test_two_plugins_handed_in_that_claim_one_name_raise_a_claim_conflict() -> None:
    class Again:
        @hookimpl
        def bezique_variants(self) -> Sequence[HighCard]:
            return [HighCard()]

    class Twice:
        @hookimpl
        def bezique_bot_policies(self, variant_id: str) -> Sequence[RandomPolicy]:
            return [RandomPolicy(), RandomPolicy()]

    with pytest.raises(ClaimConflict, match="variant id 'highcard' is claimed by both "
                                            "bezique-highcard") as raised:
        load_registry(entry_points=False, plugins=[highcard_plugin, Again()])
    assert [origin.name for origin in raised.value.claimants] == ["bezique-highcard"] * 2
    with pytest.raises(ValueError, match="returns a policy name twice for 'highcard'"):
        load_registry(entry_points=False, plugins=[highcard_plugin, Twice()])
