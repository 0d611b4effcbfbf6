"""The least a Play move can cost here: grpc.aio's bare bidi floor plus only the work this
protocol asks of a move, written straight, with none of the engine around it.

#28 asks a Play move to cost no more server CPU than boardgame.io's in-memory server. This
measures whether Python and grpc.aio can do that at all with this protocol: if a server that
does only a move's necessary work costs more than boardgame.io, no trimming of the engine
reaches the target, and the lever is the language or the transport.

The least-work server is :mod:`bench.floor`'s bare server (uvloop, grpc's classic listener, one
bidirectional stream per seat, each seat on its own connection) whose move handler, instead of
pushing fixed bytes, does per move what the engine cannot skip (:class:`WorkingTables`):

- parse the mover's ``PlayRequest`` (a real one, of the load's size) and read its move;
- the highcard plugin itself (4 seats, 8 cards, as the peers' load plays it): the move checked
  against the mover's legal moves and applied, the census taken once, each seat's view and
  legal moves from it;
- the move's log entry appended to sqlite (WAL, ``synchronous=NORMAL``, autocommit, in the
  loop thread: the durable store's own settings), its payload JSON;
- each seat's update rendered to a ``PlayResponse`` (its view whole, with the move's events,
  as WatchTable sends it; the mover's answer beside its update) and pushed to that seat.

Left out, though the engine does them: the seat's token and rate checks at the stream's open
(not per move), the compare-and-set of the version, request-id dedupe, the turn clock, the
table's summary row, metrics, logs, resume buffers, limits. So this is a floor, not a design.

Run: ``python -m bench.leastwork [--moves 6000] [--reps 3]`` (or ``python -m bench --only
leastwork``). It alternates, in one run, the
bare floor server, the least-work server (both with bench.floor's Python load) and
boardgame.io in memory (with the peers' Node load, bench/peers), each server pinned to one
core and its load to the other; server CPU per move from /proc, medians.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from bench.common import Child, Section, fmt_ratio, fmt_us, median, run_in_scratch
from bench.seats import Tables
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.api import Event, Game, Move, View
from bezique.variants.cards import Shoe
from bezique.variants.chance import SeededChance
from bezique.variants.host import resolve_options

OPTIONS = {"players": 4, "hand_size": 8}
MOVE_REQUEST = pb.PlayRequest(move=pb.PlayMove(
    move=pb.Move(kind="play", cards=[pb.Card(code="AS", id=7)]), expected_version=12,
    request_id="r-0123456789abcdef")).SerializeToString()
SUBMIT_REQUEST = pb.SubmitMoveRequest(
    table_id="t-0123456789abcdef", move=pb.Move(kind="play", cards=[pb.Card(code="AS", id=7)]),
    expected_version=12, request_id="r-0123456789abcdef").SerializeToString()
"""A Play move and a SubmitMove of the load's sizes; each move parses one (the server then
plays a legal move of the seat to move, whichever seat sent it: the load only paces the
moves)."""


@dataclass
class _Table:
    game: Game
    shoe: Shoe
    version: int = 0
    cards: tuple[pb.Card, ...] = ()


class WorkingTables(Tables):
    """bench.seats' tables, each with a highcard game, and a move that does the work."""

    def __init__(self, database: Path) -> None:
        super().__init__()
        from bezique_highcard.game import HighCard

        self.variant = HighCard()
        self.options = resolve_options(self.variant.options, OPTIONS)
        self.games: dict[bytes, _Table] = {}
        self.started = 0
        # used from one event loop only, but pyvoy runs the app's loop in a thread other
        # than the one that imports it
        self.db = sqlite3.connect(database, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS log (table_id TEXT, version INTEGER, "
                        "kind TEXT, seat INTEGER, payload BLOB, request_id TEXT, "
                        "created_at REAL, PRIMARY KEY (table_id, version))")

    def join(self, request: bytes) -> tuple[bytes, asyncio.Queue[bytes]]:
        table, queue = super().join(request)
        if table not in self.games:
            self.games[table] = self._new_game()
        return table, queue

    def _new_game(self, version: int = 0) -> _Table:
        """A new game, its log going on from ``version`` (a table plays game after game)."""
        self.started += 1
        game, _ = self.variant.start(self.options, SeededChance(self.started.to_bytes(16, "big")))
        shoe = self.variant.shoe(self.options)
        cards = tuple(pb.Card(code=c.code, id=c.id) for c in shoe.cards)
        return _Table(game, shoe, version, cards)

    def move(self, table: bytes) -> None:
        """A move on the mover's Play stream: every seat's update pushed, the mover's with
        its answer beside it."""
        self._move(table, unary=False)

    def submit(self, table: bytes) -> bytes:
        """A move as SubmitMove: every seat's WatchTable update pushed; the mover's answer
        (the move's events and its view) returned."""
        answer = self._move(table, unary=True)
        assert answer is not None
        return answer

    def _move(self, table: bytes, unary: bool) -> bytes | None:
        wanted = (pb.SubmitMoveRequest.FromString(SUBMIT_REQUEST) if unary
                  else pb.PlayRequest.FromString(MOVE_REQUEST).move)
        state = self.games[table]
        game = state.game
        seat = game.to_move[0]
        legal = game.legal_moves(seat)
        asked = Move(wanted.move.kind, tuple(c.id for c in wanted.move.cards))
        move = asked if asked in legal else legal[0]
        events = game.apply(seat, move)
        state.version += 1
        version = state.version
        self.db.execute("INSERT INTO log VALUES (?, ?, ?, ?, ?, ?, ?)", (
            table, version, "move", seat,
            orjson.dumps({"kind": move.kind, "cards": move.cards}), wanted.request_id,
            time.time()))
        census = game.census()
        to_move = tuple(game.to_move)
        phase = game.phase
        queues = self.seats.get(table, ())
        views = [census.view_for(viewer, phase, to_move, state.shoe)
                 for viewer in range(len(queues))]
        shared = _shared(state, table, version, seat, views[0], events)
        answer: bytes | None = None
        for viewer, queue in enumerate(queues):
            head, view = _update(state, shared, views[viewer], game.legal_moves(viewer))
            data = head + view
            if viewer == seat:  # the answer: the version, the events and the mover's view
                accepted = _accepted(state, version, events) + _SUBMIT_VIEW + view[1:]
                if unary:
                    answer = accepted
                else:
                    data = _field(_UPDATE, data) + _field(_ANSWER, pb.PlayResult(
                        request_id=wanted.request_id).SerializeToString() +
                        _field(_ACCEPTED, accepted))
                    queue.put_nowait(data)
                    continue
            queue.put_nowait(data if unary else _field(_UPDATE, data))
        if game.outcome() is not None:
            self.games[table] = self._new_game(version)
        return answer


_VIEW, _UPDATE, _ANSWER, _ACCEPTED, _SUBMIT_VIEW = b"\x2a", b"\x0a", b"\x1a", b"\x12", b"\x12"
"""The tags of WatchTableResponse.view, PlayResponse.update and .answer, PlayResult.accepted,
SubmitMoveResponse.view."""


def _field(tag: bytes, message: bytes) -> bytes:
    """A serialised sub-message as the length-delimited field of ``tag``."""
    size, length = len(message), bytearray()
    while size > 0x7F:
        length.append(size & 0x7F | 0x80)
        size >>= 7
    length.append(size)
    return tag + bytes(length) + message


def _shared(state: _Table, table: bytes, version: int, seat: int, view: View,
            events: tuple[Event, ...]) -> tuple[bytes, bytes]:
    """What every seat's update of a move shares, serialised once: its head (version, kind,
    seat, events: highcard's are public) and its view's public part (ids, phase, whose turn,
    the zones: highcard's are all public but the hands, which are not zones)."""
    cards = state.cards
    head = pb.WatchTableResponse(version=version, entry_kind="move", seat=seat)
    for event in events:
        added = head.events.add(version=version, kind=event.kind, seat=event.seat,
                                amount=event.amount)
        added.cards.extend([cards[i] for i in event.cards])
    public = pb.View(table_id=table.decode(), version=version, variant_id="highcard",
                     phase=view.phase, to_move=view.to_move, seed_commitment="c" * 64)
    for zone in view.zones:
        if zone.name == "hand":
            continue
        added_zone = public.zones.add(name=zone.name)
        if zone.owner is not None:
            added_zone.owner = zone.owner
        if zone.cards:
            added_zone.cards.extend([cards[i] for i in zone.cards])
        if zone.hidden:
            added_zone.hidden_count = zone.hidden
    return head.SerializeToString(), public.SerializeToString()


def _accepted(state: _Table, version: int, events: tuple[Event, ...]) -> bytes:
    """A SubmitMoveResponse's version and events (its view is appended as bytes)."""
    cards = state.cards
    head = pb.SubmitMoveResponse(version=version)
    for event in events:
        added = head.events.add(version=version, kind=event.kind, seat=event.seat,
                                amount=event.amount)
        added.cards.extend([cards[i] for i in event.cards])
    return head.SerializeToString()


def _update(state: _Table, shared: tuple[bytes, bytes], view: View,
            legal: tuple[Move, ...]) -> tuple[bytes, bytes]:
    """One seat's WatchTableResponse, as its head and its view field: the shared parts and
    its own (its seat, hand, the seats as it sees them, its legal moves) joined as bytes; a
    parser merges them."""
    cards = state.cards
    head, public = shared
    own = pb.View(hand=[cards[i] for i in view.hand])
    if view.viewer is not None:
        own.viewer_seat = view.viewer
    hidden = {zone.owner: zone.hidden for zone in view.zones if zone.name == "hand"}
    for index, score in enumerate(view.scores):
        added = own.seats.add(seat=index, occupied=True, display_name=f"p{index}")
        if hidden.get(index):
            added.hidden_hand_count = hidden[index]
        if score:
            added.score = score
    for move in legal:
        own.legal_moves.add(kind=move.kind).cards.extend([cards[i] for i in move.cards])
    return head, _field(_VIEW, public + own.SerializeToString())


# --------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class LeastWorkConfig:
    moves: int = 6_000
    reps: int = 3
    warmup_moves: int = 1_500
    concurrency: int = 64
    peers: tuple[str, ...] = ("sqlite-play", "sqlite", "bgio")
    """The peers' subjects run beside the floors (bench.peerbench's names): this engine's
    Play and unary paths and boardgame.io in memory, the ratios' base (Node, npm packages)."""


@dataclass
class Subject:
    name: str
    run: Callable[[int], Awaitable[float]]
    """Plays this many moves; the server's CPU seconds per move."""
    cpu: list[float] = field(default_factory=list)


BGIO = "boardgame.io, in memory"
PLAY_WORK = "Play: least work on that floor"
UNARY_FLOOR = "unary: bare grpc.aio floor (SubmitMove + 4 streams)"
UNARY_WORK = "unary: least work on that floor"


async def _run(config: LeastWorkConfig, workdir: Path) -> Section:
    from bench import floor, peerbench

    server_core, load_core = peerbench.cores()
    if "bgio" in config.peers:
        peerbench.ensure_npm_packages()
    servers: list[Child] = []
    peers: list[peerbench.Subject] = []

    async def shape(server: Child, name: str) -> Callable[[int], Awaitable[float]]:
        with floor.pinned_self(load_core):
            tables = await floor.open_tables(config.concurrency, name,
                                             floor.Dialer(server.address))

        async def run(moves: int) -> float:
            with floor.pinned_self(load_core):
                cpu0 = server.cpu_seconds()
                await floor.closed_loop(tables, moves)
                return (server.cpu_seconds() - cpu0) / moves
        return run

    def peer(name: str) -> Callable[[int], Awaitable[float]]:
        subject = peerbench.start(name, workdir)
        peers.append(subject)

        async def run(moves: int) -> float:
            done = subject.run(moves, config.concurrency, None)
            return done.server_cpu / done.moves
        return run

    try:
        servers.append(floor.start_server(workdir, server_core, "floor-bare"))
        servers.append(floor.start_server(workdir, server_core, "floor-work",
                                          work=workdir / "least.sqlite"))
        bare, working = servers
        unary, bidi = floor.SHAPES
        # the peers first: their loads' pipes are read with select(), which takes no
        # descriptor above 1,023, and the floors' channels take a thousand
        runs = {name: peer(name) for name in config.peers}
        subjects = [
            Subject("Play: bare grpc.aio bidi floor", await shape(bare, bidi)),
            Subject(PLAY_WORK, await shape(working, bidi)),
            *([Subject("Play: this engine (sqlite)", runs["sqlite-play"])]
              if "sqlite-play" in runs else []),
            Subject(UNARY_FLOOR, await shape(bare, unary)),
            Subject(UNARY_WORK, await shape(working, unary)),
            *([Subject("unary: this engine (sqlite, SubmitMove + WatchTable)", runs["sqlite"])]
              if "sqlite" in runs else []),
            *([Subject(BGIO, runs["bgio"])] if "bgio" in runs else []),
        ]
        for subject in subjects:
            await subject.run(config.warmup_moves)
        for rep in range(config.reps):
            turn = rep % len(subjects)
            for subject in subjects[turn:] + subjects[:turn]:
                subject.cpu.append(await subject.run(config.moves))
    finally:
        for started in peers:
            started.stop()
        for server in servers:
            server.stop()
    return _report(config, subjects)


def _report(config: LeastWorkConfig, subjects: list[Subject]) -> Section:
    cpu = {subject.name: median(subject.cpu) for subject in subjects}
    base = next((subject.cpu for subject in subjects if subject.name == BGIO), None)
    section = Section(
        "Least work: a move's necessary work on the bare grpc.aio floor, beside this engine "
        "and boardgame.io (highcard, 4 seats, every seat pushed every move)",
        ["server", "server CPU per move [range]", "ratio to boardgame.io [range]"])
    for subject in subjects:
        ratios = ([mine / theirs for mine, theirs in zip(subject.cpu, base, strict=True)]
                  if base is not None else [])
        section.rows.append([
            subject.name, f"{fmt_us(cpu[subject.name])} [{fmt_us(min(subject.cpu))}–"
            f"{fmt_us(max(subject.cpu))}]",
            f"{fmt_ratio(median(ratios))} [{min(ratios):.2f}–{max(ratios):.2f}]" if ratios
            else "n/a"])
        section.figures[subject.name] = {"server_cpu_per_move": cpu[subject.name],
                                         "runs": subject.cpu,
                                         "ratio": median(ratios) if ratios else math.nan}
    if base is not None:
        figures = section.figures
        section.targets["Play, least work <= boardgame.io in memory"] = \
            figures[PLAY_WORK]["ratio"] <= 1.0
        section.targets["unary, least work <= 1.5x boardgame.io in memory"] = \
            figures[UNARY_WORK]["ratio"] <= 1.5
    section.notes += [
        f"{config.reps} closed-loop runs of {config.moves:,} moves per server, alternating, "
        f"after {config.warmup_moves:,} warm-up moves each; {config.concurrency} tables; "
        "medians [ranges]; a ratio is the median of each repetition's ratio to that "
        "repetition's boardgame.io run. Each server on one core, its load on the other (the "
        "floors' load is bench.floor's, in Python; the engine's and boardgame.io's, the "
        "peers' loads).",
        "Least work: the mover's request parsed, the highcard plugin's move checked and "
        "applied, its census and each seat's view and legal moves, one sqlite INSERT (WAL, "
        "synchronous=NORMAL), each seat's update rendered (what all seats share once) and "
        "pushed, the mover's answer with its view. No token, version, request-id or clock "
        "checks, no summary row, metrics or logs (bench/leastwork.py).",
    ]
    return section


def run(config: LeastWorkConfig | None = None) -> Section:
    chosen = config or LeastWorkConfig()
    return run_in_scratch(lambda workdir: _run(chosen, workdir))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.leastwork")
    parser.add_argument("--moves", type=int, default=LeastWorkConfig.moves)
    parser.add_argument("--reps", type=int, default=LeastWorkConfig.reps)
    parser.add_argument("--peers", default=",".join(LeastWorkConfig.peers),
                        help="the peers' subjects beside the floors (default: %(default)s)")
    args = parser.parse_args()
    section = run(LeastWorkConfig(moves=args.moves, reps=args.reps,
                                  peers=tuple(p for p in args.peers.split(",") if p)))
    print(section.render())


if __name__ == "__main__":
    main()
