"""Every subcommand against a real server subprocess: its success path and a clear error."""

from __future__ import annotations

import asyncio
import re
import subprocess

import pytest

from tests.cli.helpers import BIN, Run, clean_env, field, finish, no_traceback


def new_highcard(run: Run, *extra: str) -> tuple[str, str]:
    """A 2-seat highcard table with the 'highest' bot in seat 1, joined at seat 0."""
    created = run("create", "highcard", "--bot", "1=highest", *extra)
    assert created.code == 0, created.err
    table = field(created, "table")
    joined = run("join", table, "--name", "alice")
    assert joined.code == 0, joined.err
    token = field(joined, "token")
    assert f"export BEZIQUE_TOKEN={token}" in joined.out
    assert field(joined, "seat") == "0"
    return table, token


def test_variants_lists_options_defaults_ranges_and_bots(run: Run) -> None:
    result = run("variants")
    assert result.code == 0
    assert "highcard" in result.out and "High card" in result.out
    assert "hand_size=3" in result.out and "(1..8)" in result.out
    assert "bot policies: random, highest" in result.out


def test_create_prints_id_and_commitment(run: Run) -> None:
    result = run("create", "highcard", "-o", "players=3", "-o", "hand_size=2",
                 "--bot", "1=random", "--turn-seconds", "30")
    assert result.code == 0, result.err
    assert re.fullmatch(r"[0-9a-f]{64}", field(result, "seed commitment"))
    assert "free seats: 2" in result.out


def test_create_with_a_bad_option_names_it(run: Run) -> None:
    result = run("create", "highcard", "-o", "hand_size=99")
    assert result.code == 1
    assert "hand_size" in result.err and "INVALID_ARGUMENT" in result.err
    no_traceback(result)
    malformed = run("create", "highcard", "-o", "hand_size")
    assert malformed.code == 2 and "NAME=VALUE" in malformed.err


def test_tables_filters_by_variant_and_open(run: Run) -> None:
    created = run("create", "highcard", "--bot", "1=random")
    table = field(created, "table")
    listed = run("tables", "--variant", "highcard", "--open")
    assert listed.code == 0 and table in listed.out
    run("join", table)
    assert table not in run("tables", "--open").out
    assert table not in run("tables", "--variant", "bezique-2p").out


def test_view_numbers_legal_moves_and_move_by_index(run: Run) -> None:
    table, token = new_highcard(run)
    view = run("view", table, f"--token={token}")
    assert view.code == 0
    moves = re.findall(r"^\W*(\d+)\. play (\S+)", view.out, re.MULTILINE)
    assert [number for number, _ in moves] == ["1", "2", "3"]
    assert "Your hand:" in view.out and "To move: Seat 0 (you)" in view.out
    spectator = run("view", table)
    assert spectator.code == 0 and "Your legal moves" not in spectator.out
    moved = run("move", table, "1", f"--token={token}")
    assert moved.code == 0, moved.err
    assert f"play {moves[0][1]}" in moved.out
    assert re.search(r"move accepted at version \d+", moved.out)


def test_move_by_kind_and_card_code(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    table, token = new_highcard(run)
    monkeypatch.setenv("BEZIQUE_TOKEN", token)  # the token from the environment
    view = run("view", table)
    card = re.findall(r"^\W*\d+\. play (\S+)", view.out, re.MULTILINE)[-1]
    code = card.replace("10", "T").replace("♠", "S").replace("♥", "H").replace(
        "♦", "D").replace("♣", "C")
    moved = run("move", table, "--kind", "play", "--card", code)
    assert moved.code == 0, moved.err
    assert f"plays {card}" in moved.out


def test_move_errors_are_clear(run: Run) -> None:
    table, token = new_highcard(run)
    no_token = run("move", table, "1")
    assert no_token.code == 2 and "BEZIQUE_TOKEN" in no_token.err
    out_of_range = run("move", table, "9", f"--token={token}")
    assert out_of_range.code == 2 and "no legal move 9" in out_of_range.err
    both = run("move", table, "1", "--kind", "play", f"--token={token}")
    assert both.code == 2
    illegal = run("move", table, "--kind", "pass", f"--token={token}")
    assert illegal.code == 1
    assert "FAILED_PRECONDITION" in illegal.err and "legal moves now: play" in illegal.err
    wrong_token = run("move", table, "1", "--token", "not-a-token")
    assert wrong_token.code == 1 and "PERMISSION_DENIED" in wrong_token.err
    for result in (no_token, out_of_range, both, illegal, wrong_token):
        no_traceback(result)


@pytest.mark.parametrize("command", ["view", "watch", "history", "verify", "join", "move"])
def test_unknown_table_is_named(run: Run, command: str) -> None:
    extra = ["1", "--token", "x"] if command == "move" else []
    result = run(command, "nosuchtable", *extra)
    assert result.code == 1
    assert "nosuchtable" in result.err and "NOT_FOUND" in result.err
    no_traceback(result)


def test_unreachable_server_says_so(run: Run) -> None:
    result = run("tables", address="127.0.0.1:1")
    assert result.code == 1
    assert "cannot reach a bezique server at 127.0.0.1:1" in result.err
    no_traceback(result)


def test_server_from_environment(run: Run, server: str, monkeypatch: pytest.MonkeyPatch
                                 ) -> None:
    monkeypatch.setenv("BEZIQUE_SERVER", server)
    result = run("variants", address=None)
    assert result.code == 0 and "highcard" in result.out


def test_watch_history_replay_verify_of_a_finished_game(run: Run, server: str) -> None:
    table, token = new_highcard(run)
    unfinished = run("verify", table)
    assert unfinished.code == 2 and "has not finished" in unfinished.err
    asyncio.run(finish(server, table, token))
    watched = run("watch", table, f"--token={token}")
    assert watched.code == 0
    # the join took the last seat and revealed the seat's committed entropy (v4) at once
    assert re.search(r"^v4\s+revealed", watched.out, re.MULTILINE)
    assert re.search(r"^v5\s+started", watched.out, re.MULTILINE)
    assert "Game over" in watched.out
    tail = run("watch", table, "--from", "9")
    assert tail.code == 0 and "v5 " not in tail.out and "Game over" in tail.out
    history = run("history", table)
    assert history.code == 0
    lines = [line for line in history.out.splitlines() if re.match(r"v\d+ ", line)]
    assert [line.split()[1] for line in lines[:5]] == ["created", "joined", "joined",
                                                        "revealed", "started"]
    assert len(lines) == 11  # 5 set-up entries and 6 moves of a 3-card game
    replay = run("history", table, "--replay")
    assert replay.code == 0
    assert len(re.findall(r"Round \d: ", replay.out)) == 3
    assert "Seat 0 (alice) sits down" in replay.out and "Game over" in replay.out
    verified = run("verify", table)
    assert verified.code == 0, verified.out + verified.err
    assert "verified: 1 deal, 6 moves" in verified.out


def test_history_of_an_unfinished_game_hides_other_hands(run: Run) -> None:
    table, token = new_highcard(run)
    mine = run("history", table, f"--token={token}")
    assert mine.code == 0 and "[3 hidden]" in mine.out
    replay = run("history", table, "--replay")
    assert "still going" in replay.out


def test_the_console_script_exits_with_the_code(server: str) -> None:
    done = subprocess.run([str(BIN / "bezique"), "view", "nosuchtable"], capture_output=True,
                          text=True, timeout=30, env=clean_env(BEZIQUE_SERVER=server))
    assert done.returncode == 1
    assert "no table 'nosuchtable'" in done.stderr and "Traceback" not in done.stderr
    listed = subprocess.run([str(BIN / "bezique"), "--server", server, "variants"],
                            capture_output=True, text=True, timeout=30, env=clean_env())
    assert listed.returncode == 0 and "highcard" in listed.stdout


def test_move_by_index_takes_any_amount_in_the_offered_range(run: Run) -> None:
    """A Quart raise is one numbered move offered with a range; ``--amount`` picks the level,
    and one outside the range is refused before the call, naming the range; by kind, the
    server refuses it and names the range."""
    created = run("create", "quart-bezique", "--option", "players=2", "--first-dealer", "1")
    assert created.code == 0, created.err
    table = field(created, "table")
    first = run("join", table, "--seat", "0")
    token = field(first, "token")
    proof = re.search(r"export BEZIQUE_PROOF=(\S+)", first.out)
    assert proof is not None, first.out
    run("join", table, "--seat", "1")  # the last seat: its join reveals its own entropy
    view = run("view", table, f"--token={token}", "--proof", proof.group(1))  # reveals seat 0
    found = re.search(r"(\d+)\. raise to any amount from 10 to 990", view.out)
    assert found, view.out
    number = found.group(1)
    outside = run("move", table, number, "--amount", "991", f"--token={token}")
    assert outside.code == 2 and "raise takes an amount of 10 to 990, not 991" in outside.err
    by_kind = run("move", table, "--kind", "raise", "--amount", "5", f"--token={token}")
    assert by_kind.code == 1 and "amount 5 is outside the offered range 10..990" in by_kind.err
    moved = run("move", table, number, "--amount", "37", f"--token={token}")
    assert moved.code == 0, moved.err
    assert "raises, putting in 37" in moved.out and "level: 37" in moved.out
    for result in (outside, by_kind, moved):
        no_traceback(result)


def test_rematch_of_a_finished_game_is_one_table_for_everyone(run: Run, server: str) -> None:
    table, token = new_highcard(run, "-o", "hand_size=1")
    early = run("rematch", table)
    assert early.code != 0 and "FAILED_PRECONDITION" in early.err
    asyncio.run(finish(server, table, token))
    again = run("rematch", table)
    assert again.code == 0, again.err
    new = field(again, "table")
    assert new != table and f"bezique join {new}" in again.out
    assert "another player asked first" not in again.out
    # the other player asks too: the same table, said so
    second = run("rematch", table)
    assert second.code == 0 and field(second, "table") == new
    assert "another player asked first" in second.out
    # its settings are the finished table's: highcard, the bot at seat 1
    joined = run("join", new, "--name", "alice")
    assert joined.code == 0 and field(joined, "seat") == "0"
    shown = run("view", new, f"--token={field(joined, 'token')}")
    assert shown.code == 0 and "High card" in shown.out and "highest bot" in shown.out
