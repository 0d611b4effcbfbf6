"""The example platform (examples/platform) against a real server that takes its join grants:
its players' own clients join with the grants (no API key), buy in, and play; killed in the
middle of booking results and started again, it reissues its players' seat tokens and books
every table exactly once. Tables that end before any deal (a player who never came, one who
never revealed) are booked with the buy-ins given back and no rating change."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import grpc

from bezique.clients.sdk import AsyncTableClient
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import ROOT, ServerProcess, details, spawn_server

KEY = "platform-key-0123456789abcdef"
TABLES = 8
BUY_IN = 150
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "examples" / "platform"),
                                                    os.environ.get("PYTHONPATH", "")])}


def platform_keys(home: Path) -> str:
    """``bezique_platform keys``: the platform makes its key pair; the public key's path."""
    made = subprocess.run([sys.executable, "-m", "bezique_platform", "keys", "--home",
                           str(home)], cwd=ROOT, env=ENV, capture_output=True, text=True,
                          timeout=60, check=True)
    return made.stdout.strip()


def platform(address: str, home: Path, *arguments: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bezique_platform", "run", "--server", address, "--api-key",
         KEY, "--home", str(home), *arguments], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
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


async def histories(address: str, tables: set[str]) -> dict[str, pb.GetHistoryResponse]:
    async with AsyncTableClient(address) as client:
        return {table: await client.history(table) for table in tables}


async def playing(address: str, ledger: Path) -> bool:
    """Whether a table of the platform is in play (every seat taken, the seats' entropy
    revealed, not ended). A table killed in its reveal round ends when the round times out
    (the secrets died with the players): that is not the table this test interrupts."""
    db = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True)
    try:
        tables = [row[0] for row in db.execute("SELECT table_id FROM tables")]
    except sqlite3.OperationalError:  # locked by a write the platform was stopped in
        return False
    finally:
        db.close()
    async with AsyncTableClient(address) as client:
        for table in tables:
            view = await client.view(table)
            if (not view.HasField("outcome") and all(s.occupied for s in view.seats)
                    and view.phase != "reveal"):
                return True
    return False


def in_play(history: pb.GetHistoryResponse) -> bool:
    """Whether a table's log shows it started (both seats joined and revealed) and not over."""
    kinds = [entry.entry_kind for entry in history.entries]
    return not history.finished and "started" in kinds and kinds.count("joined") == 2


def grant_server(tmp_path: Path, home: Path, *extra: str) -> ServerProcess:
    return spawn_server("--store", f"sqlite:{tmp_path / 'engine.sqlite'}", "--api-key", KEY,
                        "--grant-public-key", platform_keys(home), *extra)


def test_the_platform_books_every_result_once_across_a_kill(
        tmp_path: Path, server_process_factory: list[ServerProcess]) -> None:
    home = tmp_path / "platform"
    server = grant_server(tmp_path, home, "--reveal-seconds", "5")
    server_process_factory.append(server)
    assert oct((home / "grant-key.pem").stat().st_mode & 0o777) == "0o600"
    ledger = home / "ledger.sqlite"
    arguments = ("--tables", str(TABLES), "--option", "deals=3", "--option",
                 "starting_stack=200", "--buy-in", str(BUY_IN))
    first = platform(server.address, home, *arguments, "--apply-delay", "0.4", "--think",
                     "0.05")
    deadline = time.monotonic() + 120
    while True:
        assert first.poll() is None, first.communicate()
        assert time.monotonic() < deadline, "the platform booked nothing"
        if booked(ledger) >= 2:
            # frozen, its players make no move between the look and the kill: a table found
            # in play is still in play when they die (a Quart match can end on any move)
            first.send_signal(signal.SIGSTOP)
            try:
                if asyncio.run(playing(server.address, ledger)):
                    break
            except BaseException:
                first.kill()  # not left stopped behind a failed test
                raise
            first.send_signal(signal.SIGCONT)
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)  # mid-stream, and mid-game at the table in play
    first.wait(timeout=10)
    before = booked(ledger)
    assert 2 <= before < TABLES
    db = sqlite3.connect(ledger)
    ours = {row[0] for row in db.execute("SELECT table_id FROM tables")}
    db.close()
    logs = asyncio.run(histories(server.address, ours))
    interrupted = {t for t, h in logs.items() if in_play(h)}
    assert interrupted
    second = platform(server.address, home, *arguments)
    out, err = second.communicate(timeout=180)
    assert second.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    assert report["booked"] == TABLES

    results = asyncio.run(feed(server.address, TABLES))
    db = sqlite3.connect(ledger)
    assert {r.table_id for r in results} == ours  # the server ended no other table
    applied = dict(db.execute("SELECT table_id, cursor FROM applied").fetchall())
    assert applied == {r.table_id: r.cursor for r in results}
    assert db.execute("SELECT cursor FROM feed").fetchone()[0] == max(applied.values())
    seated = {(t, int(s)): p for t, s, p in db.execute(
        "SELECT t.table_id, json_extract(s.value, '$.seat'), json_extract(s.value, "
        "'$.player_id') FROM tables t, json_each(t.seats) s")}
    assert "token" not in db.execute("SELECT seats FROM tables").fetchone()[0]
    expected: dict[str, int] = {}
    games: dict[str, int] = {}
    for result in results:
        for seat in result.seats:
            player = seated[(result.table_id, seat.seat)]
            assert seat.player_id == player  # bound by the grant the player joined with
            expected[player] = expected.get(player, 0) + seat.chip_change
            if result.outcome.winners:
                games[player] = games.get(player, 0) + 1
    wallets = dict(db.execute("SELECT player_id, chips FROM wallets").fetchall())
    assert wallets == expected and sum(wallets.values()) == 0
    ratings = {p: g for p, g in db.execute("SELECT player_id, games FROM ratings")}
    assert ratings == games
    db.close()

    logs = asyncio.run(histories(server.address, ours))
    for history in logs.values():
        joined = [e for e in history.entries if e.entry_kind == "joined"]
        assert [e.binding.buy_in for e in joined] == [BUY_IN, BUY_IN]  # the grant's buy-in
    # the players' devices were new after the restart: at the table the kill interrupted,
    # the platform reissued their tokens, and they played on with the new ones
    for table in interrupted:
        kinds = [e.entry_kind for e in logs[table].entries]
        assert kinds.count("token_reissued") == 2, kinds
        assert kinds.index("token_reissued") < len(kinds) - 1


def test_tables_that_end_before_any_deal_give_the_buy_ins_back(
        tmp_path: Path, server_process_factory: list[ServerProcess]) -> None:
    """A player who never joins (the platform aborts the table) and one who never reveals
    (the reveal round times out): both tables reach the feed with their seats, their reason
    and no chip change, and the platform books them as void: buy-ins back, no rating."""
    from bezique.clients.verify import verify_history

    home = tmp_path / "platform"
    server = grant_server(tmp_path, home, "--reveal-seconds", "3", "--clock-interval", "0.1")
    server_process_factory.append(server)
    run = platform(server.address, home, "--tables", "3", "--players",
                   "ann,bob,cid,dan,eve,fay", "--withhold", "dan", "--no-show", "fay",
                   "--fill-seconds", "1", "--option", "deals=1", "--option",
                   "starting_stack=200", "--buy-in", str(BUY_IN))
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    results = {r.reason: r for r in asyncio.run(feed(server.address, 3))}
    played = next(r for reason, r in results.items()
                  if reason not in ("reveal_timeout", "aborted"))
    timed_out, aborted = results["reveal_timeout"], results["aborted"]
    assert report["booked"] == 3
    assert report["void"] == {timed_out.table_id: "reveal_timeout",
                              aborted.table_id: "aborted"}
    assert report["flags"] == {"dan": [timed_out.table_id]}  # withheld its entropy

    # what the feed says of a table that never dealt: who sat, why it ended, no chips moved
    assert [(s.seat, s.player_id, s.display_name) for s in timed_out.seats] == [
        (0, "cid", "cid"), (1, "dan", "dan")]
    assert not timed_out.outcome.winners and not any(s.score for s in timed_out.seats)
    assert timed_out.outcome.detail["withheld"] == [1]
    assert [(s.seat, s.player_id) for s in aborted.seats] == [(0, "eve"), (1, "")]
    assert not aborted.outcome.winners and list(aborted.outcome.scores) == []
    for result in (timed_out, aborted):
        assert result.outcome.reason == result.reason
        assert not any(s.HasField("chip_change") for s in result.seats)
        assert hashlib.sha256(result.revealed_seed).hexdigest() == result.seed_commitment
    assert all(s.HasField("chip_change") for s in played.seats)
    assert sum(s.chip_change for s in played.seats) == 0

    # the platform's books: the void tables' buy-ins came back, only the game played counts
    changes = {s.player_id: s.chip_change for s in played.seats}
    assert report["wallets"] == {"ann": changes["ann"], "bob": changes["bob"], "cid": 0,
                                 "dan": 0, "eve": 0, "fay": 0}
    assert {p: g for p, (_, g) in report["ratings"].items()} == {"ann": 1, "bob": 1}
    logs = asyncio.run(histories(server.address, {timed_out.table_id, aborted.table_id}))
    assert logs[aborted.table_id].entries[-1].note == "seats not taken in time"
    assert verify_history(logs[aborted.table_id]).aborted
    assert verify_history(logs[timed_out.table_id]).ended == "reveal_timeout"



async def stranger_joins(address: str, lobby: str) -> list[str]:
    """A client with neither key nor grant: what it gets at the lobby table, and at a table
    of each kind the platform makes for its players (with and without buy-ins)."""
    async with AsyncTableClient(address, api_key=KEY) as platform, \
            AsyncTableClient(address, retries=0) as stranger:
        got = [f"seat {(await stranger.join(lobby)).seat}"]
        for variant, options in (("bezique-2p", {}), ("quart-bezique", {"players": 2})):
            table = await platform.create_table(variant, options)
            try:
                got.append(f"seat {(await stranger.join(table.table_id)).seat}")
            except grpc.aio.AioRpcError as error:
                got.append(str(details(error)["reason"]))
    return got


def test_the_lobby_is_open_and_the_players_tables_take_grants_only(
        tmp_path: Path, server_process_factory: list[ServerProcess]) -> None:
    server = grant_server(tmp_path, tmp_path / "platform")
    server_process_factory.append(server)
    made = subprocess.run([sys.executable, "-m", "bezique_platform", "lobby", "--server",
                           server.address, "--api-key", KEY], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=60, check=True)
    assert asyncio.run(stranger_joins(server.address, made.stdout.strip())) == [
        "seat 0", "GRANT_REQUIRED", "GRANT_REQUIRED"]


def test_the_lobby_takes_the_key_from_the_environment_and_says_a_refusal_in_one_line(
        tmp_path: Path, server_process_factory: list[ServerProcess]) -> None:
    """docs/embedding.md §7's server wants the API key: without it ``lobby`` says so in one
    line (no traceback); with BEZIQUE_API_KEY set, as for the ``bezique`` CLI, it opens."""
    server = spawn_server("--store", "memory:", "--api-key", KEY)
    server_process_factory.append(server)
    lobby = [sys.executable, "-m", "bezique_platform", "lobby", "--server", server.address]
    bare = {key: value for key, value in ENV.items() if key != "BEZIQUE_API_KEY"}
    refused = subprocess.run(lobby, cwd=ROOT, env=bare, capture_output=True, text=True,
                             timeout=60, check=False)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert "UNAUTHENTICATED" in refused.stderr and "BEZIQUE_API_KEY" in refused.stderr
    made = subprocess.run(lobby, cwd=ROOT, env={**bare, "BEZIQUE_API_KEY": KEY},
                          capture_output=True, text=True, timeout=60, check=True)
    assert asyncio.run(stranger_joins(server.address, made.stdout.strip()))[0] == "seat 0"
