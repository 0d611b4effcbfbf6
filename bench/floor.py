"""The transport floor: what a move's messages cost a bare grpc.aio server that does no work.

A move on this engine with every seat watching is one SubmitMove (a unary call answered with
~276 bytes) and ~300 bytes pushed on each of the table's four WatchTable streams. A bidirectional
"play" stream per seat would make it one message in and four out (the mover's answer is its
push). Both shapes run here on one bare server (:func:`serve`: fixed byte blobs, nothing
parsed; uvloop and grpc's classic listener, as ``bezique-server`` runs), each seat on a channel
(a connection) of its own, the server pinned to one core and this process, the load, to the
other; closed-loop runs alternate between the shapes, and the server's CPU per move comes from
/proc/PID/stat around each run. Then the memory per idle table of each shape: server RSS growth
over ``idle_tables`` tables whose four seats are connected and hold their stream(s).

Run: ``python -m bench --only floor [--quick]``; the server alone: ``python -m bench.floor
--serve [--option NAME=INT ...]`` (prints ``floor listening on HOST:PORT``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from bench.common import (
    Child,
    Section,
    fmt_rate,
    fmt_us,
    median,
    python_module_argv,
    run_in_scratch,
    serve_until_signalled,
    spawn,
)
from bench.players import channel
from bench.seats import PUSH as PUSH
from bench.seats import Tables as Tables

SERVICE = "bench.Floor"
SEATS = 4
ANSWER = b"a" * 276
"""A SubmitMove answer's size (the mover's view) in the measured server."""
SHAPES = ("unary + 4 streams", "bidi: 1 in, 4 out")
Context = grpc.aio.ServicerContext[bytes, bytes]
GRPC_EXPERIMENTS = "-event_engine_listener"
"""As bezique.service.main sets it for the server's process."""


@dataclass(frozen=True)
class FloorConfig:
    concurrency: int = 64
    moves: int = 8_000
    reps: int = 5
    warmup_moves: int = 2_000
    idle_tables: int = 500
    settle_seconds: float = 2.0
    """How long the server is left alone before its RSS is read (half that before the first
    reading)."""


# --------------------------------------------------------------------------- the server


def handlers(tables: Tables) -> grpc.GenericRpcHandler[bytes, bytes]:
    """Watch (a seat's stream: a first message, then every push), Submit (a move as a unary
    call: pushes to the four seats, answers ANSWER) and Play (a seat's bidirectional stream:
    its first message joins, each later one is a move, and it carries the seat's pushes)."""

    async def watch(request: bytes, context: Context) -> AsyncIterator[bytes]:
        table, queue = tables.join(request)
        try:
            yield PUSH
            while True:
                yield await queue.get()
        finally:
            tables.leave(table, queue)

    async def submit(request: bytes, context: Context) -> bytes:
        answer = tables.submit(request)
        return ANSWER if answer is None else answer

    async def play(requests: AsyncIterator[bytes], context: Context) -> AsyncIterator[bytes]:
        first = await anext(aiter(requests))
        table, queue = tables.join(first)

        async def moves() -> None:
            async for _ in requests:
                tables.move(table)

        reader = asyncio.get_running_loop().create_task(moves())
        try:
            yield PUSH
            while True:
                yield await queue.get()
        finally:
            reader.cancel()
            tables.leave(table, queue)

    def same(data: bytes) -> bytes:
        return data

    return grpc.method_handlers_generic_handler(SERVICE, {
        "Watch": grpc.unary_stream_rpc_method_handler(watch, same, same),
        "Submit": grpc.unary_unary_rpc_method_handler(submit, same, same),
        "Play": grpc.stream_stream_rpc_method_handler(play, same, same),
    })


async def serve(address: str, options: list[tuple[str, Any]], tables: Tables) -> None:
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0), *options])
    server.add_generic_rpc_handlers((handlers(tables),))
    port = server.add_insecure_port(address)
    await server.start()
    host = address.rsplit(":", 1)[0]
    await serve_until_signalled(server, f"floor listening on {host}:{port}")


# --------------------------------------------------------------------------- the load


@dataclass
class Table:
    """One table as its four seats see it: how many pushes they got, and who waits for more."""

    name: bytes
    shape: str
    channels: list[grpc.aio.Channel]
    calls: list[Any] = field(default_factory=list)
    submits: list[Any] = field(default_factory=list)
    """Each seat's Submit (unary shape), made once: not a multicallable a call."""
    received: int = 0
    wanted: int = 0
    waiter: asyncio.Future[None] | None = None
    mover: int = 0

    def got(self) -> None:
        self.received += 1
        if self.waiter is not None and self.received >= self.wanted and not self.waiter.done():
            self.waiter.set_result(None)

    async def pushes(self, count: int) -> None:
        """Until every seat got ``count`` more pushes than it has now been asked for."""
        self.wanted += count
        if self.received < self.wanted:
            self.waiter = asyncio.get_running_loop().create_future()
            await self.waiter

    async def move(self) -> None:
        """One move: the mover's call (unary) or message (bidi), then all four pushes."""
        seat = self.mover
        self.mover = (self.mover + 1) % SEATS
        if self.shape == SHAPES[0]:
            await self.submits[seat](self.name)
        else:
            await self.calls[seat].write(self.name)
        await self.pushes(SEATS)

    async def close(self) -> None:
        for call in self.calls:
            call.cancel()
        for chan in self.channels:
            await chan.close(None)


@dataclass
class Dialer:
    """Channels to one server, each with a connection of its own."""

    target: str
    made: int = 0

    def channel(self) -> grpc.aio.Channel:
        self.made += 1
        return channel(self.target, self.made)


async def open_table(name: bytes, shape: str, dialer: Dialer) -> Table:
    """A table's four seats, each on its own channel with its stream open and first push in."""
    table = Table(name, shape, [dialer.channel() for _ in range(SEATS)])
    for seat, chan in enumerate(table.channels):
        request = name + b":" + str(seat).encode()
        if shape == SHAPES[0]:
            table.submits.append(chan.unary_unary(f"/{SERVICE}/Submit", None, None))
            call: Any = chan.unary_stream(f"/{SERVICE}/Watch", None, None)(request)
        else:
            call = chan.stream_stream(f"/{SERVICE}/Play", None, None)(None)
            await call.write(request)
        table.calls.append(call)
        asyncio.get_running_loop().create_task(_read(table, call))
    await table.pushes(SEATS)
    return table


async def _read(table: Table, call: Any) -> None:
    with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
        async for _ in call:
            table.got()


async def open_tables(count: int, shape: str, dialer: Dialer, start: int = 0) -> list[Table]:
    """``count`` tables, 16 opened at a time."""
    names = iter(range(start, start + count))
    opened: list[Table] = []

    async def worker() -> None:
        for k in names:
            opened.append(await open_table(f"{shape[0]}{k}".encode(), shape, dialer))

    await asyncio.gather(*(worker() for _ in range(min(16, count))))
    return opened


async def closed_loop(tables: list[Table], moves: int) -> float:
    """``moves`` moves, each table one move at a time; the seconds it took."""
    left = moves

    async def worker(table: Table) -> None:
        nonlocal left
        while left > 0:
            left -= 1
            await table.move()

    started = time.perf_counter()
    await asyncio.gather(*(worker(t) for t in tables))
    return time.perf_counter() - started


# --------------------------------------------------------------------------- the section


@dataclass
class Shape:
    name: str
    tables: list[Table]
    cpu: list[float] = field(default_factory=list)
    rates: list[float] = field(default_factory=list)
    per_table: float = float("nan")


@contextlib.contextmanager
def pinned_self(core: int) -> Iterator[None]:
    """This process (the load) on ``core`` for the section, as it was after."""
    was = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {core})
    try:
        yield
    finally:
        os.sched_setaffinity(0, was)


def start_server(workdir: Path, server_core: int, name: str = "floor",
                 options: tuple[str, ...] = (), work: Path | None = None) -> Child:
    """The bare server on ``server_core``, with grpc's experiments as bezique-server sets
    them (grpc reads the variable when it is imported, hence ``env``); with ``work`` (its
    sqlite file), the least-work server of :mod:`bench.leastwork`."""
    experiments = os.environ.get("GRPC_EXPERIMENTS", GRPC_EXPERIMENTS)
    argv = python_module_argv("bench.floor", "--serve",
                              *(f"--option={option}" for option in options),
                              *([f"--work={work}"] if work is not None else []))
    return spawn(["taskset", "-c", str(server_core), "env", f"GRPC_EXPERIMENTS={experiments}",
                  *argv], workdir, name, ready=r"listening on (\S+:\d+)")


async def _idle_memory(workdir: Path, config: FloorConfig, shape: str, server_core: int
                       ) -> float:
    """Bytes of server RSS per idle table of ``shape``, on a fresh server (after 50 tables)."""
    server = start_server(workdir, server_core, f"floor-idle-{shape[0]}")
    try:
        dialer = Dialer(server.address)
        opened = await open_tables(50, shape, dialer)
        await asyncio.sleep(config.settle_seconds / 2)
        before = server.rss()
        opened += await open_tables(config.idle_tables, shape, dialer, 50)
        await asyncio.sleep(config.settle_seconds)
        grown = server.rss() - before
        for table in opened:
            await table.close()
        return grown / config.idle_tables
    finally:
        server.stop()


async def bench(config: FloorConfig, workdir: Path) -> Section:
    from bench.peerbench import cores

    server_core, load_core = cores()
    with pinned_self(load_core):
        return await _bench(config, workdir, server_core)


async def _bench(config: FloorConfig, workdir: Path, server_core: int) -> Section:
    server = start_server(workdir, server_core)
    dialer = Dialer(server.address)
    try:
        shapes = [Shape(name, await open_tables(config.concurrency, name, dialer))
                  for name in SHAPES]
        for shape in shapes:
            await closed_loop(shape.tables, config.warmup_moves)
        for rep in range(config.reps):
            order = shapes[rep % 2:] + shapes[:rep % 2]
            for shape in order:
                cpu0 = server.cpu_seconds()
                seconds = await closed_loop(shape.tables, config.moves)
                shape.cpu.append((server.cpu_seconds() - cpu0) / config.moves)
                shape.rates.append(config.moves / seconds)
        for shape in shapes:
            for table in shape.tables:
                await table.close()
    finally:
        server.stop()
    for shape in shapes:
        shape.per_table = await _idle_memory(workdir, config, shape.name, server_core)
    return report(config, shapes)


def _range(values: list[float], fmt: Callable[[float], str]) -> str:
    return f"{fmt(median(values))} [{fmt(min(values))}–{fmt(max(values))}]"


def report(config: FloorConfig, shapes: list[Shape]) -> Section:
    section = Section(
        "Transport floor: a move's messages on a bare grpc.aio server (no work), "
        f"{config.concurrency} tables x {SEATS} channels",
        ["a move is", "server CPU per move [range]", "moves/s [range]", "server busy",
         "memory per idle table (4 seats connected)"])
    for shape in shapes:
        busy = median([cpu * rate for cpu, rate in zip(shape.cpu, shape.rates, strict=True)])
        section.rows.append([
            shape.name, _range(shape.cpu, fmt_us), _range(shape.rates, fmt_rate),
            f"{busy:.0%}", f"{shape.per_table / 1024:,.1f} KiB"])
        section.figures[shape.name] = {
            "server_cpu_per_move": median(shape.cpu), "cpu_runs": shape.cpu,
            "rate": median(shape.rates), "server_busy": busy, "per_table": shape.per_table}
    unary, bidi = (median(s.cpu) for s in shapes)
    section.figures["bidi_over_unary"] = bidi / unary
    section.notes += [
        f"unary + 4 streams: the mover's unary call answered with {len(ANSWER)} bytes and "
        f"{len(PUSH)} bytes pushed on each seat's server stream (today's SubmitMove + "
        f"WatchTable); bidi: the mover's message on its own bidirectional stream, {len(PUSH)} "
        "bytes pushed on each seat's stream, the mover's included (its answer). A move ends "
        "when all four seats have their push.",
        f"bidi / unary server CPU per move: {bidi / unary:.2f}x. A server well under 100 % "
        "busy waits for the load (this process, in Python): its CPU per move is then if "
        "anything higher than at saturation (fewer messages per wake-up).",
        f"{config.reps} alternating closed-loop runs of {config.moves:,} moves per shape after "
        f"{config.warmup_moves:,} warm-up moves each; medians [ranges]. The server: uvloop, "
        f"GRPC_EXPERIMENTS={GRPC_EXPERIMENTS}, on one core; this process (the load) on the "
        "other.",
        f"Memory: a fresh server per shape, VmRSS growth over {config.idle_tables:,} idle tables "
        "after 50 warm-up tables.",
    ]
    return section


def run(config: FloorConfig | None = None) -> Section:
    chosen = config or FloorConfig()
    return run_in_scratch(lambda workdir: bench(chosen, workdir))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.floor")
    parser.add_argument("--serve", action="store_true", help="be the bare server")
    parser.add_argument("--address", default="127.0.0.1:0")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=INT",
                        help="a grpc server option (channel argument), integer valued")
    parser.add_argument("--work", type=Path, metavar="SQLITE_FILE",
                        help="do a move's necessary work (bench.leastwork), logging to this file")
    args = parser.parse_args()
    if not args.serve:
        parser.error("the section runs with: python -m bench --only floor [--quick]")
    options = [(name, int(value)) for name, _, value in
               (option.partition("=") for option in args.option)]
    if args.work is None:
        tables = Tables()
    else:
        import gc

        from bench.leastwork import WorkingTables

        tables = WorkingTables(args.work)
        gc.freeze()  # as bezique-server does: the start-up heap is not walked again
    try:
        import uvloop
    except ImportError:
        asyncio.run(serve(args.address, options, tables))
    else:
        uvloop.run(serve(args.address, options, tables))


if __name__ == "__main__":
    main()
