"""The TypeScript client (clients/node) plays whole games against a real server subprocess.

Builds the package as a user would (``npm run build``: protoc-gen-es over proto/, then tsc) and
runs its ``bezique-play`` program and small scripts against the server; the Python stubs then
check the log the game left. Needs ``node`` (>= 20) and ``npm``; installs the pinned packages
with ``npm ci`` when they are missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc
from tests.helpers import serving
from tests.node.scripts import run_script
from tests.npm import NODE_DIR, npm_run, tool

PLAY = "dist/play.js"


@contextlib.contextmanager
def serve(log: Path, *extra: str) -> Iterator[str]:
    """A real ``bezique-server`` subprocess (``extra``: more flags); yields its address."""
    with serving(log, *extra) as listening:
        yield listening.grpc_address


@pytest.fixture(scope="module")
def server_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(tmp_path_factory.mktemp("node-server") / "server.log") as address:
        yield address


PLATFORM_KEY = "platform-key"


@pytest.fixture(scope="module")
def keyed_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server with a platform API key: only the platform creates and aborts tables."""
    with serve(tmp_path_factory.mktemp("node-keyed") / "server.log", "--api-key",
               PLATFORM_KEY) as address:
        yield address


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
    return subprocess.run([node, PLAY, "--server", address, *arguments], cwd=NODE_DIR,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize(("variant_id", "calls"), [
    ("bezique-2p", "play"), ("quart-bezique", "play"), ("highcard", "play"),
    ("highcard", "no-play")])
def test_node_client_plays_a_whole_game(
        node: str, server_address: str, stub: table_service_pb2_grpc.TableServiceStub,
        variant_id: str, calls: str) -> None:
    """On a Play stream by default; with --no-play by SubmitMove and WatchTable."""
    variants = _variants(stub)
    assert variant_id in variants, sorted(variants)
    info = variants[variant_id]
    completed = _play(node, server_address, "--variant", variant_id,
                      *_short_game_options(info), *(["--no-play"] if calls == "no-play" else []))
    assert completed.returncode == 0, completed.stderr
    assert "no Play stream" not in completed.stderr  # it did not fall back
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
    assert "INVALID_ARGUMENT: option 'players'" in bad_option.stderr, bad_option.stderr
    usage = subprocess.run([node, PLAY], cwd=NODE_DIR, capture_output=True, text=True,
                           timeout=60, check=False)
    assert usage.returncode != 0 and "--server" in usage.stderr


ERRORS_SCRIPT = """
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorReason, TableClient, errorInfo, errorReason } from "./dist/index.js";

const client = new TableClient(process.argv[2]);
const seen = {};
async function expectError(name, call) {
  try {
    await call();
    seen[name] = "no error";
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    seen[name] = { code: Code[error.code], reason: ErrorReason[errorReason(error)],
                   metadata: errorInfo(error)?.metadata ?? {} };
  }
}
const created = await client.createTable("highcard", { options: { players: 2 } });
const ann = await client.joinTable(created.tableId, { seat: 0, name: "ann" });
await client.joinTable(created.tableId, { seat: 1, name: "bob" });
const view = await client.getView(created.tableId, ann.seatToken);
await expectError("missing", () => client.getView("no-such-table-0000"));
await expectError("stale", () => client.submitMove(created.tableId, ann.seatToken,
  view.legalMoves[0], view.version - 1n));
await expectError("taken", () => client.joinTable(created.tableId, { seat: 0 }));
const left = await client.createTable("highcard", { options: { players: 2 } });
const carl = await client.joinTable(left.tableId, { seat: 0, name: "carl" });
const leftAt = await client.leaveTable(left.tableId, carl.seatToken);
console.log(JSON.stringify({ seen, leftAt: Number(leftAt), version: Number(view.version),
                             toMove: view.toMove, texts: view.legalMoves.map((m) => m.text) }));
"""


def test_typed_errors_carry_the_error_reason_enum(node: str, server_address: str) -> None:
    result = run_script(node, "errors-check.mjs", ERRORS_SCRIPT, server_address)
    seen = result["seen"]
    assert seen["missing"]["code"] == "NotFound" and seen["missing"]["reason"] == "NOT_FOUND"
    assert seen["stale"]["code"] == "Aborted" and seen["stale"]["reason"] == "STALE_VERSION"
    assert seen["stale"]["metadata"]["current_version"] == str(result["version"])
    assert seen["taken"] == {"code": "FailedPrecondition", "reason": "SEAT_TAKEN",
                             "metadata": {}}
    assert result["leftAt"] >= 3
    # each legal move carries the server's text of it (Move.text), for the client to show
    texts = result["texts"]
    assert texts and all(re.fullmatch(r"play (10|[2-9AJQK])[♠♥♦♣]", text) for text in texts)


WATCH_SCRIPT = """
import { TableClient } from "./dist/index.js";

const client = new TableClient(process.argv[2]);
const created = await client.createTable("highcard", { options: { players: 2 } });
await client.joinTable(created.tableId, { seat: 0 });
let updates = 0;
for await (const update of client.watchTable(created.tableId, undefined)) {
  updates += 1;
  if (update.view) break;  // leaving the loop must end the call, and so let the process exit
}
console.log(JSON.stringify({ updates }));
"""


def test_leaving_a_watch_loop_ends_the_call(node: str, server_address: str) -> None:
    assert run_script(node, "watch-check.mjs", WATCH_SCRIPT, server_address) == {"updates": 2}


def test_the_package_type_checks_and_declares_its_types(node: str) -> None:
    checked = npm_run("typecheck")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    package = json.loads((NODE_DIR / "package.json").read_text())
    assert package["name"] and package["version"] and package["scripts"]["build"]
    assert (NODE_DIR / package["types"]).is_file()
    declared = (NODE_DIR / "dist" / "gen" / "bezique" / "v1" / "table_service_pb.d.ts")
    assert "export declare enum ErrorReason" in declared.read_text()
    packed = subprocess.run([tool("npm"), "pack", "--dry-run", "--json", "--ignore-scripts"],
                            cwd=NODE_DIR, capture_output=True, text=True, timeout=600,
                            check=False)
    assert packed.returncode == 0, packed.stderr
    files = {entry["path"] for entry in json.loads(packed.stdout)[0]["files"]}
    assert {"package.json", "README.md", "dist/index.js", "dist/index.d.ts", "dist/play.js",
            "dist/verify.js", "dist/gen/bezique/v1/table_service_pb.d.ts"} <= files
    assert (NODE_DIR / package["bin"]["bezique-play"]).is_file()
    assert (NODE_DIR / package["bin"]["bezique-verify"]).is_file()
    locked = json.loads((NODE_DIR / "package-lock.json").read_text())
    for group in ("dependencies", "devDependencies"):
        for name, version in package[group].items():
            assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{name} is not pinned"
            assert locked["packages"][f"node_modules/{name}"]["version"] == version


# ------------------------------------------------------------------ browsers' protocols (HTTP)

HTTP_SCRIPT = """
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { TableService } from "./dist/gen/bezique/v1/table_service_pb.js";
import { ErrorReason, errorReason } from "./dist/index.js";

const baseUrl = process.argv[2];
const json = createClient(TableService, createConnectTransport({ baseUrl, httpVersion: "1.1" }));
const binary = createClient(TableService, createConnectTransport(
  { baseUrl, httpVersion: "1.1", useBinaryFormat: true }));
const grpcWeb = createClient(TableService, createGrpcWebTransport({ baseUrl, httpVersion: "1.1" }));

const created = await json.createTable({ variantId: "highcard", options: { players: "2" },
                                         bots: [{ seat: 1, policy: "random" }] });
const joined = await json.joinTable({ tableId: created.tableId, displayName: "web" });
const headers = { authorization: `Bearer ${joined.seatToken}` };
let moves = 0;
let outcome = null;
// A raw connect client cancels its own stream: leaving the loop alone does not always close
// an HTTP/1.1 response (and an open one keeps Node.js running). The SDK's watch does this.
const watching = new AbortController();
for await (const update of grpcWeb.watchTable({ tableId: created.tableId },
                                              { headers, signal: watching.signal })) {
  const view = update.view;
  if (!view) continue;
  if (view.outcome) { outcome = view.outcome; break; }
  if (view.toMove.includes(0) && view.legalMoves.length && update.version === view.version) {
    try {
      await binary.submitMove({ tableId: created.tableId, move: view.legalMoves[0],
                                expectedVersion: view.version, requestId: `m${moves}` },
                              { headers });
      moves += 1;
    } catch (error) {
      if (!(error instanceof ConnectError) || error.code !== Code.Aborted) throw error;
    }
  }
}
watching.abort();
const errors = {};
for (const [name, client] of [["connect", json], ["grpc-web", grpcWeb]]) {
  try {
    await client.getView({ tableId: "no-such-table" });
  } catch (error) {
    errors[name] = { code: Code[error.code], reason: ErrorReason[errorReason(error)] };
  }
}
console.log(JSON.stringify({ tableId: created.tableId, moves, winners: outcome?.winners ?? null,
                             errors }));
"""


@pytest.fixture(scope="module")
def http_base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``bezique-server`` subprocess with its HTTP port open; yields the port's base URL."""
    with serving(tmp_path_factory.mktemp("node-http-server") / "server.log",
                 http=True) as listening:
        yield listening.http_url


def test_node_connect_and_grpc_web_transports_play_a_game_over_http(
        node: str, http_base_url: str) -> None:
    result = run_script(node, "http-check.mjs", HTTP_SCRIPT, http_base_url)
    assert result["moves"] >= 1 and result["winners"], result
    assert result["errors"] == {"connect": {"code": "NotFound", "reason": "NOT_FOUND"},
                                "grpc-web": {"code": "NotFound", "reason": "NOT_FOUND"}}


REVEAL_SCRIPT = """
import { createHash } from "node:crypto";
import { TableClient } from "./dist/index.js";

const a = new TableClient(process.argv[2]);
const b = new TableClient(process.argv[2]);
const created = await a.createTable("highcard", { options: { players: 2 } });
const ann = await a.joinTable(created.tableId, { seat: 0, name: "ann" });
const bob = await b.joinTable(created.tableId, { seat: 1, name: "bob" });
const round = await b.getView(created.tableId);       // b revealed bob's entropy when it joined
const view = await a.getView(created.tableId, ann.seatToken);  // a reveals ann's: the start
const history = await a.getHistory(created.tableId);
const digest = (bytes) => createHash("sha256").update(bytes).digest().toString("hex");
console.log(JSON.stringify({
  committed: [ann.committed, bob.committed], phase: round.phase,
  awaiting: round.awaitingReveal, started: !view.waitingForPlayers, hand: view.hand.length,
  kinds: history.entries.map((e) => e.entryKind),
  commitments: history.entries.filter((e) => e.entryKind === "joined")
    .map((e) => Buffer.from(e.entropyCommitment).toString("hex")),
  mine: [digest(ann.entropy), digest(bob.entropy)],
  tableId: created.tableId,
  pins: [a.pins.get(`${created.tableId}/0`), b.pins.get(`${created.tableId}/1`)],
}));
a.close();
b.close();
"""


def test_seats_commit_and_reveal_by_themselves(
        node: str, server_address: str, stub: table_service_pb2_grpc.TableServiceStub) -> None:
    from bezique.clients.contributions import contributions_digest

    result = run_script(node, "reveal-check.mjs", REVEAL_SCRIPT, server_address)
    assert result["committed"] == [True, True]
    assert result["phase"] == "reveal" and result["awaiting"] == [0]
    assert result["started"] and result["hand"] == 3
    assert result["kinds"] == ["created", "joined", "joined", "revealed", "revealed", "started"]
    assert result["commitments"] == result["mine"]
    # both seats pinned the contributions they saw, the way the Python SDK and verify do
    history = stub.GetHistory(pb.GetHistoryRequest(table_id=result["tableId"]))
    assert result["pins"] == [contributions_digest(history.entries)] * 2


LYING_SCRIPT = """
import { RevealRefusedError, TableClient } from "./dist/index.js";

const client = new TableClient(process.argv[2]);
const seat = await client.joinTable("liar", { seat: 0 });  // its view asks for the reveal
const view = await client.getView("liar", seat.seatToken);
let refused = null;
try {
  if (view.waitingForPlayers) await client.revealEntropy("liar", seat.seatToken, seat.entropy);
} catch (error) {
  if (!(error instanceof RevealRefusedError)) throw error;
  refused = error.free;
}
console.log(JSON.stringify({ entropy: Buffer.from(seat.entropy).toString("hex"),
                             waiting: view.waitingForPlayers, refused }));
client.close();
"""


async def test_the_typescript_client_does_not_reveal_when_a_server_lies(node: str) -> None:
    """A server whose views ask for the reveal while its history shows a seat free gets no
    RevealEntropy (issue #26); once the history shows every seat taken, the join reveals."""
    from tests.lying_table import lying_server

    async with lying_server() as (address, table):
        early = await asyncio.to_thread(run_script, node, "lying-check.mjs", LYING_SCRIPT,
                                        address)
        assert early["refused"] == [1] and early["waiting"], early
        assert table.reveals == []
        table.take_every_seat()
        honest = await asyncio.to_thread(run_script, node, "lying-check.mjs", LYING_SCRIPT,
                                         address)
        assert table.reveals == [bytes.fromhex(honest["entropy"])]
        assert not honest["waiting"] and honest["refused"] is None, honest


AMOUNT_SCRIPT = """
import { create } from "@bufbuild/protobuf";
import { MoveSchema, TableClient, errorInfo, errorReason, ErrorReason, withAmount }
  from "./dist/index.js";

const client = new TableClient(process.argv[2]);
const created = await client.createTable("quart-bezique", { options: { players: 2 } });
const seats = [await client.joinTable(created.tableId, { seat: 0 }),
               await client.joinTable(created.tableId, { seat: 1 })];
let view = await client.getView(created.tableId, seats[0].seatToken);
const mover = seats[view.toMove[0]];
view = await client.getView(created.tableId, mover.seatToken);
const offer = view.legalMoves.find((move) => move.kind === "raise");
const range = offer.amountRange;
let refusedLocally = "";
try { withAmount(offer, range.maximum + 1n); } catch (error) { refusedLocally = error.message; }
let refused = {};
try {
  await client.submitMove(created.tableId, mover.seatToken,
    create(MoveSchema, { kind: "raise", amount: range.maximum + 1n }), view.version);
} catch (error) {
  refused = { reason: ErrorReason[errorReason(error)], metadata: errorInfo(error)?.metadata };
}
const chosen = range.minimum + 27n;
const moved = await client.submitMove(created.tableId, mover.seatToken,
  withAmount(offer, chosen), view.version);
console.log(JSON.stringify({
  minimum: Number(range.minimum), maximum: Number(range.maximum), step: Number(range.step),
  refusedLocally, refused, level: moved.view.detail.level, chosen: Number(chosen) }));
"""


def test_a_raise_takes_any_amount_in_range_from_typescript(
        node: str, server_address: str) -> None:
    result = run_script(node, "amount-check.mjs", AMOUNT_SCRIPT, server_address)
    assert (result["minimum"], result["maximum"], result["step"]) == (10, 990, 1)
    assert result["refusedLocally"] == "raise takes an amount of 10 to 990, not 991"
    assert result["refused"] == {"reason": "ILLEGAL_MOVE", "metadata": {
        "field": "move.amount", "amount_min": "10", "amount_max": "990", "amount_step": "1"}}
    assert result["level"] == result["chosen"] == 37


RESULTS_SCRIPT = """
import { TableClient } from "./dist/index.js";

const client = new TableClient({ target: process.argv[2], apiKey: process.argv[3] });
const played = await client.createTable("highcard", { options: { players: 2, hand_size: 1 },
                                                      bots: { 0: "random", 1: "random" } });
const stopped = await client.createTable("highcard", { options: { players: 2 } });
await client.joinTable(stopped.tableId, { seat: 0, name: "ann" });
const version = await client.abortTable(stopped.tableId, "from node");
const history = await client.getHistory(stopped.tableId);
const wanted = new Set([played.tableId, stopped.tableId]);
const found = {};
let last = 0n;
for await (const result of client.watchResults(0n)) {
  if (result.cursor <= last) throw new Error("cursors out of order");
  last = result.cursor;
  if (!wanted.has(result.tableId)) continue;
  found[result.tableId] = { cursor: Number(result.cursor), reason: result.reason,
    seats: result.seats.map((s) => [s.displayName, s.botPolicy]),
    winners: result.outcome?.winners ?? [], version: Number(result.version) };
  if (Object.keys(found).length === 2) break;  // leaving the loop ends the call
}
let again = "";
try { await client.abortTable(stopped.tableId); } catch (error) { again = error.rawMessage; }
const after = [];
for await (const result of client.watchResults(BigInt(found[played.tableId].cursor))) {
  after.push(result.tableId);
  if (result.tableId === stopped.tableId) break;
}
console.log(JSON.stringify({ played: played.tableId, stopped: stopped.tableId, found,
  version: Number(version), note: history.entries.at(-1).note, again, after }));
"""


def test_results_feed_and_abort_from_typescript(node: str, keyed_address: str) -> None:
    result = run_script(node, "results-check.mjs", RESULTS_SCRIPT, keyed_address, PLATFORM_KEY)
    played, stopped = result["found"][result["played"]], result["found"][result["stopped"]]
    assert played["seats"] == [["random bot", "random"]] * 2 and played["winners"], played
    assert stopped == {"cursor": stopped["cursor"], "reason": "aborted",
                       "seats": [["ann", ""], ["", ""]], "winners": [],
                       "version": result["version"]}
    assert result["note"] == "from node" and "has ended" in result["again"]
    assert result["after"][-1] == result["stopped"] and result["played"] not in result["after"]
