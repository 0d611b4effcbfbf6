"""The server's process runs on uvloop, with grpc's classic listener unless told otherwise."""

from __future__ import annotations

import json
import os
import re
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc
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


def leave_with_goaway(port: int) -> None:
    """An HTTP/2 client that leaves as Node's does: the preface, its SETTINGS, then GOAWAY
    with error code 8 (CANCEL), which grpc core logs at INFO (``Got goaway [8]``)."""
    settings = struct.pack(">I", 0)[1:] + bytes([4, 0]) + struct.pack(">I", 0)
    goaway = struct.pack(">I", 8)[1:] + bytes([7, 0]) + struct.pack(">III", 0, 0, 8)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as peer:
        peer.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + settings + goaway)
        peer.recv(1024)  # the server's SETTINGS: it has read ours


def grpc_core_lines(env: dict[str, str], tmp_path: Path, wait: float) -> list[str]:
    """What grpc core itself wrote on the server's stderr (absl's format: a letter for the
    severity, then the date, e.g. ``I1201 ...``) while a client connected, called and left
    (waiting up to ``wait`` seconds for the ``Got goaway`` line)."""
    errors = tmp_path / "server.err"
    with errors.open("w") as err:
        process = subprocess.Popen(
            [SERVER, "--address", "127.0.0.1:0", "--store", "memory:"], cwd=ROOT,
            stdout=subprocess.PIPE, stderr=err, text=True,
            env={**env, "BEZIQUE_LOG_FORMAT": "json"})
    try:
        assert process.stdout is not None
        port = process.stdout.readline().rsplit(":", 1)[1].strip()
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            stub.ListVariants(pb.ListVariantsRequest(), timeout=10)
        leave_with_goaway(int(port))
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and "Got goaway" not in errors.read_text():
            time.sleep(0.05)
    finally:
        process.terminate()
        process.wait(timeout=30)
    return [line for line in errors.read_text().splitlines() if re.match(r"[IWE]\d{4} ", line)]


def test_grpc_core_stays_quiet_unless_the_operator_asks(tmp_path: Path) -> None:
    """grpc core's INFO lines (``Got goaway`` whenever a client leaves) are not the server's
    log: it sets GRPC_VERBOSITY=ERROR unless the operator set it."""
    env = {name: value for name, value in os.environ.items() if name != "GRPC_VERBOSITY"}
    assert grpc_core_lines(env, tmp_path, wait=1) == []
    asked = grpc_core_lines({**env, "GRPC_VERBOSITY": "INFO"}, tmp_path, wait=10)
    assert any("Got goaway" in line for line in asked), asked
