"""Helpers of the packaging tests, the engine as a user gets it: the wheel built from this
checkout, installed into clean virtual environments that never see the checkout.

A clean environment is ``python -m venv --without-pip`` (the base interpreter, not this
virtual environment's packages); the test environment's own pip installs into it with
``pip --python``, which saves ensurepip's seconds. Its commands run from an empty folder, with
no PYTHONPATH and no BEZIQUE_* setting, so only what the wheels installed can be imported.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import ROOT

SKIP = shutil.ignore_patterns(".venv", ".venv-run", "node_modules", ".git", "*.egg-info", "build",
                              "dist", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache",
                              ".hypothesis", "*.sqlite*", ".doc-examples", ".build.lock")


@dataclass(frozen=True)
class EngineDist:
    """The built distribution files of the engine."""

    wheel: Path
    sdist: Path

    @property
    def version(self) -> str:
        match = re.match(r"bezique_engine-([^-]+)-", self.wheel.name)
        assert match, self.wheel.name
        return match.group(1)


def copy_checkout(target: Path) -> Path:
    """The checkout's sources without anything generated or installed (so the build makes
    bezique.v1 itself and never writes an egg-info into the real checkout), nor what the
    suite's other worker may be rebuilding meanwhile (the clients' generated code)."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = set(SKIP(folder, names))
        if Path(folder) == ROOT:
            skipped |= {"data"} & set(names)
        if Path(folder) == ROOT / "bezique":
            skipped |= {"v1"} & set(names)
        if Path(folder).parent.parent == ROOT / "clients" and Path(folder).name == "src":
            skipped |= {"gen"} & set(names)
        return skipped

    shutil.copytree(ROOT, target, ignore=ignore, symlinks=True)
    return target


def web_bundle() -> Path:
    """The web table's bundle (clients/web/dist), built by tools/webbundle.py when missing or
    stale, as ``make dist`` builds it before the wheel."""
    sys.path.insert(0, str(ROOT / "tools"))
    from webbundle import BundleError, ensure_bundle

    try:
        return Path(ensure_bundle())
    except BundleError as error:
        pytest.fail(str(error), pytrace=False)


def build_engine(work: Path, bundle: Path | None = None) -> EngineDist:
    """``python -m build`` (sdist, then the wheel from the unpacked sdist), what ``make dist``
    runs, without build isolation: the build tools are the test environment's own. ``bundle``:
    the web table's built files, put where ``make dist`` finds them (clients/web/dist)."""
    source = copy_checkout(work / "src")
    if bundle is not None:
        shutil.copytree(bundle, source / "clients" / "web" / "dist")
    out = work / "dist"
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out),
                           str(source)], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = out.glob("bezique_engine-*.whl")
    (sdist,) = out.glob("bezique_engine-*.tar.gz")
    return EngineDist(wheel, sdist)


def clean_environ(**extra: str) -> dict[str, str]:
    """The caller's environment minus everything that could lead back to the checkout or set
    the server up: PYTHONPATH, PYTHONHOME, the active virtual environment, BEZIQUE_*."""
    dropped = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTHONUSERBASE")
    env = {key: value for key, value in os.environ.items()
           if key not in dropped and not key.startswith("BEZIQUE_")}
    env.update({"PYTHONNOUSERSITE": "1", "COLUMNS": "200", "NO_COLOR": "1", **extra})
    return env


class CleanEnv:
    """A fresh virtual environment and an empty working folder to run its commands from."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.venv = root / "venv"
        self.cwd = root / "cwd"
        self.cwd.mkdir(parents=True)
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(self.venv)],
                       check=True, timeout=120, env=clean_environ())

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)

    def install(self, *requirements: str, timeout: float = 300) -> None:
        """``pip install`` into this environment (from PyPI, or the index pip is set up with)."""
        done = subprocess.run([sys.executable, "-m", "pip", "--python", self.bin("python"),
                               "install", "--quiet", "--disable-pip-version-check", "--no-compile",
                               *requirements],
                              capture_output=True, text=True, timeout=timeout, cwd=self.cwd,
                              env=clean_environ(), check=False)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    def run(self, program: str, *args: str, timeout: float = 120, cwd: Path | None = None,
            check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run one of the environment's programs (``python``, ``bezique``, ...)."""
        done = subprocess.run([self.bin(program), *args], capture_output=True, text=True,
                              timeout=timeout, cwd=cwd or self.cwd, env=clean_environ(),
                              check=False)
        if check:
            assert done.returncode == 0, (f"{program} {' '.join(args)} exited "
                                          f"{done.returncode}:\n{done.stdout[-3000:]}\n"
                                          f"{done.stderr[-3000:]}")
        return done


@dataclass
class InstalledServer:
    """``bezique-server`` of a clean environment, on a free port with the memory store."""

    process: subprocess.Popen[str]
    address: str
    http_url: str = ""
    """``http://HOST:PORT`` of the HTTP port (Connect, gRPC-Web, the web table), if served."""


def spawn_installed(env: CleanEnv, started: list[InstalledServer], *, http: bool = False
                    ) -> InstalledServer:
    """Start the environment's ``bezique-server`` and wait for its "listening on" line (with
    ``http``, also on a free HTTP port, whose line comes next)."""
    extra = ["--http-address", "127.0.0.1:0"] if http else []
    process = subprocess.Popen([env.bin("bezique-server"), "--address", "127.0.0.1:0",
                                "--store", "memory:", "--bot-delay", "0", *extra],
                               cwd=env.cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, env=clean_environ(BEZIQUE_LOG_FORMAT="json"))
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"listening on ([\d.]+:\d+)", line)
    if match is None:
        process.kill()
        process.wait(timeout=10)
        raise AssertionError(f"the installed bezique-server did not start: {line!r}")
    server = InstalledServer(process, match.group(1))
    if http:
        http_line = process.stdout.readline()
        http_match = re.search(r"on (http://[\d.]+:\d+)/", http_line)
        if http_match is None:
            process.kill()
            process.wait(timeout=10)
            raise AssertionError(f"the installed bezique-server serves no HTTP: {http_line!r}")
        server.http_url = http_match.group(1)
    started.append(server)
    return server
