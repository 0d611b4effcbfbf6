"""Attacks on this session's changes, read from the code (brief attack3): the one-statement
PostgreSQL append raced by two replicas, and moves the apply guard (BaseGame) must refuse
without changing anything, Quart's betting verdict among them."""

from __future__ import annotations

import asyncio
import pickle
import random
from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import httpx
import pytest

from bezique.service.server import start_server
from bezique.service.store import (
    LogEntry,
    TableRecord,
    TableResult,
    TableState,
    VersionConflict,
)
from bezique.service.store.postgres import CHANNEL, RESULTS_CHANNEL, PostgresStore
from bezique.variants.api import (
    BaseGame,
    Census,
    Event,
    GameOverError,
    IllegalMoveError,
    Move,
    NotYourTurnError,
    Pile,
    match_move,
    resolve_options,
)
from bezique.variants.cards import piquet_shoe
from bezique.variants.chance import SeededChance
from bezique.variants.quart.betting import KINDS
from bezique.variants.quart.game import QuartGame
from tests.helpers import highcard_registry, server_config
from tests.quart.helpers import QUART, TRUMP
from tests.quart.test_betting_rules import _rules_as_written

LIST = "/bezique.v1.TableService/ListTables"

# ---------------------------------------------------------------------------- PostgreSQL


def _record(table_id: str) -> TableRecord:
    return TableRecord(table_id, "highcard", 1, {"players": 2}, b"s" * 32, "c" * 64, 1.0, 0, {})


def _state(version: int, finished: bool = False) -> TableState:
    return TableState(version, "play", 0, finished, [{"name": "a"}], None)


def _entry(version: int, replica: str, request_id: str | None) -> LogEntry:
    return LogEntry(version, "move", 0, {"by": replica}, request_id, float(version))


@pytest.fixture
async def two_replicas(postgres_url: str) -> AsyncIterator[tuple[PostgresStore, PostgresStore]]:
    """Two stores on one database, each with its own pool: two replicas' appends."""
    stores = (PostgresStore(postgres_url, pool_size=2), PostgresStore(postgres_url, pool_size=2))
    for store in stores:
        await store.open()
    yield stores
    for store in stores:
        await store.close()


async def _heard(url: str) -> tuple[asyncpg.Connection, list[tuple[str, str]]]:
    heard: list[tuple[str, str]] = []
    listener = await asyncpg.connect(url)
    for channel in (CHANNEL, RESULTS_CHANNEL):
        await listener.add_listener(channel, lambda _c, _p, ch, payload: heard.append(
            (ch, payload)))
    return listener, heard


async def _until_heard(heard: list[tuple[str, str]], last: tuple[str, str]) -> None:
    async with asyncio.timeout(20):
        while last not in heard:
            await asyncio.sleep(0.02)


async def _raced(store: PostgresStore, name: str, at: int, count: int, round_no: int) -> str:
    """One replica's append of ``count`` entries at version ``at``: won, or lost and told the
    version the table is at."""
    entries = [_entry(at + i + 1, name, f"{name}-{round_no}-{i}") for i in range(count)]
    try:
        await store.append("race", at, entries, _state(at + count))
    except VersionConflict as conflict:
        return f"lost:{conflict.current}"
    return "won"


async def test_racing_appends_commit_one_per_version_and_notify_only_the_winner(
        two_replicas: tuple[PostgresStore, PostgresStore], postgres_url: str) -> None:
    """Both replicas append at the same expected version, 60 times over (one or two entries
    each, distinct request ids): exactly one commits each time, the other is told the version
    the winner reached, the log holds the winner's rows only, once, without a gap, and the
    NOTIFYs are the winners' and nothing else (a loser's statement, refused by the
    compare-and-set, must not reach pg_notify)."""
    listener, heard = await _heard(postgres_url)
    try:
        first, second = two_replicas
        await first.create_table(_record("race"), _state(1), [_entry(1, "a", None)])
        version, expected_log, expected_heard = 1, [(1, "a")], [(CHANNEL, "race:1")]
        rng = random.Random(3)
        for round_no in range(60):
            sizes = {"a": rng.choice((1, 2)), "b": rng.choice((1, 2))}
            answers = await asyncio.gather(
                _raced(first, "a", version, sizes["a"], round_no),
                _raced(second, "b", version, sizes["b"], round_no))
            assert sorted(answers)[1] == "won" and answers.count("won") == 1, answers
            winner = "a" if answers[0] == "won" else "b"
            reached = version + sizes[winner]
            assert sorted(answers)[0] == f"lost:{reached}", (answers, reached)
            expected_log += [(v, winner) for v in range(version + 1, reached + 1)]
            expected_heard.append((CHANNEL, f"race:{reached}"))
            version = reached
        log = await second.read_log("race")
        assert [(e.version, e.payload["by"]) for e in log] == expected_log
        assert len({e.request_id for e in log if e.request_id}) == len(log) - 1
        await _until_heard(heard, expected_heard[-1])
        await asyncio.sleep(0.2)  # a stray late NOTIFY would land here
        assert heard == expected_heard
        loaded = await first.load_table("race")
        assert loaded is not None and loaded[1].version == version
    finally:
        await listener.close()


async def test_racing_ends_store_one_result_each_and_the_cursors_have_no_gap(
        two_replicas: tuple[PostgresStore, PostgresStore], postgres_url: str) -> None:
    """Both replicas end the same table at the same version, for twelve tables: one result
    per table, the loser's statement neither stores a result nor takes a cursor (the counter
    is updated only when the compare-and-set matched), so the feed's cursors are 1..12 and
    each result was announced once."""
    listener, heard = await _heard(postgres_url)
    try:
        first, second = two_replicas
        for number in range(12):
            table_id = f"end{number:02d}"
            await first.create_table(_record(table_id), _state(1), [_entry(1, "a", None)])

            async def end(store: PostgresStore, name: str, table_id: str = table_id) -> str:
                try:
                    await store.append(table_id, 1, [_entry(2, name, name)], _state(2, True),
                                       TableResult(table_id, 2, {"by": name}, 2.0))
                except VersionConflict:
                    return "lost"
                return "won"

            answers = await asyncio.gather(end(first, "a"), end(second, "b"))
            assert sorted(answers) == ["lost", "won"], answers
        results = await second.read_results()
        assert [r.cursor for r in results] == list(range(1, 13))
        assert [r.table_id for r in results] == [f"end{n:02d}" for n in range(12)]
        await _until_heard(heard, (RESULTS_CHANNEL, "12"))
        await asyncio.sleep(0.2)
        assert [p for ch, p in heard if ch == RESULTS_CHANNEL] == [str(n) for n in range(1, 13)]
        for result in results:  # the stored result is the winner's, as its log row is
            [_, last] = await first.read_log(result.table_id)
            assert result.data["by"] == last.payload["by"]
    finally:
        await listener.close()


# ---------------------------------------------------------------------------- the apply guard


def _quart_states() -> Iterator[tuple[QuartGame, bool]]:
    """Quart tables in random play, current and version 1 (the raise ladder), short stacks
    and a raise cap among them: every state, with whether the table offers the ladder."""
    tables = ((QUART, {"players": "3"}, None),
              (QUART, {"players": "2", "starting_stack": "35"}, 1),
              (TRUMP, {"players": "5", "starting_stack": "60", "max_bet": "25"}, None),
              (QUART, {"players": "4", "starting_stack": "80",
                       "multiway_showdown": "false"}, 1))
    for variant, raw, log_version in tables:
        options = resolve_options(variant.options, raw)
        for game_no in range(2):
            game, _ = variant.start(options, SeededChance(bytes([game_no + 90]) * 32),
                                    log_version=log_version)
            assert isinstance(game, QuartGame)
            rng = random.Random(game_no)
            for _ in range(120):
                yield game, log_version is not None
                if not game.to_move:
                    break
                move = rng.choice(game.legal_moves(game.to_move[0]))
                if move.amount_range is not None:
                    move = move.with_amount(rng.randint(move.amount_range.minimum,
                                                        move.amount_range.maximum))
                game.apply(game.to_move[0], move)


_HUGE = 2**63 - 1


def _probes(game: QuartGame, seat: int) -> list[Move]:
    """Hostile moves: every kind and some that are none, with stray cards, labels and
    amounts, and raises at, inside and past both ends of the range, up to int64's ends."""
    betting = game.betting  # None once the table is over: the probes then must all fail
    low = game.rules.min_bet + (betting.level if betting is not None else 0)
    span = (betting.raise_range(seat) if betting is not None else None) or (low, low)
    probes = [Move(kind) for kind in (*KINDS, "check", "call", "FOLD", "raise ")]
    probes += [Move(kind, amount=1) for kind in KINDS if kind != "raise"]
    probes += [Move(kind, (0,)) for kind in KINDS] + [Move(kind, label="x") for kind in KINDS]
    probes += [Move("raise", amount=a) for a in (
        span[0] - 1, span[0], (span[0] + span[1]) // 2, span[1], span[1] + 1, 0, -1, -_HUGE,
        _HUGE)]
    probes.append(Move("raise", (1, 2), span[0]))
    return probes


def _allowed(game: QuartGame, seat: int, move: Move) -> bool:
    """The rules as written (tests/quart/test_betting_rules.py states them apart from the
    code), on one move: only the seat to act, no cards or label, an amount on a raise only."""
    betting = game.betting
    if game.outcome() is not None or betting is None or betting.turn != seat:
        return False
    if move.cards or move.label or (move.amount and move.kind != "raise"):
        return False
    bet, show, span, allin = _rules_as_written(betting, seat)
    return {"fold": True, "bet": bet, "show": show, "allin": allin,
            "raise": span is not None and span[0] <= move.amount <= span[1]
            }.get(move.kind, False)


def test_the_guard_takes_only_what_the_rules_allow_and_a_refusal_changes_nothing() -> None:
    """Every seat (not only the one to act) tries every hostile move on every state: what the
    rules allow is made, anything else is refused with the game exactly as it was (its pickled
    state and every view), and a move taken though not offered is only a raise in range."""
    made = refused = off_ladder = 0
    for game, ladder in _quart_states():
        before = pickle.dumps(game)
        views = [game.view(v) for v in (None, *range(game.seats))]
        offered = {seat: game.legal_moves(seat) for seat in range(game.seats)}
        for seat in range(game.seats):
            for move in _probes(game, seat):
                table = pickle.loads(before)
                allowed = _allowed(table, seat, move)
                try:
                    table.apply(seat, move)
                except (IllegalMoveError, NotYourTurnError, GameOverError):
                    assert not allowed, (seat, move, "refused though the rules allow it")
                    assert pickle.dumps(table) == before, (seat, move, "a refusal changed it")
                    assert [table.view(v) for v in (None, *range(game.seats))] == views
                    refused += 1
                    continue
                assert allowed, (seat, move, "made though the rules forbid it")
                made += 1
                if move not in offered[seat] and match_move(move, offered[seat]) is None:
                    assert move.kind == "raise", move
                    assert ladder, (move, "off the offer on a table without a ladder")
                    off_ladder += 1
        assert pickle.dumps(game) == before  # the probes worked on copies
    assert refused > 5000 and made > 500 and off_ladder > 50, (refused, made, off_ladder)


# ---------------------------------------------------------------------------- the derived view


class _LooseCensus(BaseGame):
    """A plugin that hands its census its own lists (plain Python, no mypy): the table's cards,
    the scores and a detail dict are the game's live objects. Seat 0 and 1 each play their
    one card face up, in turn."""

    shoe = piquet_shoe(1)
    phase = "play"

    def __init__(self) -> None:
        self.hands = [[7], [12]]
        self.table: list[int] = []
        self.scores = [0, 0]
        self.detail: dict[str, object] = {"played": 0}

    @property
    def to_move(self) -> tuple[int, ...]:
        return (len(self.table),) if len(self.table) < 2 else ()

    def legal_moves(self, seat: int) -> tuple[Move, ...]:
        return tuple(Move("play", (c,)) for c in self.hands[seat] if seat in self.to_move)

    def apply_legal(self, seat: int, move: Move) -> tuple[Event, ...]:
        self.table += self.hands[seat]
        self.hands[seat].clear()
        self.scores[seat] += 1
        self.detail["played"] = len(self.table)
        return (Event("play", seat, move.cards),)

    def census(self) -> Census:
        loose: Any = (self.table, self.scores, self.detail)  # what an untyped plugin writes
        return Census((Pile.hand(0, self.hands[0]), Pile.hand(1, self.hands[1]),
                       Pile("table", loose[0])), scores=loose[1], detail=loose[2])


def test_a_derived_view_is_the_state_when_it_was_taken_not_a_later_one() -> None:
    """A watch update's view is rendered after the entry was published, in the stream's
    task, possibly while the next move's draft has already changed the game and waits for its
    commit. A view derived from a census that passed the game's own lists showed that later,
    uncommitted state (the card just played, the new score) when rendered: Census.view_for must
    take the state as it is when the view is made."""
    game = _LooseCensus()
    before = {viewer: game.view(viewer) for viewer in (None, 0, 1)}
    shown = {viewer: repr(view) for viewer, view in before.items()}
    game.apply(0, Move("play", (7,)))
    assert {viewer: repr(view) for viewer, view in before.items()} == shown
    assert before[None].card_ids() == set() and before[1].card_ids() == {12}
    after = game.view(1)
    assert after.card_ids() == {7, 12} and after.scores == (1, 0)
    assert dict(after.detail) == {"played": 1} and dict(before[1].detail) == {"played": 0}


# ---------------------------------------------------------------------------- Host names


@pytest.mark.parametrize("address", ["127.1:0", "2130706433:0", "[::ffff:127.0.0.1]:0"])
async def test_a_loopback_port_named_otherwise_still_refuses_a_rebound_name(address: str
                                                                            ) -> None:
    """The HTTP port answers to any Host unless it listens on loopback; whether it does was
    read from the text of --http-address, so a loopback address written another way (127.1,
    a decimal address, an IPv4-mapped one, or a name /etc/hosts maps to 127.0.0.1) counted
    as public and a DNS-rebound page could call it. The socket it is bound to decides."""
    server = await start_server(server_config(http_address=address), highcard_registry())
    try:
        assert server.http is not None
        port = server.http.port
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            for host, status in ((f"evil.example:{port}", 421), (f"127.0.0.1:{port}", 200),
                                 (f"localhost:{port}", 200)):
                answer = await http.post(LIST, content=b"{}", headers={
                    "host": host, "content-type": "application/json"})
                assert answer.status_code == status, (address, host, answer.status_code)
    finally:
        await server.stop()
