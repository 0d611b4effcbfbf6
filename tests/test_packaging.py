"""``pip install .`` from a clean clone gives a working install, generated code included."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import ROOT


def test_the_wheel_holds_the_generated_code(tmp_path: Path) -> None:
    source = tmp_path / "src"
    skip = shutil.ignore_patterns(".venv", "node_modules", ".git", "*.egg-info", "build",
                                  "__pycache__", ".mypy_cache", ".ruff_cache", ".hypothesis")

    def ignore(folder: str, names: list[str]) -> set[str]:
        generated = {"bezique", "data"} if Path(folder) == ROOT else set()
        return set(skip(folder, names)) | (generated & set(names))

    shutil.copytree(ROOT, source, ignore=ignore)
    assert not (source / "bezique").exists()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(tmp_path / "wheel"), str(source)], check=True, timeout=600)
    (wheel,) = (tmp_path / "wheel").glob("bezique_engine-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("bezique/v1/table_service_pb2.py", "bezique/v1/table_service_pb2_grpc.py",
                   "service/server.py", "variants/bezique/plugin.py", "clients/cli.py"):
        assert needed in names, needed
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "bezique-server = service.main:main" in text
    assert "bezique = variants.bezique.plugin" in text
