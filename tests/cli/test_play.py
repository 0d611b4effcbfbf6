"""``bezique play`` in a pseudo-terminal: whole games, chosen by number at the prompt."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable

import pexpect
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.v1 import table_service_pb2 as pb
from tests.cli.helpers import (
    AMOUNT,
    ANSI,
    BIN,
    PROMPT,
    Run,
    clean_env,
    default_interrupt,
    require_variant,
)
from tests.helpers import ROOT


def spawn(*argv: str) -> pexpect.spawn:
    return pexpect.spawn(str(BIN / "bezique"), list(argv), cwd=str(ROOT), encoding="utf-8",
                         timeout=30, dimensions=(50, 120),
                         env=clean_env(TERM="xterm-256color"), preexec_fn=default_interrupt)


def play_to_the_end(child: pexpect.spawn, seed: int = 7, limit: int = 400,
                    answer: Callable[[pexpect.spawn], str | None] = lambda child: None
                    ) -> tuple[int, str]:
    """Answer every prompt until the game ends (``answer``'s key, else a random legal
    number); the number of moves made and everything the terminal showed."""
    rng = random.Random(seed)
    moves = 0
    shown: list[str] = []
    while True:
        found = child.expect([PROMPT, r"Game over", AMOUNT])
        shown.append(child.before)
        if found == 1:
            break
        if found == 2:  # a move with a range of amounts: any amount in it
            child.sendline(str(rng.randint(int(child.match.group(2)), int(child.match.group(3)))))
            continue
        moves += 1
        assert moves <= limit, "the game does not end"
        key = answer(child)
        child.sendline(str(rng.randint(1, int(child.match.group(1)))) if key is None else key)
    child.expect(pexpect.EOF)
    shown.append(child.before)
    child.close()
    assert child.exitstatus == 0, child.before
    return moves, ANSI.sub("", "".join(shown))


def test_play_highcard_against_a_server(server: str) -> None:
    child = spawn("--server", server, "play", "highcard", "-o", "hand_size=5")
    moves, screen = play_to_the_end(child)
    assert moves == 5
    assert "Your hand:" in screen and "Seat 1 (highest bot)" in screen
    assert re.search(r"[♠♥♦♣]", screen)
    # the player's seat committed to its entropy and revealed it before the deal
    table = re.search(r"Table ([0-9a-f]{16}) ·", screen)
    assert table is not None, screen
    history = asyncio.run(history_of(server, table.group(1)))
    kinds = [(e.entry_kind, e.seat if e.HasField("seat") else None) for e in history.entries]
    assert kinds[:5] == [("created", None), ("joined", 1), ("joined", 0), ("revealed", 0),
                         ("started", None)]
    assert len(history.entries[2].entropy_commitment) == 32


async def history_of(address: str, table_id: str) -> pb.GetHistoryResponse:
    async with AsyncTableClient(address) as client:
        return await client.history(table_id)


def test_play_highcard_on_an_embedded_server() -> None:
    child = spawn("play", "highcard", "-o", "players=3", "--bot-policy", "random",
                  "--bot-delay", "0")
    moves, screen = play_to_the_end(child)
    assert moves == 3
    assert "Seat 2 (random bot)" in screen


def test_bad_input_is_refused_and_q_quits(server: str) -> None:
    child = spawn("--server", server, "play", "highcard")
    child.expect(PROMPT)
    count = child.match.group(1)
    for answer in ("x", "0", str(int(count) + 1)):
        child.sendline(answer)
        child.expect(rf"'{answer}' is not a move: type a number from 1 to {count}, h for help, "
                     "or q")
        child.expect(PROMPT)
    child.sendline("q")
    child.expect(r"You left table \w+")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_play_names_an_unknown_variant_or_policy(run: Run) -> None:
    unknown = run("play", "nosuch")
    assert unknown.code == 2 and "no variant 'nosuch'" in unknown.err
    policy = run("play", "highcard", "--bot-policy", "psychic")
    assert policy.code == 2 and "no bot policy 'psychic'" in policy.err


def test_play_a_whole_bezique_deal(server: str) -> None:
    require_variant(server, "bezique-2p", "variants/bezique")
    child = spawn("--server", server, "play", "bezique-2p", "-o", "target=10",
                  "-o", "claims=false")
    moves, screen = play_to_the_end(child)
    assert moves >= 16  # at least the player's 16 cards of the deal
    assert "The deal ends" in screen and "Trump card" in screen and "Melds of" in screen


def test_play_a_whole_quart_bezique_deal(server: str) -> None:
    require_variant(server, "quart-bezique", "variants/quart")
    child = spawn("--server", server, "play", "quart-bezique", "-o", "deals=1")
    _, screen = play_to_the_end(child)  # no move is due if every bot folds first
    assert "The table ends" in screen and "Stack" in screen


@pytest.mark.parametrize("answer", ["", "  ", "1.5"])
def test_blank_or_odd_answers_reprompt(server: str, answer: str) -> None:
    child = spawn("--server", server, "play", "highcard", "-o", "hand_size=1")
    child.expect(PROMPT)
    child.sendline(answer)
    child.expect("is not a move")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect("Game over")
    child.expect(pexpect.EOF)


def test_ctrl_c_at_the_prompt_stops_at_once() -> None:
    child = spawn("play", "highcard", "--bot-delay", "0")
    child.expect(PROMPT)
    child.sendintr()
    child.expect("interrupted")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130


def test_end_of_input_leaves_the_table(server: str) -> None:
    child = spawn("--server", server, "play", "highcard")
    child.expect(PROMPT)
    child.sendeof()
    child.expect("You left table")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_pass_is_one_key_when_it_is_legal(server: str) -> None:
    """Bezique asks every trick winner to declare (``declare_prompt=always``): Enter or ``p``
    passes whenever ``pass`` is legal, and the board says so next to the move."""
    require_variant(server, "bezique-2p", "variants/bezique")
    child = spawn("--server", server, "play", "bezique-2p", "-o", "target=10",
                  "-o", "claims=false")
    keys = ["", "p", "P", "pass"]
    passed = 0

    def pass_when_legal(child: pexpect.spawn) -> str | None:
        nonlocal passed
        if not child.match.group(2):
            return None
        assert re.search(r"\d+\. pass\s+\(p or Enter\)", ANSI.sub("", child.before))
        passed += 1
        return keys[(passed - 1) % len(keys)]

    _, screen = play_to_the_end(child, seed=3, answer=pass_when_legal)
    assert passed >= 3, "seat 0 won no trick in a whole deal"
    assert "is not a move" not in screen
    assert screen.count("· Seat 0 (you) passes") == passed  # the feed, not the board


def test_without_a_pass_enter_and_p_are_not_moves(server: str) -> None:
    child = spawn("--server", server, "play", "highcard", "-o", "hand_size=1")
    child.expect(PROMPT)
    assert child.match.group(2) is None
    for answer in ("", "p"):
        child.sendline(answer)
        child.expect("is not a move")
        child.expect(PROMPT)
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_a_quart_raise_takes_any_amount_typed_in_range(server: str) -> None:
    """The raise is one numbered move; the amount is asked next, re-asked when out of range,
    and ``b`` goes back to the moves."""
    require_variant(server, "quart-bezique", "variants/quart")
    attempts = 20
    for _ in range(attempts):  # the bots may fold or the lot may leave no raise to us: again
        child = spawn("--server", server, "play", "quart-bezique", "-o", "deals=1",
                      "-o", "players=2")
        if child.expect([PROMPT, "Game over"]) == 1:
            child.expect(pexpect.EOF)
            continue
        moves = ANSI.sub("", child.before)
        found = re.search(r"(\d+)\. raise to any amount from (\d+) to (\d+)", moves)
        if found is None:
            child.sendline("q")
            child.expect(pexpect.EOF)
            continue
        number, low, high = (int(g) for g in found.groups())
        child.sendline(str(number))
        child.expect(AMOUNT)
        assert (int(child.match.group(2)), int(child.match.group(3))) == (low, high)
        child.sendline("b")  # back: the moves are offered again
        child.expect(PROMPT)
        child.sendline(str(number))
        child.expect(AMOUNT)
        child.sendline(str(high + 1))
        child.expect(f"'{high + 1}' is not an amount you may choose: type a whole number "
                     f"from {low} to {high}")
        child.expect(AMOUNT)
        chosen = low + 7 if low + 7 <= high else high
        child.sendline(str(chosen))
        child.expect(rf"raises, putting in {chosen}\b")
        child.sendline("q")
        child.close(force=True)
        return
    raise AssertionError(f"no raise was offered in {attempts} games")
