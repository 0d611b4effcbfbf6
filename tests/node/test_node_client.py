"""The Node.js client (clients/node) plays whole games against a real server subprocess.

Needs ``node`` and ``npm`` on PATH; installs the client's packages with ``npm ci`` once if
clients/node/node_modules is missing. The Python stubs then check the log the game left.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / "clients" / "node"
SERVER = str(Path(sys.executable).with_name("bezique-server"))


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"`{name}` is not on PATH: the Node.js client tests need Node.js >= 18 and "
                    "npm (install Node.js, e.g. actions/setup-node in CI)", pytrace=False)
    return path


@pytest.fixture(scope="session")
def node() -> str:
    """The node binary, with the client's packages installed (npm ci, only when missing)."""
    node_path = _tool("node")
    npm_path = _tool("npm")
    installed = all((NODE_DIR / "node_modules" / "@grpc" / package / "package.json").is_file()
                    for package in ("grpc-js", "proto-loader"))
    if not installed:
        result = subprocess.run([npm_path, "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR,
                                capture_output=True, text=True, timeout=300, check=False)
        if result.returncode != 0:
            pytest.fail(f"npm ci in {NODE_DIR} failed:\n{result.stdout}\n{result.stderr}",
                        pytrace=False)
    return node_path


@pytest.fixture(scope="module")
def server_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``bezique-server`` subprocess on a free port, memory store, bots without delay."""
    log = tmp_path_factory.mktemp("node-server") / "server.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [SERVER, "--address", "127.0.0.1:0", "--store", "memory:", "--bot-delay", "0"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=stderr, text=True,
            env={**os.environ, "BEZIQUE_LOG_FORMAT": "json"})
    try:
        assert process.stdout is not None
        line = ""
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            if selector.select(timeout=60):
                line = process.stdout.readline()
        match = re.search(r"bezique-server listening on ([\d.]+:\d+)", line)
        if match is None:
            pytest.fail(f"bezique-server did not start: {line!r}\n{log.read_text()}",
                        pytrace=False)
        yield match.group(1)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="module")
def stub(server_address: str) -> Iterator[table_service_pb2_grpc.TableServiceStub]:
    with grpc.insecure_channel(server_address) as channel:
        yield table_service_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]


def _variants(stub: table_service_pb2_grpc.TableServiceStub) -> dict[str, pb.VariantInfo]:
    response = stub.ListVariants(pb.ListVariantsRequest(), timeout=10)
    return {info.id: info for info in response.variants}


def _short_game_options(info: pb.VariantInfo) -> list[str]:
    """``--option`` arguments for a quick game: the lowest target, a single deal."""
    arguments: list[str] = []
    for spec in info.options:
        if spec.name == "target":
            low = spec.minimum if spec.HasField("minimum") else 100
            arguments += ["--option", f"target={max(low, 10)}"]
        elif spec.name == "deals":
            arguments += ["--option", "deals=1"]
    return arguments


def _play(node: str, address: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([node, "play.js", "--server", address, *arguments], cwd=NODE_DIR,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("variant_id", ["highcard", "bezique-2p", "quart-bezique"])
def test_node_client_plays_a_whole_game(
        node: str, server_address: str, stub: table_service_pb2_grpc.TableServiceStub,
        variant_id: str) -> None:
    variants = _variants(stub)
    if variant_id not in variants:
        pytest.skip(f"variant {variant_id!r} is not installed on the server yet "
                    f"(ListVariants: {', '.join(sorted(variants))})")
    info = variants[variant_id]
    completed = _play(node, server_address, "--variant", variant_id,
                      *_short_game_options(info))
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.strip().splitlines()
    assert lines, f"play.js printed nothing; stderr: {completed.stderr}"
    result: dict[str, Any] = json.loads(lines[-1])
    assert set(result) == {"table_id", "version", "outcome", "moves"}
    outcome = result["outcome"]
    assert outcome["reason"], result
    assert isinstance(outcome["winners"], list)
    assert isinstance(outcome["scores"], list) and outcome["scores"], result
    assert all(0 <= seat < len(outcome["scores"]) for seat in outcome["winners"]), result
    # in Quart the three random bots may all fold before seat 0's first turn (about one
    # game in 2000, when seat 0 deals): then it has no move to make
    least = 0 if variant_id == "quart-bezique" else 1
    assert result["moves"] >= least and result["version"] > result["moves"], result

    history = stub.GetHistory(pb.GetHistoryRequest(table_id=result["table_id"]), timeout=10)
    assert history.finished
    assert history.variant_id == variant_id
    assert history.revealed_seed, "the seed is revealed once the game has ended"
    assert history.HasField("outcome")
    assert list(history.outcome.winners) == outcome["winners"]
    assert list(history.outcome.scores) == outcome["scores"]
    assert history.outcome.reason == outcome["reason"]
    versions = [entry.version for entry in history.entries]
    assert versions == list(range(1, len(versions) + 1))
    assert versions[-1] >= result["version"]
    own = [e for e in history.entries if e.entry_kind == "move" and e.HasField("seat")
           and e.seat == 0]
    assert len(own) == result["moves"]
    assert all(entry.HasField("move") and entry.move.kind for entry in own)
    bots = [e for e in history.entries if e.entry_kind == "bot_move"]
    assert all(entry.seat != 0 and entry.move.kind for entry in bots)


def test_node_client_reports_errors(node: str, server_address: str) -> None:
    unknown = _play(node, server_address, "--variant", "no-such-game")
    assert unknown.returncode != 0
    assert "no variant" in unknown.stderr and "highcard" in unknown.stderr
    bad_option = _play(node, server_address, "--variant", "highcard", "--option", "players=99")
    assert bad_option.returncode != 0
    assert "INVALID_ARGUMENT" in bad_option.stderr and "players" in bad_option.stderr
    usage = subprocess.run([node, "play.js"], cwd=NODE_DIR, capture_output=True, text=True,
                           timeout=60, check=False)
    assert usage.returncode != 0 and "--server" in usage.stderr
