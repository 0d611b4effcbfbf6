"""Issue #19's gap: where a move's server CPU goes between the bare grpc floor and this engine.

Short alternating closed-loop runs (64 tables x 4 seats, each seat on its own channel, every
seat watching), the server pinned to one core, the load to the other; server CPU per move from
/proc around each run, split by thread (the loop thread, grpc's poller thread, grpc's
EventEngine threads). Two probes:

- ``engine``: this engine's server with each store (``peerbench.start``, ``Subject.run``).
- ``floor``: the bare floor (:mod:`bench.floor`) against itself changed one thing at a time:
  the seat token as metadata and a deadline on each SubmitMove (``md``), the server set up as
  bezique-server sets its own up (``setup``: options, health, reflection, gc thresholds,
  ``uvloop.run``), that server spinning ``N`` µs of CPU in each move (``spinN``: the
  engine's pace, to see what a slower loop costs grpc itself), and with messages of the
  engine's sizes (``big``).

Run: ``python -m bench.gap engine [--moves 3000 --reps 5]`` or ``python -m bench.gap floor
--variants plain,md,setup,spin600``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from bench import floor, peerbench
from bench.common import Child, median, serve_until_signalled, spawn

TOKEN_METADATA = (("authorization", "Bearer " + "t" * 43),)
"""A seat token's size, as the load's SubmitMove carries it."""


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds of ``pid``'s threads by kind: the main (loop) thread, grpc's EventEngine
    threads, and the rest (grpc's completion-queue poller; sqlite's checkpoint thread)."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            comm = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        kind = ("loop" if task.name == str(pid) else
                "event_engine" if comm.startswith("event_engine") else "other")
        found[kind] = found.get(kind, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return found


def per_move(before: dict[str, float], after: dict[str, float], moves: int) -> str:
    return " ".join(f"{kind} {(after[kind] - before.get(kind, 0.0)) / moves * 1e6:.0f}"
                    for kind in sorted(after))


def summary(cpu: dict[str, list[float]]) -> None:
    print(f"load average {os.getloadavg()}")
    for name, runs in cpu.items():
        print(f"{name}: median {median(runs) * 1e6:.0f} µs/move "
              f"[{min(runs) * 1e6:.0f}-{max(runs) * 1e6:.0f}]", flush=True)


def probe_engine(stores: list[str], moves: int, reps: int) -> None:
    """Alternating runs of this engine over each store."""
    with tempfile.TemporaryDirectory(prefix="bezique-gap-") as tmp:
        subjects = []
        try:
            for store in stores:
                folder = Path(tmp) / store
                folder.mkdir()
                subjects.append(peerbench.start(store, folder))
            for subject in subjects:
                subject.run(1_500, 64, None)
            cpu: dict[str, list[float]] = {s.name: [] for s in subjects}
            for rep in range(reps):
                for subject in subjects[rep % len(subjects):] + subjects[:rep % len(subjects)]:
                    subject.load.ask({"cmd": "prepare", "moves": moves, "concurrency": 64})
                    subject.load.ask({"cmd": "drop"})
                    threads = thread_cpu(subject.server.pid)
                    run = subject.run(moves, 64, None)
                    cpu[subject.name].append(run.server_cpu / run.moves)
                    print(f"{rep} {subject.name}: {run.server_cpu / run.moves * 1e6:.0f} µs "
                          f"({per_move(threads, thread_cpu(subject.server.pid), run.moves)}), "
                          f"{run.rate:.0f} moves/s", flush=True)
            summary(cpu)
        finally:
            for subject in subjects:
                subject.stop()


def _mover(metadata: bool) -> Callable[[floor.Table], Awaitable[None]]:
    async def move(table: floor.Table) -> None:
        seat = table.mover
        table.mover = (table.mover + 1) % floor.SEATS
        call = table.channels[seat].unary_unary(f"/{floor.SERVICE}/Submit", None, None)
        if metadata:
            await call(table.name, metadata=TOKEN_METADATA, timeout=60)
        else:
            await call(table.name)
        await table.pushes(floor.SEATS)
    return move


def _server(variant: str, workdir: Path, core: int) -> Child:
    if variant in ("plain", "md"):
        return floor.start_server(workdir, core, variant)
    spin = variant.removeprefix("spin") if variant.startswith("spin") else "0"
    argv = [sys.executable, "-m", "bench.gap", "serve", "--spin", spin,
            *(["--big"] if variant == "big" else [])]
    return spawn(["taskset", "-c", str(core), "env",
                  f"GRPC_EXPERIMENTS={floor.GRPC_EXPERIMENTS}", *argv], workdir, variant,
                 ready=r"listening on (\S+:\d+)")


async def probe_floor(variants: list[str], moves: int, reps: int, workdir: Path) -> None:
    """Alternating runs of the floor's load against each variant's server."""
    server_core, load_core = peerbench.cores()
    os.sched_setaffinity(0, {load_core})
    servers = {name: _server(name, workdir, server_core) for name in variants}
    try:
        tables = {name: await floor.open_tables(64, floor.SHAPES[0],
                                                floor.Dialer(server.address))
                  for name, server in servers.items()}
        for name in variants:
            await _loop(tables[name], 1_000, name == "md")
        cpu: dict[str, list[float]] = {name: [] for name in variants}
        for rep in range(reps):
            for name in variants[rep % len(variants):] + variants[:rep % len(variants)]:
                server = servers[name]
                cpu0, threads = server.cpu_seconds(), thread_cpu(server.pid)
                await _loop(tables[name], moves, name == "md")
                cpu[name].append((server.cpu_seconds() - cpu0) / moves)
                print(f"{rep} {name}: {cpu[name][-1] * 1e6:.0f} µs "
                      f"({per_move(threads, thread_cpu(server.pid), moves)})", flush=True)
        summary(cpu)
    finally:
        for server in servers.values():
            server.stop()


async def _loop(tables: list[floor.Table], moves: int, metadata: bool) -> None:
    move = _mover(metadata)
    left = moves

    async def worker(table: floor.Table) -> None:
        nonlocal left
        while left > 0:
            left -= 1
            await move(table)

    await asyncio.gather(*(worker(table) for table in tables))


BIG = (420, 460)
"""Bytes of a SubmitMove answer and of a stream update at the top of the engine's range
(highcard's views: 289-441 bytes)."""


async def serve(spin: float, big: bool = False) -> None:
    """The floor's handlers on a server set up as bezique-server's (its grpc options, health
    and reflection services, gc thresholds), spending ``spin`` seconds of CPU per move;
    ``big``: answers and pushes of :data:`BIG` sizes."""
    import grpc
    from grpc_health.v1 import health_pb2_grpc

    from bezique.service import reflection
    from bezique.service.health import CappedHealth
    from bezique.service.limits import StreamCounter
    from bezique.service.server import GC_THRESHOLDS

    if big:
        floor.ANSWER, floor.PUSH = b"a" * BIG[0], b"p" * BIG[1]
    tables = floor.Tables()
    bare_move = tables.move

    def move(table: bytes) -> None:
        end = time.thread_time() + spin
        while time.thread_time() < end:
            pass
        bare_move(table)

    tables.move = move  # type: ignore[method-assign]
    server = grpc.aio.server(options=[("grpc.max_receive_message_length", 4 * 1024 * 1024),
                                      ("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers((floor.handlers(tables),))
    streams = StreamCounter(0)

    def peer(context: grpc.aio.ServicerContext[bytes, bytes]) -> str:
        return "peer"

    health = CappedHealth(streams, peer)
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    reflection.enable(server, (floor.SERVICE, "grpc.health.v1.Health"), streams, peer)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    await serve_until_signalled(server, f"floor listening on 127.0.0.1:{port}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.gap")
    parser.add_argument("probe", choices=("engine", "floor", "serve"))
    parser.add_argument("--moves", type=int, default=3_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--stores", default="memory,sqlite")
    parser.add_argument("--variants", default="plain,md,setup,spin600")
    parser.add_argument("--spin", type=float, default=0.0, help="µs of CPU per move (serve)")
    parser.add_argument("--big", action="store_true", help="engine-sized messages (serve)")
    args = parser.parse_args()
    if args.probe == "engine":
        probe_engine(args.stores.split(","), args.moves, args.reps)
    elif args.probe == "floor":
        with tempfile.TemporaryDirectory(prefix="bezique-gap-") as tmp:
            asyncio.run(probe_floor(args.variants.split(","), args.moves, args.reps,
                                    Path(tmp)))
    else:
        import uvloop
        uvloop.run(serve(args.spin / 1e6, args.big))


if __name__ == "__main__":
    main()
