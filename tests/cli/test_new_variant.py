"""``bezique new-variant`` in-process: the names it derives, the engine range it declares, and
a generated skeleton that passes the conformance kit (the clean-environment run is in
tests/packaged/test_plugin_authors.py)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bezique.clients import cli
from bezique.clients.scaffold import ScaffoldError, engine_requirement, names_of, write_package
from bezique.variants.conformance import check_variant


def test_names_follow_the_variant_id() -> None:
    names = names_of("dealers-choice")
    assert (names.dist, names.module, names.class_name, names.title) == (
        "bezique-dealers-choice", "bezique_dealers_choice", "DealersChoice", "Dealers choice")
    assert names_of("bezique-rubicon").dist == "bezique-rubicon"
    assert names_of("none").class_name == "NoneVariant"  # not the keyword None
    for bad in ("Spades", "2p", "my_game", "my--game", "-x", ""):
        with pytest.raises(ScaffoldError, match="is not a variant name"):
            names_of(bad)


def test_the_engine_range_is_the_plugin_api_promise() -> None:
    assert engine_requirement("0.1.0") == "bezique-engine>=0.1.0,<0.2"
    assert engine_requirement("0.7") == "bezique-engine>=0.7,<0.8"
    assert engine_requirement("1.4.2") == "bezique-engine>=1.4.2,<2"
    assert engine_requirement("0.2.0.dev3") == "bezique-engine"


@pytest.fixture
def generated_path() -> Iterator[list[str]]:
    """Import generated packages for one test, then forget them."""
    added: list[str] = []
    yield added
    for folder in added:
        sys.path.remove(folder)
        for name in [n for n in sys.modules if n.startswith(Path(folder).name.replace("-", "_"))]:
            del sys.modules[name]


def test_the_skeleton_passes_the_kit_even_for_a_keyword_name(
        tmp_path: Path, generated_path: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "bezique-none"
    assert cli.main(["new-variant", "none", "--directory", str(folder)]) == 0
    out = capsys.readouterr().out
    assert f"wrote {folder / 'bezique_none' / 'game.py'}" in out
    assert "pip install -e '.[test]'" in out
    sys.path.insert(0, str(folder))
    generated_path.append(str(folder))
    game = importlib.import_module("bezique_none.game")
    check_variant(game.NoneVariant(), games=1)
    assert 'none = "bezique_none.plugin"' in (folder / "pyproject.toml").read_text()


def test_an_existing_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(ScaffoldError, match="already exists and is not empty"):
        write_package("spades", tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]
