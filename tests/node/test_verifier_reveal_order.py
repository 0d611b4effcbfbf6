"""The TypeScript verifier and the order of a commit-reveal round, over a real port.

Commit-reveal is fair only when every seat's commitment (or clear entropy) is in before the
first reveal: a seat that joins after a reveal could choose its entropy knowing it (and an
operator knows the seed), so it could pick the deals. The server never writes such a log
(bezique.table.state refuses a reveal while a seat is free) and the Python verifier replays
with that reducer; the TypeScript verifier must refuse such a history too.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import subprocess
import uuid
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
    log = tmp_path_factory.mktemp("reveal-order") / "server.log"
    with serving(log, "--test-mode") as listening, \
            grpc.insecure_channel(listening.grpc_address) as channel:
        yield table_service_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]


def played(stub: table_service_pb2_grpc.TableServiceStub) -> pb.GetHistoryResponse:
    """A finished 3-seat high card table: seat 0 commits and reveals, seat 1 is a bot, seat 2
    sends its entropy in the clear (joining after seat 0 committed, before it revealed)."""
    table_id = stub.CreateTable(pb.CreateTableRequest(
        variant_id="highcard", options={"players": "3", "hand_size": "1"},
        bots=[pb.BotSeat(seat=1, policy="random")]), timeout=10).table_id
    secret = secrets.token_bytes(32)
    tokens = {
        0: stub.JoinTable(pb.JoinTableRequest(
            table_id=table_id, seat=0, entropy_commitment=hashlib.sha256(secret).digest()),
            timeout=10).seat_token,
        2: stub.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=2,
                                              entropy=secrets.token_bytes(32)),
                          timeout=10).seat_token}

    def auth(seat: int) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {tokens[seat]}")]

    stub.RevealEntropy(pb.RevealEntropyRequest(table_id=table_id, entropy=secret),
                       metadata=auth(0), timeout=10)
    for _ in range(50):
        view = stub.GetView(pb.GetViewRequest(table_id=table_id), timeout=10).view
        if view.HasField("outcome"):
            history: pb.GetHistoryResponse = stub.GetHistory(
                pb.GetHistoryRequest(table_id=table_id, page_size=1000), timeout=10)
            return history
        for seat in view.to_move:
            if seat in tokens:
                own = stub.GetView(pb.GetViewRequest(table_id=table_id), metadata=auth(seat),
                                   timeout=10).view
                if own.legal_moves:
                    stub.SubmitMove(pb.SubmitMoveRequest(
                        table_id=table_id, move=own.legal_moves[0], expected_version=own.version,
                        request_id=str(uuid.uuid4())), metadata=auth(seat), timeout=10)
    raise AssertionError("the table did not finish")


def reveal_before_last_join(history: dict[str, Any]) -> dict[str, Any]:
    """The same history with seat 0's reveal moved before seat 2's join (versions renumbered):
    every deal is the same, but seat 2 now chose its clear entropy after seeing the reveal."""
    entries = history["entries"]
    revealed = next(e for e in entries if e["entryKind"] == "revealed")
    last_join = next(e for e in entries if e["entryKind"] == "joined" and e.get("seat") == 2)
    entries.remove(revealed)
    entries.insert(entries.index(last_join), revealed)
    for version, entry in enumerate(entries, start=1):
        entry["version"] = str(version)
    return history


def test_a_reveal_before_every_seat_is_taken_fails_both_verifiers(
        node: str, stub: table_service_pb2_grpc.TableServiceStub, tmp_path: Path) -> None:
    honest = MessageToDict(played(stub))
    verify_history(ParseDict(honest, pb.GetHistoryResponse()))  # the honest log verifies
    forged = reveal_before_last_join(honest)
    with pytest.raises(VerificationError, match="before every seat is taken"):
        verify_history(ParseDict(forged, pb.GetHistoryResponse()))
    path = tmp_path / "history.json"
    path.write_text(json.dumps(forged))
    completed = subprocess.run([node, "dist/verify.js", "--history", str(path)], cwd=NODE_DIR,
                               capture_output=True, text=True, timeout=60, check=False)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "before every seat" in completed.stdout, completed.stdout
