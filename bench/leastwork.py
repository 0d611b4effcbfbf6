"""The least a move can cost here: grpc.aio's bare floor plus only the work this protocol asks
of a move, written straight, with none of the engine around it.

#28 asks a Play move to cost no more server CPU than boardgame.io's in-memory server, and the
unary path (SubmitMove and four WatchTable pushes) no more than 1.5 times it. This measures how
much of that a server doing only a move's necessary work leaves for the engine's own checks:
if the least work alone costs about as much as boardgame.io, no trimming of the engine reaches
the target, and the levers are the language or the transport.

The least-work server is :mod:`bench.floor`'s bare server (uvloop, grpc's classic listener,
each seat on its own connection) whose move handler, instead of pushing fixed bytes, does per
move what the engine cannot skip (:class:`WorkingTables`), with the cheapest rendering found:

- parse the mover's request (a real one, of the load's size) and find its move among the
  mover's legal moves (the highcard plugin itself: 4 seats, 8 cards, as the peers' load plays);
- apply it, and take the census once;
- append the log entry to sqlite (WAL, ``synchronous=NORMAL``, autocommit, in the loop thread,
  a unique request id per table: the durable store's settings), its payload JSON;
- render each seat's update from the census (its hand seen by its owner only, every other
  pile by all or by none: highcard's), what all seats share serialised once per move and each
  card and offered move once per game, with the move's events, and push it; the mover's
  answer, with its view, beside its update (Play) or as the call's answer (unary).

Left out, though the engine does them: the seat's token and rate checks (at the stream's open
on Play; per call on the unary path), the compare-and-set of the version, the lookup of an
earlier answer for a repeated request id, the turn clock, the table's summary row, metrics,
logs, resume buffers, caps. So this is a floor, not a design.

Run: ``python -m bench.leastwork [--moves 6000] [--reps 3]`` (or ``python -m bench --only
leastwork``). It alternates, in one run, the bare floor server and the least-work server (each
in both shapes, with bench.floor's Python load), this engine's two paths and boardgame.io in
memory (with the peers' loads), each server pinned to one core and its load to the other;
server CPU per move from /proc, and how busy the server and its load were.
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
from typing import Any

import orjson

from bench.common import Child, Section, fmt_rate, fmt_ratio, fmt_us, median, run_in_scratch
from bench.seats import Tables
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.api import HAND, Event, Game
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


class UnlikeHighcard(ValueError):
    """A census this floor does not render: it renders highcard's shape only (a hand seen by
    its owner alone, every other pile by all or by none), by design, not as a gap."""


@dataclass
class _Table:
    game: Game
    version: int
    cards: tuple[pb.Card, ...]
    """Each card's message, by id (events and zones copy them)."""
    in_hand: tuple[bytes, ...]
    """Each card as a View.hand field, serialised once per game."""
    to_play: tuple[bytes, ...]
    """Each card's move ("play" it) as a View.legal_moves field, serialised once per game."""


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
        # as the store's: a request id is taken once per table (its retries are answered)
        self.db.execute("CREATE UNIQUE INDEX IF NOT EXISTS log_request ON log "
                        "(table_id, request_id)")

    def join(self, request: bytes) -> tuple[bytes, asyncio.Queue[bytes]]:
        table, queue = super().join(request)
        self._playing(table)
        return table, queue

    def _playing(self, table: bytes) -> None:
        """A game at ``table``, started at its first seat or move."""
        if table not in self.games:
            self.games[table] = self._new_game()

    def _new_game(self, version: int = 0) -> _Table:
        """A new game, its log going on from ``version`` (a table plays game after game)."""
        self.started += 1
        game, _ = self.variant.start(self.options, SeededChance(self.started.to_bytes(16, "big")))
        cards = tuple(pb.Card(code=c.code, id=c.id) for c in self.variant.shoe(self.options).cards)
        return _Table(game, version, cards,
                      tuple(_field(_HAND, card.SerializeToString()) for card in cards),
                      tuple(_field(_LEGAL, pb.Move(kind="play", cards=[card]).SerializeToString())
                            for card in cards))

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

    def answer(self, request: bytes) -> bytes:
        """A real SubmitMoveRequest, alone (bench.service: no seat watches): the move made at
        its table (a game started there at its first move; the move asked for if legal, else
        a legal one), the answer returned."""
        wanted = pb.SubmitMoveRequest.FromString(request)
        table = wanted.table_id.encode()
        self._playing(table)
        answer = self._move(table, unary=True, wanted=wanted)
        assert answer is not None
        return answer

    def _move(self, table: bytes, unary: bool,
              wanted: pb.SubmitMoveRequest | pb.PlayMove | None = None) -> bytes | None:
        if wanted is None:
            wanted = (pb.SubmitMoveRequest.FromString(SUBMIT_REQUEST) if unary
                      else pb.PlayRequest.FromString(MOVE_REQUEST).move)
        state = self.games[table]
        game = state.game
        seat = game.to_move[0]
        legal = game.legal_moves(seat)
        asked = tuple(card.id for card in wanted.move.cards)
        move = next((offered for offered in legal
                     if offered.kind == wanted.move.kind and offered.cards == asked), legal[0])
        events = game.apply(seat, move)  # the offered move itself: apply's fast path
        state.version += 1
        version = state.version
        self.db.execute(_INSERT, (table, version, "move", seat, orjson.dumps(
            {"kind": move.kind, "cards": move.cards}), f"{wanted.request_id}.{version}",
            time.time()))
        head, public, hands, seats = _shared(state, table, version, seat, game, events)
        to_move = game.to_move

        def view_of(viewer: int) -> bytes:
            own = [_VIEWER[viewer], *[state.in_hand[card] for card in hands.get(viewer, ())],
                   *[plain if index == viewer else counted
                     for index, (plain, counted) in enumerate(seats)]]
            if viewer in to_move:
                own += [state.to_play[m.cards[0]] for m in game.legal_moves(viewer)]
            return _field(_VIEW, public + b"".join(own))

        answer: bytes | None = None
        queues = self.seats.get(table, ())
        for viewer, queue in enumerate(queues):
            view = view_of(viewer)
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
        if unary and answer is None:  # the mover does not watch
            answer = _accepted(state, version, events) + _SUBMIT_VIEW + view_of(seat)[1:]
        if game.outcome() is not None:
            self.games[table] = self._new_game(version)
        return answer


_INSERT = "INSERT INTO log VALUES (?, ?, ?, ?, ?, ?, ?)"
_VIEW, _UPDATE, _ANSWER, _ACCEPTED, _SUBMIT_VIEW = b"\x2a", b"\x0a", b"\x1a", b"\x12", b"\x12"
"""The tags of WatchTableResponse.view, PlayResponse.update and .answer, PlayResult.accepted,
SubmitMoveResponse.view."""
_HAND, _LEGAL = b"\x3a", b"\x5a"
"""The tags of View.hand and View.legal_moves."""
_VIEWER = tuple(b"\x20" + bytes([seat]) for seat in range(4))
"""View.viewer_seat of each seat (a varint field)."""


def _field(tag: bytes, message: bytes) -> bytes:
    """A serialised sub-message as the length-delimited field of ``tag``."""
    size, length = len(message), bytearray()
    while size > 0x7F:
        length.append(size & 0x7F | 0x80)
        size >>= 7
    length.append(size)
    return tag + bytes(length) + message


def _shared(state: _Table, table: bytes, version: int, seat: int, game: Game,
            events: tuple[Event, ...]
            ) -> tuple[bytes, bytes, dict[int, tuple[int, ...]], list[tuple[bytes, bytes]]]:
    """What the seats' updates of a move are made of, each serialised once: the head
    (version, kind, seat, events: highcard's are public), the view's public part (ids, phase,
    whose turn, the zones), each seat's hand, and each seat's entry as its holder sees it and
    as the others do (with its hidden hand's size). Straight from the census: a hand is seen
    by its owner only, every other pile by all or by none (highcard's; else this refuses)."""
    cards = state.cards
    head = pb.WatchTableResponse(version=version, entry_kind="move", seat=seat)
    _add_events(head.events, state, version, events)
    census = game.census()
    public = pb.View(table_id=table.decode(), version=version, variant_id="highcard",
                     phase=game.phase, to_move=game.to_move, seed_commitment="c" * 64)
    hands: dict[int, tuple[int, ...]] = {}
    for pile in census.piles:
        if pile.name == HAND and pile.owner is not None:
            if pile.visible_to != frozenset((pile.owner,)):
                raise UnlikeHighcard("a hand seen by others than its owner")
            hands[pile.owner] = pile.cards
            continue
        zone = public.zones.add(name=pile.name)
        if pile.owner is not None:
            zone.owner = pile.owner
        if pile.visible_to is None:
            zone.cards.extend([cards[i] for i in pile.cards])
        elif pile.visible_to:
            raise UnlikeHighcard("a pile seen by some seats only")
        elif pile.cards:
            zone.hidden_count = len(pile.cards)
    seats: list[tuple[bytes, bytes]] = []
    for index, score in enumerate(census.scores):
        entry = pb.View()
        added_seat = entry.seats.add(seat=index, occupied=True, display_name=f"p{index}")
        if score:
            added_seat.score = score
        plain = entry.SerializeToString()
        added_seat.hidden_hand_count = len(hands.get(index, ()))
        seats.append((plain, entry.SerializeToString()))
    return head.SerializeToString(), public.SerializeToString(), hands, seats


def _accepted(state: _Table, version: int, events: tuple[Event, ...]) -> bytes:
    """A SubmitMoveResponse's version and events (its view is appended as bytes)."""
    head = pb.SubmitMoveResponse(version=version)
    _add_events(head.events, state, version, events)
    return head.SerializeToString()


def _add_events(into: Any, state: _Table, version: int, events: tuple[Event, ...]) -> None:
    """``events`` added to a repeated Event field (highcard's are public: every seat sees
    them whole)."""
    for event in events:
        added = into.add(version=version, kind=event.kind, seat=event.seat, amount=event.amount)
        added.cards.extend([state.cards[i] for i in event.cards])


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


@dataclass(frozen=True)
class Measured:
    """One run of one subject."""

    cpu: float
    """The server's CPU seconds per move."""
    rate: float
    """Moves per second."""
    server_busy: float
    """The server's CPU seconds per second of the run: near 1, it set the pace."""
    load_busy: float
    """The load's: near 1, the load set the pace, and the server, less busy, wakes for
    fewer messages at a time (more CPU per move)."""


@dataclass
class Subject:
    name: str
    run: Callable[[int], Awaitable[Measured]]
    """Plays this many moves."""
    runs: list[Measured] = field(default_factory=list)

    @property
    def cpu(self) -> list[float]:
        return [run.cpu for run in self.runs]


BGIO = "boardgame.io, in memory"
PLAY_WORK = "Play: least work on that floor"
PLAY_ENGINE = "Play: this engine (sqlite)"
UNARY_FLOOR = "unary: bare grpc.aio floor (SubmitMove + 4 streams)"
UNARY_WORK = "unary: least work on that floor"
UNARY_ENGINE = "unary: this engine (sqlite, SubmitMove + WatchTable)"
LEAST_WORK_OF = {PLAY_ENGINE: PLAY_WORK, UNARY_ENGINE: UNARY_WORK}
"""Each engine row's least work in the same shape: what the engine costs above the least a
move can cost here, whatever the machine's speed that day."""


async def _run(config: LeastWorkConfig, workdir: Path) -> Section:
    from bench import floor, peerbench

    server_core, load_core = peerbench.cores()
    if "bgio" in config.peers:
        peerbench.ensure_npm_packages()
    servers: list[Child] = []
    peers: list[peerbench.Subject] = []

    async def shape(server: Child, name: str) -> Callable[[int], Awaitable[Measured]]:
        with floor.pinned_self(load_core):
            tables = await floor.open_tables(config.concurrency, name,
                                             floor.Dialer(server.address))

        async def run(moves: int) -> Measured:
            with floor.pinned_self(load_core):
                cpu0, load0 = server.cpu_seconds(), time.process_time()
                seconds = await floor.closed_loop(tables, moves)
                cpu, load = server.cpu_seconds() - cpu0, time.process_time() - load0
                return Measured(cpu / moves, moves / seconds, cpu / seconds, load / seconds)
        return run

    def peer(name: str) -> Callable[[int], Awaitable[Measured]]:
        subject = peerbench.start(name, workdir)
        peers.append(subject)

        async def run(moves: int) -> Measured:
            done = subject.run(moves, config.concurrency, None)
            return Measured(done.server_cpu / done.moves, done.moves / done.seconds,
                            done.server_cpu / done.seconds, done.load_cpu / done.seconds)
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
            *([Subject(PLAY_ENGINE, runs["sqlite-play"])]
              if "sqlite-play" in runs else []),
            Subject(UNARY_FLOOR, await shape(bare, unary)),
            Subject(UNARY_WORK, await shape(working, unary)),
            *([Subject(UNARY_ENGINE, runs["sqlite"])]
              if "sqlite" in runs else []),
            *([Subject(BGIO, runs["bgio"])] if "bgio" in runs else []),
        ]
        for subject in subjects:
            await subject.run(config.warmup_moves)
        for rep in range(config.reps):
            turn = rep % len(subjects)
            for subject in subjects[turn:] + subjects[:turn]:
                subject.runs.append(await subject.run(config.moves))
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
        ["server", "server CPU per move [range]", "ratio to boardgame.io [range]",
         "ratio to the least work [range]", "moves/s", "server busy", "load busy"])
    by_name = {subject.name: subject for subject in subjects}
    for subject in subjects:
        ratios = _ratios(subject.cpu, base)
        ratio = median(ratios) if ratios else math.nan
        least = by_name.get(LEAST_WORK_OF.get(subject.name, ""))
        to_least = _ratios(subject.cpu, least.cpu if least is not None else None)
        rate = median([run.rate for run in subject.runs])
        server_busy = median([run.server_busy for run in subject.runs])
        load_busy = median([run.load_busy for run in subject.runs])
        section.figures[subject.name] = {
            "server_cpu_per_move": cpu[subject.name], "runs": subject.cpu, "ratio": ratio,
            "to_least_work": median(to_least) if to_least else math.nan,
            "rate": rate, "server_busy": server_busy, "load_busy": load_busy}
        section.rows.append([
            subject.name, f"{fmt_us(cpu[subject.name])} [{fmt_us(min(subject.cpu))}–"
            f"{fmt_us(max(subject.cpu))}]", _ratio_cell(ratios), _ratio_cell(to_least),
            fmt_rate(rate), f"{server_busy:.0%}", f"{load_busy:.0%}"])
    if base is not None:
        section.targets["Play, least work <= boardgame.io in memory"] = \
            section.figures[PLAY_WORK]["ratio"] <= 1.0
        section.targets["unary, least work <= 1.5x boardgame.io in memory"] = \
            section.figures[UNARY_WORK]["ratio"] <= 1.5
    section.notes += [
        f"{config.reps} closed-loop runs of {config.moves:,} moves per server, alternating, "
        f"after {config.warmup_moves:,} warm-up moves each; {config.concurrency} tables; "
        "medians [ranges]; a ratio is the median of each repetition's ratio to that "
        "repetition's boardgame.io run, or, for this engine, to its shape's least-work run "
        "(what the engine costs above the least a move can cost on grpc.aio). Each server "
        "on one core, its load on the other (the "
        "floors' load is bench.floor's, in Python; the engine's and boardgame.io's, the "
        "peers' loads). Busy: CPU seconds per second of the run; a load near 100 % set the "
        "pace, and its server, waiting for it, wakes for fewer messages at a time.",
        "Least work: the mover's request parsed, the highcard plugin's move found among its "
        "legal moves and applied, its census once, one sqlite INSERT (WAL, synchronous=NORMAL, "
        "a unique request id), each seat's update rendered from the census (shared parts once "
        "a move, cards and offered moves once a game) and pushed, the mover's answer with its "
        "view. No token, version or clock checks, no summary row, metrics or logs "
        "(bench/leastwork.py).",
    ]
    return section


def _ratios(mine: list[float], theirs: list[float] | None) -> list[float]:
    """Each repetition's ratio to the same repetition of ``theirs`` (none without it)."""
    if not theirs:
        return []
    return [one / other for one, other in zip(mine, theirs, strict=True)]


def _ratio_cell(ratios: list[float]) -> str:
    return (f"{fmt_ratio(median(ratios))} [{min(ratios):.2f}–{max(ratios):.2f}]" if ratios
            else "n/a")


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
