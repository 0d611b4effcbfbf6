"""The plugin author's path end to end: ``bezique new-variant`` of the installed engine writes
a package; installed with the engine's wheel into a clean environment, its tests and
``mypy --strict`` pass there, and the installed server lists its variant in ListVariants.

A copy of examples/highcard goes into the same environment (one install of pytest and mypy for
both): it installs beside the wheel, leaves nothing in its folder for the next ``cp -r`` to
copy, and passes its own tests."""

from __future__ import annotations

import json
import shutil
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import ROOT
from tests.packaged.helpers import CleanEnv, EngineDist, InstalledServer, spawn_installed

LIST_VARIANTS = """
import json, sys
from bezique.clients.sdk import TableClient
with TableClient(sys.argv[1], retries=2) as client:
    print(json.dumps({v.id: [v.distribution, v.distribution_version, list(v.bot_policies)]
                      for v in client.list_variants()}))
"""

# Where each package was installed from, and whether it ships its py.typed marker.
TYPED = """
import importlib, importlib.resources, sys
for name in sys.argv[1:]:
    where = importlib.import_module(name).__file__.split("/lib/")[0]
    print(where, (importlib.resources.files(name) / "py.typed").is_file())
"""


@dataclass
class Authored:
    """A clean environment with the engine's wheel and the generated plugin installed."""

    env: CleanEnv
    package: Path
    example: Path
    example_files: list[Path]


@pytest.fixture(scope="module")
def authored(engine_dist: EngineDist, tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[Authored]:
    env = CleanEnv(tmp_path_factory.mktemp("clean-author"))
    env.install(str(engine_dist.wheel))
    package = env.root / "work" / "bezique-dealers-choice"
    env.run("bezique", "new-variant", "dealers-choice", "--directory", str(package))
    example = env.root / "work" / "highcard"
    shutil.copytree(ROOT / "examples" / "highcard", example,
                    ignore=shutil.ignore_patterns("__pycache__", ".mypy_cache", "*.egg-info"))
    files = sorted(path.relative_to(example) for path in example.rglob("*"))
    # Real installs (not editable), with the test extras: pytest and mypy.
    env.install(str(engine_dist.wheel), f"{package}[test]", f"{example}[test]")
    yield Authored(env, package, example, files)


def test_the_package_names_the_engine_the_entry_point_and_its_files(
        authored: Authored, engine_dist: EngineDist) -> None:
    project = tomllib.loads((authored.package / "pyproject.toml").read_text())["project"]
    assert project["name"] == "bezique-dealers-choice"
    assert project["dependencies"] == [f"bezique-engine>={engine_dist.version},<0.2"]
    assert project["entry-points"]["bezique"] == {
        "dealers-choice": "bezique_dealers_choice.plugin"}
    for name in ("README.md", ".gitignore", "bezique_dealers_choice/py.typed",
                 "bezique_dealers_choice/game.py", "tests/test_conformance.py"):
        assert (authored.package / name).is_file(), name
    installed = authored.env.run("python", "-c", TYPED, "bezique_dealers_choice",
                                 "bezique_highcard").stdout.split()
    assert installed == [str(authored.env.venv), "True"] * 2, installed


def test_its_tests_and_mypy_strict_pass_in_the_clean_environment(authored: Authored) -> None:
    # The pytest script (not ``python -m pytest``, which would put the folder on sys.path):
    # the tests import the installed package, and its entry point must be installed.
    tests = authored.env.run("pytest", "-q", "-p", "no:cacheprovider", cwd=authored.package,
                             timeout=180)
    assert "3 passed" in tests.stdout, tests.stdout
    typed = authored.env.run("mypy", "--strict", "--no-incremental", "bezique_dealers_choice",
                             "tests", cwd=authored.package, timeout=180)
    assert "Success: no issues found in 4 source files" in typed.stdout, typed.stdout


def test_the_installed_server_lists_the_new_variant(
        authored: Authored, start_installed: list[InstalledServer]) -> None:
    server = spawn_installed(authored.env, start_installed)
    listed = json.loads(authored.env.run("python", "-c", LIST_VARIANTS, server.address).stdout)
    assert listed["dealers-choice"] == ["bezique-dealers-choice", "0.1.0", ["random", "highest"]]
    assert listed["highcard"] == ["bezique-highcard", "1.0.0", ["random", "highest"]]
    assert listed["bezique-2p"][0] == "bezique-engine"


def test_a_name_that_is_not_a_variant_id_or_a_used_folder_is_one_line(authored: Authored
                                                                      ) -> None:
    bad = authored.env.run("bezique", "new-variant", "Dealers_Choice", check=False)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad
    assert "'Dealers_Choice' is not a variant name" in bad.stderr
    taken = authored.env.run("bezique", "new-variant", "other", "--directory",
                             str(authored.package), check=False)
    assert taken.returncode == 2 and "already exists and is not empty" in taken.stderr, taken


def test_the_example_installs_cleanly_and_passes_its_own_tests(authored: Authored) -> None:
    after = sorted(path.relative_to(authored.example) for path in authored.example.rglob("*"))
    assert after == authored.example_files  # no egg-info, no build/ left by the install
    tests = authored.env.run("pytest", "-q", "-p", "no:cacheprovider", cwd=authored.example,
                             timeout=180)
    assert "3 passed" in tests.stdout, tests.stdout
    typed = authored.env.run("mypy", "--strict", "--no-incremental", "bezique_highcard",
                             "tests", cwd=authored.example, timeout=180)
    assert "Success" in typed.stdout, typed.stdout
