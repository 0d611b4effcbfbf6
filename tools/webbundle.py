"""The web table's bundle (clients/web/dist), built when it is missing or older than its sources.

``python tools/webbundle.py`` builds it if needed and prints its folder; the browser tests and
``make bench`` call :func:`ensure_bundle`. The build is ``npm ci`` (when node_modules is
missing or older than the lock file) and ``npm run build`` (protoc-gen-es over proto/, tsc,
esbuild). The generated code and the bundle are never committed.
"""

from __future__ import annotations

import contextlib
import fcntl
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "clients" / "web"
FAIR = ROOT / "clients" / "node" / "src" / "fair"  # the verifier the replay shares with Node
DIST = WEB / "dist"
LOCK = WEB / ".build.lock"
"""Held while the bundle is checked and built: two callers at once (the test suite's workers,
``make bench`` beside it) build it once, and neither reads a half-written bundle."""
BUILT = DIST / "index.html"  # written last by build.mjs


class BundleError(RuntimeError):
    """The bundle could not be built; the message says why and what to install."""


def _sources() -> Iterator[Path]:
    for name in ("package.json", "package-lock.json", "build.mjs", "buf.gen.yaml", "tsconfig.json"):
        yield WEB / name
    for folder in (WEB / "src", WEB / "static", FAIR):
        yield from (path for path in folder.rglob("*")
                    if path.is_file() and "gen" not in path.relative_to(folder).parts[:1])
    yield from (ROOT / "proto").rglob("*.proto")


def stale() -> bool:
    """Whether the bundle is missing or older than any of its sources."""
    if not BUILT.is_file():
        return True
    built = BUILT.stat().st_mtime
    return any(path.stat().st_mtime > built for path in _sources())


def _run(command: list[str]) -> None:
    result = subprocess.run(command, cwd=WEB, capture_output=True, text=True, timeout=600,
                            check=False)
    if result.returncode != 0:
        raise BundleError(f"`{' '.join(command)}` in {WEB} failed:\n{result.stdout}\n"
                          f"{result.stderr}")


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """``path`` locked (an advisory lock, across processes) for the block."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_bundle() -> Path:
    """clients/web/dist, built first if it is missing or stale."""
    npm = shutil.which("npm")
    if npm is None:
        raise BundleError("`npm` is not on PATH: the web table needs Node.js >= 20 and npm "
                          "(.ci/run installs them)")
    lock = WEB / "package-lock.json"
    mark = WEB / "node_modules" / ".package-lock.json"  # npm writes it on every install
    with locked(LOCK):
        if not mark.is_file() or mark.stat().st_mtime < lock.stat().st_mtime:
            _run([npm, "ci", "--no-audit", "--no-fund"])
        if stale():
            _run([npm, "run", "--silent", "build"])
    return DIST


if __name__ == "__main__":
    try:
        print(ensure_bundle())
    except BundleError as error:
        print(error, file=sys.stderr)
        sys.exit(1)
