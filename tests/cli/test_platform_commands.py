"""The platform's CLI commands against a real server subprocess with an API key and a token
TTL: `bezique join --player-id`, and `bezique reissue`, whose new token works and whose old
one is refused."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.cli.conftest import Run
from tests.cli.test_commands import field, no_traceback
from tests.conftest import ServerProcess, spawn_server


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
