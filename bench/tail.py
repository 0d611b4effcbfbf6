"""The peer benchmark's open-loop tail, with the server's stalls counted from inside.

Run: ``python -m bench.tail (--rate R | --closed C) [--runs N] [--seconds S] [--gc A,B,C]
[--lag]``. It starts this engine as :func:`bench.peerbench.start` does (sqlite store, server on
one core, the :mod:`bench.peerload` load on the other) but under :mod:`bench.stalltrace`, warms
up, makes ``C`` closed-loop runs of 8,000 moves (the harness makes 3), and then ``N`` open-loop
runs of ``S`` seconds at ``R`` moves/s (default: half the closed loop's median rate).
Per run it prints the move latencies (p50, p99, max), the load's late sends, the load average,
the server's run-queue wait, and what held the server's event loop during the run: garbage
collections by generation (CPU ms: median, p95, max; their total per move), WAL finishes, slow
appends and (``--lag``) how often a 1 ms timer fired over 2 ms late. ``--gc`` runs the server
with other collector thresholds, to compare.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import tempfile
import time
from pathlib import Path

from bench.common import median, percentile, python_module_argv, spawn
from bench.peerbench import Run, Subject, cores, pinned, run_queue_wait, start_load

CONCURRENCY = 64


def start(workdir: Path, store: str, env: dict[str, str]) -> Subject:
    """The traced server (flags as bench.peerbench.start gives them) and its load."""
    server_core, load_core = cores()
    spec = "memory:" if store == "memory" else f"sqlite:{workdir / 'tail.sqlite'}"
    argv = python_module_argv(
        "bench.stalltrace", "--address", "127.0.0.1:0", "--log-level", "warning",
        "--log-format", "json", "--bot-delay", "0", "--store", spec, "--max-tables", "10000000",
        "--idle-seconds", "0", "--max-watchers-per-caller", "0")
    os.environ.update(env)  # the server inherits them
    server = spawn(pinned(server_core, argv), workdir, "server", ready=r"listening on (\S+:\d+)")
    try:
        load = start_load(pinned(load_core, python_module_argv(
            "bench.peerload", "--target", server.address)), workdir, store)
    except Exception:
        server.stop()
        raise
    return Subject(store, server, load)


def traced_run(subject: Subject, moves: int, rate: float, trace: Path
               ) -> tuple[Run, dict[str, list[list[float]]]]:
    """One open-loop run as Subject.run makes it, with what the tracer saw during it."""
    subject.load.ask({"cmd": "prepare", "moves": moves, "concurrency": CONCURRENCY})
    subject.load.ask({"cmd": "drop"})
    dump(subject, trace)  # forget the preparation
    wait0 = run_queue_wait(subject.server.pid)
    answer = subject.load.ask({"cmd": "run", "moves": moves, "concurrency": CONCURRENCY,
                               "rate": rate})
    run = Run(int(answer["moves"]), float(answer["seconds"]),
              [float(x) for x in answer["latencies"]], int(answer["late"]), 0.0, 0.0,
              run_queue_wait(subject.server.pid) - wait0)
    return run, dump(subject, trace)


def dump(subject: Subject, trace: Path) -> dict[str, list[list[float]]]:
    """What the tracer recorded since its last dump (it writes the file on SIGUSR1)."""
    trace.unlink(missing_ok=True)
    os.kill(subject.server.pid, signal.SIGUSR1)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            found: dict[str, list[list[float]]] = json.loads(trace.read_text())
            return found
        except (OSError, ValueError):
            time.sleep(0.05)
    raise RuntimeError("the traced server wrote no trace")


def _q(values: list[float], q: float) -> float:
    return percentile(values, q) if values else 0.0


def describe(run: Run, seen: dict[str, list[list[float]]], load_average: float) -> str:
    ms = [x * 1e3 for x in run.latencies]
    parts = [f"{run.rate:.0f}/s p50 {_q(ms, 50):.2f} p99 {_q(ms, 99):.2f} max {max(ms):.1f} ms, "
             f"late {run.late}, load {load_average:.2f}, server waited {run.server_wait:.2f} s"]
    total = 0.0
    for generation in (0, 1, 2):
        cpu = [e[3] for e in seen["gc"] if e[1] == generation]
        total += sum(cpu)
        if cpu:
            parts.append(f"gc{generation} x{len(cpu)} CPU ms med {_q(cpu, 50):.2f} "
                         f"p95 {_q(cpu, 95):.2f} max {max(cpu):.2f}")
    parts.append(f"gc CPU {total / run.moves * 1e3:.1f} µs/move")
    if seen["finish"]:
        parts.append("WAL finish on the loop ms "
                     + ", ".join(f"{e[1]:.1f}" for e in seen["finish"]))
    if seen.get("off_loop"):
        parts.append(f"WAL resets off the loop x{len(seen['off_loop'])}")
    if seen["append"]:
        parts.append(f"appends > 1 ms x{len(seen['append'])} "
                     f"(max {max(e[1] for e in seen['append']):.1f})")
    if seen["lag"]:
        lags = [e[1] for e in seen["lag"]]
        parts.append(f"loop late > 2 ms x{len(lags)} (> 5 ms x{sum(x > 5 for x in lags)}, "
                     f"max {max(lags):.1f})")
    return "; ".join(parts)


Trace = dict[str, list[list[float]]]
"""What bench.stalltrace recorded: lists of [time, ...] by kind (gc, lag, finish, append)."""


def measure(rate: float = 0.0, runs: int = 3, seconds: float = 4.0, store: str = "sqlite",
            thresholds: str = "", lag: bool = False, closed: int = 1
            ) -> list[tuple[Run, Trace]]:
    """``runs`` open-loop runs on a fresh traced server, each printed as it ends, after
    ``closed`` closed-loop runs of 8,000 moves (as many as the harness makes: 3; their median
    rate halved is the open loop's rate unless ``rate`` is given)."""
    found: list[tuple[Run, Trace]] = []
    with tempfile.TemporaryDirectory(prefix="bezique-tail-") as tmp:
        workdir = Path(tmp)
        trace = workdir / "trace.json"
        env = {"STALLTRACE_OUT": str(trace), "STALLTRACE_GC": thresholds,
               "STALLTRACE_LAG": "1" if lag else ""}
        subject = start(workdir, store, env)
        try:
            subject.run(1_500, CONCURRENCY, None)
            rates = [subject.run(8_000, CONCURRENCY, None).rate for _ in range(closed)]
            if rates:
                print("closed loop " + ", ".join(f"{r:.0f}" for r in rates) + " moves/s",
                      flush=True)
            if not rate:
                rate = median(rates) / 2
                print(f"open loop at {rate:.0f}/s", flush=True)
            for number in range(runs):
                load_average = os.getloadavg()[0]
                run, seen = traced_run(subject, max(CONCURRENCY, int(rate * seconds)), rate,
                                       trace)
                found.append((run, seen))
                print(f"run {number}: {describe(run, seen, load_average)}", flush=True)
        finally:
            subject.stop()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.tail")
    parser.add_argument("--rate", type=float, default=0.0,
                        help="moves/s (0: half a closed-loop run's rate)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--store", choices=("sqlite", "memory"), default="sqlite")
    parser.add_argument("--gc", default="", help="collector thresholds A,B,C for the server")
    parser.add_argument("--lag", action="store_true", help="count the loop's late timers")
    parser.add_argument("--closed", type=int, default=0,
                        help="closed-loop runs of 8,000 moves first (the harness makes 3)")
    args = parser.parse_args()
    if not args.rate and not args.closed:
        parser.error("give --rate, or --closed N to take half the closed loop's rate")
    found = measure(args.rate, args.runs, args.seconds, args.store, args.gc, args.lag,
                    args.closed)
    p99s = [percentile(run.latencies, 99) * 1e3 for run, _ in found]
    print(f"p99 median {median(p99s):.2f} ms [{min(p99s):.2f}-{max(p99s):.2f}] over "
          f"{len(p99s)} runs (gc {args.gc or 'as the server sets it'})", flush=True)


if __name__ == "__main__":
    main()
