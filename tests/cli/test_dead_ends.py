"""``bezique play`` without dead ends, each found by playing it as a new user would,
checked in a pseudo-terminal against a real server subprocess."""

from __future__ import annotations

import asyncio
import random
import re

import pexpect
import pytest

from tests.cli.helpers import (
    AMOUNT,
    ANSI,
    BIN,
    PROMPT,
    Run,
    clean_env,
    default_interrupt,
    finish,
    require_variant,
)
from tests.helpers import ROOT

OUT = "You have no chips left: you are out of this game"


def spawn(*argv: str, rows: int = 50, columns: int = 120) -> pexpect.spawn:
    return pexpect.spawn(str(BIN / "bezique"), list(argv), cwd=str(ROOT), encoding="utf-8",
                         timeout=60, dimensions=(rows, columns),
                         env=clean_env(TERM="xterm-256color", COLUMNS=str(columns),
                                       LINES=str(rows)),
                         preexec_fn=default_interrupt)


def said(text: str) -> str:
    """What the terminal showed, as read: no colours, no panel edges, one space between
    words however rich wrapped the lines."""
    return " ".join(ANSI.sub("", text).replace("│", " ").split())


def moves_of(board: str) -> dict[int, str]:
    """The numbered moves on a board: number -> the text after it (compact lines too, and a
    compact line the terminal wrapped onto the next rows)."""
    text = ANSI.sub("", board)
    text = text[text.rfind("Your legal moves:"):]
    found: dict[int, str] = {}
    groups: list[tuple[str, str]] = []  # (kind, its numbered cards) of each compact line
    for line in text.splitlines():
        line = line.strip("│ ")
        compact = re.match(r"(\w[\w ]*):(\s+\d+ .*)", line)
        single = re.match(r"(\d+)\. (.*)", line)
        if compact:
            groups.append((compact.group(1), compact.group(2)))
        elif single:
            found[int(single.group(1))] = single.group(2)
        elif groups and line:
            groups[-1] = (groups[-1][0], f"{groups[-1][1]} {line}")  # wrapped
    for kind, cards in groups:
        for number, card in re.findall(r"(\d+) (\S+(?: \(from your [^)]*\))?)", cards):
            found[int(number)] = f"{kind} {card}"
    return found


def test_a_quart_player_with_no_chips_is_told_and_can_leave() -> None:
    """Folding every hand from a stack of two antes: once the stack is gone the game says so
    (once), Enter goes on watching, and q leaves at once, though it is never his turn again.
    The server runs in the program, its bots slowed down, so the others still play on."""
    # A game can end before the player is out, or with the deal that takes his last chips
    # (the bots bust one another: about 3 games in 5 here): play again. 25 games all ending so
    # is a chance of about 1 in 300,000; 10 (before) failed about once in a hundred.
    for _ in range(25):
        child = spawn("play", "quart-bezique", "--bot-delay", "0.5", "-o", "players=4",
                      "-o", "starting_stack=20", "-o", "ante=10")
        while True:
            found = child.expect([PROMPT, OUT, "Game over"])
            if found != 0:
                break
            moves = moves_of(child.before)
            fold = next(n for n, text in moves.items() if text.startswith("fold"))
            child.sendline(str(fold))
        if found == 2:
            child.expect(pexpect.EOF)
            continue
        child.expect("watch them")
        child.sendline("")  # Enter: keep watching
        # the others play on; or the deal that took his last chips also ended the game
        if child.expect([r"sits the deal out", "Game over"]) == 1:
            child.expect(pexpect.EOF)
            continue
        child.sendline("q")
        # One update can hold a whole deal: his sitting out, the others' antes taking all
        # they have, the showdown, and the end of the game (then the end screen, not the q).
        if child.expect([r"You left table \w+\. Its server ran inside this program",
                         "Game over"], timeout=5) == 1:
            child.expect(pexpect.EOF)
            continue
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
        return
    raise AssertionError("the player was never left without chips in 25 games")


def play_until(child: pexpect.spawn, wanted: str, rng: random.Random, limit: int = 600
               ) -> dict[int, str] | None:
    """Answer prompts with random moves (never ``claim``) until a move whose text starts
    with ``wanted`` is offered; its board's moves, or None if the game ended first."""
    for _ in range(limit):
        found = child.expect([PROMPT, AMOUNT, "Game over"])
        if found == 2:
            return None
        if found == 1:
            child.sendline("")
            continue
        moves = moves_of(child.before)
        if any(text.startswith(wanted) for text in moves.values()):
            return moves
        choices = [n for n, text in moves.items() if not text.startswith("claim")]
        assert choices, ANSI.sub("", child.before)
        child.sendline(str(rng.choice(choices)))
    raise AssertionError(f"no {wanted!r} in {limit} prompts")


def test_claim_is_explained_and_confirmed(server: str) -> None:
    # a target the bot cannot reach, so it never claims first: a claim is offered to the
    # player at its first turn of phase 2 whatever the scores
    child = spawn("--server", server, "play", "bezique-2p", "-o", "target=100000")
    moves = play_until(child, "claim", random.Random(3))
    assert moves is not None, "the deal ended without a claim on offer"
    claim = next(n for n, text in moves.items() if text.startswith("claim"))
    child.sendline(str(claim))
    child.expect(r"Claim now\? \(y/N\): ")
    said = " ".join(ANSI.sub("", child.before).split())  # as read, whatever the wrapping
    assert re.search(r"Claim: claim the match: .* LOSE the match at once\.", said), said
    assert re.search(r"Your score is \d+; the target is \d+\.", said), said
    child.sendline("")  # no: nothing is sent, the moves are offered again
    child.expect("No claim made.")
    child.expect(PROMPT)
    assert claim in moves_of(child.before)
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_quart_lines_read_as_sentences_and_details_stay_in_order(server: str) -> None:
    """No raw dicts or lists, no "antes (+10)", "Table table end" or "Muck Folded:", and
    every event's details in one order."""
    require_variant(server, "quart-bezique", "variants/quart")
    child = spawn("--server", server, "play", "quart-bezique", "-o", "deals=3")
    rng = random.Random(5)
    screen: list[str] = []
    while True:
        found = child.expect([PROMPT, AMOUNT, "Game over"])
        screen.append(child.before)
        if found == 2:
            break
        child.sendline("" if found == 1 else str(rng.choice(list(moves_of(child.before)))))
    child.expect(pexpect.EOF)
    text = ANSI.sub("", "".join(screen) + child.before)
    assert "puts 10 in as the ante" in text and "The table ends" in text
    for wrong in ("antes (+", "Table table end", "Muck Folded", "{", "[[", "=["):
        assert wrong not in text, wrong
    orders = {tuple(re.findall(r"(stack|level|in the pot|all-in): ", line))
              for line in text.splitlines() if "level: " in line and "stack: " in line}
    assert len(orders) == 1, orders  # the same keys in the same order on every line


def test_bezique_moves_in_hand_order_without_twins_and_the_board_fits_24_rows(
        server: str) -> None:
    child = spawn("--server", server, "play", "bezique-2p", rows=24, columns=80)
    rng = random.Random(11)
    boards = 0
    for _ in range(40):
        found = child.expect([PROMPT, "Game over"])
        if found == 1:
            break
        board = ANSI.sub("", child.before)
        start = board.rfind("╭─ bezique")
        assert start >= 0, board
        lines = board[start:].rstrip("\r\n").splitlines()
        assert len(lines) + 1 <= 24, "\n".join(lines)  # the board and the prompt
        boards += 1
        moves = moves_of(board)
        plays = [text.split(" ", 1)[1] for _, text in sorted(moves.items())
                 if text.startswith("play ")]
        assert len(plays) == len(set(plays)), plays  # identical cards once
        hand = re.search(r"Your hand: (.*?)\s*│?\r?\n", board[start:])
        assert hand is not None
        held = list(dict.fromkeys(hand.group(1).split()))
        from_hand = [card for card in plays if card in held]
        assert from_hand == sorted(from_hand, key=held.index)  # in the hand's order
        child.sendline(str(rng.choice([n for n, t in moves.items()
                                       if not t.startswith("claim")])))
    assert boards >= 10
    child.sendline("q")
    child.close(force=True)


def test_help_key_explains_the_keys_and_quart_moves(server: str) -> None:
    require_variant(server, "quart-bezique", "variants/quart")
    for _ in range(20):
        child = spawn("--server", server, "play", "quart-bezique", "-o", "players=2")
        if child.expect([PROMPT, "Game over"]) == 1:
            child.expect(pexpect.EOF)
            continue
        board = child.before
        kinds = {text.split()[0] for text in moves_of(board).values()}
        # beside the moves: what each kind does
        assert "fold — give up this deal" in said(board)
        if "show" in kinds:
            assert "show — match the level; the hands still in are compared" in said(board)
        child.sendline("h")
        child.expect(PROMPT)
        helped = said(child.before)
        assert "Keys: a move's number then Enter plays it" in helped
        assert "fold: give up this deal" in helped and "raise: lift the level" in helped
        assert "asks how much next" in helped
        if "show" not in kinds:  # play on until show is offered, then ask again
            raise_at = next(n for n, t in moves_of(board).items() if t.startswith("raise"))
            child.sendline(str(raise_at))
            child.expect(AMOUNT)
            child.sendline("")
            if child.expect([PROMPT, "Game over"]) == 1:
                child.expect(pexpect.EOF)
                continue
            board = child.before
            kinds = {text.split()[0] for text in moves_of(board).values()}
            if "show" not in kinds:
                child.sendline("q")
                child.expect(pexpect.EOF)
                continue
            assert "show — match the level; the hands still in are compared" in said(board)
            child.sendline("h")
            child.expect(PROMPT)
            assert "show: match the level; the hands still in are compared" in said(child.before)
        child.sendline("q")
        child.expect(pexpect.EOF)
        return
    raise AssertionError("no game offered show in 20 tries")


def test_q_in_embedded_play_says_the_table_is_gone() -> None:
    child = spawn("play", "highcard")
    child.expect(PROMPT)
    child.sendline("q")
    child.expect(r"You left table \w+\. Its server ran inside this program, so the table is "
                 r"gone with it\.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_q_against_a_server_says_what_happens_to_the_table(run: Run, server: str) -> None:
    child = spawn("--server", server, "play", "highcard")
    child.expect(r"Table (\w+) ")
    table = child.match.group(1)
    child.expect(PROMPT)
    child.sendline("q")
    child.expect(r"it stays open on the server, and it waits for your seat's move")
    child.expect(pexpect.EOF)
    # The seat is not lost with the program: its token and proof are printed, and they take
    # the seat's turn with `bezique move`.
    token = re.search(r"export BEZIQUE_TOKEN=(\S+)", child.before)
    proof = re.search(r"export BEZIQUE_PROOF=(\S+)", child.before)
    assert token is not None and proof is not None
    assert proof.group(1).startswith("0:")
    moved = run("move", table, "1", f"--token={token.group(1)}", f"--proof={proof.group(1)}")
    assert moved.code == 0 and "move accepted" in moved.out


def test_no_not_your_turn_after_the_end_or_while_waiting(run: Run, server: str) -> None:
    created = run("create", "highcard", "--option", "hand_size=1")
    table = re.search(r"^table: (\S+)$", created.out, re.MULTILINE)
    assert table is not None
    joined = run("join", table.group(1)).out
    first = re.search(r"^token: (\S+)$", joined, re.MULTILINE)
    proof = re.search(r"export BEZIQUE_PROOF=(\S+)", joined)
    assert first is not None and proof is not None
    waiting = run("move", table.group(1), "1", f"--token={first.group(1)}")
    assert waiting.code == 2 and "the table is waiting for players" in waiting.err
    assert "not your turn" not in waiting.err
    second = re.search(r"^token: (\S+)$", run("join", table.group(1)).out, re.MULTILINE)
    assert second is not None
    # the first seat reveals its committed entropy (the second did within its join)
    run("view", table.group(1), f"--token={first.group(1)}", "--proof", proof.group(1))
    async def both() -> None:
        await asyncio.gather(*(finish(server, table.group(1), token)
                               for token in (first.group(1), second.group(1))))

    asyncio.run(both())
    over = run("move", table.group(1), "1", f"--token={first.group(1)}")
    assert over.code == 2 and "the game is over" in over.err
    assert "not your turn" not in over.err


def test_a_stale_bezique_token_gets_a_hint(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    old = re.search(r"^table: (\S+)$", run("create", "highcard", "--bot", "1=random").out,
                    re.MULTILINE)
    assert old is not None
    token = re.search(r"^token: (\S+)$", run("join", old.group(1)).out, re.MULTILINE)
    assert token is not None
    new = re.search(r"^table: (\S+)$", run("create", "highcard", "--bot", "1=random").out,
                    re.MULTILINE)
    assert new is not None
    monkeypatch.setenv("BEZIQUE_TOKEN", token.group(1))
    for command in ("view", "watch", "history"):
        result = run(command, new.group(1))
        assert result.code == 1, (command, result.out)
        assert "PERMISSION_DENIED" in result.err
        assert "hint: the token comes from BEZIQUE_TOKEN" in result.err, result.err
        assert "unset BEZIQUE_TOKEN" in result.err
