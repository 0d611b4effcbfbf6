"""The pinned npm packages in clients/node (the buf CLI, protoc-gen-es, TypeScript, the client's
runtime), installed with ``npm ci`` when missing or older than the lock file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NODE_DIR = ROOT / "clients" / "node"
BIN = NODE_DIR / "node_modules" / ".bin"
MARK = NODE_DIR / "node_modules" / ".package-lock.json"  # written by npm on every install
LOCK = NODE_DIR / ".build.lock"
"""Held while the install is checked, the package built or type-checked: the suite's workers
(`make test` runs two) never build in clients/node at once, nor read a half-built one."""
BUILT_BY = NODE_DIR / "node_modules" / ".bezique-test-run"
"""The test run that built the package last (npm pack leaves node_modules out)."""
TEST_RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"{os.getpid()}-{time.time()}"
"""This test run: the id pytest-xdist gives every worker of one run, or this process."""

sys.path.insert(0, str(ROOT / "tools"))
from webbundle import locked  # noqa: E402


def tool(name: str, needs: str = "Node.js >= 20 and npm") -> str:
    """A program on PATH, or a test failure saying what to install (``.ci/run`` does)."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"`{name}` is not on PATH: these tests need {needs} (.ci/run installs "
                    "them)", pytrace=False)
    return path


def node_modules() -> Path:
    """clients/node/node_modules/.bin, after ``npm ci`` if the install is missing or stale."""
    lock = NODE_DIR / "package-lock.json"
    with locked(LOCK):
        if not MARK.is_file() or MARK.stat().st_mtime < lock.stat().st_mtime:
            result = subprocess.run([tool("npm"), "ci", "--no-audit", "--no-fund"],
                                    cwd=NODE_DIR, capture_output=True, text=True, timeout=600,
                                    check=False)
            if result.returncode != 0:
                pytest.fail(f"npm ci in {NODE_DIR} failed:\n{result.stdout}\n"
                            f"{result.stderr}", pytrace=False)
    return BIN


def npm_run(script: str) -> subprocess.CompletedProcess[str]:
    """``npm run SCRIPT`` in clients/node, its output captured (under the lock)."""
    with locked(LOCK):
        return _npm_run(script)


def _npm_run(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool("npm"), "run", "--silent", script], cwd=NODE_DIR,
                          capture_output=True, text=True, timeout=600, check=False)


def built_package() -> str:
    """The node binary, with the package built as a user builds it (``npm run build``:
    generated code, then tsc into dist/) once per test run, whichever worker asks first."""
    node_modules()
    with locked(LOCK):
        if not (BUILT_BY.is_file() and BUILT_BY.read_text() == TEST_RUN):
            built = _npm_run("build")  # the lock is held (a second flock would wait)
            if built.returncode != 0:
                pytest.fail(f"npm run build failed:\n{built.stdout}\n{built.stderr}",
                            pytrace=False)
            BUILT_BY.write_text(TEST_RUN)
    return tool("node")
