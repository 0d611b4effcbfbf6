"""``pip install .`` from a clean clone gives a working install, generated code included."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.helpers import ROOT
from tests.packaged.helpers import copy_checkout


def test_the_wheel_holds_the_generated_code(tmp_path: Path) -> None:
    source = copy_checkout(tmp_path / "src")
    assert not (source / "bezique" / "v1").exists()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(tmp_path / "wheel"), str(source)], check=True, timeout=600)
    (wheel,) = (tmp_path / "wheel").glob("bezique_engine-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("bezique/v1/table_service_pb2.py", "bezique/v1/table_service_pb2_grpc.py",
                   "bezique/service/server.py", "bezique/variants/bezique/plugin.py",
                   "bezique/clients/cli.py", "bezique/py.typed"):
        assert needed in names, needed
    top_level = {name.split("/")[0] for name in names if ".dist-info/" not in name}
    assert top_level == {"bezique"}, top_level
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "bezique-server = bezique.service.main:main" in text
    assert "bezique = bezique.variants.bezique.plugin" in text


def test_nothing_imports_the_folders_by_their_bare_names() -> None:
    """``service``, ``variants`` and ``clients`` are folders of the repository, importable only as
    ``bezique.service`` and so on: a bare import would load a second copy of the same module."""
    bare = re.compile(r"^\s*(from|import)\s+(service|variants|clients)\b", re.MULTILINE)
    folders = ("service", "variants", "clients", "tests", "bench", "tools", "examples")
    offenders = [str(path.relative_to(ROOT)) for folder in folders
                 for path in (ROOT / folder).rglob("*.py")
                 if "node_modules" not in path.parts and bare.search(path.read_text())]
    assert offenders == []
