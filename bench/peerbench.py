"""Peers: the same game on this engine and on the game servers people pick today.

4-player highcard (8 cards each; the server validates every move and hides the other hands) on
this engine (memory and sqlite stores), on a boardgame.io server (in memory, and with its
FlatFile storage) and in a Colyseus room, each driven by its own clients as the load
(``bench/peers/load.mjs`` for the peers, :mod:`bench.peerload` for this engine, where every
seat holds a WatchTable stream because the peers push every move to every seat; on the
``-play`` subjects every seat holds a Play stream instead, and its moves go up it).

Each server runs pinned to one core and its load to the other (``taskset``); every subject is
started once, warmed up, and then the runs alternate between subjects: ``reps`` closed-loop
runs of ``moves`` moves with ``concurrency`` tables in flight, then ``open_reps`` open-loop runs
at half of each subject's own median closed-loop rate. Server and load CPU come from
/proc/PID/stat of each process around each run, with the time each spent waiting for a CPU;
memory per idle table from a fresh server per subject, as VmRSS growth over ``idle_tables``
started tables with every seat connected, and bare (seats joined, no connection kept).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import shutil
import socket
import subprocess
import sys
import time
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
    percentile,
    python_module_argv,
    server_argv,
    spawn,
    timed_in_scratch,
)

PEERS_DIR = ROOT / "bench" / "peers"
SUBJECTS = ("memory", "sqlite", "sqlite-play", "bgio", "bgio-flatfile", "colyseus")
LABELS = {
    "memory": "this engine, memory store",
    "sqlite": "this engine, sqlite (durable)",
    "memory-play": "this engine, memory store, over Play",
    "sqlite-play": "this engine, sqlite (durable), over Play",
    "sqlite-play-separate": "this engine, sqlite, over Play, each answer a message of its own",
    "bgio": "boardgame.io, in memory (socket.io)",
    "bgio-flatfile": "boardgame.io, FlatFile storage",
    "colyseus": "Colyseus (WebSocket, schema patches)",
}
PLAYING = ("memory-play", "sqlite-play", "sqlite-play-separate")
"""This engine with every seat on a Play stream (a subject by name; sqlite-play by default).
``-separate``: the streams do not ask for answers beside their updates (each answer is a
message of its own), to measure what ``PlayOpen.answers_with_updates`` saves."""
OURS = ("memory", "sqlite", *PLAYING)
LOAD_BOUND = 0.90
"""A load process busier than this share of its core may be what limits the rate."""


@dataclass(frozen=True)
class PeersConfig:
    concurrency: int = 64
    moves: int = 8_000
    reps: int = 3
    open_seconds: float = 4.0
    open_reps: int = 3
    warmup_moves: int = 1_500
    idle_tables: int = 1_000
    subjects: tuple[str, ...] = SUBJECTS
    settle_seconds: float = 2.0
    """How long the server is left alone before its RSS is read (half that before the first
    reading): its allocator returns what it is going to."""


@dataclass
class Run:
    """One measured run of one subject."""

    moves: int
    seconds: float
    latencies: list[float]
    late: int
    server_cpu: float
    load_cpu: float
    server_wait: float = 0.0
    load_wait: float = 0.0

    @property
    def rate(self) -> float:
        return self.moves / self.seconds


@dataclass
class Load:
    """A load process speaking the line protocol of bench/peers/load.mjs."""

    child: Child
    name: str
    server: Child | None = None
    """The server the load plays on: if it exits, :meth:`ask` stops waiting at once."""

    def ask(self, command: dict[str, Any], timeout: float = 600.0) -> dict[str, Any]:
        stdin, stdout = self.child.proc.stdin, self.child.proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write((json.dumps(command) + "\n").encode())
        stdin.flush()
        deadline = time.monotonic() + timeout
        ready: list[Any] = []
        while not ready and (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([stdout], [], [], min(left, 1.0))
            if not ready and self.server is not None and self.server.proc.poll() is not None:
                raise RuntimeError(f"{self.name}'s server exited ({self.server.proc.poll()}) "
                                   f"during {command['cmd']}:\n{self.server.tail()}")
        line = stdout.readline() if ready else b""
        if not line:
            raise RuntimeError(f"{self.name}'s load said nothing to {command['cmd']} "
                               f"(exit {self.child.proc.poll()}):\n{self.child.tail()}")
        answer: dict[str, Any] = json.loads(line)
        if not answer.get("ok"):
            raise RuntimeError(f"{self.name}'s load failed {command['cmd']}: "
                               f"{answer.get('error')}")
        if answer.get("errors"):
            raise RuntimeError(f"{self.name}'s load saw stream errors: {answer['errors']}")
        return answer


@dataclass
class Subject:
    """One server (pinned to its core) and its load (pinned to the other)."""

    name: str
    server: Child
    load: Load
    runs: list[Run] = field(default_factory=list)
    opened: list[Run] = field(default_factory=list)
    per_table: float = math.nan
    per_table_bare: float = math.nan

    def run(self, moves: int, concurrency: int, rate: float | None) -> Run:
        self.load.ask({"cmd": "prepare", "moves": moves, "concurrency": concurrency})
        self.load.ask({"cmd": "drop"})
        server0, load0 = self.server.cpu_seconds(), self.load.child.cpu_seconds()
        wait0, load_wait0 = run_queue_wait(self.server.pid), run_queue_wait(self.load.child.pid)
        answer = self.load.ask({"cmd": "run", "moves": moves, "concurrency": concurrency,
                                "rate": rate})
        return Run(int(answer["moves"]), float(answer["seconds"]),
                   [float(x) for x in answer["latencies"]], int(answer["late"]),
                   self.server.cpu_seconds() - server0,
                   self.load.child.cpu_seconds() - load0,
                   run_queue_wait(self.server.pid) - wait0,
                   run_queue_wait(self.load.child.pid) - load_wait0)

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.load.ask({"cmd": "quit"}, timeout=10)
        self.load.child.stop()
        self.server.stop()


# --------------------------------------------------------------------------- processes


def run_queue_wait(pid: int) -> float:
    """Seconds the threads of ``pid`` have spent runnable but waiting for a CPU (the second
    field of /proc/PID/task/TID/schedstat): on a busy machine, the share of a run a pinned
    process could not run. Threads that exited are not counted."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += int((task / "schedstat").read_text().split()[1])
    return total / 1e9


def npm_versions() -> str:
    """The installed versions of the peers' main packages (as locked in bench/peers)."""
    found = []
    for name in ("boardgame.io", "@colyseus/core", "@colyseus/schema", "@colyseus/sdk"):
        with contextlib.suppress(OSError, ValueError, KeyError):
            meta = json.loads((PEERS_DIR / "node_modules" / name / "package.json").read_text())
            found.append(f"{name} {meta['version']}")
    return ", ".join(found) or "not installed"


def node_version() -> str:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        return subprocess.run(["node", "--version"], capture_output=True, text=True,
                              timeout=30, check=False).stdout.strip()
    return "absent"


def cores() -> tuple[int, int]:
    """The server's core and the load's: the first two this process may use."""
    mine = sorted(os.sched_getaffinity(0))
    return mine[0], mine[1] if len(mine) > 1 else mine[0]


def pinned(core: int, argv: list[str]) -> list[str]:
    """``argv`` run by taskset on ``core`` (taskset execs it: the pid stays the program's)."""
    return ["taskset", "-c", str(core), *argv]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ensure_npm_packages() -> None:
    """The peers' pinned npm packages, installed with ``npm ci`` on first use."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise RuntimeError("the peer benchmark needs Node.js 20+ and npm on PATH")
    if (PEERS_DIR / "node_modules" / ".package-lock.json").exists():
        return
    print("peers: installing the pinned npm packages (npm ci in bench/peers, once)",
          file=sys.stderr, flush=True)
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PEERS_DIR, check=True,
                   timeout=900, stdout=sys.stderr)


def start_load(argv: list[str], workdir: Path, name: str) -> Load:
    out, err = workdir / f"{name}.load.out", workdir / f"{name}.load.err"
    with err.open("wb") as err_file:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=err_file, cwd=ROOT)
    return Load(Child(proc, out, err), name)


def check_game(name: str, server: Child, targets: list[str]) -> None:
    """bench/peers/check.mjs on one table: hands hidden, moves out of turn or of cards not
    held refused, a legal move pushed to every seat (else the peer plays another game)."""
    done = subprocess.run(["node", str(PEERS_DIR / "check.mjs"), *targets], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0 or not done.stdout.startswith("ok"):
        server.stop()
        raise RuntimeError(f"{name} does not play the benchmark's game: {done.stdout[-500:]}"
                           f"{done.stderr[-1500:]}")


def start(name: str, workdir: Path, *, watch: bool = True, under: tuple[str, ...] = (),
          ready_seconds: float = 60.0, flags: tuple[str, ...] = ()) -> Subject:
    """``name``'s server on the server core and its load on the other; this engine's server
    run ``under`` a tool when given (bench/instructions.py: valgrind), with ``flags`` added."""
    server_core, load_core = cores()
    if name in OURS:
        store = ("memory:" if name.startswith("memory")
                 else f"sqlite:{workdir / (name + '.sqlite')}")
        argv = server_argv("--store", store, "--max-tables", "10000000", "--idle-seconds",
                           "0", "--max-watchers-per-caller", "0", *flags)
        server = spawn(pinned(server_core, [*under, *argv]), workdir, f"server-{name}",
                       ready=r"listening on (\S+:\d+)", timeout=ready_seconds)
        load_argv = python_module_argv("bench.peerload", "--target", server.address,
                                       *([] if watch else ["--no-watch", "--channels", "1"]),
                                       *(["--play"] if name in PLAYING and watch else []),
                                       *(["--separate-answers"] if name.endswith("-separate")
                                         else []))
    else:
        port, api_port = free_port(), free_port()
        script = "colyseus-server.mjs" if name == "colyseus" else "bgio-server.mjs"
        argv = ["node", str(PEERS_DIR / script), str(port)]
        if name.startswith("bgio"):
            argv.append(str(api_port))
        if name == "bgio-flatfile":
            argv += ["flatfile", str(workdir / "bgio-flatfile")]
        server = spawn(pinned(server_core, argv), workdir, f"server-{name}",
                       ready=r"listening on (\S+:\d+)")
        peer = "colyseus" if name == "colyseus" else "bgio"
        targets = [peer, server.address, f"127.0.0.1:{api_port}"]
        check_game(name, server, targets)
        load_argv = ["node", str(PEERS_DIR / "load.mjs"), *targets]
    try:
        load = start_load(pinned(load_core, load_argv), workdir, name)
    except Exception:
        server.stop()
        raise
    load.server = server
    return Subject(name, server, load)


@contextlib.contextmanager
def started(names: tuple[str, ...], workdir: Path) -> Iterator[list[Subject]]:
    subjects: list[Subject] = []
    try:
        for name in names:
            subjects.append(start(name, workdir))
        yield subjects
    finally:
        for subject in subjects:
            subject.stop()


# --------------------------------------------------------------------------- phases


def measure_idle(name: str, config: PeersConfig, workdir: Path, bare: bool = False) -> float:
    """Bytes of server RSS per started, idle table with every seat connected (and, on this
    engine, watching); ``bare``: every seat joined, no connection kept (this engine: all seats
    of all tables over one channel, no stream; boardgame.io: joined through the lobby)."""
    folder = workdir / f"idle-{name}-{'bare' if bare else 'connected'}"
    folder.mkdir()
    subject = start(name, folder, watch=not bare)
    try:
        subject.load.ask({"cmd": "prepare", "tables": 50, "connect": not bare})
        time.sleep(config.settle_seconds / 2)
        before = subject.server.rss()
        subject.load.ask({"cmd": "prepare", "tables": config.idle_tables,
                          "connect": not bare})
        time.sleep(config.settle_seconds)
        return (subject.server.rss() - before) / config.idle_tables
    finally:
        subject.stop()


def bench(config: PeersConfig, workdir: Path) -> Section:
    names = config.subjects
    if any(name not in OURS for name in names):
        ensure_npm_packages()
    with started(names, workdir) as subjects:
        for subject in subjects:
            print(f"peers: warming up {subject.name}", file=sys.stderr, flush=True)
            subject.run(config.warmup_moves, config.concurrency, None)
        for rep in range(config.reps):
            for subject in rotated(subjects, rep):
                subject.runs.append(subject.run(config.moves, config.concurrency, None))
        for rep in range(config.open_reps):
            for subject in rotated(subjects, rep):
                rate = median([r.rate for r in subject.runs]) / 2
                moves = max(config.concurrency, int(rate * config.open_seconds))
                subject.opened.append(subject.run(moves, config.concurrency, rate))
        results = {s.name: s for s in subjects}
    for name in names:
        print(f"peers: memory per idle table, {name}", file=sys.stderr, flush=True)
        results[name].per_table = measure_idle(name, config, workdir)
        if name != "colyseus" and name not in PLAYING:  # a room holds a game only while its
            # clients are in; a bare table of this engine is the same with or without Play
            results[name].per_table_bare = measure_idle(name, config, workdir, bare=True)
    return report(config, [results[n] for n in names])


def rotated(subjects: list[Subject], rep: int) -> list[Subject]:
    """Each repetition starts with the next subject (no subject always runs first)."""
    k = rep % len(subjects)
    return subjects[k:] + subjects[:k]


# --------------------------------------------------------------------------- report


def _range(values: list[float], fmt: Callable[[float], str]) -> str:
    if len(values) < 2:
        return fmt(median(values))
    return f"{fmt(median(values))} [{fmt(min(values))}–{fmt(max(values))}]"


def figures(subject: Subject) -> dict[str, float]:
    runs, opened = subject.runs, subject.opened
    return {
        "rate": median([r.rate for r in runs]),
        "server_cpu_per_move": median([r.server_cpu / r.moves for r in runs]),
        "load_cpu_per_move": median([r.load_cpu / r.moves for r in runs]),
        "server_busy": median([r.server_cpu / r.seconds for r in runs]),
        "load_busy": median([r.load_cpu / r.seconds for r in runs]),
        "server_waiting": median([r.server_wait / r.seconds for r in runs]),
        "load_waiting": median([r.load_wait / r.seconds for r in runs]),
        "open_rate": median([r.rate for r in opened]),
        "open_p50": median([percentile(r.latencies, 50) for r in opened]),
        "open_p99": median([percentile(r.latencies, 99) for r in opened]),
        "open_late": float(sum(r.late for r in opened)),
        "closed_p99": median([percentile(r.latencies, 99) for r in runs]),
        "per_table": subject.per_table,
        "per_table_bare": subject.per_table_bare,
    }


def report(config: PeersConfig, subjects: list[Subject]) -> Section:
    section = Section(
        f"Peers: 4-player highcard, {config.concurrency} tables in flight, each server on one "
        "core and its load on the other",
        ["server", "moves/s (closed) [range]", "server CPU/move (busy, waiting)",
         "load CPU/move (busy, waiting)",
         "open loop at half rate: p50 / p99", "memory per idle table: connected / bare"])
    figs = {s.name: figures(s) for s in subjects}
    for s in subjects:
        f = figs[s.name]
        bound = f["load_busy"] >= LOAD_BOUND
        rate = _range([r.rate for r in s.runs], fmt_rate)
        section.rows.append([
            LABELS[s.name], ("≥ " if bound else "") + rate
            + (" (load-bound)" if bound else ""),
            f"{fmt_us(f['server_cpu_per_move'])} ({f['server_busy']:.0%}, "
            f"{f['server_waiting']:.0%})",
            f"{fmt_us(f['load_cpu_per_move'])} ({f['load_busy']:.0%}, {f['load_waiting']:.0%})",
            f"{fmt_ms(f['open_p50'])} / {fmt_ms(f['open_p99'])} at "
            f"{fmt_rate(f['open_rate'])}/s",
            f"{f['per_table'] / 1024:,.1f} KiB / " + (
                "n/a" if math.isnan(f["per_table_bare"])
                else f"{f['per_table_bare'] / 1024:,.1f} KiB"),
        ])
    peers = [s.name for s in subjects if s.name not in OURS]
    ours = [s.name for s in subjects if s.name in OURS]
    for playing in (name for name in ours if name.endswith("-play")):
        unary = playing.removesuffix("-play")
        if unary in figs:
            mine, base = figs[playing], figs[unary]
            section.notes.append(
                f"{playing} / {unary} (Play streams / SubmitMove + WatchTable, same store): "
                f"moves/s {mine['rate'] / base['rate']:.2f}x, server CPU per move "
                f"{mine['server_cpu_per_move'] / base['server_cpu_per_move']:.2f}x, load CPU "
                f"per move {mine['load_cpu_per_move'] / base['load_cpu_per_move']:.2f}x, "
                f"open-loop p99 {mine['open_p99'] / base['open_p99']:.2f}x, memory per idle "
                f"table {mine['per_table'] / base['per_table']:.2f}x")
    if ours and peers:
        section.notes.append("Ratios, peer / this engine in the same run (above 1: the peer "
                             "does more, or costs more):")
        for our in ours:
            mine = figs[our]
            for peer in peers:
                theirs = figs[peer]
                section.notes.append(
                    f"{peer} / {our}: moves/s {theirs['rate'] / mine['rate']:.2f}x, "
                    f"server CPU per move "
                    f"{theirs['server_cpu_per_move'] / mine['server_cpu_per_move']:.2f}x, "
                    f"open-loop p99 {theirs['open_p99'] / mine['open_p99']:.1f}x, "
                    f"memory per idle table {theirs['per_table'] / mine['per_table']:.1f}x"
                    + ("" if math.isnan(theirs["per_table_bare"]) else
                       f" (bare {theirs['per_table_bare'] / mine['per_table_bare']:.1f}x)"))
    if "sqlite" in figs:
        mine = figs["sqlite"]
        if "bgio" in figs:
            section.targets["sqlite: server CPU per move <= boardgame.io in memory"] = (
                mine["server_cpu_per_move"] <= figs["bgio"]["server_cpu_per_move"])
        for peer in peers:
            section.targets[f"sqlite: open-loop p99 <= 1/5 of {peer}'s"] = (
                mine["open_p99"] * 5 <= figs[peer]["open_p99"])
            section.targets[f"sqlite: memory per idle table <= 1/5 of {peer}'s (connected)"] = (
                mine["per_table"] * 5 <= figs[peer]["per_table"])
            if not math.isnan(figs[peer]["per_table_bare"]):
                section.targets[f"sqlite: memory per idle table <= 1/5 of {peer}'s (bare)"] = (
                    mine["per_table_bare"] * 5 <= figs[peer]["per_table_bare"])
    section.figures = figs
    section.notes += [
        f"{config.reps} closed-loop runs of {config.moves:,} moves per server, then "
        f"{config.open_reps} open-loop runs of {config.open_seconds:g} s at half of each "
        "server's own median closed-loop rate; the servers alternate, each repetition starting "
        "with the next; medians [ranges].",
        "Every seat is a client of the server's own kind with its own connection: boardgame.io "
        "clients (socket.io), colyseus SDK rooms (WebSocket), and for this engine one gRPC "
        "channel per seat with a WatchTable stream (-play: a Play stream, which the seat's "
        "moves go up too); each move is pushed to all four seats. A "
        "seat moves when its own client sees its turn; latency = send -> the mover learns "
        "the server took it (this engine: the SubmitMove answer, or the move's result on its "
        "Play stream; the peers: the mover's client receives the new state).",
        "CPU from /proc/PID/stat of the server and of the load process around each run; "
        "'busy' is a process's CPU over the run's wall time. A saturated closed loop shows the "
        "server near 100 %; a load near 100 % limits the rate (marked load-bound at >= "
        f"{LOAD_BOUND:.0%}). 'waiting': the time its threads were runnable but waiting for a "
        "CPU (/proc/PID/task/*/schedstat), over the run's wall time: well above 0 % means other "
        "work on the machine took the core, and the rate is the machine's, not the server's.",
        f"Memory: a fresh server per subject, VmRSS growth over {config.idle_tables:,} started "
        "tables after 50 warm-up tables: an upper bound (garbage not yet collected counts). "
        "Connected: all four seats connected (this engine: each on its own channel, watching). "
        "Bare: every seat joined, no connection kept (this engine: all over one channel, no "
        "stream; boardgame.io: joined through its lobby API; Colyseus: n/a, a room holds a "
        "game only while its clients are in).",
        f"Cores: servers on cpu {cores()[0]}, loads on cpu {cores()[1]} (taskset). Peers: "
        f"{npm_versions()}; node {node_version()}.",
    ]
    return section


def run(config: PeersConfig | None = None) -> Section:
    chosen = config or PeersConfig()
    return timed_in_scratch(lambda workdir: bench(chosen, workdir))
