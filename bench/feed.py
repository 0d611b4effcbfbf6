"""Results feed: does it keep up with tables ending at the service's full move rate?

The harshest load for the feed: highcard tables of 2 seats and 1 card each, so every second
move ends a table, played closed-loop (``concurrency`` tasks, each sending its next move as
soon as the last is answered) while one WatchResults stream follows the feed in this process.
The lag of a result is the time it arrives here minus the time the move that ended its table
was acknowledged to its player (the commit is done by then): 0 when the result came first.
Beside it, the time from ``finished_at`` (when the server made the ending entry, before its
commit: it includes the append itself). A second run without the stream gives the move rate
the feed costs. The server is a child process with a sqlite store (or PostgreSQL).
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import (
    ROOT,
    Child,
    Section,
    fmt_ms,
    fmt_rate,
    median,
    percentile,
    run_in_scratch,
    spawn_server,
)
from bench.players import channel, create_tables
from bench.service import Call, Run, drive, measured
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc
from bezique.variants.api import Variant

OPTIONS = {"players": "2", "hand_size": "1"}
"""Two moves a game: a table ends every second move."""
LAG_P99_TARGET = 0.100
"""Seconds: a result reaches a consumer within a tenth of a second of its commit."""


@dataclass(frozen=True)
class FeedConfig:
    concurrency: int = 64
    moves: int = 6_000
    drain_timeout: float = 30.0
    store: str = "sqlite"
    """"sqlite" (a temp file), or "postgres" (a private cluster of tools/pgcluster.py)."""


@dataclass
class Followed:
    """When each result arrived, and when its table's ending entry was made (wall clock)."""

    arrived: dict[str, float] = field(default_factory=dict)
    made: dict[str, float] = field(default_factory=dict)
    last_arrival: float = 0.0


async def _follow(stub: pb_grpc.TableServiceStub, into: Followed) -> None:
    call = stub.WatchResults(pb.WatchResultsRequest(from_cursor=0))
    async for message in call:
        result = message.result
        into.arrived[result.table_id] = time.time()
        into.made[result.table_id] = result.finished_at.seconds + result.finished_at.nanos / 1e9
        into.last_arrival = time.perf_counter()


def _acking(call: Call, acked: dict[str, float]) -> Call:
    """``call``, noting when each table's latest move was acknowledged (wall clock)."""

    async def submit(request: pb.SubmitMoveRequest, **kwargs: Any) -> pb.SubmitMoveResponse:
        response = await call(request, **kwargs)
        acked[request.table_id] = time.time()
        return response

    return submit


async def _until(done: Callable[[], bool], timeout: float) -> None:
    deadline = time.perf_counter() + timeout
    while not done() and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)


async def _bench(config: FeedConfig, workdir: Path) -> Section:
    from bezique.variants.registry import load_registry

    variant = load_registry().variant("highcard")
    cluster: Any = None
    if config.store == "postgres":
        sys.path.insert(0, str(ROOT / "tools"))
        from pgcluster import Cluster, scratch_folder

        cluster = Cluster(scratch_folder())
        store = cluster.start()
    else:
        store = f"sqlite:{workdir / 'feed.sqlite'}"
    try:
        return await _measure(config, variant, spawn_server(
            workdir, "--store", store, "--test-mode", "--max-tables", "10000000"))
    finally:
        if cluster is not None:
            cluster.remove()


async def _measure(config: FeedConfig, variant: Variant, server: Child) -> Section:
    tables = math.ceil(config.moves / 2) + 2 * config.concurrency
    try:
        async with channel(server.address, 1) as server_channel, \
                channel(server.address, 2) as feed_channel:
            stub = pb_grpc.TableServiceStub(server_channel)  # type: ignore[no-untyped-call]
            submit: Call = stub.SubmitMove
            warm = await create_tables(stub, variant, OPTIONS, config.concurrency * 4, "warm")
            await drive(submit, deque(warm), config.concurrency * 6, config.concurrency)
            bare_pool = await create_tables(stub, variant, OPTIONS, tables, "bare")
            without = await measured(server, drive(submit, deque(bare_pool), config.moves,
                                                   config.concurrency, verify=True))
            before = {t.table_id for t in (*warm, *bare_pool) if t.over}
            followed = Followed()
            follower = asyncio.create_task(_follow(
                pb_grpc.TableServiceStub(feed_channel), followed))  # type: ignore[no-untyped-call]
            await _until(lambda: before <= set(followed.arrived), config.drain_timeout)
            pool = await create_tables(stub, variant, OPTIONS, tables, "feed")
            acked: dict[str, float] = {}
            with_feed = await measured(server, drive(_acking(submit, acked), deque(pool),
                                                     config.moves, config.concurrency,
                                                     verify=True))
            ended_at = time.perf_counter()
            ended = {t.table_id for t in pool if t.over}
            await _until(lambda: ended <= set(followed.arrived), config.drain_timeout)
            follower.cancel()
            delivered = ended & set(followed.arrived)
            lags = [max(0.0, followed.arrived[t] - acked[t]) for t in delivered]
            from_made = [followed.arrived[t] - followed.made[t] for t in delivered]
        return _report(config, with_feed, without, lags, from_made, ended, delivered,
                       max(0.0, followed.last_arrival - ended_at))
    finally:
        server.stop()


def _report(config: FeedConfig, with_feed: Run, without: Run, lags: list[float],
            from_made: list[float], ended: set[str], delivered: set[str], drain: float
            ) -> Section:
    p50, p99 = percentile(lags, 50), percentile(lags, 99)
    section = Section(
        "Results feed at the full move rate",
        ["figure", "value"],
        [["moves/s with one WatchResults stream", fmt_rate(with_feed.rate)],
         ["moves/s without it", fmt_rate(without.rate)],
         ["tables ended/s", fmt_rate(len(ended) / with_feed.seconds)],
         ["results delivered / tables ended", f"{len(delivered)} / {len(ended)}"],
         ["lag p50 (ending move acknowledged to arrival)", fmt_ms(p50)],
         ["lag p99", fmt_ms(p99)],
         ["lag max", fmt_ms(max(lags, default=0.0))],
         ["from the ending entry made (before its commit) p50 / p99",
          f"{fmt_ms(percentile(from_made, 50))} / {fmt_ms(percentile(from_made, 99))}"],
         ["SubmitMove p50 / p99 (with the stream)",
          f"{fmt_ms(percentile(with_feed.latencies, 50))} / "
          f"{fmt_ms(percentile(with_feed.latencies, 99))}"],
         ["last result after the last move", fmt_ms(drain)]],
        notes=[f"highcard, {OPTIONS['players']} seats of {OPTIONS['hand_size']} card: a table "
               f"ends every second move; {config.moves} moves closed-loop, "
               f"{config.concurrency} in flight; {config.store} store; after a warm-up, the run "
               "without the stream first, then the one with it",
               "lag: arrival at the consumer minus the moment the player who ended the "
               "table had its move acknowledged (0 if the result came first)"],
        figures={"rate_with_feed": with_feed.rate, "rate_without_feed": without.rate,
                 "ended": len(ended), "delivered": len(delivered), "lag_p50": p50,
                 "lag_p99": p99, "drain": drain,
                 "made_p99": percentile(from_made, 99),
                 "feed_cost": 1 - with_feed.rate / without.rate if without.rate else 0.0,
                 "move_p50": median(with_feed.latencies)},
        targets={"every ended table delivered": delivered == ended and bool(ended),
                 f"lag p99 < {fmt_ms(LAG_P99_TARGET)}": p99 < LAG_P99_TARGET})
    return section


def run(config: FeedConfig | None = None) -> Section:
    chosen = config or FeedConfig()
    return run_in_scratch(lambda workdir: _bench(chosen, workdir))
