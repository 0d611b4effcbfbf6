"""The TypeScript verifier (clients/node/src/fair, ``bezique-verify``) against real tables.

Finished tables of every built-in game (and the example's high card) are played over a real
port, seat 0 by the Node client (which commits to its entropy and reveals it), the other seats
by the server's bots. The TypeScript verifier, written from docs/fairness.md alone, must
reproduce every deal of them, and agree with the Python ``bezique verify``; a history tampered
with (the seed, an entropy, a dealt or drawn card) must fail, naming what differs.
"""

from __future__ import annotations

import base64
import hashlib
import json
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
from tests.helpers import SERVER, serving
from tests.npm import NODE_DIR

BEZIQUE = str(Path(SERVER).with_name("bezique"))
ZEROS = bytes(32)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# Small games: a low target (no claims, so a bezique table plays whole deals, several of them),
# a few Quart deals with more than four seats, a short high card.
GAMES: dict[str, list[str]] = {
    "bezique-2p": ["target=300", "claims=false", "deal_packets=3-2-3"],
    "bezique-3p": ["target=200", "claims=false", "direction=clockwise"],
    "quart-bezique": ["deals=3", "players=5"],
    "trump-quart-bezique": ["deals=3", "players=6"],
    "highcard": ["players=3", "hand_size=4"],
}


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("verifier") / "server.log", "--test-mode",
                 "--reveal-seconds", "1") as listening:
        yield listening.grpc_address


@pytest.fixture(scope="module")
def stub(address: str) -> Iterator[table_service_pb2_grpc.TableServiceStub]:
    with grpc.insecure_channel(address) as channel:
        yield table_service_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]


def history_of(stub: table_service_pb2_grpc.TableServiceStub,
               table_id: str) -> pb.GetHistoryResponse:
    """Every page of a table's history, as one GetHistoryResponse."""
    whole = pb.GetHistoryResponse()
    token = ""
    while True:
        page = stub.GetHistory(pb.GetHistoryRequest(table_id=table_id, page_token=token,
                                                    page_size=1000), timeout=10)
        entries = [*whole.entries, *page.entries]
        whole.CopyFrom(page)
        del whole.entries[:]
        whole.entries.extend(entries)
        token = page.next_page_token
        if not token:
            whole.next_page_token = ""
            return whole


@pytest.fixture(scope="module")
def tables(node: str, address: str) -> dict[str, str]:
    """A finished table of each game, seat 0 played by the Node client: variant -> table id."""
    played: dict[str, str] = {}
    for variant, options in GAMES.items():
        arguments = [argument for option in options for argument in ("--option", option)]
        completed = subprocess.run([node, "dist/play.js", "--server", address, "--variant",
                                    variant, *arguments], cwd=NODE_DIR, capture_output=True,
                                   text=True, timeout=120, check=False)
        assert completed.returncode == 0, completed.stderr
        played[variant] = json.loads(completed.stdout.strip().splitlines()[-1])["table_id"]
    return played


def verify(node: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([node, "dist/verify.js", *arguments], cwd=NODE_DIR,
                          capture_output=True, text=True, timeout=60, check=False)


def verify_file(node: str, tmp_path: Path, history: dict[str, Any],
                *more: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history))
    return verify(node, "--history", str(path), *more)


def failed_lines(completed: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in completed.stdout.splitlines() if line.startswith("FAILED")]


@pytest.mark.parametrize("variant", list(GAMES))
def test_every_deal_of_a_finished_table_is_reproduced(
        node: str, address: str, stub: table_service_pb2_grpc.TableServiceStub,
        tables: dict[str, str], variant: str) -> None:
    table_id = tables[variant]
    completed = verify(node, "--server", address, table_id)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    lines = completed.stdout.splitlines()
    assert failed_lines(completed) == []
    assert lines[0].startswith("ok     seed: sha256(revealed seed) is the commitment")
    assert lines[1] == ("ok     seats: seat 0 contributed entropy by commit-reveal (each "
                        "reveal matches its commitment)")
    deals = [line for line in lines if line.startswith("ok     deal ")]
    assert lines[-1] == (f"verified: table {table_id}, {len(deals)} deals reproduced from the "
                         "seed and the seats' entropy")
    if variant != "highcard":
        assert lines[2].startswith("ok     lot: ")
    # The Python verifier agrees, on the same table and on the same count of deals.
    history = history_of(stub, table_id)
    assert verify_history(history).deals == len(deals)
    python = subprocess.run([BEZIQUE, "verify", "--server", address, table_id],
                            capture_output=True, text=True, timeout=60, check=False)
    assert python.returncode == 0 and "verified:" in python.stdout, python.stdout + python.stderr
    # the dealer's rotation is checked too where a match has several deals: a bezique match
    # to 300 plays on until a deal ends with a seat at 300 (most take two deals or more, one
    # in about 500 is over in the first); a Quart one of 3 deals unless it ends first, fewer
    # than two seats able to pay the ante (random bets can bust the table in one deal)
    several = variant.endswith("quart-bezique") and history.outcome.reason == "3 deals played"
    if variant == "bezique-2p":
        ends = [event.detail.fields["scores"].list_value.values for entry in history.entries
                for event in entry.events if event.kind == "deal_end"]
        tops = [max(score.number_value for score in scores) for scores in ends]
        assert len(deals) == next(n for n, top in enumerate(tops, 1) if top >= 300), tops
        several = tops[0] < 300
    if several:
        assert len(deals) >= 2, completed.stdout
    else:
        assert len(deals) >= 1, completed.stdout


def events(history: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [event for entry in history["entries"] for event in entry.get("events", [])
            if event["kind"] == kind]


def swap_first_cards(first: dict[str, Any], second: dict[str, Any]) -> str:
    """Swap the first card of two events; the code the first one shows now."""
    first["cards"][0], second["cards"][0] = second["cards"][0], first["cards"][0]
    return str(first["cards"][0]["code"])


def tamper(history: dict[str, Any], how: str) -> str:
    """Change the history as `how` says; the words the verifier's failure must hold."""
    if how == "seed":
        history["revealedSeed"] = b64(ZEROS)
        return (f"FAILED seed: sha256(revealed seed) is {hashlib.sha256(ZEROS).hexdigest()}, "
                f"the commitment is {history['seedCommitment']}")
    if how == "entropy":
        revealed = next(e for e in history["entries"] if e["entryKind"] == "revealed")
        revealed["entropy"] = b64(ZEROS)
        return (f"FAILED seats: version {revealed['version']}: seat 0's revealed entropy does "
                "not match its commitment")
    if how == "dealt card":
        hands = events(history, "deal")
        shown = swap_first_cards(hands[0], hands[1])
        return f", card 1: the history shows {shown}"
    if how == "drawn card":
        draws = [event for event in events(history, "draw") if event.get("cards")]
        draws[3]["cards"][0], draws[7]["cards"][0] = draws[7]["cards"][0], draws[3]["cards"][0]
        return "draw 4 from the stock: the history shows"
    raise AssertionError(how)


TAMPERINGS = [(variant, how) for variant in GAMES for how in ("seed", "entropy", "dealt card")]
TAMPERINGS += [("bezique-2p", "drawn card"), ("bezique-3p", "drawn card")]


@pytest.mark.parametrize(("variant", "how"), TAMPERINGS)
def test_a_tampered_history_fails_naming_what_differs(
        node: str, stub: table_service_pb2_grpc.TableServiceStub, tables: dict[str, str],
        tmp_path: Path, variant: str, how: str) -> None:
    honest = MessageToDict(history_of(stub, tables[variant]))
    assert verify_file(node, tmp_path, honest).returncode == 0
    expected = tamper(honest, how)
    completed = verify_file(node, tmp_path, honest)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert any(expected in line for line in failed_lines(completed)), completed.stdout
    assert completed.stdout.splitlines()[-1].startswith(f"failed: table {tables[variant]}: ")
    # The Python verifier rejects the same history.
    with pytest.raises(VerificationError):
        verify_history(ParseDict(honest, pb.GetHistoryResponse()))


def test_a_swapped_commitment_changes_the_deals(
        node: str, stub: table_service_pb2_grpc.TableServiceStub, tables: dict[str, str],
        tmp_path: Path) -> None:
    """An operator who swaps a seat's commitment and entropy for other, consistent ones gets
    past the seats' check, but the deals no longer come out of the key."""
    history = MessageToDict(history_of(stub, tables["quart-bezique"]))
    entries = history["entries"]
    joined = next(e for e in entries if e["entryKind"] == "joined" and e.get("entropyCommitment"))
    revealed = next(e for e in entries if e["entryKind"] == "revealed")
    joined["entropyCommitment"] = b64(hashlib.sha256(ZEROS).digest())
    revealed["entropy"] = b64(ZEROS)
    completed = verify_file(node, tmp_path, history)
    assert completed.returncode == 1
    lines = completed.stdout.splitlines()
    assert any(line.startswith("ok     seats: seat 0 contributed") for line in lines)
    assert any(line.startswith("FAILED deal 1: ") for line in lines), completed.stdout


def wait_finished(stub: table_service_pb2_grpc.TableServiceStub, table_id: str) -> None:
    deadline = time.monotonic() + 30
    while not stub.GetHistory(pb.GetHistoryRequest(table_id=table_id, page_size=1),
                              timeout=10).finished:
        assert time.monotonic() < deadline, f"table {table_id} did not finish"
        time.sleep(0.05)


def test_test_settings_and_unfinished_tables(
        node: str, address: str, stub: table_service_pb2_grpc.TableServiceStub) -> None:
    fixed = stub.CreateTable(pb.CreateTableRequest(
        variant_id="highcard", options={"players": "2"},
        bots=[pb.BotSeat(seat=0, policy="random"), pb.BotSeat(seat=1, policy="random")],
        test=pb.TestSettings(seed=b"s" * 32)), timeout=10).table_id
    wait_finished(stub, fixed)
    refused = verify(node, "--server", address, fixed)
    assert refused.returncode == 1
    assert "FAILED test settings: created with test settings (a fixed seed)" in refused.stdout
    allowed = verify(node, "--server", address, fixed, "--allow-test-settings")
    assert allowed.returncode == 0, allowed.stdout
    assert "CREATED WITH TEST SETTINGS (a fixed seed): checked anyway" in allowed.stdout
    assert "no seat contributed entropy: the key is the seed" in allowed.stdout

    open_table = stub.CreateTable(pb.CreateTableRequest(variant_id="highcard",
                                                        options={"players": "2"}),
                                  timeout=10).table_id
    unfinished = verify(node, "--server", address, open_table)
    assert unfinished.returncode == 2
    assert unfinished.stdout.splitlines()[-1] == (
        f"not verified: table {open_table} has not ended, its seed is still secret")


def test_a_table_that_ended_before_any_deal(
        node: str, address: str, stub: table_service_pb2_grpc.TableServiceStub) -> None:
    """Seat 1 never reveals its committed entropy: the table ends with nothing dealt."""
    table_id = stub.CreateTable(pb.CreateTableRequest(
        variant_id="highcard", options={"players": "2"},
        bots=[pb.BotSeat(seat=0, policy="random")]), timeout=10).table_id
    stub.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=1,
                                       entropy_commitment=hashlib.sha256(ZEROS).digest()),
                   timeout=10)
    wait_finished(stub, table_id)
    completed = verify(node, "--server", address, table_id)
    assert completed.returncode == 0, completed.stdout
    assert "ok     deals: the table ended before any deal" in completed.stdout.splitlines()


def test_usage_errors(node: str, tmp_path: Path) -> None:
    for arguments in ([], ["--server", "127.0.0.1:1"], ["--history", "x.json", "TABLE"]):
        completed = verify(node, *arguments)
        assert completed.returncode == 2 and "usage: bezique-verify" in completed.stderr
    missing = verify(node, "--history", str(tmp_path / "none.json"))
    assert missing.returncode == 3 and "bezique-verify: cannot check:" in missing.stderr


def test_a_variant_it_has_no_deal_check_for_cannot_be_checked(
        node: str, stub: table_service_pb2_grpc.TableServiceStub, tables: dict[str, str],
        tmp_path: Path) -> None:
    """A plugin's variant (``bezique new-variant spades``) is not "something differs": the
    verifier says it cannot check its deals, points at ``bezique verify``, and exits 3; what
    it can check still fails as usual."""
    history = MessageToDict(history_of(stub, tables["highcard"]))
    history["variantId"] = "spades"
    completed = verify_file(node, tmp_path, history)
    assert completed.returncode == 3, completed.stdout + completed.stderr
    assert failed_lines(completed) == []
    why = ('cannot verify deals of variant "spades" (the TypeScript verifier knows: '
           "bezique-2p, bezique-3p, quart-bezique, trump-quart-bezique, highcard); "
           "`bezique verify` replays any installed variant")
    lines = completed.stdout.splitlines()
    assert f"cannot deals: {why}" in lines
    assert lines[-1] == f"not verified: table {tables['highcard']}: {why}"
    tamper(history, "seed")
    assert verify_file(node, tmp_path, history).returncode == 1


def test_a_table_it_cannot_read_is_one_line_and_exit_3(node: str, address: str) -> None:
    for server, table, says in ((address, "no-such-table", "NOT_FOUND: no table"),
                                ("127.0.0.1:1", "any", "UNAVAILABLE")):
        completed = verify(node, "--server", server, table)
        assert completed.returncode == 3, completed.stdout + completed.stderr
        assert completed.stdout == "" and completed.stderr.count("\n") == 1
        assert completed.stderr.startswith(f"bezique-verify: cannot check: {says}")
