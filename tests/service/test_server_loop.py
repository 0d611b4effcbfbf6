"""The server's process runs on uvloop, with grpc's classic listener unless told otherwise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, SERVER


def test_the_entry_point_imports_no_grpc_before_it_sets_the_experiments() -> None:
    """grpc reads GRPC_EXPERIMENTS when it is imported: main() sets the default first, which
    only works while importing the entry point's module leaves grpc unimported."""
    code = ("import sys, bezique.service.main as m; "
            "print(sorted(n for n in sys.modules if n == 'grpc' or n.startswith('grpc.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_a_server_process_runs_on_uvloop(tmp_path: Path) -> None:
    pytest.importorskip("uvloop")  # a dependency wherever uvloop is built (not Windows)
    errors = tmp_path / "server.err"
    with errors.open("w") as err:
        process = subprocess.Popen(
            [SERVER, "--address", "127.0.0.1:0", "--store", "memory:", "--log-level", "info"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True,
            env={**os.environ, "BEZIQUE_LOG_FORMAT": "json"})
    try:
        assert process.stdout is not None
        assert "listening on" in process.stdout.readline()
    finally:
        process.terminate()
        process.wait(timeout=30)
    started = [json.loads(line) for line in errors.read_text().splitlines()
               if '"server_started"' in line]
    assert [line["event_loop"] for line in started] == ["uvloop"]
