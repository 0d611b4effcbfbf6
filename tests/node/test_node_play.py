"""The TypeScript client's Play sessions (``client.play``) against a real server subprocess: a
whole game on one stream, refusals answered in the stream as SubmitMove answers them, a repeated
request id answered as a duplicate, and a stream cut under the session resumed where it stopped.

The scripts run beside the package ``npm run build`` made (the ``node`` fixture); the Python
stubs then check the log the game left.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import pytest

from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc
from tests.helpers import fake_table_service, serving
from tests.node.scripts import run_script
from tests.npm import NODE_DIR


@pytest.fixture(scope="module")
def server_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("node-play") / "server.log") as listening:
        yield listening.grpc_address


@pytest.fixture(scope="module")
def stub(server_address: str) -> Iterator[table_service_pb2_grpc.TableServiceStub]:
    with grpc.insecure_channel(server_address) as channel:
        yield table_service_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]


def own_moves(stub: table_service_pb2_grpc.TableServiceStub, table_id: str,
              seat: int) -> list[pb.HistoryEntry]:
    """The ``move`` entries of ``seat`` in the table's log."""
    history = stub.GetHistory(pb.GetHistoryRequest(table_id=table_id), timeout=10)
    return [entry for entry in history.entries
            if entry.entry_kind == "move" and entry.HasField("seat") and entry.seat == seat]


GAME_SCRIPT = """
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { ErrorReason, MoveSchema, TableClient, errorReason } from "./dist/index.js";

const client = new TableClient(process.argv[2]);
const created = await client.createTable("highcard",
  { options: { players: 2 }, bots: { 1: "random" } });
const { seat, seatToken } = await client.joinTable(created.tableId, { seat: 0, name: "ann" });
let view = await client.getView(created.tableId, seatToken);
const from = view.version;
const session = client.play(created.tableId, seatToken, view.version);
const updates = session[Symbol.asyncIterator]();
const versions = [];
let moves = 0;
while (view.outcome === undefined) {
  const move = view.legalMoves[0];
  if (view.toMove.includes(seat) && move !== undefined) {
    const answer = await session.move(move, view.version);
    moves += answer.duplicate ? 0 : 1;
    view = answer.view;
    continue;
  }
  const next = await updates.next();  // wait until the table moves on
  if (next.done) break;
  versions.push(Number(next.value.version));
  const newer = next.value.view;
  if (newer !== undefined && newer.version >= view.version) view = newer;
}
for (let next = await updates.next(); !next.done; next = await updates.next()) {
  versions.push(Number(next.value.version));  // the rest: the stream ends after the final state
}
// a move after the end gets the server's own answer (by SubmitMove), as a call gets it
const late = [];
for (const call of [(m) => session.move(m, view.version),
                    (m) => client.submitMove(created.tableId, seatToken, m, view.version)]) {
  try {
    await call(view.legalMoves[0] ?? create(MoveSchema, { kind: "play" }));
    late.push("accepted");
  } catch (error) {
    late.push([Code[error.code], ErrorReason[errorReason(error)], error.rawMessage]);
  }
}
client.close();
console.log(JSON.stringify({ tableId: created.tableId, from: Number(from), versions, moves, late,
  version: Number(view.version), winners: view.outcome?.winners ?? null,
  resumes: session.resumes, closed: session.closed }));
"""


def test_a_whole_game_on_one_play_stream(
        node: str, server_address: str, stub: table_service_pb2_grpc.TableServiceStub) -> None:
    result = run_script(node, "play-game.mjs", GAME_SCRIPT, server_address)
    assert result["winners"], result
    # every update after from_version, once each and in order, up to the end
    assert result["versions"] == list(range(result["from"] + 1, result["version"] + 1)), result
    assert result["resumes"] == 0 and result["closed"], result
    stream, call = result["late"]
    assert stream == call and stream[0] == "FailedPrecondition", result
    history = stub.GetHistory(pb.GetHistoryRequest(table_id=result["tableId"]), timeout=10)
    assert history.finished and history.entries[-1].version == result["version"]
    assert len(own_moves(stub, result["tableId"], 0)) == result["moves"] == 3  # hand_size 3


# Two seats of one highcard table, held by this script; `mover` is the one to move first.
TWO_SEATS = """
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorReason, MoveSchema, TableClient, errorInfo, errorReason } from "./dist/index.js";

const client = new TableClient(process.argv[2]);
const { tableId } = await client.createTable("highcard", { options: { players: 2 } });
const seats = [await client.joinTable(tableId, { seat: 0 }),
               await client.joinTable(tableId, { seat: 1 })];
const first = await client.getView(tableId, seats[0].seatToken);
const mover = seats[first.toMove[0]];
const view = await client.getView(tableId, mover.seatToken);
const move = view.legalMoves[0];
/** What a caller sees of a failed call: everything but the transport's own trailers. */
async function refusal(call) {
  try {
    await call();
    return "accepted";
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    return { code: Code[error.code], message: error.rawMessage,
             reason: ErrorReason[errorReason(error)], metadata: errorInfo(error)?.metadata ?? {},
             details: error.details.map((d) => [d.type, Buffer.from(d.value).toString("hex")]) };
  }
}
"""

REFUSAL_SCRIPT = TWO_SEATS + """
const session = client.play(tableId, mover.seatToken, view.version);
const updates = session[Symbol.asyncIterator]();
const bogus = create(MoveSchema, { kind: "fold" });
const refused = {
  staleStream: await refusal(() => session.move(move, view.version - 1n)),
  staleCall: await refusal(() =>
    client.submitMove(tableId, mover.seatToken, move, view.version - 1n)),
  illegalStream: await refusal(() => session.move(bogus, view.version)),
  illegalCall: await refusal(() =>
    client.submitMove(tableId, mover.seatToken, bogus, view.version)),
};
const taken = await session.move(move, view.version);  // the same stream goes on
const versions = [];
while (versions.at(-1) !== Number(taken.version)) {
  const next = await updates.next();
  if (next.done) break;
  versions.push(Number(next.value.version));
}
session.close();
client.close();
console.log(JSON.stringify({ refused, version: Number(view.version), taken: Number(taken.version),
  duplicate: taken.duplicate, versions, resumes: session.resumes, tableId,
  seat: first.toMove[0] }));
"""


def test_a_refused_move_is_answered_in_the_stream_as_submit_move_answers_it(
        node: str, server_address: str, stub: table_service_pb2_grpc.TableServiceStub) -> None:
    result = run_script(node, "play-refusal.mjs", REFUSAL_SCRIPT, server_address)
    refused = result["refused"]
    stale, illegal = refused["staleStream"], refused["illegalStream"]
    assert stale["code"] == "Aborted" and stale["reason"] == "STALE_VERSION", stale
    assert stale["metadata"]["current_version"] == str(result["version"]), stale
    assert stale["metadata"]["expected_version"] == str(result["version"] - 1), stale
    assert illegal["code"] == "FailedPrecondition" and illegal["reason"] == "ILLEGAL_MOVE"
    assert "google.rpc.PreconditionFailure" in [kind for kind, _ in illegal["details"]]
    # the very error SubmitMove throws: code, message, reason, metadata, every detail's bytes
    assert stale == refused["staleCall"]
    assert illegal == refused["illegalCall"]
    # and then the stream took the move and brought its update, without opening again
    assert result["taken"] == result["version"] + 1 and not result["duplicate"], result
    assert result["versions"][-1] == result["taken"] and result["resumes"] == 0, result
    assert len(own_moves(stub, result["tableId"], result["seat"])) == 1


DUPLICATE_SCRIPT = TWO_SEATS + """
const session = client.play(tableId, mover.seatToken, view.version);
const taken = await session.move(move, view.version, "retry-1");
const again = await session.move(move, view.version, "retry-1");
const byCall = await client.submitMove(tableId, mover.seatToken, move, view.version, "retry-1");
const emptyId = await refusal(() => session.move(move, view.version, ""));
client.close();  // ends the open session too: it must not reconnect and keep Node.js running
console.log(JSON.stringify({ tableId, closed: session.closed,
  answers: [taken, again, byCall].map((a) => [Number(a.version), a.duplicate]),
  mover: seats.indexOf(mover), emptyId }));
"""


def test_a_repeated_request_id_is_answered_as_a_duplicate(
        node: str, server_address: str, stub: table_service_pb2_grpc.TableServiceStub) -> None:
    result = run_script(node, "play-duplicate.mjs", DUPLICATE_SCRIPT, server_address)
    (version, duplicate), *repeats = result["answers"]
    assert not duplicate and repeats == [[version, True], [version, True]], result
    assert len(own_moves(stub, result["tableId"], result["mover"])) == 1  # applied once
    assert result["emptyId"]["code"] == "InvalidArgument", result
    assert result["closed"], result


# A TCP proxy in the script between the client and the server: `cut()` drops every connection
# through it, as a network would, under the open Play stream.
RESUME_SCRIPT = """
import net from "node:net";
import { TableClient } from "./dist/index.js";

const [host, port] = process.argv[2].split(":");
const sockets = new Set();
const proxy = net.createServer((inbound) => {
  const outbound = net.connect(Number(port), host);
  for (const socket of [inbound, outbound]) {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => { inbound.destroy(); outbound.destroy(); sockets.delete(socket); });
  }
  inbound.pipe(outbound).pipe(inbound);
});
await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
const cut = () => { for (const socket of sockets) socket.destroy(); };

const client = new TableClient(`127.0.0.1:${proxy.address().port}`);
const created = await client.createTable("highcard",
  { options: { players: 2, hand_size: 6 }, bots: { 1: "random" } });
const { seat, seatToken } = await client.joinTable(created.tableId, { seat: 0 });
let view = await client.getView(created.tableId, seatToken);
const from = view.version;
const session = client.play(created.tableId, seatToken, view.version, { backoffMs: 20 });
const updates = session[Symbol.asyncIterator]();
const versions = [];
const answers = [];
while (view.outcome === undefined) {
  const move = view.legalMoves[0];
  if (view.toMove.includes(seat) && move !== undefined) {
    const sent = session.move(move, view.version);
    if (answers.length === 1 || answers.length === 3) cut();  // with a move on its way, twice
    const answer = await sent;
    answers.push([Number(answer.version), answer.duplicate]);
    view = answer.view;
    continue;
  }
  const next = await updates.next();
  if (next.done) break;
  versions.push(Number(next.value.version));
  const newer = next.value.view;
  if (newer !== undefined && newer.version >= view.version) view = newer;
}
for (let next = await updates.next(); !next.done; next = await updates.next()) {
  versions.push(Number(next.value.version));
}
client.close();
proxy.close();
console.log(JSON.stringify({ tableId: created.tableId, from: Number(from), versions, answers,
  version: Number(view.version), winners: view.outcome?.winners ?? null,
  resumes: session.resumes }));
"""


def test_a_cut_stream_resumes_from_the_last_version_received(
        node: str, server_address: str, stub: table_service_pb2_grpc.TableServiceStub) -> None:
    result = run_script(node, "play-resume.mjs", RESUME_SCRIPT, server_address)
    assert result["winners"], result
    assert result["resumes"] >= 2, result
    # no update lost or repeated across the cuts
    assert result["versions"] == list(range(result["from"] + 1, result["version"] + 1)), result
    # each move was answered (after a cut, as a duplicate if the server had it already) and
    # applied once, at the version it was answered with
    moves = own_moves(stub, result["tableId"], 0)
    assert len(moves) == len(result["answers"]) == 6, result
    assert [entry.version for entry in moves] == [version for version, _ in result["answers"]]


class ServerWithoutPlay(table_service_pb2_grpc.TableServiceServicer):
    """A server from before Play: the calls bezique-play makes are passed on to a real server
    (their refusals too, trailers and all); Play answers UNIMPLEMENTED, as the generated base
    class does."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.stub = table_service_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]

    @staticmethod
    def _metadata(context: grpc.aio.ServicerContext[Any, Any]) -> list[tuple[str, str]]:
        return [(key, str(value)) for key, value in context.invocation_metadata() or ()
                if key in ("authorization", "x-api-key")]

    async def _unary(self, name: str, request: Any,
                     context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        try:
            return await getattr(self.stub, name)(request, metadata=self._metadata(context))
        except grpc.aio.AioRpcError as error:
            trailers: Any = error.trailing_metadata() or ()  # the refusal's rich status too
            await context.abort(error.code(), error.details() or "", tuple(trailers))

    async def ListVariants(self, request: Any, context: Any) -> Any:
        return await self._unary("ListVariants", request, context)

    async def CreateTable(self, request: Any, context: Any) -> Any:
        return await self._unary("CreateTable", request, context)

    async def JoinTable(self, request: Any, context: Any) -> Any:
        return await self._unary("JoinTable", request, context)

    async def GetView(self, request: Any, context: Any) -> Any:
        return await self._unary("GetView", request, context)

    async def GetHistory(self, request: Any, context: Any) -> Any:
        return await self._unary("GetHistory", request, context)

    async def RevealEntropy(self, request: Any, context: Any) -> Any:
        return await self._unary("RevealEntropy", request, context)

    async def SubmitMove(self, request: Any, context: Any) -> Any:
        return await self._unary("SubmitMove", request, context)

    async def WatchTable(self, request: Any, context: Any) -> AsyncIterator[Any]:
        async for update in self.stub.WatchTable(request, metadata=self._metadata(context)):
            yield update


async def test_bezique_play_falls_back_to_calls_on_a_server_without_play(
        node: str, server_address: str) -> None:
    async with grpc.aio.insecure_channel(server_address) as channel, \
            fake_table_service(ServerWithoutPlay(channel)) as address:
        completed = await asyncio.to_thread(
            subprocess.run, [node, "dist/play.js", "--server", address, "--variant", "highcard"],
            cwd=NODE_DIR, capture_output=True, text=True, timeout=60, check=False)
    assert completed.returncode == 0, completed.stderr
    assert "no Play stream; playing with SubmitMove and WatchTable" in completed.stderr
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    assert result["outcome"]["winners"] and result["moves"] == 3, result
