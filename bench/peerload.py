"""The load on this engine for the peer benchmark: the same game loop as the peers' clients.

Run: ``python -m bench.peerload --target HOST:PORT``. It speaks the line protocol of
``bench/peers/load.mjs`` on stdin/stdout (``prepare``, ``run``, ``drop``, ``quit``; one JSON
object a line each way). Every seat of every table holds a WatchTable stream with its own seat
token (the peers push every move to every seat, so the streams are part of the work), and a
seat moves only when its own stream's view says it is to move, choosing among the view's legal
moves: nothing is mirrored locally. A move's latency is from the SubmitMove's send to its
answer (the mover learns its move was taken). Seats get a channel (a connection) of their own
unless ``--channels N`` spreads them over ``N``.

With ``--play`` every seat holds a Play stream instead (one two-way call per seat: the updates
come down it and the seat's moves go up it); a move's latency is then from its PlayMove's send
to its result on the mover's stream.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc

from bench.common import raise_fd_limit
from bench.connectstub import ConnectError, ConnectStub
from bench.players import Metadata, bearer, channel
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc

SEATS = 4
OPTIONS = {"players": str(SEATS), "hand_size": "8"}
Stub = pb_grpc.TableServiceStub | ConnectStub
"""A seat's way to the server: gRPC, or Connect over HTTP/1.1 (``--transport connect``)."""


@dataclass
class SeatState:
    """What one seat's own stream last showed it."""

    version: int
    my_turn: bool
    over: bool
    legal: list[pb.Move]
    hand: int


@dataclass
class Table:
    """One table as its four players see it."""

    table_id: str
    stubs: list[Stub]
    metadata: list[Metadata]
    latest: list[SeatState | None] = field(default_factory=lambda: [None] * SEATS)
    waiter: asyncio.Future[int | None] | None = None
    calls: list[Any] = field(default_factory=list)
    channels: list[grpc.aio.Channel] = field(default_factory=list)
    """The connections of this table's seats alone (none when seats share a fixed set)."""
    acked: int = 0  # the newest version a SubmitMove answer gave: streams must reach it
    outboxes: list[asyncio.Queue[pb.PlayRequest | None]] = field(default_factory=list)
    """Each seat's Play stream's requests (``--play``; empty: moves go by SubmitMove)."""
    answers: dict[str, asyncio.Future[int]] = field(default_factory=dict)
    """The Play moves sent and not answered yet, by request id: the version each reached."""

    def update(self, seat: int, state: SeatState) -> None:
        self.latest[seat] = state
        if self.waiter is not None and not self.waiter.done():
            found = self.ready()
            if found != -1:
                self.waiter.set_result(found)

    def ready(self) -> int | None:
        """The seat whose own stream says it is to move at the newest version; None: over;
        -1: not known yet."""
        newest = max((s.version for s in self.latest if s is not None), default=-1)
        if newest < self.acked:
            return -1
        for seat, state in enumerate(self.latest):
            if state is None or state.version != newest:
                continue
            if state.over:
                return None
            if state.my_turn:
                return seat
        return -1

    async def turn(self) -> int | None:
        found = self.ready()
        if found != -1:
            return found
        self.waiter = asyncio.get_running_loop().create_future()
        return await self.waiter

    def moves_left(self) -> int:
        return sum(s.hand for s in self.latest if s is not None)

    async def play(self, seat: int, rng: random.Random) -> None:
        state = self.latest[seat]
        assert state is not None
        move = state.legal[rng.randrange(len(state.legal))]
        if self.outboxes:
            request_id = uuid.uuid4().hex
            answered = self.answers[request_id] = asyncio.get_running_loop().create_future()
            self.outboxes[seat].put_nowait(pb.PlayRequest(move=pb.PlayMove(
                move=move, expected_version=state.version, request_id=request_id)))
            self.acked = max(self.acked, await asyncio.wait_for(answered, 60))
            return
        answer = await self.stubs[seat].SubmitMove(
            pb.SubmitMoveRequest(table_id=self.table_id, move=move,
                                 expected_version=state.version,
                                 request_id=uuid.uuid4().hex),
            metadata=self.metadata[seat], timeout=60)
        self.acked = max(self.acked, answer.version)

    def close(self) -> None:
        for call in self.calls:
            call.cancel()
        for outbox in self.outboxes:
            outbox.put_nowait(None)

    def answered(self, result: pb.PlayResult) -> None:
        """A Play move's result: its version, or its refusal as an error of the move."""
        future = self.answers.pop(result.request_id, None)
        if future is None or future.done():
            return
        if result.code:
            future.set_exception(RuntimeError(f"move refused: {result.code} {result.message}"))
        else:
            future.set_result(result.accepted.version)


async def requests(outbox: asyncio.Queue[pb.PlayRequest | None]) -> AsyncIterator[pb.PlayRequest]:
    """A Play stream's requests, until ``None``."""
    while (request := await outbox.get()) is not None:
        yield request


def seat_state(view: pb.View, seat: int) -> SeatState:
    return SeatState(view.version, seat in view.to_move,
                     view.phase == "over" or not view.to_move, list(view.legal_moves),
                     len(view.hand))


class Load:
    """The pool of tables and the loop that plays them."""

    def __init__(self, target: str, channels: int, watch: bool = True,
                 transport: str = "grpc", play: bool = False,
                 answers_beside_updates: bool = True) -> None:
        self.target = target
        self.playing = play
        self.answers_beside_updates = answers_beside_updates
        self.transport = transport
        self.connect_stubs: list[ConnectStub] = []
        self.watching = watch
        self.channel_count = channels
        self.channels: list[grpc.aio.Channel] = []
        self.pool: deque[Table] = deque()
        self.finished: list[Table] = []
        self.rng = random.Random(1)
        self.made = 0
        self.errors: list[str] = []

    def stub(self) -> Stub:
        """A stub on the next channel: a new one per seat, or round robin over a fixed set;
        over Connect, a seat's own keep-alive connection (and one per stream)."""
        index = self.made
        self.made += 1
        if self.transport == "connect":
            host, _, port = self.target.rpartition(":")
            self.connect_stubs.append(ConnectStub(host, int(port)))
            return self.connect_stubs[-1]
        if self.channel_count and len(self.channels) >= self.channel_count:
            chan = self.channels[index % self.channel_count]
        else:
            chan = channel(self.target, index)
            self.channels.append(chan)
        return pb_grpc.TableServiceStub(chan)  # type: ignore[no-untyped-call]

    async def one(self) -> Table:
        first = len(self.channels)
        stubs = [self.stub() for _ in range(SEATS)]
        own = [] if self.channel_count else self.channels[first:]
        created = await stubs[0].CreateTable(pb.CreateTableRequest(
            variant_id="highcard", options=OPTIONS), timeout=60)
        metadata: list[Metadata] = []
        version = 0
        for seat in range(SEATS):
            joined = await stubs[seat].JoinTable(
                pb.JoinTableRequest(table_id=created.table_id, seat=seat), timeout=60)
            metadata.append(bearer(joined.seat_token))
            version = joined.view.version
        table = Table(created.table_id, stubs, metadata, channels=own)
        if not self.watching:
            return table
        for seat in range(SEATS):
            if self.playing:
                outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
                outbox.put_nowait(pb.PlayRequest(open=pb.PlayOpen(
                    table_id=table.table_id, from_version=version - 1,
                    answers_with_updates=self.answers_beside_updates)))
                table.outboxes.append(outbox)
                stub = stubs[seat]
                if not isinstance(stub, pb_grpc.TableServiceStub):
                    raise RuntimeError("Play needs the gRPC transport")
                call = stub.Play(requests(outbox), metadata=metadata[seat])
            else:
                call = stubs[seat].WatchTable(
                    pb.WatchTableRequest(table_id=table.table_id, from_version=version - 1),
                    metadata=metadata[seat])
            table.calls.append(call)
            asyncio.get_running_loop().create_task(self.watch(table, seat, call))
        await table.turn()
        return table

    async def watch(self, table: Table, seat: int, call: Any) -> None:
        try:
            async for message in call:
                answer = None
                if isinstance(message, pb.PlayResponse):
                    if message.HasField("result"):
                        table.answered(message.result)
                        continue
                    if message.HasField("answer"):  # its move's answer, with its update
                        answer = message.answer
                    message = message.update
                if message.HasField("view"):
                    table.update(seat, seat_state(message.view, seat))
                if answer is not None:
                    table.answered(answer)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                self.errors.append(f"{table.table_id}/{seat}: {error.code()} {error.details()}")
        except (ConnectError, OSError, asyncio.IncompleteReadError) as error:
            self.errors.append(f"{table.table_id}/{seat}: {error!r}")

    async def prepare(self, moves: int, concurrency: int) -> None:
        """Top the pool up until it holds ``moves`` moves beyond what ``concurrency`` workers
        may leave stranded in half-played tables."""
        want = moves + concurrency * 32
        have = sum(t.moves_left() for t in self.pool)
        await self.add(max(0, -(-(want - have) // 32)))

    async def add(self, count: int) -> None:
        """``count`` more tables, all seats joined and watching, ``16`` made at a time."""
        left = count

        async def worker() -> None:
            nonlocal left
            while left > 0:
                left -= 1
                self.pool.append(await self.one())

        await asyncio.gather(*(worker() for _ in range(min(16, count))))

    async def run(self, moves: int, concurrency: int, rate: float | None) -> dict[str, Any]:
        issued = 0
        late = 0
        latencies: list[float] = []
        stream_waits: list[float] = []  # a move's answer -> the streams show the next turn
        start = time.perf_counter()

        async def worker() -> None:
            nonlocal issued, late
            table: Table | None = None
            answered = 0.0
            while True:
                if table is None:
                    if not self.pool:
                        raise RuntimeError("the pool of tables ran dry: prepare more")
                    table = self.pool.popleft()
                    answered = 0.0
                seat = await table.turn()
                if answered:
                    stream_waits.append(time.perf_counter() - answered)
                if seat is None:
                    self.finished.append(table)
                    table = None
                    continue
                if issued >= moves:
                    self.pool.appendleft(table)
                    return
                slot = issued
                issued += 1
                if rate:
                    wait = start + slot / rate - time.perf_counter()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    elif wait < -0.005:
                        late += 1
                sent = time.perf_counter()
                await table.play(seat, self.rng)
                answered = time.perf_counter()
                latencies.append(answered - sent)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return {"moves": len(latencies), "seconds": time.perf_counter() - start,
                "latencies": latencies, "late": late, "stream_waits": stream_waits}

    async def drop(self) -> None:
        """Close the finished tables' streams and their seats' connections: a client leaves a
        table it finished, so the server is measured with the tables in play connected only
        (thousands of idle connections left behind would swell it)."""
        closing = {id(chan) for table in self.finished for chan in table.channels}
        for table in self.finished:
            table.close()
            for chan in table.channels:
                await chan.close(None)
        self.channels = [chan for chan in self.channels if id(chan) not in closing]
        self.finished.clear()
        await asyncio.sleep(0.3)


def answer(obj: dict[str, Any]) -> None:
    """One JSON line to the harness."""
    print(json.dumps(obj), flush=True)


async def serve(load: Load, lines: asyncio.Queue[str | None]) -> None:
    while (line := await lines.get()) is not None:
        if not line.strip():
            continue
        command = json.loads(line)
        try:
            name = command["cmd"]
            if name == "prepare":
                started = time.perf_counter()
                if "tables" in command:
                    await load.add(int(command["tables"]))
                else:
                    await load.prepare(int(command["moves"]), int(command["concurrency"]))
                answer({"ok": True, "tables": len(load.pool),
                        "seconds": time.perf_counter() - started, "errors": load.errors[:5]})
            elif name == "run":
                rate = command.get("rate")
                answer({"ok": True, **await load.run(int(command["moves"]),
                                                     int(command["concurrency"]),
                                                     float(rate) if rate else None),
                        "errors": load.errors[:5]})
            elif name == "drop":
                await load.drop()
                answer({"ok": True, "tables": len(load.pool)})
            elif name == "quit":
                answer({"ok": True})
                break
            else:
                answer({"ok": False, "error": f"unknown command {name}"})
        except Exception as error:  # reported to the harness, which fails the section
            answer({"ok": False, "error": repr(error)})
    for table in [*load.pool, *load.finished]:
        table.close()
    for chan in load.channels:
        await chan.close(None)
    for stub in load.connect_stubs:
        await stub.close()


def _read_stdin(loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str | None]) -> None:
    """Feed stdin's lines to the loop (a thread: stdin may be a pipe the loop cannot watch)."""
    for line in sys.stdin:
        loop.call_soon_threadsafe(lines.put_nowait, line)
    loop.call_soon_threadsafe(lines.put_nowait, None)


async def main_async(target: str, channels: int, watch: bool, transport: str,
                     play: bool = False, answers_beside_updates: bool = True) -> None:
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    loop = asyncio.get_running_loop()
    threading.Thread(target=_read_stdin, args=(loop, lines), daemon=True).start()
    await serve(Load(target, channels, watch, transport, play, answers_beside_updates), lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.peerload")
    parser.add_argument("--target", required=True)
    parser.add_argument("--channels", type=int, default=0,
                        help="connections shared by all seats (0: one per seat)")
    parser.add_argument("--no-watch", action="store_true",
                        help="seats join but open no stream (with --channels 1: a bare table)")
    parser.add_argument("--transport", choices=("grpc", "connect"), default="grpc",
                        help="connect: the HTTP port's Connect protocol (binary proto, HTTP/1.1;"
                             " --target is then the HTTP address)")
    parser.add_argument("--play", action="store_true",
                        help="every seat holds a Play stream: updates down, its moves up")
    parser.add_argument("--separate-answers", action="store_true",
                        help="with --play: each answer a message of its own (the streams do "
                             "not set answers_with_updates)")
    args = parser.parse_args()
    if args.play and args.transport != "grpc":
        parser.error("--play needs --transport grpc (HTTP/1.1 carries no two-way stream)")
    raise_fd_limit()
    asyncio.run(main_async(args.target, args.channels, not args.no_watch, args.transport,
                           args.play, not args.separate_answers))


if __name__ == "__main__":
    main()
