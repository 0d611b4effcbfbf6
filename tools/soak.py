"""``make soak``: bot players on many tables across two replicas and one PostgreSQL, with one
replica SIGKILLed and restarted mid-run. Prints moves applied, errors by code and games
finished, then checks that nothing acknowledged is missing and that every log replays to the
state the replicas serve (a fresh third replica rebuilds every table from its log).

    python tools/soak.py --seconds 180 --tables 40 --variant bezique-2p
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from pgcluster import Cluster, scratch_folder  # noqa: E402

from bezique.clients.sdk import AsyncTableClient, SeatHandle  # noqa: E402
from bezique.terms import MOVE_KINDS  # noqa: E402

SERVER = str(Path(sys.executable).with_name("bezique-server"))
RETRY = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED,
         grpc.StatusCode.DEADLINE_EXCEEDED}


class Replica:
    """A bezique-server process on a real port."""

    def __init__(self, store: str) -> None:
        self.store = store
        self.process: subprocess.Popen[str] | None = None
        self.port = 0

    def start(self) -> None:
        port_arg = f"127.0.0.1:{self.port}" if self.port else "127.0.0.1:0"
        self.process = subprocess.Popen(
            [SERVER, "--address", port_arg, "--store", self.store, "--bot-delay", "0",
             "--log-level", "warning"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, env={**os.environ, "BEZIQUE_LOG_FORMAT": "json"})
        assert self.process.stdout is not None
        match = re.search(r":(\d+)$", self.process.stdout.readline().strip())
        if not match:
            raise RuntimeError("replica did not start")
        self.port = int(match.group(1))

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


@dataclass
class Report:
    moves: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    finished: int = 0
    acked: list[tuple[str, int]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        errors = ", ".join(f"{k} {v}" for k, v in sorted(self.errors.items())) or "none"
        return (f"moves applied {self.moves}; games finished {self.finished}; "
                f"errors by code: {errors}")


async def play_one(clients: list[AsyncTableClient], which: int, table_id: str,
                   seats: list[SeatHandle], report: Report, deadline: float,
                   rng: random.Random) -> int:
    """Plays every seat of one table with random legal moves until it ends or time is up;
    fails over to the other replica on UNAVAILABLE. Returns the replica it ended on."""
    while time.monotonic() < deadline:
        client = clients[which]
        try:
            view = await client.view(table_id)
            if view.HasField("outcome"):
                report.finished += 1
                return which
            seat = seats[view.to_move[0]]
            own = await client.view(table_id, seat.token)
            if not own.legal_moves:
                continue
            move = rng.choice(list(own.legal_moves))
            result = await client.submit(seat, move, own.version, uuid.uuid4().hex)
            if not result.duplicate:
                report.moves += 1
            report.acked.append((table_id, result.version))
        except grpc.aio.AioRpcError as error:
            report.errors[error.code().name] += 1
            if error.code() not in RETRY:
                report.problems.append(f"{table_id}: {error.code().name} {error.details()}")
                return which
            if error.code() != grpc.StatusCode.ABORTED:
                which = (which + 1) % len(clients)
                await asyncio.sleep(0.05)
    return which


async def player(clients: list[AsyncTableClient], number: int, variant: str,
                 options: dict[str, str], tables: list[tuple[str, list[SeatHandle]]],
                 report: Report, deadline: float) -> None:
    """Opens table after table (each seat played by this task) until the time is up."""
    rng = random.Random(number)
    which = number % len(clients)
    while time.monotonic() < deadline:
        client = clients[which]
        try:
            table = await client.create_table(variant, options)
            seats = [await client.join(table.table_id) for _ in table.table.seats]
        except grpc.aio.AioRpcError as error:
            report.errors[error.code().name] += 1
            which = (which + 1) % len(clients)
            await asyncio.sleep(0.05)
            continue
        tables.append((table.table_id, seats))
        which = await play_one(clients, which, table.table_id, seats, report, deadline, rng)


async def check(address: str, report: Report, tables: list[tuple[str, list[SeatHandle]]],
                served: dict[str, bytes]) -> None:
    """Nothing acknowledged is missing; a fresh replica's rebuilt views equal the served ones."""
    async with AsyncTableClient(address, retries=5) as client:
        kinds: dict[str, dict[int, str]] = {}
        for table_id, seats in tables:
            history = await client.history(table_id)
            versions = [e.version for e in history.entries]
            if versions != list(range(1, len(versions) + 1)):
                report.problems.append(f"{table_id}: versions have a gap or a duplicate")
            kinds[table_id] = {e.version: e.entry_kind for e in history.entries}
            rebuilt = await client.view(table_id, seats[0].token)
            if rebuilt.SerializeToString(deterministic=True) != served[table_id]:
                report.problems.append(f"{table_id}: the rebuilt view differs")
        for table_id, version in report.acked:
            if kinds[table_id].get(version) not in MOVE_KINDS:
                report.problems.append(f"{table_id}: acknowledged version {version} missing")


async def soak(seconds: float, tables: int, variant: str, options: dict[str, str]) -> Report:
    cluster = Cluster(scratch_folder())
    url = cluster.start()
    replicas = [Replica(url), Replica(url)]
    report = Report()
    try:
        for replica in replicas:
            replica.start()
        clients = [AsyncTableClient(r.address, retries=0, timeout=5) for r in replicas]
        seated: list[tuple[str, list[SeatHandle]]] = []
        deadline = time.monotonic() + seconds
        players = [asyncio.create_task(player(clients, n, variant, options, seated, report,
                                              deadline)) for n in range(tables)]
        await asyncio.sleep(seconds / 3)
        replicas[0].kill()
        print(f"killed replica A at {seconds / 3:.0f} s; {report.line()}", flush=True)
        await asyncio.sleep(1.0)
        replicas[0].start()
        print(f"restarted replica A on port {replicas[0].port}", flush=True)
        await asyncio.gather(*players)
        served = {}
        for table_id, seats in seated:
            view = await clients[1].view(table_id, seats[0].token)
            served[table_id] = view.SerializeToString(deterministic=True)
        for client in clients:
            await client.close()
        fresh = Replica(url)
        fresh.start()
        try:
            await check(fresh.address, report, seated, served)
        finally:
            fresh.stop()
    finally:
        for replica in replicas:
            replica.kill()
        cluster.remove()
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--tables", type=int, default=40, help="tables played at once")
    parser.add_argument("--variant", default="highcard")
    parser.add_argument("-o", "--option", action="append", default=[],
                        help="variant option name=value")
    args = parser.parse_args(argv)
    options = dict(item.split("=", 1) for item in args.option)
    report = asyncio.run(soak(args.seconds, args.tables, args.variant, options))
    print(report.line())
    print(f"acknowledged moves checked: {len(report.acked)}; problems: {len(report.problems)}")
    print(f"every log replayed by a fresh replica: {'yes' if not report.problems else 'NO'}")
    for problem in report.problems[:20]:
        print("  " + problem)
    return 1 if report.problems or not report.moves else 0


if __name__ == "__main__":
    sys.exit(main())
