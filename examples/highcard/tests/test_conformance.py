"""The example plugin under the engine's conformance kit, and as the server loads it."""

from __future__ import annotations

from importlib import metadata

from bezique.variants.conformance import check_variant
from bezique.variants.registry import load_registry, quick_check
from bezique_highcard import plugin
from bezique_highcard.game import HighCard


def test_highcard_passes_the_conformance_kit() -> None:
    check_variant(HighCard(), options=({}, {"players": 4, "hand_size": 8}), games=3)


def test_the_server_loads_the_plugin_and_its_bot() -> None:
    registry = load_registry(entry_points=False, plugins=[plugin])
    quick_check(registry.variants["highcard"])
    assert list(registry.bot_policies("highcard")) == ["random", "highest"]


def test_the_entry_point_is_installed() -> None:
    """Fails until the package is installed (``pip install -e '.[test]'``)."""
    names = [entry.value for entry in metadata.entry_points(group="bezique")]
    assert "bezique_highcard.plugin" in names
