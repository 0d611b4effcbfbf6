"""What every benchmark shares: statistics, report sections, the machine, child processes.

The server and the echo server always run as child processes (a benchmark that shares the
client's event loop measures the client as much as the server); this module starts them,
waits for their "listening" line and stops them by their own pid, never by name.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import math
import os
import platform
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent

VARIANT_OPTIONS: Mapping[str, Mapping[str, str]] = {
    # The example's defaults (2 seats, 3 cards) make a game of 6 moves: mostly set-up. Four
    # seats of eight cards play the whole 32-card pack.
    "highcard": {"players": "4", "hand_size": "8"},
}
"""Options the benchmarks give a variant (the variant's defaults otherwise)."""


def options_for(variant_id: str) -> dict[str, str]:
    return dict(VARIANT_OPTIONS.get(variant_id, {}))


# --------------------------------------------------------------------------- statistics


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else math.nan


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100) of unsorted ``values``."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def fmt_rate(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}"


def fmt_ratio(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.2f}x"


def fmt_ms(seconds: float) -> str:
    return "n/a" if math.isnan(seconds) else f"{seconds * 1000:.2f} ms"


def fmt_us(seconds: float) -> str:
    return "n/a" if math.isnan(seconds) else f"{seconds * 1e6:.1f} µs"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


# --------------------------------------------------------------------------- reports


@dataclass
class Section:
    """One benchmark's result: a table to print, notes, and raw figures (for JSON/tests)."""

    title: str
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    targets: dict[str, bool] = field(default_factory=dict)
    seconds: float = 0.0

    def render(self) -> str:
        widths = [len(h) for h in self.header]
        for row in self.rows:
            widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
        lines = [f"## {self.title}", ""]
        lines.append("| " + " | ".join(h.ljust(w) for h, w in zip(self.header, widths,
                                                                  strict=True)) + " |")
        lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
        for row in self.rows:
            lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths,
                                                                       strict=True)) + " |")
        if self.targets:
            lines.append("")
            lines += [f"- target {name}: {verdict(ok)}" for name, ok in self.targets.items()]
        if self.notes:
            lines.append("")
            lines += [f"- {note}" for note in self.notes]
        lines.append(f"- section time: {self.seconds:.1f} s")
        return "\n".join(lines)


def machine() -> dict[str, str]:
    """Where the figures come from: cores, CPU model, versions, date."""
    model = platform.processor() or "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    versions = {}
    for dist in ("grpcio", "protobuf", "pokerkit"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = "absent"
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": str(len(os.sched_getaffinity(0))),
        "cpu": model,
        "python": platform.python_version(),
        **versions,
    }


def raise_fd_limit(wanted: int = 65_536) -> int:
    """Raise the soft open-files limit towards ``wanted`` (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft == resource.RLIM_INFINITY or soft >= target:
        return soft
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target


# --------------------------------------------------------------------------- child processes


@dataclass
class Child:
    """A child process we started; ``address`` when it printed one."""

    proc: subprocess.Popen[bytes]
    stdout_path: Path
    stderr_path: Path
    address: str = ""

    @property
    def pid(self) -> int:
        return self.proc.pid

    def rss(self) -> int:
        """Resident set size in bytes, from /proc/PID/status (VmRSS)."""
        text = Path(f"/proc/{self.pid}/status").read_text()
        found = re.search(r"^VmRSS:\s+(\d+)\s+kB", text, re.MULTILINE)
        if found is None:
            raise RuntimeError(f"no VmRSS for pid {self.pid}")
        return int(found.group(1)) * 1024

    def cpu_seconds(self) -> float:
        """User + system CPU time so far, from /proc/PID/stat."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM, then SIGKILL if it does not exit in ``timeout`` seconds."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)
        return int(self.proc.returncode)

    def tail(self, lines: int = 20) -> str:
        text = ""
        for path in (self.stdout_path, self.stderr_path):
            with contextlib.suppress(OSError):
                text += "".join(path.read_text(errors="replace").splitlines(True)[-lines:])
        return text


def spawn(argv: Sequence[str], workdir: Path, name: str, *, ready: str,
          timeout: float = 60.0, stdin: int | IO[bytes] | None = subprocess.DEVNULL) -> Child:
    """Start ``argv`` with its output in ``workdir`` and wait for a stdout line matching the
    regular expression ``ready`` (its first group, if any, becomes ``address``)."""
    out = workdir / f"{name}.out"
    err = workdir / f"{name}.err"
    with out.open("wb") as out_file, err.open("wb") as err_file:
        proc = subprocess.Popen(list(argv), stdout=out_file, stderr=err_file, stdin=stdin,
                                cwd=ROOT)
    child = Child(proc, out, err)
    pattern = re.compile(ready)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = pattern.search(out.read_text(errors="replace"))
        if found:
            child.address = found.group(1) if pattern.groups else ""
            return child
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}:\n{child.tail()}")
        time.sleep(0.02)
    child.stop()
    raise RuntimeError(f"{name} did not get ready in {timeout} s:\n{child.tail()}")


async def serve_until_signalled(server: Any, greeting: str) -> None:
    """Announce a started bare server (the ``ready`` line :func:`spawn` waits for), then serve
    until SIGTERM or SIGINT; ``server`` is a started ``grpc.aio.Server``."""
    print(greeting, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(0.5)


def _server_command() -> list[str]:
    """The ``bezique-server`` console script of this interpreter's environment."""
    script = Path(sys.executable).with_name("bezique-server")
    return [str(script)] if script.exists() else [sys.executable, "-m", "bezique.service.main"]


def server_argv(*args: str) -> list[str]:
    """This engine's server for a benchmark: its load is one address opening thousands of
    connections (a channel per seat), so the per-port connection cap (#26) is lifted."""
    return [*_server_command(), "--address", "127.0.0.1:0", "--log-level", "warning",
            "--log-format", "json", "--bot-delay", "0",
            *server_flag("--max-connections", "1000000"), *args]


_HELP_TEXT: list[str] = []


def server_flag(flag: str, value: str) -> list[str]:
    """``[flag, value]`` if this server has the flag (flags come and go), else ``[]``."""
    if not _HELP_TEXT:
        done = subprocess.run([*_server_command(), "--help"], capture_output=True, text=True,
                              cwd=ROOT, timeout=60, check=False)
        _HELP_TEXT.append(done.stdout)
    return [flag, value] if flag in _HELP_TEXT[0] else []


def spawn_server(workdir: Path, *args: str, name: str = "server") -> Child:
    return spawn(server_argv(*args), workdir, name,
                 ready=r"listening on (\S+:\d+)")


def python_module_argv(module: str, *args: str) -> list[str]:
    return [sys.executable, "-m", module, *args]


def timed_in_scratch(bench: Callable[[Path], Section]) -> Section:
    """Run a benchmark with a scratch folder, and time the whole section."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bezique-bench-") as tmp:
        section = bench(Path(tmp))
    section.seconds = time.perf_counter() - started
    return section


def run_in_scratch(bench: Callable[[Path], Coroutine[Any, Any, Section]]) -> Section:
    """:func:`timed_in_scratch` for an async benchmark."""
    return timed_in_scratch(lambda tmp: asyncio.run(bench(tmp)))
