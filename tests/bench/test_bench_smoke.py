"""Every benchmark runs end to end in a tiny configuration: structure, not speed.

The real figures come from ``make bench`` (never part of ``make test``); here each benchmark
only has to start its processes, measure something finite and report it.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

import pytest

from bench import (
    bots,
    browser,
    chance,
    engine,
    feed,
    floor,
    instructions,
    layers,
    layout,
    memory,
    peerbench,
    service,
    streams,
    tail,
    web,
)
from bench.__main__ import SUITES, header
from bench.common import Section, median, percentile, spawn

AFFINITY = os.sched_getaffinity(0)


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def _cpu(value: object) -> bool:
    """A CPU figure from /proc, counted in 10 ms ticks: a short smoke run may cost none."""
    return isinstance(value, (int, float)) and math.isfinite(value) and value >= 0


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


def test_chance_times_the_mac_forms_per_deal_and_dealing_step() -> None:
    section = chance.run(chance.ChanceConfig(reps=2, rounds=2, samples=1, budget=0.02, games=2,
                                             variants=("quart-bezique", "bezique-2p")))
    _check(section)
    assert section.figures["production"] in chance.FORMS
    for vid in ("quart-bezique", "bezique-2p"):
        figures = section.figures[vid]
        assert figures["blocks_per_deal"] >= 1 and figures["deals_counted"] >= 2
        assert all(_finite(seconds) for seconds in figures["form_s"].values())
        for key in ("deal_s", "dealing_move_s", "other_move_s"):
            assert _finite(figures[key]), (vid, key)
        assert math.isfinite(figures["share_of_deal"])  # of either sign in so short a run


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
    for key in ("echo_rate", "submit_rate", "ratio", "open_p99", "server_cpu_per_move",
                "least_rate", "least_ratio"):
        assert _finite(figures[key]), key
    assert _cpu(figures["least_server_cpu_per_move"])
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


def test_browser_compares_connect_with_grpc_on_one_server() -> None:
    section = browser.run(browser.BrowserConfig(moves=60, reps=1, concurrency=4,
                                                warmup_moves=20))
    _check(section)
    assert set(section.figures["ratio"]) == {"grpc", "connect", "connect-json", "grpc-web"}
    # /proc counts CPU in 10 ms ticks: a 60-move smoke run may cost less than one tick
    assert all(_cpu(v) for v in section.figures["server_cpu_per_move"].values())
    assert len(section.targets) == 1


def test_web_times_a_click_to_the_other_page() -> None:
    section = web.run(web.WebConfig(games=1, hand_size=2))
    _check(section)
    assert section.figures["moves"] == 4
    assert _finite(section.figures["p50_ms"]) and _finite(section.figures["p99_ms"])
    assert any("p99" in name for name in section.targets)


def test_peers_plays_this_engine_with_every_seat_watching() -> None:
    """The peers' harness on this engine's two stores (the Node peers need npm packages and
    belong to ``make bench``): closed and open loop, CPU of both processes, idle memory."""
    section = peerbench.run(peerbench.PeersConfig(
        moves=96, reps=1, concurrency=4, open_seconds=0.3, open_reps=1, warmup_moves=32,
        idle_tables=20, settle_seconds=0.2, subjects=("memory", "sqlite")))
    _check(section)
    for store in ("memory", "sqlite"):
        figures = section.figures[store]
        for key in ("rate", "open_p99", "per_table", "per_table_bare"):
            assert _finite(figures[key]), (store, key)
        for key in ("server_cpu_per_move", "load_cpu_per_move"):  # 10 ms /proc ticks
            assert _cpu(figures[key]), (store, key)


def test_peers_stops_waiting_for_a_load_when_its_server_exits(tmp_path: Path) -> None:
    """A peer server that dies mid-run (boardgame.io-FlatFile did: #19) fails the section at
    once with the server's last words, instead of waiting the full answer timeout for a load
    whose clients keep reconnecting."""
    server = spawn(
        [sys.executable, "-c", "print('listening on 127.0.0.1:1', flush=True); "
         "import sys, time; time.sleep(1); sys.exit('crashed: node-persist')"],
        tmp_path, "server", ready=r"listening on (\S+:\d+)")
    load = peerbench.start_load(["sleep", "60"], tmp_path, "silent")  # never answers
    load.server = server
    started = time.monotonic()
    try:
        with pytest.raises(RuntimeError, match=r"(?s)server exited \(1\).*crashed: node-persist"):
            load.ask({"cmd": "run"}, timeout=60)
    finally:
        load.child.stop()
    assert time.monotonic() - started < 10


def test_floor_measures_both_shapes_of_a_move_on_a_bare_server() -> None:
    """The transport floor: a move as a unary call + four stream pushes, and as one message on
    the mover's bidirectional stream + four pushes; CPU per move and idle memory of each."""
    section = floor.run(floor.FloorConfig(concurrency=4, moves=200, reps=2, warmup_moves=40,
                                          idle_tables=10, settle_seconds=0.2))
    _check(section)
    for shape in floor.SHAPES:
        figures = section.figures[shape]
        assert _finite(figures["rate"]) and _cpu(figures["server_cpu_per_move"]), shape
        assert len(figures["cpu_runs"]) == 2
        assert _finite(figures["per_table"]), shape
    assert os.sched_getaffinity(0) == AFFINITY  # the load's pinning ends with the section


def test_layout_runs_sqlite_two_replicas_over_postgres_and_the_http_port() -> None:
    section = layout.run(layout.LayoutConfig(moves=64, concurrency=4, reps=1, warmup_moves=32))
    _check(section)
    for name in layout.LAYOUTS:
        figures = section.figures[name]
        assert _finite(figures["rate"]) and _cpu(figures["server_cpu_per_move"]), name
        assert _finite(figures["submit_p50"]) and _finite(figures["stream_wait_p50"]), name
    assert _cpu(section.figures["postgres x2"]["store_cpu_per_move"])
    assert "sqlite x1 connect" in layout.LAYOUTS


def test_pgappend_measures_each_setting_on_a_real_cluster() -> None:
    import asyncio

    from bench import pgappend
    from bezique.service.store import postgres

    with layout.postgres() as (url, pg_pid):
        for setting in pgappend.SETTINGS:
            figures = asyncio.run(pgappend.measure(url, pg_pid, setting, tables=4, per_table=5))
            assert _finite(figures.rate) and _finite(figures.alone), setting
            assert _cpu(figures.client_cpu) and _cpu(figures.store_cpu), setting
    assert "pg_notify" not in postgres._APPEND + postgres._APPEND_ENDING  # never in the append


def test_bots_play_duplicate_matches_and_time_the_search() -> None:
    config = bots.BotsConfig(bezique_games=2, quart_deals=4, deals_per_table=2,
                             pairs=(("random", "search-easy"),))
    section = bots.run(config)
    bezique = section.figures["bezique-2p"]["random:search-easy"]
    quart = section.figures["quart-bezique"]["random:search-easy"]
    assert bezique["games"] == 2 and 0 <= bezique["win_rate"] <= 1
    assert quart["deals"] >= 2 and math.isfinite(quart["chips_per_deal"])
    timed = section.figures["decision_ms"]
    assert {"bezique-2p search-easy", "quart-bezique search-easy"} <= set(timed)
    assert all(_finite(t["p99"]) and t["decisions"] > 0 for t in timed.values())


def test_instructions_counts_a_servers_instructions_per_move() -> None:
    """bench.instructions: the server under callgrind, instrumented for the measured run
    only; a Play move costs this engine millions of instructions, most of them CPython's."""
    section = instructions.bench_in_scratch(instructions.InstructionsConfig(
        subjects=("memory-play",), moves=40, reps=1, by_object=True, warmup_moves=8))
    (per_move,) = section.figures["memory-play"]["per_move"]
    assert 100_000 < per_move < 100_000_000
    assert "libpython" in section.notes[0]


def test_the_suite_lists_every_benchmark() -> None:
    assert set(SUITES) == {"engine", "layers", "service", "memory", "streams", "browser", "feed",
                           "web", "peers", "layout", "floor", "leastwork", "bots"}
    assert "cores" in header([])


@pytest.mark.parametrize(("q", "expected"), [(50, 2), (99, 3), (100, 3), (1, 1)])
def test_percentile_is_nearest_rank(q: float, expected: float) -> None:
    assert percentile([3, 1, 2], q) == expected


def test_feed_follows_tables_ending_at_the_full_move_rate() -> None:
    section = feed.run(feed.FeedConfig(moves=120, concurrency=8))
    _check(section)
    figures = section.figures
    assert figures["ended"] > 0 and figures["delivered"] == figures["ended"]
    for key in ("rate_with_feed", "rate_without_feed", "lag_p50", "lag_p99"):
        assert _finite(figures[key]), key


def test_tail_counts_the_servers_collections_during_an_open_loop_run() -> None:
    """bench.tail: an open-loop run on a server under bench.stalltrace comes back with its
    latencies and what held the server's loop (here: young collections, forced frequent)."""
    ((run, seen),) = tail.measure(rate=100, runs=1, seconds=1, thresholds="50,5,1000",
                                  lag=True, closed=0)
    assert run.moves == 100 and len(run.latencies) == 100
    young = [entry for entry in seen["gc"] if entry[1] == 0]
    assert young and all(_cpu(entry[3]) for entry in young)
    assert set(seen) == {"gc", "lag", "finish", "append", "off_loop"}


def test_leastwork_server_plays_real_highcard_updates(tmp_path: Path) -> None:
    """The least-work server's move is the real work, not fixed bytes: every seat gets a
    PlayResponse of the version the move reached with its own hand only (the others' as
    counts), the mover's answer carries its view, a SubmitMove answer parses, each move is one
    row in sqlite, and a table plays game after game."""
    import asyncio
    import sqlite3

    from bench.leastwork import WorkingTables
    from bezique.v1 import table_service_pb2 as pb

    async def play() -> None:
        tables = WorkingTables(tmp_path / "least.sqlite")
        queues = [tables.join(b"t:%d" % seat)[1] for seat in range(4)]
        for version in range(1, 41):  # 8 rounds of 4 moves: a game ends at 32
            mover = tables.games[b"t"].game.to_move[0]
            tables.move(b"t")
            updates = [pb.PlayResponse.FromString(queue.get_nowait()) for queue in queues]
            for seat, update in enumerate(updates):
                view = update.update.view
                assert update.update.version == view.version == version
                assert view.viewer_seat == seat
                assert update.HasField("answer") == (seat == mover)
                others = {s.seat: s.hidden_hand_count for s in view.seats if s.seat != seat}
                assert all(count == len(updates[s].update.view.hand)
                           for s, count in others.items())
                shown = {card.id for zone in view.zones for card in zone.cards}
                assert not shown & {card.id for s in others for card in updates[s].update.view.hand}
            answer = updates[mover].answer
            assert answer.request_id and answer.accepted.version == version
            assert answer.accepted.view == updates[mover].update.view
            assert [e.seat for e in answer.accepted.events][:1] == [mover]
        accepted = pb.SubmitMoveResponse.FromString(tables.submit(b"t"))
        assert accepted.version == 41 and accepted.view.version == 41
        pushed = [pb.WatchTableResponse.FromString(queue.get_nowait()) for queue in queues]
        assert [update.version for update in pushed] == [41] * 4
        assert tables.started == 2  # the first game ended at move 32; the second goes on

    asyncio.run(play())
    with sqlite3.connect(tmp_path / "least.sqlite") as db:
        assert db.execute("SELECT count(*), max(version) FROM log").fetchone() == (41, 41)


def test_leastwork_runs_the_floors_with_and_without_the_work() -> None:
    """Both shapes on the bare server and on the least-work server, beside this engine's
    unary path (boardgame.io, the ratios' base, needs npm packages: ``make bench``)."""
    from bench import leastwork

    section = leastwork.run(leastwork.LeastWorkConfig(
        moves=120, reps=2, warmup_moves=40, concurrency=4, peers=("sqlite",)))
    _check(section)
    assert len(section.rows) == 5
    for row in section.rows:
        runs = section.figures[row[0]]["runs"]
        assert len(runs) == 2 and all(_cpu(cpu) for cpu in runs), row
    assert not section.targets  # no ratio without boardgame.io
    engine = section.figures[leastwork.UNARY_ENGINE]
    runs = section.figures[leastwork.UNARY_WORK]["runs"]
    assert engine["to_least_work"] == pytest.approx(median(
        [mine / least for mine, least in zip(engine["runs"], runs, strict=True)]))
    rows = {row[0]: row for row in section.rows}
    assert rows[leastwork.UNARY_ENGINE][3].endswith("]")  # the engine's ratio and range
    assert rows[leastwork.UNARY_WORK][3] == "n/a"  # the least work is its own base
