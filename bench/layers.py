"""The server's path per move, in process and without the transport: ``TableManager.submit``.

For every variant, moves are submitted straight to the table manager of a server started in
this process (memory store, then sqlite in a temp file at its default durability), and timed
call by call; the same moves applied to a local mirror of each game give the engine's own cost
in the same run. What is left between this and the gRPC figures of the service benchmark is
the servicer (protobuf translation) and the transport.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from bench.common import Section, fmt_ratio, fmt_us, median, options_for
from bench.players import local_game, table_seed
from bezique.variants.api import Variant

STORES = ("memory", "sqlite")


@dataclass(frozen=True)
class LayersConfig:
    moves: int = 2_000  # per variant, store and repetition
    reps: int = 3
    variants: tuple[str, ...] = ()  # empty: every registered variant


@dataclass
class Timing:
    engine: float  # seconds per move: legal_moves + apply on the local mirror
    submit: float  # seconds per move: TableManager.submit


async def time_submit(variant: Variant, store: str, moves: int, tag: str) -> Timing:
    from bezique.service.config import Config
    from bezique.service.server import start_server
    from bezique.variants.registry import load_registry

    options = options_for(variant.id)
    running = await start_server(Config(address="127.0.0.1:0", store=store, test_mode=True,
                                        bot_delay=0.0), load_registry())
    manager = running.manager
    engine = submit = 0.0
    done = 0
    try:
        table_no = 0
        while done < moves:
            seed = table_seed(tag, table_no)
            table_no += 1
            live = await manager.create_table(variant.id, options, (), 0, {"seed": seed})
            tokens = [(await manager.join(live.table_id, seat, ""))[1]
                      for seat in range(len(live.seats))]
            version = live.version
            mirror = local_game(variant, options, seed)
            rng_index = 0
            while mirror.to_move and done < moves:
                start = time.perf_counter()
                seat = mirror.to_move[0]
                legal = mirror.legal_moves(seat)
                move = legal[(rng_index * 7919 + table_no) % len(legal)]
                mirror.apply(seat, move)
                middle = time.perf_counter()
                result = await manager.submit(live.table_id, tokens[seat], move, version,
                                              uuid.uuid4().hex)
                version = result.version
                submit += time.perf_counter() - middle
                engine += middle - start
                rng_index += 1
                done += 1
    finally:
        await running.stop()
    return Timing(engine / done, submit / done)


async def _all(config: LayersConfig, workdir: Path) -> dict[tuple[str, str], list[Timing]]:
    from bezique.service.logs import configure_logging
    from bezique.variants.registry import load_registry

    configure_logging("json", "warning")
    registry = load_registry()
    chosen = [v for vid, v in registry.variants.items()
              if not config.variants or vid in config.variants]
    timings: dict[tuple[str, str], list[Timing]] = {}
    for rep in range(config.reps):
        for variant in chosen:
            for store in STORES:
                spec = ("memory:" if store == "memory"
                        else f"sqlite:{workdir / f'{variant.id}-{rep}.sqlite'}")
                timings.setdefault((variant.id, store), []).append(
                    await time_submit(variant, spec, config.moves, f"layers-{rep}"))
    return timings


def run(config: LayersConfig | None = None) -> Section:
    config = config or LayersConfig()
    started = time.perf_counter()
    section = Section("Server path per move, in process, no transport (TableManager.submit)",
                      ["variant", "engine µs/move", "submit µs (memory)", "submit µs (sqlite)",
                       "sqlite / engine"])
    try:
        with tempfile.TemporaryDirectory(prefix="bezique-bench-") as tmp:
            timings = asyncio.run(_all(config, Path(tmp)))
    except Exception as exc:  # the service's internals move; say so instead of failing the suite
        section.notes.append(f"not measured: the table manager's API changed? {exc!r}")
        section.seconds = time.perf_counter() - started
        return section
    figures: dict[str, dict[str, float]] = {}
    for vid in dict.fromkeys(v for v, _ in timings):
        engine = median([t.engine for s in STORES for t in timings[(vid, s)]])
        memory = median([t.submit for t in timings[(vid, "memory")]])
        sqlite = median([t.submit for t in timings[(vid, "sqlite")]])
        section.rows.append([vid, fmt_us(engine), fmt_us(memory), fmt_us(sqlite),
                             fmt_ratio(sqlite / engine)])
        figures[vid] = {"engine_us": engine * 1e6, "memory_us": memory * 1e6,
                        "sqlite_us": sqlite * 1e6}
    section.figures = figures
    section.notes += [
        f"{config.reps} repetitions of {config.moves} moves per variant and store; medians of "
        "the mean per move. submit = legality check, apply, the log entry (events as JSON), "
        "the store's append, the mover's view and legal moves after the move, fan-out, "
        "metrics; not the protobuf translation nor the transport.",
        "engine = legal_moves + apply of the same moves on a local mirror of the game.",
    ]
    section.seconds = time.perf_counter() - started
    return section
