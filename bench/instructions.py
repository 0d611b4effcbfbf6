"""Instructions per move: the peers' load on this engine's server run under callgrind.

Run: ``python -m bench.instructions [--subjects sqlite-play,sqlite] [--moves 1000] [--reps 2]
[--by-object]``. Each subject's server (as :func:`bench.peerbench.start` runs it) runs under
``valgrind --tool=callgrind`` with instrumentation off; after a warm-up the load's closed loop
plays ``--moves`` moves with instrumentation on, and the instructions the server executed in
every thread (grpc's poller included) are divided by the moves. The kernel's work (syscalls)
is not counted.

Why: on a shared machine the server's CPU time per move moves by a third from run to run (the
peers' own figures do), where its instructions move by a few tenths of a percent, so a change
of a few percent is seen here and not there. Run it in a worktree of the base and in the
change, alternating; the load runs about fifty times slower than without valgrind, which
changes how appends and messages batch, so compare runs of this module with each other only
(windows the server times by the clock are stretched as much: :data:`SLOWER`).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from bench.common import Section, median, server_flag
from bench.peerbench import OURS, start

CONCURRENCY = 64
SLOWER = 50
"""About how much slower the server runs under callgrind: what the server times by the clock
is given that much longer (the views a table keeps, 0.5 s by default), or the measured run
would let go, and render again, what a run at full speed never does."""


@dataclass(frozen=True)
class InstructionsConfig:
    subjects: tuple[str, ...] = ("sqlite-play", "sqlite")
    moves: int = 1_000
    reps: int = 2
    by_object: bool = False
    warmup_moves: int = 300
    """Played before instrumentation starts (imports, first tables, caches)."""


def measure(name: str, config: InstructionsConfig, workdir: Path) -> tuple[int, dict[str, int]]:
    """The instructions of one measured run of ``name``'s server, and (``by_object``) their
    split by the shared object they ran in."""
    out = workdir / f"{name}.callgrind"
    under = ("valgrind", "--tool=callgrind", "--instr-atstart=no",
             f"--callgrind-out-file={out}")
    subject = start(name, workdir, under=under, ready_seconds=300.0,
                    flags=tuple(server_flag("--views-kept-seconds", str(0.5 * SLOWER))))
    try:
        subject.run(config.warmup_moves, CONCURRENCY, None)
        pid = str(subject.server.pid)  # taskset and valgrind exec: the pid is the server's
        control(["-i", "on", pid])
        subject.run(config.moves, CONCURRENCY, None)
        control(["-i", "off", pid])
        control(["-d", pid])
    finally:
        subject.stop()
    dumps = sorted(workdir.glob(f"{name}.callgrind.*"))
    if not dumps:
        raise RuntimeError(f"callgrind wrote no dump for {name}")
    dump = max(dumps, key=totals)
    return totals(dump), (by_object(dump) if config.by_object else {})


def control(args: list[str]) -> None:
    subprocess.run(["callgrind_control", *args], check=True, capture_output=True, timeout=120)


def totals(dump: Path) -> int:
    found = re.search(r"^totals: (\d+)", dump.read_text(errors="replace"), re.MULTILINE)
    return int(found.group(1)) if found else 0


def by_object(dump: Path) -> dict[str, int]:
    """Instructions by shared object (libpython, grpc's, protobuf's, sqlite's ...)."""
    listing = subprocess.run(["callgrind_annotate", "--threshold=100", str(dump)],
                             capture_output=True, text=True, check=True, timeout=300).stdout
    split: dict[str, int] = defaultdict(int)
    for line in listing.splitlines():
        found = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+\S+ \[(.+)\]$", line)
        if found:
            split[Path(found.group(2)).name] += int(found.group(1).replace(",", ""))
    return dict(split)


def bench(config: InstructionsConfig, workdir: Path) -> Section:
    for tool in ("valgrind", "callgrind_control", "callgrind_annotate"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"bench.instructions needs {tool} on PATH (Debian: valgrind)")
    per_move: dict[str, list[float]] = defaultdict(list)
    objects: dict[str, dict[str, int]] = {}
    for rep in range(config.reps):
        for name in config.subjects:
            print(f"instructions: {name}, run {rep + 1}", file=sys.stderr, flush=True)
            folder = workdir / f"{name}-{rep}"
            folder.mkdir()
            total, split = measure(name, config, folder)
            per_move[name].append(total / config.moves)
            if split:
                objects[name] = split
    section = Section(
        f"Instructions per move under callgrind ({config.moves} moves, {CONCURRENCY} tables "
        f"in flight, {config.reps} runs each)",
        ["server", "instructions per move: median [range]"])
    for name in config.subjects:
        values = per_move[name]
        section.rows.append([name, f"{median(values):,.0f} [{min(values):,.0f}-"
                                   f"{max(values):,.0f}]"])
    for name, split in objects.items():
        whole = sum(split.values()) or 1
        top = sorted(split.items(), key=lambda item: -item[1])[:8]
        section.notes.append(f"{name}, by object (last run): " + ", ".join(
            f"{obj} {100 * n / whole:.1f}%" for obj, n in top))
    section.figures = {name: {"per_move": values} for name, values in per_move.items()}
    return section


def bench_in_scratch(config: InstructionsConfig) -> Section:
    with tempfile.TemporaryDirectory(prefix="bezique-instructions-") as tmp:
        return bench(config, Path(tmp))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.instructions")
    parser.add_argument("--subjects", default="sqlite-play,sqlite",
                        help=f"comma-separated, of: {', '.join(OURS)}")
    parser.add_argument("--moves", type=int, default=InstructionsConfig.moves)
    parser.add_argument("--reps", type=int, default=InstructionsConfig.reps)
    parser.add_argument("--by-object", action="store_true",
                        help="also split the instructions by shared object")
    args = parser.parse_args(argv)
    subjects = tuple(s for s in args.subjects.split(",") if s)
    unknown = [s for s in subjects if s not in OURS]
    if unknown:
        parser.error(f"not a subject of this engine: {', '.join(unknown)}")
    print(bench_in_scratch(InstructionsConfig(subjects, args.moves, args.reps,
                                              args.by_object)).render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
