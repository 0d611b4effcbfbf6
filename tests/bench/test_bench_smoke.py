"""Every benchmark runs end to end in a tiny configuration: structure, not speed.

The real figures come from ``make bench`` (never part of ``make test``); here each benchmark
only has to start its processes, measure something finite and report it.
"""

from __future__ import annotations

import math

import pytest

from bench import engine, layers, layout, memory, peerbench, service, streams
from bench.__main__ import SUITES, header
from bench.common import Section, percentile


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def _check(section: Section) -> None:
    assert section.rows, section.render()
    assert all(len(row) == len(section.header) for row in section.rows)
    assert section.figures
    assert section.seconds > 0
    assert "## " in section.render()


def test_engine_measures_every_variant_beside_pokerkit() -> None:
    section = engine.run(engine.EngineConfig(reps=2, budget=0.02))
    _check(section)
    variants = section.figures["variants"]
    assert {"highcard", "quart-bezique"} <= set(variants)
    for figures in variants.values():
        assert _finite(figures["decisions_per_s"]) and _finite(figures["ratio_decisions"])
        assert _finite(figures["deals_per_s"])
    assert _finite(section.figures["pokerkit"]["hands_per_s"])
    assert _finite(section.figures["trick_loop"]["decisions_per_s"])
    assert any("quart" in name and "deals" in name for name in section.targets)


def test_layers_time_the_table_manager() -> None:
    section = layers.run(layers.LayersConfig(moves=40, reps=1, variants=("highcard",)))
    _check(section)
    figures = section.figures["highcard"]
    assert _finite(figures["engine_us"]) and _finite(figures["sqlite_us"])


def test_service_compares_submit_move_with_the_echo_server() -> None:
    section = service.run(service.ServiceConfig(
        moves=160, reps=1, concurrency=8, open_seconds=0.3, open_reps=1, warmup_moves=80))
    _check(section)
    figures = section.figures
    for key in ("echo_rate", "submit_rate", "ratio", "open_p99", "server_cpu_per_move"):
        assert _finite(figures[key]), key
    assert len(section.targets) == 2


def test_memory_reads_the_server_resident_size() -> None:
    section = memory.run(memory.MemoryConfig(tables=30, warmup=5, variants=("highcard",)))
    _check(section)
    assert "highcard" in section.figures["per_table"]
    assert _finite(section.figures["pickled"]["highcard"])


def test_streams_deliver_every_move_to_every_watcher() -> None:
    section = streams.run(streams.StreamsConfig(tables=3, watchers=4, processes=1, moves=2,
                                                rate=30.0))
    _check(section)
    assert section.figures["delivered"] == section.figures["expected"] == 3 * 4 * 2
    assert math.isfinite(section.figures["p99"])


def test_peers_plays_this_engine_with_every_seat_watching() -> None:
    """The peers' harness on this engine's two stores (the Node peers need npm packages and
    belong to ``make bench``): closed and open loop, CPU of both processes, idle memory."""
    section = peerbench.run(peerbench.PeersConfig(
        moves=96, reps=1, concurrency=4, open_seconds=0.3, open_reps=1, warmup_moves=32,
        idle_tables=20, subjects=("memory", "sqlite")))
    _check(section)
    for store in ("memory", "sqlite"):
        figures = section.figures[store]
        for key in ("rate", "server_cpu_per_move", "load_cpu_per_move", "open_p99",
                    "per_table", "per_table_bare"):
            assert _finite(figures[key]), (store, key)


def test_layout_runs_sqlite_and_two_replicas_over_postgres() -> None:
    section = layout.run(layout.LayoutConfig(moves=64, concurrency=4, reps=1, warmup_moves=32))
    _check(section)
    for name in layout.LAYOUTS:
        figures = section.figures[name]
        assert _finite(figures["rate"]) and _finite(figures["server_cpu_per_move"]), name
    assert _finite(section.figures["postgres x2"]["store_cpu_per_move"])


def test_the_suite_lists_every_benchmark() -> None:
    assert set(SUITES) == {"engine", "layers", "service", "memory", "streams", "peers",
                           "layout"}
    assert "cores" in header([])


@pytest.mark.parametrize(("q", "expected"), [(50, 2), (99, 3), (100, 3), (1, 1)])
def test_percentile_is_nearest_rank(q: float, expected: float) -> None:
    assert percentile([3, 1, 2], q) == expected
