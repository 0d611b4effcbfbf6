"""Memory: the server process's resident size per idle table.

A fresh server per variant; a few tables first (so imports, caches and pools are warm), then
the resident size (VmRSS of /proc/PID/status), then ``tables`` more tables, each created and
every seat joined (so each game has started and sits waiting for its first move), then the
resident size again: the difference over the count is the cost of one idle table. The pickled
size of a started game is shown beside it: the part of that cost that is the game itself.
"""

from __future__ import annotations

import asyncio
import pickle
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.common import Section, median, options_for, server_flag, spawn_server
from bench.players import channel, local_game, table_seed
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc
from bezique.variants.api import Variant
from bezique.variants.host import resolve_options

TARGET_BYTES = 20 * 1024
DEFAULT_VARIANTS = ("highcard", "quart-bezique", "bezique-2p")


@dataclass(frozen=True)
class MemoryConfig:
    tables: int = 10_000
    variants: tuple[str, ...] = DEFAULT_VARIANTS  # those registered are measured
    store: str = "sqlite"  # "sqlite" (a temp file) or "memory:" (the log in RAM too)
    warmup: int = 200
    concurrency: int = 64


async def open_tables(stub: pb_grpc.TableServiceStub, variant: Variant, options: dict[str, str],
                      count: int, concurrency: int) -> None:
    """``count`` tables created with every seat joined (games started, no move made)."""
    seats = variant.seat_count(resolve_options(variant.options, options))
    left = count

    async def worker() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            created = await stub.CreateTable(pb.CreateTableRequest(
                variant_id=variant.id, options=options), timeout=60)
            for seat in range(seats):
                await stub.JoinTable(pb.JoinTableRequest(table_id=created.table_id, seat=seat),
                                     timeout=60)

    await asyncio.gather(*(worker() for _ in range(min(concurrency, count))))


@dataclass
class Measured:
    variant: str
    tables: int
    before: int
    after: int
    seconds: float
    pickled: int

    @property
    def per_table(self) -> float:
        return (self.after - self.before) / self.tables


async def measure(variant: Variant, config: MemoryConfig, workdir: Path) -> Measured:
    options = options_for(variant.id)
    store = (f"sqlite:{workdir / (variant.id + '.sqlite')}" if config.store == "sqlite"
             else config.store)
    server = spawn_server(workdir, "--store", store, "--max-tables", "10000000",
                          *server_flag("--idle-seconds", "0"), name=f"server-{variant.id}")
    try:
        async with channel(server.address) as chan:
            stub = pb_grpc.TableServiceStub(chan)  # type: ignore[no-untyped-call]
            await open_tables(stub, variant, options, config.warmup, config.concurrency)
            await asyncio.sleep(0.3)
            before = server.rss()
            start = time.perf_counter()
            await open_tables(stub, variant, options, config.tables, config.concurrency)
            seconds = time.perf_counter() - start
            await asyncio.sleep(0.3)
            after = server.rss()
    finally:
        server.stop()
    game = local_game(variant, options, table_seed("memory", 0))
    return Measured(variant.id, config.tables, before, after, seconds,
                    len(pickle.dumps(game, protocol=pickle.HIGHEST_PROTOCOL)))


def run(config: MemoryConfig | None = None) -> Section:
    from bezique.variants.registry import load_registry

    config = config or MemoryConfig()
    started = time.perf_counter()
    registry = load_registry()
    chosen = [registry.variants[v] for v in config.variants if v in registry.variants]
    results: list[Measured] = []
    with tempfile.TemporaryDirectory(prefix="bezique-bench-") as tmp:
        for variant in chosen:
            results.append(asyncio.run(measure(variant, config, Path(tmp))))
    section = Section(
        f"Memory: server resident size per idle table ({config.tables:,} tables, "
        f"{config.store} store)",
        ["variant", "RSS before", "RSS after", "bytes/table", "pickled game", "open tables/s",
         "target"])
    for m in results:
        section.rows.append([
            m.variant, f"{m.before / 2**20:.1f} MiB", f"{m.after / 2**20:.1f} MiB",
            f"{m.per_table:,.0f} B", f"{m.pickled:,} B", f"{m.tables / m.seconds:,.0f}",
            f"<= {TARGET_BYTES // 1024} KiB"])
        section.targets[f"{m.variant} <= {TARGET_BYTES // 1024} KiB per idle table"] = (
            m.per_table <= TARGET_BYTES)
    section.figures = {"per_table": {m.variant: m.per_table for m in results},
                       "pickled": {m.variant: m.pickled for m in results},
                       "median_per_table": median([m.per_table for m in results])}
    section.notes += [
        "A fresh server per variant; RSS from /proc/PID/status VmRSS after "
        f"{config.warmup} warm-up tables and after {config.tables:,} more; "
        "bytes/table = growth / tables. A table is created and every seat joined.",
        "RSS includes what the store keeps in the process (sqlite: its page cache, at most a few "
        "MiB; memory: the whole log) and allocator slack: an upper bound of the table's cost.",
        "options: " + ", ".join(f"{m.variant} {options_for(m.variant) or 'defaults'}"
                                for m in results),
    ]
    section.seconds = time.perf_counter() - started
    return section
