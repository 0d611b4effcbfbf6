"""Layout: which arrangement of server processes serves the most moves on one machine.

The same load as the peers benchmark (:mod:`bench.peerload`: 4-player highcard, every seat
watching its table, a seat moves when its own stream says so), from two load processes with
``concurrency`` tables in flight each, against:

* ``sqlite x1``: one server process over sqlite (the default layout);
* ``postgres x1``: one server process over a private PostgreSQL cluster;
* ``postgres x2``: two server processes (replicas) over that same cluster, one load each;
* ``sqlite x1 connect``: ``sqlite x1`` with the loads on its HTTP port (uvicorn) instead of
  gRPC: every call Connect with binary proto over HTTP/1.1 (:mod:`bench.connectstub`), the
  streams Connect server streams, so the transport is the only difference.

Nothing is pinned: the whole machine is the subject. Layouts alternate, ``reps`` runs each.
Besides moves/s, the CPU every part spent per move (servers, PostgreSQL's processes, loads),
from /proc, so the figure can be carried to a machine where the load runs elsewhere: moves per
second per core of server-side CPU.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import (
    ROOT,
    Child,
    Section,
    fmt_ms,
    fmt_rate,
    fmt_us,
    median,
    python_module_argv,
    server_argv,
    spawn,
    timed_in_scratch,
)
from bench.peerbench import Load, start_load

LAYOUTS = ("sqlite x1", "postgres x1", "postgres x2", "sqlite x1 connect")


@dataclass(frozen=True)
class LayoutConfig:
    moves: int = 4_000  # per load process and run
    concurrency: int = 32  # per load process
    reps: int = 3
    warmup_moves: int = 800
    layouts: tuple[str, ...] = LAYOUTS


@dataclass
class Run:
    moves: int
    seconds: float
    server_cpu: float
    store_cpu: float
    load_cpu: float
    latency: float  # median SubmitMove call, seconds
    stream_wait: float  # median from a move's answer to the streams showing the next turn


@dataclass
class Layout:
    name: str
    servers: list[Child]
    loads: list[Load]
    store_cpu: Callable[[], float] | None = None  # CPU seconds of the store's processes
    runs: list[Run] = field(default_factory=list)

    def run(self, moves: int, concurrency: int) -> Run:
        for load in self.loads:
            load.ask({"cmd": "prepare", "moves": moves, "concurrency": concurrency})
            load.ask({"cmd": "drop"})
        server0 = sum(s.cpu_seconds() for s in self.servers)
        load0 = sum(load.child.cpu_seconds() for load in self.loads)
        store0 = self.store_cpu() if self.store_cpu else 0.0
        answers = ask_all(self.loads, {"cmd": "run", "moves": moves,
                                       "concurrency": concurrency, "rate": None})
        return Run(sum(int(a["moves"]) for a in answers),
                   max(float(a["seconds"]) for a in answers),
                   sum(s.cpu_seconds() for s in self.servers) - server0,
                   (self.store_cpu() if self.store_cpu else 0.0) - store0,
                   sum(load.child.cpu_seconds() for load in self.loads) - load0,
                   median([float(x) for a in answers for x in a["latencies"]]),
                   median([float(x) for a in answers for x in a["stream_waits"]] or [0.0]))


def ask_all(loads: list[Load], command: dict[str, Any], timeout: float = 600.0
            ) -> list[dict[str, Any]]:
    """Send ``command`` to every load at once, then collect the answers."""
    for load in loads:
        stdin = load.child.proc.stdin
        assert stdin is not None
        stdin.write((json.dumps(command) + "\n").encode())
        stdin.flush()
    answers = []
    for load in loads:
        stdout = load.child.proc.stdout
        assert stdout is not None
        ready, _, _ = select.select([stdout], [], [], timeout)
        line = stdout.readline() if ready else b""
        answer: dict[str, Any] = json.loads(line) if line else {"ok": False, "error": "silent"}
        if not answer.get("ok") or answer.get("errors"):
            raise RuntimeError(f"{load.name}: {answer.get('error') or answer.get('errors')}\n"
                               f"{load.child.tail()}")
        answers.append(answer)
    return answers


def tree_cpu(root_pid: int) -> float:
    """CPU seconds of ``root_pid`` and its children (PostgreSQL's postmaster and backends),
    with the CPU of children that have exited (cutime, cstime)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            pid, ppid = int(entry.name), int(fields[1])
            if pid == root_pid:
                total += (int(fields[11]) + int(fields[12]) + int(fields[13])
                          + int(fields[14])) / ticks
            elif ppid == root_pid:
                total += (int(fields[11]) + int(fields[12])) / ticks
    return total


@contextlib.contextmanager
def postgres() -> Iterator[tuple[str, int]]:
    """A private PostgreSQL cluster (tools/pgcluster.py): its URL and postmaster pid."""
    sys.path.insert(0, str(ROOT / "tools"))
    from pgcluster import Cluster, scratch_folder  # type: ignore[import-not-found]

    cluster = Cluster(scratch_folder())
    url = cluster.start()
    try:
        pid = int((cluster.data / "postmaster.pid").read_text().split()[0])
        yield str(url), pid
    finally:
        cluster.remove()


def start_layout(name: str, workdir: Path, url: str, pg_pid: int) -> Layout:
    folder = workdir / name.replace(" ", "-")
    folder.mkdir()
    count = 2 if name.endswith("x2") else 1
    store = f"sqlite:{folder / 'layout.sqlite'}" if name.startswith("sqlite") else url
    connect = name.endswith("connect")
    # Every load is one address: the HTTP port's per-address connection cap (128, #26) would
    # refuse its keep-alive connection per seat and per stream.
    http = (("--http-address", "127.0.0.1:0", "--max-connections-per-peer", "100000")
            if connect else ())
    ready = r"serving browsers .* on http://([\d.]+:\d+)/" if connect else r"listening on (\S+:\d+)"
    servers: list[Child] = []
    loads: list[Load] = []
    try:
        for n in range(count):
            servers.append(spawn(server_argv("--store", store, "--max-tables", "10000000",
                                             "--idle-seconds", "0",
                                             "--max-watchers-per-caller", "0", *http),
                                 folder, f"server-{n}", ready=ready))
        for n in range(2):
            argv = ["--target", servers[n % count].address,
                    "--transport", "connect" if connect else "grpc"]
            loads.append(start_load(python_module_argv("bench.peerload", *argv),
                                    folder, f"{name}-load-{n}"))
    except Exception:
        for server in servers:
            server.stop()
        raise
    return Layout(name, servers, loads,
                  (lambda: tree_cpu(pg_pid)) if name.startswith("postgres") else None)


def bench(config: LayoutConfig, workdir: Path) -> Section:
    layouts: list[Layout] = []
    with postgres() as (url, pg_pid):
        try:
            for name in config.layouts:
                layouts.append(start_layout(name, workdir, url, pg_pid))
            for layout in layouts:
                print(f"layout: warming up {layout.name}", file=sys.stderr, flush=True)
                layout.run(config.warmup_moves, config.concurrency)
            for rep in range(config.reps):
                k = rep % len(layouts)
                for layout in layouts[k:] + layouts[:k]:
                    layout.runs.append(layout.run(config.moves, config.concurrency))
        finally:
            for layout in layouts:
                for load in layout.loads:
                    with contextlib.suppress(Exception):
                        load.ask({"cmd": "quit"}, timeout=10)
                    load.child.stop()
                for server in layout.servers:
                    server.stop()
    return report(config, layouts)


def report(config: LayoutConfig, layouts: list[Layout]) -> Section:
    section = Section(
        f"Layout: moves/s on the whole machine ({len(os.sched_getaffinity(0))} cores), "
        f"2 load processes x {config.concurrency} tables in flight, every seat watching",
        ["layout", "moves/s [range]", "servers CPU/move", "PostgreSQL CPU/move",
         "server-side moves per core-second", "load CPU/move", "SubmitMove p50",
         "answer -> next turn on the streams p50"])
    figures: dict[str, dict[str, float]] = {}
    for layout in layouts:
        rates = [r.moves / r.seconds for r in layout.runs]
        server = median([r.server_cpu / r.moves for r in layout.runs])
        store = median([r.store_cpu / r.moves for r in layout.runs])
        load = median([r.load_cpu / r.moves for r in layout.runs])
        latency = median([r.latency for r in layout.runs])
        wait = median([r.stream_wait for r in layout.runs])
        figures[layout.name] = {"rate": median(rates), "server_cpu_per_move": server,
                                "store_cpu_per_move": store, "load_cpu_per_move": load,
                                "per_core_second": 1 / (server + store),
                                "submit_p50": latency, "stream_wait_p50": wait}
        span = (f" [{fmt_rate(min(rates))}–{fmt_rate(max(rates))}]" if len(rates) > 1 else "")
        section.rows.append([layout.name, fmt_rate(median(rates)) + span, fmt_us(server),
                             fmt_us(store) if layout.store_cpu else "-",
                             fmt_rate(1 / (server + store)), fmt_us(load), fmt_ms(latency),
                             fmt_ms(wait)])
    section.figures = figures
    section.notes += [
        f"{config.reps} runs of {config.moves:,} moves per load process per layout, layouts "
        "alternating; medians. Nothing pinned: servers, PostgreSQL and the two load processes "
        "share the machine, so moves/s is what this machine does with its load on board; "
        "'server-side moves per core-second' = 1 / (servers' + PostgreSQL's CPU per move), "
        "what a core given to the server side yields when the load runs elsewhere.",
        "postgres x2: two replicas over one private cluster (tools/pgcluster.py, fsync on), "
        "each load process on its own replica with all four seats of its tables; "
        "postgres x1 and sqlite x1: both load processes on the one server.",
        "PostgreSQL CPU: the postmaster, its backends and the children that exited, from /proc.",
        "sqlite x1 connect: the sqlite x1 server with its HTTP port (uvicorn), the loads "
        "speaking Connect (binary proto, HTTP/1.1; a keep-alive connection per seat for its "
        "calls and one per stream) instead of gRPC (one HTTP/2 connection per seat).",
        "Latencies: medians over both loads of the run, then over runs. 'answer -> next turn' "
        "is how long a table waits, after a SubmitMove's answer, for its seats' streams to "
        "show whose turn it is: the streams' share of a move.",
    ]
    return section


def run(config: LayoutConfig | None = None) -> Section:
    chosen = config or LayoutConfig()
    return timed_in_scratch(lambda workdir: bench(chosen, workdir))
