"""Service speed: SubmitMove over loopback against a bare gRPC echo server, same client code.

The server (``bezique-server``, sqlite store in a temp file at its default durability) and the
echo server (:mod:`bench.echo`) are child processes; this process is the client. Many tables
are played at once, one task per table in flight (``concurrency``), each move a SubmitMove
with the mover's seat token, exactly as the SDK sends it.

* closed loop: every task sends its next move as soon as the last is answered: the maximum
  rate, with its latencies; repeated, alternating server and echo, medians reported;
* open loop: moves are sent on a fixed schedule at half the measured maximum rate, and the
  latency of each call is reported (p50/p99): the latency a player sees on a busy server;
* least work: the closed loop again against ``bench.echo --work``, which answers each call
  with bench.leastwork's least work (the move made, logged and answered with the mover's
  view, nothing else): how far the engine is from the least this protocol costs.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import (
    Child,
    Section,
    fmt_ms,
    fmt_rate,
    fmt_ratio,
    fmt_us,
    median,
    options_for,
    percentile,
    python_module_argv,
    run_in_scratch,
    spawn,
    spawn_server,
)
from bench.players import (
    PlayTable,
    channel,
    create_tables,
    fake_tables,
    moves_per_game,
)
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc
from bezique.variants.api import Variant

THROUGHPUT_TARGET = 0.5
P99_TARGET = 0.010

Call = Callable[..., Awaitable[pb.SubmitMoveResponse]]


@dataclass(frozen=True)
class ServiceConfig:
    variant: str = "highcard"
    concurrency: int = 64
    moves: int = 8_000
    reps: int = 3
    open_seconds: float = 4.0
    open_reps: int = 3
    warmup_moves: int = 1_500
    store: str = "sqlite"  # "sqlite": a temp file at the default synchronous=normal; or "memory:"


@dataclass
class Run:
    """One phase against one server."""

    moves: int
    seconds: float
    latencies: list[float]
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    late: int = 0
    captured: list[bytes] = field(default_factory=list)
    request_bytes: list[int] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.moves / self.seconds


async def drive(call: Call, tables: deque[PlayTable], moves: int, concurrency: int, *,
                rate: float | None = None, verify: bool = False, capture: int = 0) -> Run:
    """Play ``moves`` moves on ``tables`` with ``concurrency`` tasks; closed loop, or open
    loop at ``rate`` moves/s (move k is due at start + k/rate)."""
    issued = 0
    latencies: list[float] = []
    late = 0
    captured: list[bytes] = []
    request_bytes: list[int] = []
    start = time.perf_counter()

    async def worker() -> None:
        nonlocal issued, late
        table: PlayTable | None = None
        while issued < moves:
            slot = issued
            issued += 1
            if table is None or table.over:
                if not tables:
                    raise RuntimeError("the pool of tables ran dry: raise its size")
                table = tables.popleft()
            seat, move, request = table.next_move()
            if rate is not None:
                wait = start + slot / rate - time.perf_counter()
                if wait > 0:
                    await asyncio.sleep(wait)
                elif wait < -0.005:
                    late += 1
            sent = time.perf_counter()
            response = await call(request, metadata=table.metadata[seat], timeout=30)
            latencies.append(time.perf_counter() - sent)
            if verify and response.version != table.version + 1:
                raise RuntimeError(f"table {table.table_id}: version {response.version} after "
                                   f"{table.version}: the local game no longer mirrors it")
            if len(captured) < capture:
                captured.append(response.SerializeToString())
                request_bytes.append(request.ByteSize())
            table.moved(seat, move)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return Run(moves, time.perf_counter() - start, latencies, late=late, captured=captured,
               request_bytes=request_bytes)


async def measured(child: Child, run: Awaitable[Run]) -> Run:
    """``run``, with the CPU time the server child and this client process spent on it."""
    cpu0, client0 = child.cpu_seconds(), time.process_time()
    result = await run
    result.server_cpu = child.cpu_seconds() - cpu0
    result.client_cpu = time.process_time() - client0
    return result


def _pool_size(variant: Variant, options: dict[str, str], moves: int, concurrency: int) -> int:
    per_game = moves_per_game(variant, options)
    return math.ceil(moves / max(1.0, per_game * 0.6)) + 2 * concurrency


async def _bench(config: ServiceConfig, workdir: Path) -> Section:
    from bezique.variants.registry import load_registry

    variant = load_registry().variant(config.variant)
    options = options_for(variant.id)
    store = (f"sqlite:{workdir / 'bench.sqlite'}" if config.store == "sqlite" else config.store)
    server = spawn_server(workdir, "--store", store, "--test-mode", "--max-tables", "10000000")
    echo: Child | None = None
    least: Child | None = None
    try:
        async with channel(server.address, 1) as server_channel:
            submit: Call = pb_grpc.TableServiceStub(server_channel).SubmitMove  # type: ignore[no-untyped-call]
            stub = pb_grpc.TableServiceStub(server_channel)  # type: ignore[no-untyped-call]

            async def server_run(moves: int, tag: str, rate: float | None = None,
                                 capture: int = 0) -> Run:
                size = _pool_size(variant, options, moves, config.concurrency)
                pool = deque(await create_tables(stub, variant, options, size, tag))
                return await measured(server, drive(submit, pool, moves, config.concurrency,
                                                    rate=rate, verify=True, capture=capture))

            warm = await server_run(config.warmup_moves, "warmup", capture=400)
            blob = sorted(warm.captured, key=len)[len(warm.captured) // 2]
            (workdir / "response.bin").write_bytes(blob)
            echo = spawn(python_module_argv("bench.echo", "--response-file",
                                            str(workdir / "response.bin")),
                         workdir, "echo", ready=r"listening on (\S+:\d+)")
            least = spawn(python_module_argv("bench.echo", "--work",
                                             str(workdir / "least.sqlite")),
                          workdir, "least", ready=r"listening on (\S+:\d+)")
            async with channel(echo.address, 2) as echo_channel, \
                    channel(least.address, 3) as least_channel:
                echo_call: Call = pb_grpc.TableServiceStub(echo_channel).SubmitMove  # type: ignore[no-untyped-call]
                least_call: Call = pb_grpc.TableServiceStub(least_channel).SubmitMove  # type: ignore[no-untyped-call]
                echo_child, least_child = echo, least

                async def local_run(child: Child, call: Call, moves: int, tag: str,
                                    rate: float | None = None) -> Run:
                    """A run on local tables (the echo and least-work servers)."""
                    size = _pool_size(variant, options, moves, config.concurrency)
                    pool = deque(fake_tables(variant, options, size, tag))
                    return await measured(child, drive(call, pool, moves, config.concurrency,
                                                       rate=rate))

                async def echo_run(moves: int, tag: str, rate: float | None = None) -> Run:
                    return await local_run(echo_child, echo_call, moves, tag, rate)

                async def least_run(moves: int, tag: str) -> Run:
                    return await local_run(least_child, least_call, moves, tag)

                await echo_run(config.warmup_moves, "echo-warmup")
                await least_run(config.warmup_moves, "least-warmup")
                closed: list[tuple[Run, Run]] = []
                leasts: list[Run] = []
                for rep in range(config.reps):
                    closed.append((await server_run(config.moves, f"closed-{rep}"),
                                   await echo_run(config.moves, f"echo-{rep}")))
                    leasts.append(await least_run(config.moves, f"least-{rep}"))
                rate = median([s.rate for s, _ in closed]) / 2
                opened: list[tuple[Run, Run]] = []
                open_moves = max(config.concurrency, int(rate * config.open_seconds))
                for rep in range(config.open_reps):
                    opened.append((await server_run(open_moves, f"open-{rep}", rate=rate),
                                   await echo_run(open_moves, f"echo-open-{rep}", rate=rate)))
        return _report(config, closed, opened, rate, warm, len(blob), leasts)
    finally:
        server.stop()
        for child in (echo, least):
            if child is not None:
                child.stop()


def _stat(runs: list[Run], what: Callable[[Run], float]) -> float:
    return median([what(run) for run in runs])


def _report(config: ServiceConfig, closed: list[tuple[Run, Run]],
            opened: list[tuple[Run, Run]], rate: float, warm: Run, response_bytes: int,
            least: list[Run]) -> Section:
    section = Section(
        f"Service: SubmitMove over loopback, {config.concurrency} tables in flight "
        f"({config.variant}, {config.store} store) vs a bare grpc.aio echo server",
        ["measure", "echo (baseline)", "SubmitMove", "ratio / target", "least work"])
    serv = [s for s, _ in closed]
    echo = [e for _, e in closed]
    ratio = median([s.rate / e.rate for s, e in closed])
    least_ratio = median([w.rate / e.rate for w, (_, e) in zip(least, closed, strict=True)])
    p50 = _stat(serv, lambda r: percentile(r.latencies, 50))
    p99 = _stat(serv, lambda r: percentile(r.latencies, 99))
    rows = [
        ["closed loop: moves/s", fmt_rate(_stat(echo, lambda r: r.rate)),
         fmt_rate(_stat(serv, lambda r: r.rate)), f"{fmt_ratio(ratio)} (>= 0.50x)",
         f"{fmt_rate(_stat(least, lambda r: r.rate))} ({fmt_ratio(least_ratio)})"],
        ["closed loop: p50", fmt_ms(_stat(echo, lambda r: percentile(r.latencies, 50))),
         fmt_ms(p50), "", fmt_ms(_stat(least, lambda r: percentile(r.latencies, 50)))],
        ["closed loop: p99", fmt_ms(_stat(echo, lambda r: percentile(r.latencies, 99))),
         fmt_ms(p99), "", fmt_ms(_stat(least, lambda r: percentile(r.latencies, 99)))],
        ["server CPU per move", fmt_us(_stat(echo, lambda r: r.server_cpu / r.moves)),
         fmt_us(_stat(serv, lambda r: r.server_cpu / r.moves)), "",
         fmt_us(_stat(least, lambda r: r.server_cpu / r.moves))],
        ["client CPU per move", fmt_us(_stat(echo, lambda r: r.client_cpu / r.moves)),
         fmt_us(_stat(serv, lambda r: r.client_cpu / r.moves)), "",
         fmt_us(_stat(least, lambda r: r.client_cpu / r.moves))],
    ]
    o_serv = [s for s, _ in opened]
    o_echo = [e for _, e in opened]
    o_p50 = _stat(o_serv, lambda r: percentile(r.latencies, 50))
    o_p99 = _stat(o_serv, lambda r: percentile(r.latencies, 99))
    rows += [
        [f"open loop at {rate:,.0f}/s: achieved/s", fmt_rate(_stat(o_echo, lambda r: r.rate)),
         fmt_rate(_stat(o_serv, lambda r: r.rate)), ""],
        ["open loop: p50", fmt_ms(_stat(o_echo, lambda r: percentile(r.latencies, 50))),
         fmt_ms(o_p50), ""],
        ["open loop: p99", fmt_ms(_stat(o_echo, lambda r: percentile(r.latencies, 99))),
         fmt_ms(o_p99), f"(<= {P99_TARGET * 1000:g} ms)"],
        ["open loop: sends > 5 ms late", str(sum(r.late for r in o_echo)),
         str(sum(r.late for r in o_serv)), ""],
        ["bytes: request / response", "same", f"{median(warm.request_bytes):.0f} / "
         f"{response_bytes}", ""],
    ]
    for row in rows[5:]:
        row.append("")
    section.rows = rows
    section.targets = {
        f"SubmitMove throughput >= {THROUGHPUT_TARGET:.0%} of echo": ratio >= THROUGHPUT_TARGET,
        f"open-loop p99 at half rate <= {P99_TARGET * 1000:g} ms": o_p99 <= P99_TARGET,
    }
    section.figures = {
        "echo_rate": _stat(echo, lambda r: r.rate), "submit_rate": _stat(serv, lambda r: r.rate),
        "ratio": ratio, "closed_p50": p50, "closed_p99": p99, "open_rate": rate,
        "open_p50": o_p50, "open_p99": o_p99,
        "server_cpu_per_move": _stat(serv, lambda r: r.server_cpu / r.moves),
        "least_rate": _stat(least, lambda r: r.rate), "least_ratio": least_ratio,
        "least_server_cpu_per_move": _stat(least, lambda r: r.server_cpu / r.moves),
    }
    section.notes += [
        f"{config.reps} closed-loop repetitions of {config.moves} moves and {config.open_reps} "
        f"open-loop repetitions of {config.open_seconds:g} s, server and echo alternating; "
        "medians; the ratio is the median of per-repetition ratios.",
        "Latency: from sending a SubmitMove to its answer, as this client sees it.",
        "Least work: the same calls answered by bench.leastwork's least work (`python -m "
        "bench.echo --work`: the request parsed, the move made and logged to sqlite, the "
        "mover's answer and view rendered; on uvloop, as bezique-server), closed loop only, "
        "after each SubmitMove/echo pair; its ratio is to the echo run before it.",
        "Clients mirror each table with a local game from its test-mode seed, so no GetView is "
        "needed between moves; the echo run plays the same local games.",
        f"options: {options_for(config.variant) or 'defaults'}",
    ]
    return section


def run(config: ServiceConfig | None = None) -> Section:
    chosen = config or ServiceConfig()
    return run_in_scratch(lambda folder: _bench(chosen, folder))
