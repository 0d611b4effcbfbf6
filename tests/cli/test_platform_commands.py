"""The platform's CLI commands against a real server subprocess with an API key and a token
TTL: `bezique join --player-id`, and `bezique reissue`, whose new token works and whose old
one is refused; `bezique abort` and `bezique results` (from a cursor, and --follow)."""

from __future__ import annotations

import itertools
import json
import queue
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from bezique.clients.sdk import TableClient
from tests.cli.helpers import BIN, Run, clean_env, field, no_traceback
from tests.helpers import ROOT, ServerProcess, spawn_server
from tests.service.helpers import public_pem


@pytest.fixture
def keyed() -> Iterator[ServerProcess]:
    process = spawn_server("--store", "memory:", "--api-key", "k", "--seat-token-ttl", "600")
    yield process
    process.kill()


def test_join_binds_a_player_and_reissue_replaces_the_token(run: Run,
                                                             keyed: ServerProcess) -> None:
    at = keyed.address
    created = run("--api-key", "k", "create", "highcard", address=at)
    assert created.code == 0, created.err
    table = field(created, "table")
    joined = run("--api-key", "k", "join", table, "--name", "ann", "--player-id", "acct-3",
                 address=at)
    assert joined.code == 0, joined.err
    old = field(joined, "token")
    assert re.search(r"^token expires: \d{4}-\d\d-\d\dT", joined.out, re.MULTILINE)
    refused = run("join", table, "--player-id", "acct-4", address=at)  # no API key
    assert refused.code == 1 and "UNAUTHENTICATED" in refused.err
    no_traceback(refused)
    reissued = run("--api-key", "k", "reissue", table, "0", address=at)
    assert reissued.code == 0, reissued.err
    new = field(reissued, "token")
    assert new != old and f"export BEZIQUE_TOKEN={new}" in reissued.out
    assert run("--token", new, "view", table, address=at).code == 0
    stale = run("--token", old, "view", table, address=at)
    assert stale.code == 1 and "replaced" in stale.err
    no_traceback(stale)


@pytest.fixture
def feed_server() -> Iterator[ServerProcess]:
    process = spawn_server("--store", "memory:", "--api-key", "k", "--bot-delay", "0")
    yield process
    process.kill()


def finished_by_bots(run: Run, at: str) -> str:
    """A highcard table two bots play to its end; its id, once the end is in."""
    created = run("--api-key", "k", "create", "highcard", "-o", "hand_size=1", "--bot",
                  "0=random", "--bot", "1=random", address=at)
    assert created.code == 0, created.err
    table = field(created, "table")
    deadline = time.monotonic() + 20
    while "over" not in run("view", table, address=at).out:
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.05)
    return table


def test_abort_and_results_print_the_feed_from_a_cursor(run: Run,
                                                        feed_server: ServerProcess) -> None:
    at = feed_server.address
    played = finished_by_bots(run, at)
    created = run("--api-key", "k", "create", "highcard", address=at)
    stopped = field(created, "table")
    assert run("--api-key", "k", "join", stopped, "--name", "ann", "--player-id", "acct-1",
               address=at).code == 0
    aborted = run("--api-key", "k", "abort", stopped, "--note", "ticket 9", address=at)
    assert aborted.code == 0, aborted.err
    assert re.fullmatch(rf"aborted table {stopped} at version \d+\n", aborted.out)
    again = run("--api-key", "k", "abort", stopped, address=at)
    assert again.code == 1 and "FAILED_PRECONDITION" in again.err
    no_traceback(again)
    history = run("history", stopped, address=at)
    assert "ticket 9" in history.out

    listed = run("--api-key", "k", "results", address=at)
    assert listed.code == 0, listed.err
    lines = listed.out.splitlines()
    assert len(lines) == 3, listed.out
    assert re.match(rf"cursor (\d+)  table {played}  highcard v1  .+  winners \d", lines[0])
    assert f"table {stopped}  highcard v1  aborted  winners none  0=acct-1 (ann) score 0" \
        in lines[1]
    first, second = (int(re.findall(r"cursor (\d+)", line)[0]) for line in lines[:2])
    assert first < second and lines[2] == f"resume with: bezique results --from-cursor {second}"
    after = run("--api-key", "k", "results", "--from-cursor", str(first), "--json",
                address=at)
    assert after.code == 0, after.err
    (only,) = after.out.splitlines()
    result = json.loads(only)
    assert (result["tableId"], result["reason"], result["cursor"]) == (stopped, "aborted",
                                                                        str(second))
    assert result["seats"][0]["playerId"] == "acct-1"

    for argv in (("results",), ("abort", played)):
        refused = run(*argv, address=at)  # no API key
        assert refused.code == 1 and "UNAUTHENTICATED" in refused.err, refused.err
        no_traceback(refused)


def test_results_follow_prints_each_table_as_it_ends(run: Run,
                                                     feed_server: ServerProcess) -> None:
    at = feed_server.address
    follower = subprocess.Popen(
        [str(BIN / "bezique"), "--server", at, "results", "--follow"], cwd=ROOT,
        env=clean_env(BEZIQUE_API_KEY="k", COLUMNS="200"), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert follower.stdout is not None
        for line in follower.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    try:
        time.sleep(0.5)  # the stream is open, with nothing in the feed yet
        assert follower.poll() is None and lines.empty()
        for _ in range(2):
            table = finished_by_bots(run, at)
            assert f"table {table}  highcard v1" in lines.get(timeout=20)
        time.sleep(0.3)
        assert follower.poll() is None and lines.empty()  # it waits for the next table
    finally:
        follower.terminate()
        follower.wait(timeout=10)


def test_the_sync_sdk_aborts_and_follows_the_feed(run: Run, feed_server: ServerProcess) -> None:
    at = feed_server.address
    played = finished_by_bots(run, at)
    with TableClient(at, api_key="k", retries=0) as platform:
        table = platform.create_table("highcard", {"players": 2})
        platform.join(table.table_id, name="ann", player_id="acct-2")
        version = platform.abort(table.table_id, note="by the sync client")
        assert platform.history(table.table_id).entries[-1].version == version
        found = []
        for result in platform.watch_results(0):
            found.append(result)
            if len(found) == 2:
                break  # leaving the loop cancels the call
        assert [r.table_id for r in found] == [played, table.table_id]
        assert found[1].reason == "aborted" and found[1].seats[0].player_id == "acct-2"
        (rest,) = itertools.islice(platform.watch_results(found[0].cursor), 1)
        assert rest.cursor == found[1].cursor


def test_create_open_seats_opens_a_grant_servers_table(run: Run, tmp_path: Path) -> None:
    """On a server with a grant key, `bezique create` makes a table only grants and the API
    key may join; `--open-seats` makes one anybody may."""
    pem = public_pem(ed25519.Ed25519PrivateKey.generate(), tmp_path)
    server = spawn_server("--store", "memory:", "--api-key", "k", "--grant-public-key", pem)
    try:
        at = server.address
        tables = [field(run("--api-key", "k", "create", "highcard", *extra, address=at),
                        "table") for extra in ((), ("--open-seats",))]
        refused = run("join", tables[0], address=at)
        assert refused.code == 1 and "UNAUTHENTICATED" in refused.err and "grant" in refused.err
        no_traceback(refused)
        assert run("join", tables[1], address=at).code == 0
    finally:
        server.kill()


def test_create_says_how_seats_are_taken_at_a_table_the_platform_seats(
        run: Run, tmp_path: Path, keyed: ServerProcess) -> None:
    """`bezique create` points at `bezique join` only where a bare join works: a grant-only
    table (grant server) and a buy-in table (any server with an API key) take joins only with
    a grant or the API key, and the CLI says so (CreateTableResponse.platform_joins)."""
    platform_hint = "(joins need a join grant or the platform API key)"
    pem = public_pem(ed25519.Ed25519PrivateKey.generate(), tmp_path)
    granting = spawn_server("--store", "memory:", "--api-key", "k", "--grant-public-key", pem)
    try:
        for at, variant, extra, platform in (
                (granting.address, "highcard", (), True),
                (granting.address, "highcard", ("--open-seats",), False),
                (keyed.address, "quart-bezique", (), True),
                (keyed.address, "highcard", (), False)):
            created = run("--api-key", "k", "create", variant, *extra, address=at)
            assert created.code == 0, created.err
            table = field(created, "table")
            free = next(line for line in created.out.splitlines()
                        if line.startswith("free seats:"))
            if platform:
                assert free.endswith(platform_hint) and "bezique join" not in free, free
            else:
                assert free.endswith(f"(join with: bezique join {table})"), free
    finally:
        granting.kill()
