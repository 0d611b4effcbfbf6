"""Fixtures of the CLI tests: one real ``bezique-server`` subprocess on a real port, and a
helper that runs ``bezique.clients.cli.main`` in-process with its output captured (the helpers
the tests import by name are in tests/cli/helpers.py)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator

import pytest

from bezique.clients import cli
from tests.cli.helpers import BIN, Result, Run, clean_env
from tests.helpers import ROOT


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """``bezique-server`` as a subprocess; yields its address (from its "listening on" line)."""
    process = subprocess.Popen(
        [str(BIN / "bezique-server"), "--address", "127.0.0.1:0", "--store", "memory:",
         "--test-mode", "--bot-delay", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=clean_env(BEZIQUE_LOG_FORMAT="json"))
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"listening on ([\d.]+:\d+)", line)
    if match is None:
        process.kill()
        raise RuntimeError(f"bezique-server did not start: {line!r}")
    try:
        yield match.group(1)
    finally:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture
def run(server: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
        ) -> Run:
    """``run("view", table)``: the CLI against the test server, output captured."""
    for name in ("BEZIQUE_SERVER", "BEZIQUE_TOKEN", "BEZIQUE_API_KEY", "BEZIQUE_PROOF"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "200")

    def call(*argv: str, address: str | None = server) -> Result:
        capsys.readouterr()
        prefix = ["--server", address] if address else []
        code = cli.main([*prefix, *argv])
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return call
