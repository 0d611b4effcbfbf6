"""The TypeScript verifier and the seats a table's end blames, over a real port.

A table whose reveal round times out ends (``ended``, ``reveal_timeout``) naming the seats that
withheld their committed entropy; an abort in the round names them too (``aborted``). A
platform may act on that blame, so a history that names a seat that did reveal (or a seat that
never owed a reveal) is one no table wrote: the server's reducer, and so ``bezique verify``,
refuses it, and the TypeScript verifier must too.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.json_format import MessageToDict, ParseDict

from bezique.clients.verify import VerificationError, verify_history
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc
from tests.helpers import serving
from tests.npm import NODE_DIR


@pytest.fixture(scope="module")
def stub(tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[table_service_pb2_grpc.TableServiceStub]:
    log = tmp_path_factory.mktemp("withheld") / "server.log"
    with serving(log, "--test-mode", "--reveal-seconds", "1") as listening, \
            grpc.insecure_channel(listening.grpc_address) as channel:
        yield table_service_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]


def timed_out(stub: table_service_pb2_grpc.TableServiceStub, secret: bytes
              ) -> dict[str, Any]:
    """A 2-seat table, seat 0 a bot, seat 1 committed to ``secret`` and never revealed: it
    ends before any deal, naming seat 1."""
    table_id = stub.CreateTable(pb.CreateTableRequest(
        variant_id="highcard", options={"players": "2"},
        bots=[pb.BotSeat(seat=0, policy="random")]), timeout=10).table_id
    stub.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=1,
                                       entropy_commitment=hashlib.sha256(secret).digest()),
                   timeout=10)
    deadline = time.monotonic() + 30
    while True:
        history = stub.GetHistory(pb.GetHistoryRequest(table_id=table_id, page_size=1000),
                                  timeout=10)
        if history.finished:
            return MessageToDict(history)
        assert time.monotonic() < deadline, "the reveal round did not time out"
        time.sleep(0.05)


def renumbered(history: dict[str, Any]) -> dict[str, Any]:
    for version, entry in enumerate(history["entries"], start=1):
        entry["version"] = str(version)
    return history


def verify_ts(node: str, tmp_path: Path, history: dict[str, Any]
              ) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history))
    return subprocess.run([node, "dist/verify.js", "--history", str(path)], cwd=NODE_DIR,
                          capture_output=True, text=True, timeout=60, check=False)


def test_an_end_that_blames_a_seat_that_revealed_fails_both_verifiers(
        node: str, stub: table_service_pb2_grpc.TableServiceStub, tmp_path: Path) -> None:
    secret = secrets.token_bytes(32)
    honest = timed_out(stub, secret)
    ended = honest["entries"][-1]
    assert ended["entryKind"] == "ended" and ended["withheldSeats"] == [1]
    verify_history(ParseDict(honest, pb.GetHistoryResponse()))
    assert verify_ts(node, tmp_path, honest).returncode == 0

    # seat 1 did reveal, yet the end blames it
    forged = json.loads(json.dumps(honest))
    forged["entries"].insert(-1, {"version": "0", "entryKind": "revealed", "seat": 1,
                                  "entropy": MessageToDict(pb.HistoryEntry(entropy=secret))
                                  ["entropy"]})
    forged = renumbered(forged)
    with pytest.raises(VerificationError, match="owed a reveal"):
        verify_history(ParseDict(forged, pb.GetHistoryResponse()))
    completed = verify_ts(node, tmp_path, forged)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "withheld" in completed.stdout, completed.stdout


KEY = "platform-key"


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[table_service_pb2_grpc.TableServiceStub]:
    """A server with a platform API key (AbortTable) and a long reveal round."""
    log = tmp_path_factory.mktemp("withheld-keyed") / "server.log"
    with serving(log, "--test-mode", "--api-key", KEY, "--reveal-seconds", "600") as listening, \
            grpc.insecure_channel(listening.grpc_address) as channel:
        yield table_service_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]


def aborted_in_reveal_round(stub: table_service_pb2_grpc.TableServiceStub) -> dict[str, Any]:
    """Seat 0 a bot, seat 1 committed and not revealed yet: the platform aborts the table."""
    platform = [("x-api-key", KEY)]
    table_id = stub.CreateTable(pb.CreateTableRequest(
        variant_id="highcard", options={"players": "2"}, open_seats=True,
        bots=[pb.BotSeat(seat=0, policy="random")]), metadata=platform, timeout=10).table_id
    stub.JoinTable(pb.JoinTableRequest(
        table_id=table_id, seat=1,
        entropy_commitment=hashlib.sha256(secrets.token_bytes(32)).digest()), timeout=10)
    stub.AbortTable(pb.AbortTableRequest(table_id=table_id), metadata=platform, timeout=10)
    return MessageToDict(stub.GetHistory(pb.GetHistoryRequest(table_id=table_id,
                                                              page_size=1000), timeout=10))


def test_an_abort_before_any_deal_verifies_and_a_forged_blame_fails(
        node: str, keyed: table_service_pb2_grpc.TableServiceStub, tmp_path: Path) -> None:
    honest = aborted_in_reveal_round(keyed)
    aborted = honest["entries"][-1]
    assert aborted["entryKind"] == "aborted" and aborted["withheldSeats"] == [1]
    assert verify_history(ParseDict(honest, pb.GetHistoryResponse())).aborted
    completed = verify_ts(node, tmp_path, honest)
    assert completed.returncode == 0, completed.stdout + completed.stderr

    forged = json.loads(json.dumps(honest))
    forged["entries"][-1]["withheldSeats"] = [0]  # the bot, which owed nothing
    with pytest.raises(VerificationError, match="owed a reveal"):
        verify_history(ParseDict(forged, pb.GetHistoryResponse()))
    completed = verify_ts(node, tmp_path, forged)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "withheld" in completed.stdout, completed.stdout
