"""Plugin distributions installed for real, for tests of what the server does with them: each
a package with a ``bezique`` entry point, built by pip (no index, no build isolation: nothing
leaves the machine) into one private site folder that a server finds on its PYTHONPATH."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

from tests.helpers import ROOT, SERVER, ServerProcess

Log = list[dict[str, object]]


def install_plugins(root: Path, plugins: Mapping[str, tuple[str, str]]) -> Path:
    """Install ``plugins`` (distribution: (version, the plugin module's source)) into
    ``root/site``, each with the entry point named after it without ``bezique-``."""
    sources = []
    for dist, (version, code) in plugins.items():
        module = dist.replace("-", "_") + "_plugin"
        folder = root / dist
        folder.mkdir()
        (folder / f"{module}.py").write_text(textwrap.dedent(code))
        (folder / "pyproject.toml").write_text(textwrap.dedent(f"""
            [build-system]
            requires = ["setuptools"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "{dist}"
            version = "{version}"

            [tool.setuptools]
            py-modules = ["{module}"]

            [project.entry-points.bezique]
            {dist.removeprefix("bezique-")} = "{module}"
            """))
        sources.append(str(folder))
    target = root / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    "--no-build-isolation", "--target", str(target), *sources],
                   check=True, timeout=600, capture_output=True)
    return target


def environment(site: Path) -> dict[str, str]:
    """A server's environment with ``site`` on its path, JSON logs, a memory store, and no
    other ``BEZIQUE_`` setting of the caller's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BEZIQUE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    env.update(BEZIQUE_LOG_FORMAT="json", BEZIQUE_STORE="memory:")
    return env


def spawn_with_plugins(site: Path, *args: str, env: Mapping[str, str] | None = None
                       ) -> tuple[ServerProcess, Log]:
    """A server with the plugins of ``site``; it and its start-up log lines."""
    process = subprocess.Popen([SERVER, "--address", "127.0.0.1:0", *args], cwd=ROOT,
                               env={**environment(site), **(env or {})}, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    line = process.stdout.readline()
    assert "listening on" in line, process.stderr.read()
    server = ServerProcess(process, int(line.rsplit(":", 1)[1]))
    logs = []
    while True:
        record = json.loads(process.stderr.readline())
        logs.append(record)
        if record["event"] == "server_started":
            return server, logs
