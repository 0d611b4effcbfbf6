"""The CLI's commit-reveal: `join` keeps the seat's secret entropy in BEZIQUE_PROOF, and `view`
(like `move` and `watch`) reveals it when the table asks; `verify` says how seats contributed."""

from __future__ import annotations

import asyncio
import re

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from tests.cli.helpers import Run, field


async def play_both(address: str, table: str, tokens: list[str]) -> None:
    """Each seat plays its first legal move when due, until the game ends (bounded)."""
    async with AsyncTableClient(address) as client:
        for _ in range(200):
            for token in tokens:
                view = await client.view(table, token)
                if view.HasField("outcome"):
                    return
                if view.legal_moves:
                    await client.submit(SeatHandle(table, view.viewer_seat, token),
                                        view.legal_moves[0], view.version)
    raise AssertionError(f"table {table} did not finish")


def joined(run: Run, table: str, *extra: str) -> tuple[str, str]:
    result = run("join", table, *extra)
    assert result.code == 0, result.err
    proof = re.search(r"export BEZIQUE_PROOF=(\S+)", result.out)
    assert proof is not None, result.out
    return field(result, "token"), proof.group(1)


def test_two_players_of_the_cli_commit_and_reveal(run: Run, server: str) -> None:
    created = run("create", "highcard")
    table = field(created, "table")
    first_token, first_proof = joined(run, table, "--seat", "0")
    waiting = run("view", table, "--token", first_token)
    assert "Waiting for players" in waiting.out
    # the second player's join fills the table; its CLI reveals its own entropy at once
    second_token, second_proof = joined(run, table, "--seat", "1")
    round_ = run("view", table, "--token", first_token)  # without the proof: nothing revealed
    assert round_.code == 0 and " · reveal · " in round_.out
    assert re.search(r"Waiting for .*reveal their committed entropy", round_.out)
    early = run("move", table, "1", "--token", first_token)  # no proof: no reveal, no move
    assert early.code == 2 and "waits for seat(s) 0 to reveal their entropy" in early.err
    started = run("view", table, "--token", first_token, "--proof", first_proof)
    assert started.code == 0 and " · reveal · " not in started.out, started.out
    assert "Waiting" not in started.out
    # the proof to keep now pins every seat's contribution as seen before revealing
    pinned = re.search(r"export BEZIQUE_PROOF=(\S+)", started.out)
    assert pinned is not None and pinned.group(1).startswith(first_proof + ":"), started.out
    # the second player revealed within `join`: its printed proof is pinned already
    assert second_proof.count(":") == 3
    asyncio.run(play_both(server, table, [first_token, second_token]))
    for proof in (first_proof, pinned.group(1), second_proof):
        verified = run("verify", table, "--proof", proof)
        assert verified.code == 0, verified.out + verified.err
        assert "seats 0, 1 contributed entropy by commit-reveal" in verified.out
        assert ("the one you saw before you revealed" in verified.out) == (proof != first_proof)
    # a proof of another table is never sent to this one (its seed commitment differs)
    other = field(run("create", "highcard"), "table")
    other_token, _ = joined(run, other, "--seat", "0")
    joined(run, other, "--seat", "1")
    kept = run("view", other, "--token", other_token, "--proof", first_proof)
    assert kept.code == 0 and " · reveal · " in kept.out, kept.out + kept.err
