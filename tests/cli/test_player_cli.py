"""The terminal game and the command line as a new player meets them (issue 30): the end
screen within 24 rows, ``move --wait``, ``play --bot`` read as ``create --bot``, a target
without a port, the HTTP port named, ``--version``, 80-column listings, one address variable
for the server and the CLI, passing for the player, and Russian. Each runs the ``bezique``
program in a pseudo-terminal."""

from __future__ import annotations

import asyncio
import io
import random
import re
import socket
import subprocess
import threading
import time
from collections.abc import Iterator

import pexpect
import pytest
from rich.console import Console

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.v1 import table_service_pb2 as pb
from tests.cli.helpers import AMOUNT, ANSI, BIN, PROMPT, clean_env, default_interrupt
from tests.helpers import ROOT


def spawn(*argv: str, rows: int = 50, columns: int = 120, **env: str) -> pexpect.spawn:
    """``bezique argv`` in a terminal, in English unless ``env`` sets a locale variable."""
    base = {k: v for k, v in clean_env(TERM="xterm-256color").items()
            if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    return pexpect.spawn(str(BIN / "bezique"), list(argv), cwd=str(ROOT), encoding="utf-8",
                         timeout=30, dimensions=(rows, columns),
                         env={**base, "LANG": "C.UTF-8", **env}, preexec_fn=default_interrupt)


def output(*argv: str, rows: int = 50, columns: int = 120, **env: str) -> tuple[int, str]:
    """Run ``bezique`` to its end: its exit status and what the terminal showed."""
    child = spawn(*argv, rows=rows, columns=columns, **env)
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, ANSI.sub("", child.before).replace("\r\n", "\n")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def env_server() -> Iterator[tuple[str, str]]:
    """A server given its addresses by environment only: BEZIQUE_SERVER (the name the CLI
    reads) and BEZIQUE_HTTP_ADDRESS. Yields (gRPC address, HTTP address)."""
    grpc_address = f"127.0.0.1:{free_port()}"
    http_address = f"127.0.0.1:{free_port()}"
    process = subprocess.Popen(
        [str(BIN / "bezique-server"), "--store", "memory:", "--bot-delay", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=clean_env(BEZIQUE_SERVER=grpc_address, BEZIQUE_HTTP_ADDRESS=http_address,
                      BEZIQUE_LOG_FORMAT="json"))
    assert process.stdout is not None
    line = process.stdout.readline()
    try:
        assert f"listening on {grpc_address}" in line, line
        yield grpc_address, http_address
    finally:
        process.kill()
        process.wait(timeout=10)


# ------------------------------------------------------------------------------- the CLI


def test_version() -> None:
    code, shown = output("--version")
    assert code == 0
    assert re.fullmatch(r"bezique \d+\.\d+\.\d+\S*\n", shown), shown


def test_one_variable_names_the_server_for_both(env_server: tuple[str, str]) -> None:
    grpc_address, _ = env_server
    code, shown = output("variants", BEZIQUE_SERVER=grpc_address)
    assert code == 0 and "highcard" in shown, shown
    # the old name of the server's variable still works for the CLI too (deprecated)
    code, shown = output("variants", BEZIQUE_ADDRESS=grpc_address)
    assert code == 0 and "highcard" in shown, shown


def test_the_http_port_is_named(env_server: tuple[str, str]) -> None:
    _, http_address = env_server
    code, shown = output("--server", http_address, "variants")
    assert code == 1
    assert f"{http_address} is the HTTP port (Connect/gRPC-Web" in shown, shown
    assert "the gRPC port is the server's --address" in shown
    assert "HTTP/2" not in shown


def test_a_target_without_a_port_gets_the_default_port() -> None:
    # whatever listens (or not) on 50051 here, the CLI says which address it tried
    _, shown = output("--server", "localhost", "tables")
    assert "no port given: using localhost:50051 (the server's default port)" in shown, shown
    assert ":443" not in shown


def test_listings_fit_80_columns(server: str) -> None:
    async def create() -> None:
        async with AsyncTableClient(server) as client:
            for _ in range(2):
                await client.create_table("quart-bezique", {"players": "3"},
                                          bots={1: "heuristic", 2: "random"})

    asyncio.run(create())
    for command in ("tables", "variants"):
        code, shown = output("--server", server, command, columns=80, COLUMNS="80")
        assert code == 0, shown
        lines = shown.splitlines()
        assert max(len(line.rstrip()) for line in lines) <= 80, shown
        if command == "tables":
            header = next(line for line in lines if line.startswith("table "))
            assert header.split() == ["table", "variant", "phase", "version", "seats", "free",
                                      "clock"], header
            # a row starts with its whole id and ends with its free seats and its clock
            assert re.search(r"^[0-9a-f]{16} quart-bezique waiting +\d+ .* 1 +-$", shown,
                             re.MULTILINE), shown
        else:
            # a wrapped option description stays under itself, never at the left edge
            assert all(line.startswith(("  ", "\n")) or not line or re.match(r"^[a-z]", line)
                       for line in lines), shown
            assert not any(re.match(r"^[A-Z(]", line) for line in lines), shown


async def two_seats(address: str) -> tuple[str, dict[int, str]]:
    """A highcard table of two people: its id and each seat's token (commit-reveal done)."""
    async with AsyncTableClient(address) as client:
        created = await client.create_table("highcard", {"hand_size": "3"})
        tokens = {}
        for seat in (0, 1):
            handle = await client.join(created.table_id, seat, f"p{seat}")
            tokens[seat] = handle.token
        for seat in (0, 1):  # the views reveal each seat's entropy
            await client.view(created.table_id, tokens[seat])
        return created.table_id, tokens


def seat_to_move(address: str, table: str, tokens: dict[int, str]) -> int:
    async def ask() -> int:
        async with AsyncTableClient(address) as client:
            view = await client.view(table, tokens[0])
            return int(view.to_move[0])

    return asyncio.run(ask())


def test_move_wait_waits_for_the_turn(server: str) -> None:
    table, tokens = asyncio.run(two_seats(server))
    mover = seat_to_move(server, table, tokens)
    waiter = 1 - mover
    token = tokens[waiter]
    # without --wait: not your turn, and how to wait for it
    code, shown = output("--server", server, "move", table, "1", "--token", token)
    assert code == 2
    assert "it is not your turn" in shown and "move --wait SECONDS" in shown, shown
    # a wait that runs out says so
    code, shown = output("--server", server, "move", table, "1", "--token", token,
                         "--wait", "0.5")
    assert code == 1 and "your turn did not come within 0.5 s" in shown, shown
    # the other player moves a moment later: the waiting move goes through then

    def other_moves() -> None:
        time.sleep(1.0)

        async def move() -> None:
            async with AsyncTableClient(server) as client:
                view = await client.view(table, tokens[mover])
                await client.submit(SeatHandle(table, mover, tokens[mover]),
                                    view.legal_moves[0], view.version)

        asyncio.run(move())

    helper = threading.Thread(target=other_moves)
    helper.start()
    started = time.monotonic()
    code, shown = output("--server", server, "move", table, "1", "--token", token,
                         "--wait", "20")
    helper.join()
    assert code == 0, shown
    assert "move accepted at version" in shown
    assert time.monotonic() - started >= 0.9  # it waited for the other seat


def test_verify_counts_in_words() -> None:
    from bezique.clients import i18n

    try:
        i18n.set_language("en")
        assert [i18n.count(n, "deal", "deals") for n in (1, 2)] == ["1 deal", "2 deals"]
        i18n.set_language("ru")
        assert [i18n.count(n, "deal", "deals") for n in (1, 2, 5, 11, 21, 22, 112)] == [
            "1 сдача", "2 сдачи", "5 сдач", "11 сдач", "21 сдача", "22 сдачи", "112 сдач"]
    finally:
        i18n.set_language("en")


def test_catalogue_keeps_its_placeholders() -> None:
    from string import Formatter

    from bezique.clients.i18n import RU

    def names(text: str) -> set[str]:
        return {name for _, name, _, _ in Formatter().parse(text) if name}

    assert all(names(english) == names(russian) for english, russian in RU.items()), [
        english for english, russian in RU.items() if names(english) != names(russian)]


# ------------------------------------------------------------------------------- the game


def play_through(child: pexpect.spawn, seed: int = 5, limit: int = 400) -> str:
    """Answer every prompt with a random legal number until the game ends; what was shown."""
    rng = random.Random(seed)
    shown: list[str] = []
    for _ in range(limit):
        found = child.expect([PROMPT, r"Game over|Игра окончена", AMOUNT])
        shown.append(child.before)
        if found == 1:
            shown.append(str(child.after))
            child.expect(pexpect.EOF)
            shown.append(child.before)
            child.close()
            assert child.exitstatus == 0, child.before
            return ANSI.sub("", "".join(shown)).replace("\r\n", "\n")
        if found == 2:
            child.sendline("")
            continue
        child.sendline(str(rng.randint(1, int(child.match.group(1)))))
    raise AssertionError("the game does not end")


def test_quart_end_screen_fits_24_rows(server: str) -> None:
    child = spawn("--server", server, "play", "quart-bezique", "-o", "players=4",
                  "-o", "deals=2", rows=24, columns=80)
    shown = play_through(child)
    lines = shown.splitlines()
    top = max(n for n, line in enumerate(lines) if line.startswith("╭─ quart-bezique"))
    end = lines[top:]
    end = end[: max(n for n, line in enumerate(end) if line.startswith("╰")) + 1]
    assert len(end) <= 23, "\n".join(end)  # and the shell's prompt after it
    board = "\n".join(end)
    assert "Game over" in board
    assert "Deal result" in board and "The table ends" in board  # the last deal's result


def test_play_bot_reads_like_create_bot(server: str) -> None:
    child = spawn("--server", server, "play", "highcard", "--bot", "random")
    child.expect(r"against 1 bot \(random\)")
    child.expect(r"bots on offer: random, highest")
    child.expect(PROMPT)
    child.sendline("q")
    child.expect(pexpect.EOF)
    child = spawn("--server", server, "play", "highcard", "-o", "players=3",
                  "--bot", "1=random", "--bot", "highest")
    child.expect(r"against 1 bot \(random\), 1 bot \(highest\)")
    child.expect(PROMPT)
    child.sendline("q")
    child.expect(pexpect.EOF)
    code, shown = output("--server", server, "play", "highcard", "--bot", "nobody")
    assert code == 2 and "highcard has no bot policy 'nobody' (it has: random, highest)" \
        in shown, shown
    code, shown = output("--server", server, "create", "highcard", "--bot", "1=nobody")
    assert code == 2 and "(it has: random, highest)" in shown, shown


def test_auto_pass_passes_when_there_is_nothing_to_declare(server: str) -> None:
    # a target no one reaches: the bot never claims, so the match goes on until the player
    # wins a trick with nothing to declare (with a target of 10 the bot claimed as phase 2
    # opened, and a player who had won no such trick by then saw the game end)
    child = spawn("--server", server, "play", "bezique-2p", "-o", "target=100000",
                  "-o", "declare_prompt=always", "--auto-pass")
    rng = random.Random(2)
    for _ in range(200):
        found = child.expect([PROMPT, r"Passed for you: nothing to declare\.",
                              r"Claim now\? \(y/N\): "])
        if found == 1:
            break
        if found == 2:  # a random pick of the claim (legal all through phase 2): not now
            child.sendline("n")
            continue
        # never asked to choose when pass is the only declaration left
        board = ANSI.sub("", child.before)
        kinds = re.findall(r"^\W*\d+\. (\w+)", board, re.MULTILINE)
        assert kinds != ["pass"], board
        child.sendline(str(rng.randint(1, int(child.match.group(1)))))
    else:
        raise AssertionError("no pass was made for the player")
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_russian_from_lang_and_the_switch(server: str) -> None:
    child = spawn("--server", server, "play", "highcard", LANG="ru_RU.UTF-8")
    child.expect("Ваши карты: ")
    child.expect(r"Ваш ход \(1-\d+, h — помощь, q — выход\): ")
    child.sendline("x")
    child.expect("«x» — не ход")
    child.sendline("q")
    child.expect("Вы ушли из-за стола")
    child.expect(pexpect.EOF)
    # --lang wins over the locale, both ways
    child = spawn("--server", server, "--lang", "en", "play", "highcard", LC_ALL="ru_RU.UTF-8")
    child.expect(PROMPT)
    child.sendline("q")
    child.expect(pexpect.EOF)
    # the game's own words come from the variant's Russian vocabulary (ListVariants)
    child = spawn("--server", server, "--lang", "ru", "play", "bezique-2p", rows=24, columns=80)
    child.expect(r"Стол [0-9a-f]{16} · Безик вдвоём")
    child.expect(r"Ваш ход \(1-\d+")
    child.sendline("q")
    child.expect(pexpect.EOF)
    code, shown = output("--server", server, "--lang", "ru", "variants")
    assert code == 0 and "Кварт-Безик" in shown and "боты: random, heuristic" in shown, shown
    code, shown = output("--server", server, "--lang", "ru", "move", "abc", "1")
    assert code == 2 and "этой команде нужен токен места" in shown, shown
    code, shown = output("--server", server, "tables", LC_MESSAGES="ru_RU.UTF-8")
    assert code == 0 and re.search(r"^стол +игра +фаза", shown, re.MULTILINE), shown


def test_help_is_in_russian_too() -> None:
    import argparse

    from bezique.clients import cli, i18n

    code, shown = output("--lang", "ru", "play", "--help", columns=200)
    assert code == 0
    assert "сыграть целую партию с ботами в этом терминале" in shown, shown
    assert "--auto-pass" in shown and "пасовать за вас" in shown

    def helps(parser: argparse.ArgumentParser) -> Iterator[str]:
        yield from [parser.description or ""]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                yield from (str(choice.help) for choice in action._choices_actions)
                for command in action.choices.values():
                    yield from helps(command)
            elif action.help and action.help != argparse.SUPPRESS:
                yield action.help

    i18n.set_language("en")
    missing = {text for text in helps(cli.build_parser()) if text and text not in i18n.RU}
    assert not missing, missing


RUSSIAN_SEED = "72752d7265706c61792d7365656430303030"
"""A seed whose random bots play their one Quart deal out."""


def test_watch_and_the_replay_speak_russian(server: str) -> None:
    """The watch lines' kinds, the replay's sentences and Quart's deals-played end in Russian
    (the server's reason stays "1 deals played"; the words come from the vocabulary's key)."""
    # seeded, so the two bots play one fixed deal: unseeded, about one match in 70 ends with
    # a seat busted ("fewer than two seats can pay the ante"), not with "1 deals played"
    code, shown = output("--server", server, "create", "quart-bezique", "--bot", "0=random",
                         "--bot", "1=random", "-o", "players=2", "-o", "deals=1",
                         "--test-seed", RUSSIAN_SEED)
    assert code == 0, shown
    table = re.search(r"table: ([0-9a-f]+)", shown)
    assert table is not None, shown
    code, watched = output("--server", server, "--lang", "ru", "watch", table.group(1),
                           columns=200)
    assert code == 0, watched
    assert re.search(r"^v1 +создан", watched, re.MULTILINE), watched
    assert re.search(r"^v2 +сел +Место 0", watched, re.MULTILINE), watched
    assert "после последней сдачи (сыграно сдач: 1)" in watched, watched
    code, told = output("--server", server, "--lang", "ru", "history", table.group(1),
                        "--replay", columns=200)
    assert code == 0, told
    for said in ("Стол " + table.group(1) + ": Кварт-Безик", "садится за стол",
                 "Игра начинается", "── Сдача 1 ── сдаёт: Место", "Сдача 1 окончена",
                 "Игра окончена · фишки:", "(сыграно сдач: 1)"):
        assert said in told, (said, told)
    english = re.compile(r"sits down|The game|Deal \d|dealer:|deals played|winners:")
    assert not english.search(told) and not english.search(watched), told + watched
    code, told = output("--server", server, "history", table.group(1), "--replay",
                        columns=200)
    assert "── Deal 1 ── dealer: Seat" in told and "(deals played: 1)" in told, told


def test_a_bot_seat_is_named_in_the_readers_language() -> None:
    """The server labels a bot seat "heuristic bot"; a Russian reader sees "бот heuristic",
    while a name a person chose stays as given."""
    from bezique.clients import i18n
    from bezique.clients.render import seat_names, tables_table

    seats = [pb.SeatState(seat=0, occupied=True, display_name="ann"),
             pb.SeatState(seat=1, occupied=True, display_name="heuristic bot",
                          bot_policy="heuristic"),
             pb.SeatState(seat=2, occupied=True, display_name="random bot")]
    summary = pb.TableSummary(table_id="t1", variant_id="highcard", seats=seats)
    try:
        i18n.set_language("ru")
        assert seat_names(seats, 0) == {0: "Место 0 (вы)", 1: "Место 1 (бот heuristic)",
                                        2: "Место 2 (random bot)"}
        out = io.StringIO()
        Console(file=out, width=80).print(tables_table([summary]))
        assert "бот heuristic" in out.getvalue() and "heuristic bot" not in out.getvalue()
        i18n.set_language("en")
        assert seat_names(seats)[1] == "Seat 1 (heuristic bot)"
    finally:
        i18n.set_language("en")


def test_verify_says_who_contributed_in_russian_for_one_seat_or_several() -> None:
    """"место 0 внесли" (a plural verb for one seat) is no Russian: the sentence names the
    seats apart from its verb, right for one seat and for several."""
    from bezique.clients import cli, i18n

    try:
        i18n.set_language("ru")
        for seats in ([0], [0, 1]):
            for english in ("fair against the operator: {seats} contributed entropy by "
                            "commit-reveal (each fixed before any was revealed; every reveal "
                            "matches its commitment)",
                            "{seats} contributed entropy in the clear (public from their join)"):
                said = i18n.t(english, seats=cli._seats(seats))
                assert said.startswith(("честно", "мест")) and "внесли" not in said, said
                assert "энтропия внесена" in said
    finally:
        i18n.set_language("en")
