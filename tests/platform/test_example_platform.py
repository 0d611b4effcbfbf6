"""The example platform (examples/platform) against a real server: killed in the middle of
booking results and started again, it books every table exactly once."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bezique.clients.sdk import AsyncTableClient
from bezique.v1 import table_service_pb2 as pb
from tests.conftest import ROOT, ServerProcess, spawn_server

KEY = "platform-key-0123456789abcdef"
TABLES = 8


def platform(address: str, ledger: Path, delay: float) -> subprocess.Popen[str]:
    path = os.pathsep.join([str(ROOT / "examples" / "platform"),
                            os.environ.get("PYTHONPATH", "")])
    return subprocess.Popen(
        [sys.executable, "-m", "bezique_platform", "--server", address, "--api-key", KEY,
         "--ledger", str(ledger), "--tables", str(TABLES), "--option", "deals=3",
         "--option", "starting_stack=200", "--apply-delay", str(delay)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": path}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)


def booked(ledger: Path) -> int:
    if not ledger.exists():
        return 0
    db = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT count(*) FROM applied").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0
    finally:
        db.close()


async def feed(address: str, count: int) -> list[pb.TableResult]:
    found: list[pb.TableResult] = []
    async with AsyncTableClient(address, api_key=KEY) as client:
        async for result in client.watch_results(0):
            found.append(result)
            if len(found) == count:
                return found
    raise AssertionError("the feed ended")


def test_the_platform_books_every_result_once_across_a_kill(
        tmp_path: Path, server_process_factory: list[ServerProcess]) -> None:
    server = spawn_server("--store", f"sqlite:{tmp_path / 'engine.sqlite'}", "--api-key", KEY)
    server_process_factory.append(server)
    ledger = tmp_path / "platform.sqlite"
    first = platform(server.address, ledger, delay=0.4)
    deadline = time.monotonic() + 120
    while booked(ledger) < 2:
        assert first.poll() is None, first.communicate()
        assert time.monotonic() < deadline, "the platform booked nothing"
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)  # mid-stream: results arrive faster than it books them
    first.wait(timeout=10)
    before = booked(ledger)
    assert 2 <= before < TABLES
    second = platform(server.address, ledger, delay=0.0)
    out, err = second.communicate(timeout=180)
    assert second.returncode == 0, err
    assert f'"booked": {TABLES}' in out

    results = asyncio.run(feed(server.address, TABLES))
    db = sqlite3.connect(ledger)
    ours = {row[0] for row in db.execute("SELECT table_id FROM tables")}
    assert {r.table_id for r in results} == ours  # the server ended no other table
    applied = dict(db.execute("SELECT table_id, cursor FROM applied").fetchall())
    assert applied == {r.table_id: r.cursor for r in results}
    assert db.execute("SELECT cursor FROM feed").fetchone()[0] == max(applied.values())
    seated = {(t, int(s)): p for t, s, p in db.execute(
        "SELECT t.table_id, json_extract(s.value, '$.seat'), json_extract(s.value, "
        "'$.player_id') FROM tables t, json_each(t.seats) s")}
    expected: dict[str, int] = {}
    games: dict[str, int] = {}
    for result in results:
        for seat in result.seats:
            player = seated[(result.table_id, seat.seat)]
            expected[player] = expected.get(player, 0) + seat.chip_change
            games[player] = games.get(player, 0) + 1
    wallets = dict(db.execute("SELECT player_id, chips FROM wallets").fetchall())
    assert wallets == expected and sum(wallets.values()) == 0
    ratings = {p: g for p, g in db.execute("SELECT player_id, games FROM ratings")}
    assert ratings == games
    db.close()
