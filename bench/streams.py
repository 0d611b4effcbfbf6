"""Watch streams: many open WatchTable streams on one server, then moves on the watched tables.

``tables`` tables, ``watchers`` spectator streams on each, spread over ``processes`` watcher
processes (:mod:`bench.watchers`), each with enough channels of their own connection that no
connection carries more than ``per_channel`` streams (grpc-core's default limit of concurrent
streams per connection is 100). Once every stream is subscribed, this process (the players)
makes ``moves`` moves on every table at ``rate`` moves/s in all, and notes when each move was
acknowledged. The figure is the delay from a move's acknowledgement to its delivery on each
watcher (negative when a watcher got it before the mover's answer arrived), beside the
SubmitMove latency of the same moves.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from array import array
from dataclasses import dataclass
from pathlib import Path

from bench.common import (
    Child,
    Section,
    fmt_ms,
    options_for,
    percentile,
    python_module_argv,
    raise_fd_limit,
    run_in_scratch,
    server_flag,
    spawn,
    spawn_server,
)
from bench.players import PlayTable, channel, create_tables
from bezique.v1 import table_service_pb2_grpc as pb_grpc

P99_TARGET = 0.050


@dataclass(frozen=True)
class StreamsConfig:
    tables: int = 100
    watchers: int = 100  # per table
    processes: int = 4
    per_channel: int = 90
    moves: int = 4  # per table
    rate: float = 10.0  # moves/s over all tables (x watchers = deliveries/s)
    variant: str = "highcard"
    store: str = "sqlite"


async def play(tables: list[PlayTable], stub: pb_grpc.TableServiceStub, moves: int,
               rate: float) -> dict[tuple[int, int], tuple[float, float]]:
    """Move ``moves`` times on every table, move j of all due at start + j / rate; the
    (send, acknowledgement) CLOCK_MONOTONIC times by (table index, version)."""
    acks: dict[tuple[int, int], tuple[float, float]] = {}
    start = time.monotonic() + 0.05
    count = len(tables)

    async def player(index: int, table: PlayTable) -> None:
        for k in range(moves):
            if table.over:
                return
            wait = start + (k * count + index) / rate - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            seat, move, request = table.next_move()
            sent = time.monotonic()
            response = await stub.SubmitMove(request, metadata=table.metadata[seat],
                                             timeout=60)
            acks[(index, response.version)] = (sent, time.monotonic())
            table.moved(seat, move)

    await asyncio.gather(*(player(i, t) for i, t in enumerate(tables)))
    return acks


def _wait_for(child: Child, word: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if word in child.stdout_path.read_text(errors="replace"):
            return True
        if child.proc.poll() is not None:
            return word in child.stdout_path.read_text(errors="replace")
        time.sleep(0.05)
    return False


async def _bench(config: StreamsConfig, workdir: Path) -> Section:
    from bezique.variants.registry import load_registry

    raise_fd_limit()
    variant = load_registry().variant(config.variant)
    options = options_for(variant.id)
    store = (f"sqlite:{workdir / 'streams.sqlite'}" if config.store == "sqlite"
             else config.store)
    server = spawn_server(workdir, "--store", store, "--test-mode", "--max-tables", "10000000",
                          "--max-watchers-per-table", str(max(1000, config.watchers)),
                          *server_flag("--max-watchers-per-caller", "0"))
    children: list[Child] = []
    try:
        async with channel(server.address, 0) as chan:
            stub = pb_grpc.TableServiceStub(chan)  # type: ignore[no-untyped-call]
            tables = await create_tables(stub, variant, options, config.tables, "streams")
            rss_before = server.rss()
            total = config.tables * config.watchers
            streams = [(n % config.tables, tables[n % config.tables].table_id,
                        tables[n % config.tables].version - 1) for n in range(total)]
            opened = time.perf_counter()
            for p in range(config.processes):
                mine = streams[p::config.processes]
                plan = {"streams": mine, "expect": config.moves,
                        "channels": max(1, math.ceil(len(mine) / config.per_channel))}
                (workdir / f"plan-{p}.json").write_text(json.dumps(plan))
                children.append(spawn(
                    python_module_argv("bench.watchers", "--target", server.address,
                                       "--plan", str(workdir / f"plan-{p}.json"),
                                       "--out", str(workdir / f"times-{p}.bin")),
                    workdir, f"watchers-{p}", ready=r"ready", timeout=300,
                    stdin=-1))
            open_seconds = time.perf_counter() - opened
            rss_open = server.rss()
            cpu0 = server.cpu_seconds()
            acks = await play(tables, stub, config.moves, config.rate)
            complete = all(_wait_for(c, "done", 120) for c in children)
            cpu = server.cpu_seconds() - cpu0
        for child in children:
            if child.proc.stdin is not None and child.proc.poll() is None:
                child.proc.stdin.write(b"stop\n")
                child.proc.stdin.flush()
            _wait_for(child, "done", 30)
    finally:
        for child in children:
            child.stop()
        server.stop()
    delays: list[float] = []
    since_send: list[float] = []
    failures = [_failure(child) for child in children]
    for p in range(config.processes):
        records = array("d")
        path = workdir / f"times-{p}.bin"
        if path.exists():
            records.frombytes(path.read_bytes())
        for i in range(0, len(records), 3):
            key = (int(records[i]), int(records[i + 1]))
            if key in acks:
                sent, acked = acks[key]
                delays.append(records[i + 2] - acked)
                since_send.append(records[i + 2] - sent)
    submit = [acked - sent for sent, acked in acks.values()]
    expected = len(acks) * config.watchers
    section = _report(config, delays, since_send, submit, expected, complete,
                      rss_before, rss_open, open_seconds, cpu)
    failed = [f for f in failures if f]
    if failed:
        section.notes.append("watcher processes that saw failed or retried opens: "
                             + "; ".join(failed))
    return section


def _failure(child: Child) -> str:
    """What a watcher process said went wrong, if anything."""
    out = child.stdout_path.read_text(errors="replace")
    err = child.stderr_path.read_text(errors="replace").strip()
    found = re.search(r"done \d+ updates, (\d+) errors, (\d+) retried", out)
    if found and found.group(1) == "0" and found.group(2) == "0" and not err:
        return ""
    return f"pid {child.pid}: {out.strip().splitlines()[-1:]} {err[-300:]}"


def _report(config: StreamsConfig, delays: list[float], since_send: list[float],
            submit: list[float], expected: int, complete: bool, rss_before: int,
            rss_open: int, open_seconds: float, cpu: float) -> Section:
    total = config.tables * config.watchers
    section = Section(
        f"Streams: {total:,} WatchTable streams on one server ({config.tables} tables x "
        f"{config.watchers} watchers, {config.processes} watcher processes), "
        f"{config.moves} moves per table at {config.rate:g} moves/s",
        ["measure", "p50", "p99", "max", "target"])
    p99 = percentile(delays, 99)
    section.rows = [
        ["ack -> delivery on every watcher", fmt_ms(percentile(delays, 50)), fmt_ms(p99),
         fmt_ms(max(delays, default=math.nan)), f"p99 <= {P99_TARGET * 1000:g} ms"],
        ["send -> delivery", fmt_ms(percentile(since_send, 50)),
         fmt_ms(percentile(since_send, 99)), fmt_ms(max(since_send, default=math.nan)), ""],
        ["SubmitMove send -> ack (baseline)", fmt_ms(percentile(submit, 50)),
         fmt_ms(percentile(submit, 99)), fmt_ms(max(submit, default=math.nan)), ""],
    ]
    section.targets[f"delivery p99 <= {P99_TARGET * 1000:g} ms"] = (
        bool(delays) and p99 <= P99_TARGET)
    section.targets["every update delivered"] = len(delays) == expected and complete
    per_stream = (rss_open - rss_before) / total
    section.figures = {"p50": percentile(delays, 50), "p99": p99,
                       "max": max(delays, default=math.nan), "delivered": len(delays),
                       "expected": expected, "bytes_per_stream": per_stream,
                       "server_cpu_per_delivery": cpu / max(1, len(delays))}
    section.notes += [
        f"delivered {len(delays):,} of {expected:,} updates; streams opened in "
        f"{open_seconds:.1f} s; server RSS +{per_stream:,.0f} B per open stream; server CPU "
        f"{cpu / max(1, len(delays)) * 1e6:,.0f} µs per delivered update.",
        "Watchers are spectators (no token): one view rendered per move, serialized per stream.",
        f"Each watcher process opens its streams over channels of <= {config.per_channel} "
        "streams, each with its own connection (local subchannel pool).",
    ]
    return section


def run(config: StreamsConfig | None = None) -> Section:
    chosen = config or StreamsConfig()
    return run_in_scratch(lambda folder: _bench(chosen, folder))
