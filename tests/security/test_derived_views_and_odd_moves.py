"""Derived views and odd moves under attack, read from the code: a derived view when a game
changes outside ``apply`` (an operator's abort) and tables played side by side, moves of odd
types Quart's refusal path let through, Quart's offers and public part, and a SIGKILL amid the
WAL resets the sqlite checkpoint thread readies."""

from __future__ import annotations

import asyncio
import os
import pickle
import random
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import start_server
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.api import (
    ABORTED,
    AmountRange,
    BaseGame,
    Census,
    Event,
    IllegalMoveError,
    Move,
    Options,
    OptionSpec,
    Outcome,
    Pile,
    Variant,
)
from bezique.variants.cards import Shoe, piquet_shoe
from bezique.variants.chance import Chance, SeededChance
from bezique.variants.hookspecs import hookimpl
from bezique.variants.host import abort_game, resolve_options
from bezique.variants.quart.game import QuartGame
from bezique.variants.quart.variant import QuartBezique, TrumpQuartBezique
from bezique.variants.registry import load_registry
from bezique_highcard import plugin as highcard_plugin
from tests.helpers import ROOT, ServerProcess, eventually, server_config, spawn_server
from tests.quart.helpers import rules_as_written
from tests.replicas.helpers import Ledger, check_nothing_lost, open_tables, start_players

# ---------------------------------------------------------------------------- abort and view


class _Staked(BaseGame):
    """Two seats stake chips and lay a card face up, in turn; an operator's abort gives the
    stakes back and puts the laid cards back in the box, face down (a plugin's own
    ``abort``, as docs/plugins.md describes)."""

    shoe = piquet_shoe(1)

    def __init__(self) -> None:
        self.hands: list[list[int]] = [[7, 8], [12, 13]]
        self.table: list[int] = []
        self.box: list[int] = []
        self.stacks = [100, 100]
        self.pot = 0
        self.ended = False

    @property
    def phase(self) -> str:
        return "over" if self.ended else "play"

    @property
    def to_move(self) -> tuple[int, ...]:
        return () if self.ended or len(self.table) >= 4 else (len(self.table) % 2,)

    def legal_moves(self, seat: int) -> tuple[Move, ...]:
        if seat not in self.to_move:
            return ()
        return tuple(Move("stake", (card,), 10) for card in self.hands[seat])

    def apply_legal(self, seat: int, move: Move) -> tuple[Event, ...]:
        self.hands[seat].remove(move.cards[0])
        self.table.append(move.cards[0])
        self.stacks[seat] -= move.amount
        self.pot += move.amount
        return (Event("stake", seat, move.cards, move.amount),)

    def abort(self) -> Sequence[Event]:
        self.stacks = [100, 100]
        self.pot = 0
        self.box += self.table
        self.table = []
        self.ended = True
        return (Event("stakes_returned"),)

    def outcome(self) -> Outcome | None:
        if self.ended:
            return Outcome((), tuple(self.stacks), ABORTED)
        return Outcome((), tuple(self.stacks), "all staked") if len(self.table) >= 4 else None

    def default_move(self, seat: int) -> Move:
        return self.legal_moves(seat)[0]

    def census(self) -> Census:
        return Census((Pile.hand(0, self.hands[0]), Pile.hand(1, self.hands[1]),
                       Pile("table", tuple(self.table)), Pile("box", tuple(self.box),
                                                              frozenset())),
                      chips=sum(self.stacks) + self.pot, stacks=tuple(self.stacks),
                      pot=self.pot)


def test_the_views_after_an_abort_are_the_aborted_state_not_the_last_one_viewed() -> None:
    """The service publishes every watcher's view right after an ``aborted`` entry commits.
    BaseGame.view keeps the position last viewed until ``apply``; a plugin's ``abort`` changes
    the game outside ``apply``, so those views showed the table before the abort (the stakes
    still in the pot, the laid cards still face up) though the log says they went back."""
    game = _Staked()
    game.apply(0, Move("stake", (7,), 10))
    game.apply(1, Move("stake", (12,), 10))
    before = game.view(None)  # the watchers' views of the last move, kept by BaseGame.view
    assert before.pot == 20 and before.card_ids() == {7, 12}
    same, events = abort_game(game)
    assert same is game and [event.kind for event in events] == ["stakes_returned"]
    for viewer in (None, 0, 1):
        view = game.view(viewer)
        assert view == game.census().view_for(viewer, "over", ()), viewer
        assert view.pot == 0 and view.stacks == (100, 100) and view.zone("table") is not None
        assert 7 not in view.card_ids() and 12 not in view.card_ids()


class _StakedVariant:
    """The variant of :class:`_Staked`, for a server."""

    id = "staked"
    version = 1
    title = "Staked (test)"
    description = "Stake and lay a card in turn."
    min_seats = max_seats = 2
    options: tuple[OptionSpec, ...] = ()

    def seat_count(self, options: Options) -> int:
        return 2

    def shoe(self, options: Options) -> Shoe:
        return piquet_shoe(1)

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None
              ) -> tuple[_Staked, tuple[Event, ...]]:
        return _Staked(), ()

    def accepts_log_version(self, version: int) -> bool:
        return version == self.version


class _StakedPlugin:
    @hookimpl
    def bezique_variants(self) -> Sequence[Variant]:
        return [_StakedVariant()]


async def test_an_aborted_table_of_a_derived_view_plugin_shows_the_abort_over_the_port() -> None:
    """The same over a real port: a spectator's stream is given the aborted table's view (its
    stakes back, its cards in the box), and so is a later GetView."""
    registry = load_registry(entry_points=False, plugins=[_StakedPlugin()])
    server = await start_server(server_config(api_key="k"), registry)
    try:
        async with AsyncTableClient(server.address, retries=0, api_key="k") as client:
            table = await client.create_table("staked")
            seats = [await client.join(table.table_id, name=name) for name in ("ann", "bob")]
            view = await eventually_view(client, table.table_id, lambda v: bool(v.to_move))
            for seat in seats:
                own = await client.view(table.table_id, seat.token)
                result = await client.submit(seat, own.legal_moves[0], own.version)
            spectator = await client.view(table.table_id)
            assert spectator.pot == 20 and len(_zone_cards(spectator, "table")) == 2
            updates = client.watch(table.table_id, None, result.version, resume=False)
            version = await client.abort_table(table.table_id, note="attack4")
            async with asyncio.timeout(20):
                async for update in updates:
                    if update.HasField("view") and update.view.version == version:
                        view = update.view
                        break
            for seen in (view, await client.view(table.table_id)):
                assert seen.outcome.reason == ABORTED
                assert seen.pot == 0 and [s.stack for s in seen.seats] == [100, 100], seen
                assert _zone_cards(seen, "table") == [], seen
    finally:
        await server.stop()


async def eventually_view(client: AsyncTableClient, table_id: str,
                          ready: Callable[[pb.View], bool]) -> pb.View:
    """The spectator's view once ``ready`` (the reveal round ends as the seats reveal)."""
    async with asyncio.timeout(20):
        while True:
            view = await client.view(table_id)
            if ready(view):
                return view
            await asyncio.sleep(0.02)


def _zone_cards(view: pb.View, name: str) -> list[int]:
    return [card.id for zone in view.zones if zone.name == name for card in zone.cards]


# ---------------------------------------------------------------------------- odd move types


def _quart(variant: QuartBezique, raw: dict[str, str], log_version: int | None,
           seed: int = 7) -> QuartGame:
    options = resolve_options(variant.options, raw)
    game, _ = variant.start(options, SeededChance(bytes([seed]) * 32), 0,
                            log_version=log_version)
    assert isinstance(game, QuartGame)
    return game


@pytest.mark.parametrize(("variant", "log_version"), [(QuartBezique(), None),
                                                      (TrumpQuartBezique(), None),
                                                      (QuartBezique(), 1)])
@pytest.mark.parametrize("amount", [25.5, 20.0, "20", b"20", None, 1 + 0j])
def test_a_raise_whose_amount_is_not_a_whole_number_is_refused_and_changes_nothing(
        variant: QuartBezique, log_version: int | None, amount: object) -> None:
    """A raise the offer does not match goes to why_illegal, which asked only whether the
    betting allows the level: 25.5 and 20.0 were made (a stack of 964.5, a log entry that
    replays as a raise to 25), and "20" raised TypeError instead of IllegalMoveError. The
    server builds amounts from int64 fields, but the guard is the plugin API's promise to
    every caller (the conformance kit, an embedding platform): refuse, change nothing."""
    game = _quart(variant, {"players": "3", "starting_stack": "500", "min_bet": "5"},
                  log_version)
    seat = game.to_move[0]
    betting = game.betting
    assert betting is not None and betting.raise_range(seat) is not None
    before = pickle.dumps(game)
    with pytest.raises(IllegalMoveError, match="whole number"):
        game.apply(seat, Move("raise", amount=amount))  # type: ignore[arg-type]
    assert pickle.dumps(game) == before
    made = game.apply(seat, Move("raise", amount=20))  # a whole number in range still is
    assert [event.kind for event in made][:1] == ["raise"]
    assert all(type(stack) is int for stack in game.stacks)


# ---------------------------------------------------------------------------- Quart's caches


def _offered(game: QuartGame, seat: int) -> tuple[Move, ...]:
    """The legal moves of ``seat`` on a table without a ladder, from the rules as written
    (tests/quart/test_betting_rules.py), built anew."""
    betting = game.betting
    if game.outcome() is not None or betting is None or betting.turn != seat:
        return ()
    bet, show, span, allin = rules_as_written(betting, seat)
    moves = [Move("fold")] + [Move("bet")] * bet + [Move("show")] * show
    if span is not None:
        moves.append(Move("raise", amount=span[0], amount_range=AmountRange(*span)))
    return (*moves, *[Move("allin")] * allin)


def test_quart_cached_offers_and_views_are_those_of_the_seat_and_state_now() -> None:
    """Tables played side by side, every seat's legal moves and every viewer's view asked
    before each move (filling the per-table legal moves and public part),
    then compared with a copy that has no cache (pickled: the caches are dropped) and with
    the rules as written: an offer cached for another seat, table or state, or a view kept
    past a move or an abort, would differ."""
    rng = random.Random(4)
    kinds = [(QuartBezique(), {"players": str(n), "starting_stack": str(s), "min_bet": str(b)})
             for n, s, b in ((2, 60, 5), (3, 90, 10), (4, 200, 5), (5, 120, 20))]
    kinds.append((TrumpQuartBezique(), {"players": "4", "starting_stack": "150",
                                        "max_bet": "30"}))
    tables = [_quart(variant, raw, None) for variant, raw in kinds]
    made = aborted = 0
    for step in range(600):
        index = step % len(tables)
        game = tables[index]
        if not game.to_move:  # ended: a new table of the same kind, dealt otherwise
            game = tables[index] = _quart(*kinds[index], None, seed=step % 250)
        viewers = (None, *range(game.seats))
        asked = {seat: game.legal_moves(seat) for seat in range(game.seats)}
        views = {viewer: game.view(viewer) for viewer in viewers}
        fresh = pickle.loads(pickle.dumps(game))
        for seat in range(game.seats):
            expected = _offered(game, seat)
            assert asked[seat] == fresh.legal_moves(seat) == expected, (step, seat)
            assert [m.amount_range for m in asked[seat]] == [m.amount_range for m in expected]
        assert views == {viewer: fresh.view(viewer) for viewer in viewers}, step
        if step % 53 == 52:  # an operator's abort, between moves, with the caches full
            abort_game(game)
            aborted += 1
        else:
            seat = game.to_move[0]
            move = rng.choice(asked[seat])
            span = move.amount_range
            game.apply(seat, move if span is None else move.with_amount(span.pick(rng)))
            made += 1
        again = pickle.loads(pickle.dumps(game))
        for viewer in viewers:
            assert game.view(viewer) == again.view(viewer), (step, viewer)
            if viewer is not None:
                assert game.legal_moves(viewer) == again.legal_moves(viewer), (step, viewer)
    assert made > 450 and aborted >= 8, (made, aborted)


# ---------------------------------------------------------------------------- WAL resets


_FAST_RESETS = """
import sys
from pathlib import Path
from bezique.service.store import sqlite

plain_init, plain_reach = sqlite.SqliteStore.__init__, sqlite._Checkpointer._reach_end
count = Path(sys.argv.pop(1))

def init(self, path, synchronous="NORMAL", checkpoint_interval=1.0, wal_reset_every=10.0):
    plain_init(self, path, synchronous, 0.02, 0.05)  # a reset due every 50 ms, not 10-20 s

def reach(db, tries=sqlite._END_TRIES):
    readied = plain_reach(db, tries)
    if readied:  # the thread readied a reset alone: the next commit starts the WAL over
        count.write_text(str(int(count.read_text() or 0) + 1))
    return readied

sqlite.SqliteStore.__init__ = init
sqlite._Checkpointer._reach_end = staticmethod(reach)
from bezique.service.main import main
sys.exit(main())
"""


async def test_a_sigkill_amid_the_threads_wal_resets_loses_no_acknowledged_move(
        tmp_path: Path, server_process_factory: list[ServerProcess]) -> None:
    """A real server whose checkpoint thread readies a WAL reset every 50 ms (by itself, with
    no finish on the event loop), under moves from forty tables over its port, SIGKILLed once
    the WAL has started over several times: a server started again on the file has every
    acknowledged move, each retry of one gets its first answer, and the WAL stayed small."""
    store, count = tmp_path / "resets.sqlite", tmp_path / "resets"
    count.write_text("0")
    process = subprocess.Popen(
        [sys.executable, "-c", _FAST_RESETS, str(count), "--address", "127.0.0.1:0",
         "--store", f"sqlite:{store}", "--bot-delay", "0"], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, env={**os.environ, "BEZIQUE_LOG_FORMAT": "json"})
    assert process.stdout is not None
    match = re.search(r"listening on [\d.]+:(\d+)", process.stdout.readline())
    first = ServerProcess(process, int(match.group(1)) if match else 0)
    server_process_factory.append(first)
    assert match, "the server with fast WAL resets did not start"
    ledger = Ledger()
    async with AsyncTableClient(first.address, retries=0, timeout=5) as client:
        tables = await open_tables(client, 40)  # enough play to outlast 3 resets under load
        stop = asyncio.Event()
        players = await start_players(client, tables, ledger, stop, acked=20)
        readied = int(count.read_text() or 0)
        await eventually(lambda: all(player.done() for player in players) or (
            int(count.read_text() or 0) >= readied + 3 and len(ledger.acked) >= 60),
            60, "three resets off the loop in play")
        at_kill = len(ledger.acked)
        playing = sum(not player.done() for player in players)
        first.process.kill()  # SIGKILL, mid-stream
        assert playing, f"every game ended first ({at_kill} moves, {count.read_text()} resets)"
        await eventually(lambda: ledger.errors.get("UNAVAILABLE", 0) >= 1,
                         what="a player to find the server gone")
        stop.set()
        await asyncio.gather(*players, return_exceptions=True)
    first.process.wait(timeout=10)
    assert at_kill >= 60 and ledger.errors.get("UNAVAILABLE", 0) >= 1
    wal = store.with_name(store.name + "-wal")
    assert wal.stat().st_size < 4 * 1024 * 1024, f"the WAL grew to {wal.stat().st_size:,} bytes"
    second = spawn_server("--store", f"sqlite:{store}")
    server_process_factory.append(second)
    async with AsyncTableClient(second.address, retries=0) as client:
        await check_nothing_lost(client, ledger, tables)
    second.kill()


# ---------------------------------------------------------------------------- tables side by side


def _visible(census: Census, viewer: int | None) -> set[int]:
    return {card for pile in census.piles for card in pile.cards
            if pile.visible_to is None or (viewer is not None and viewer in pile.visible_to)}


async def test_derived_views_of_tables_played_side_by_side_show_each_its_own_cards() -> None:
    """Highcard derives its views (BaseGame.view; until #27 the position kept for the last
    game viewed and the zones kept by value were process-wide, and the service now keeps
    views per table version and viewer). Three tables played a move each in turn,
    every seat and a spectator of every table viewing after each move: each view over the
    port is exactly its own table's census as that viewer may see it, never another table's
    position or a zone of another table's private pile."""
    registry = load_registry(entry_points=False, plugins=[highcard_plugin])
    server = await start_server(server_config(), registry)
    try:
        async with AsyncTableClient(server.address, retries=0) as client:
            tables = []
            for number in range(3):
                table = await client.create_table("highcard", {"players": 3, "hand_size": 8},
                                                  seed=b"tables-side-by-side-%d" % number)
                seats = [await client.join(table.table_id, entropy=b"") for _ in range(3)]
                tables.append((table.table_id, seats))
            checked = 0
            for _ in range(24):
                for table_id, seats in tables:
                    live = await server.manager.table(table_id)
                    game = live.game
                    assert game is not None
                    census = game.census()
                    for viewer, token in ((None, None), *((s.seat, s.token) for s in seats)):
                        view = await client.view(table_id, token)
                        shown = {card.id for card in view.hand} | {
                            card.id for zone in view.zones for card in zone.cards}
                        assert shown == _visible(census, viewer), (table_id, viewer)
                        checked += 1
                    if not game.to_move:
                        continue
                    seat = seats[game.to_move[0]]
                    own = await client.view(table_id, seat.token)
                    await client.submit(seat, own.legal_moves[0], own.version)
            assert checked == 24 * 3 * 4
    finally:
        await server.stop()


@pytest.mark.parametrize(("move", "why"), [
    (Move("raise", amount=10.0), "whole number"),  # type: ignore[arg-type]
    (Move("raise", amount=True), "whole number"),
    (None, "must be a Move"),
    (Move(1, amount=10), "strings"),  # type: ignore[arg-type]
])
def test_a_move_of_the_wrong_types_is_refused_though_it_equals_an_offer(
        move: Move, why: str) -> None:
    """10.0 == 10 and True == 1, so a Move with a float or bool amount equals the offered
    raise: the guard refuses such a move (a caller of the plugin API without a type checker;
    the wire's moves are typed) and changes nothing."""
    game = _quart(QuartBezique(), {"players": "3", "starting_stack": "500", "min_bet": "5"},
                  None)
    seat = game.to_move[0]
    before = pickle.dumps(game)
    with pytest.raises(IllegalMoveError, match=why):
        game.apply(seat, move)
    assert pickle.dumps(game) == before


def test_a_card_of_the_wrong_type_is_refused_in_a_derived_view_plugin() -> None:
    variant = load_registry(entry_points=False, plugins=[highcard_plugin]).variant("highcard")
    game, _ = variant.start(resolve_options(variant.options, {"players": 2}),
                            SeededChance(b"s" * 32))
    seat = game.to_move[0]
    card = game.legal_moves(seat)[0].cards[0]
    with pytest.raises(IllegalMoveError, match="tuple of card ids"):
        game.apply(seat, Move("play", (float(card),)))  # type: ignore[arg-type]
    assert game.apply(seat, Move("play", (card,)))  # the same card as an int is played
