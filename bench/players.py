"""Client-side tables for the load benchmarks: created on a test-mode server with a known seed,
mirrored by a local game, so a client knows every seat's legal moves without asking.

Asking (GetView before each move) would double the calls per move and measure GetView as
much as SubmitMove. With the seed fixed (``--test-mode`` allows exactly that), the local game
replays the server's exactly: same options, same chance, same moves.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc
from bezique.variants.api import Game, Move, Variant
from bezique.variants.cards import Shoe
from bezique.variants.chance import SeededChance
from bezique.variants.host import resolve_options

Metadata = tuple[tuple[str, str], ...]


def table_seed(tag: str, n: int) -> bytes:
    return hashlib.sha256(f"bench-{tag}-{n}".encode()).digest()


@dataclass
class PlayTable:
    """One table as its players (all seats, one client) know it."""

    table_id: str
    metadata: list[Metadata]
    game: Game
    version: int
    rng: random.Random
    shoe: Shoe = field(init=False)

    def __post_init__(self) -> None:
        self.shoe = self.game.shoe

    @property
    def over(self) -> bool:
        return not self.game.to_move

    def next_move(self) -> tuple[int, Move, pb.SubmitMoveRequest]:
        """The seat to move, a random legal move, and its request (as the SDK would send it)."""
        seat = self.game.to_move[0]
        legal = self.game.legal_moves(seat)
        move = legal[self.rng.randrange(len(legal))]
        code = self.shoe.code
        request = pb.SubmitMoveRequest(
            table_id=self.table_id,
            move=pb.Move(kind=move.kind, cards=[pb.Card(id=c, code=code(c)) for c in move.cards],
                         amount=move.amount, label=move.label),
            expected_version=self.version, request_id=uuid.uuid4().hex)
        return seat, move, request

    def moved(self, seat: int, move: Move) -> None:
        """The server took the move: apply it locally too."""
        self.game.apply(seat, move)
        self.version += 1


def bearer(token: str) -> Metadata:
    return (("authorization", f"Bearer {token}"),)


def local_game(variant: Variant, options: Mapping[str, object], seed: bytes) -> Game:
    game, _ = variant.start(resolve_options(variant.options, options), SeededChance(seed))
    return game


async def create_table(stub: pb_grpc.TableServiceStub, variant: Variant,
                       options: Mapping[str, str], seed: bytes, rng_seed: int) -> PlayTable:
    """A table on the server with every seat joined (so its game has started)."""
    created = await stub.CreateTable(pb.CreateTableRequest(
        variant_id=variant.id, options=dict(options), test=pb.TestSettings(seed=seed)),
        timeout=60)
    seats = variant.seat_count(resolve_options(variant.options, options))
    metadata: list[Metadata] = []
    version = 0
    to_move: Sequence[int] = ()
    for seat in range(seats):
        joined = await stub.JoinTable(pb.JoinTableRequest(table_id=created.table_id, seat=seat),
                                      timeout=60)
        metadata.append(bearer(joined.seat_token))
        version = joined.view.version
        to_move = tuple(joined.view.to_move)
    game = local_game(variant, options, seed)
    if tuple(game.to_move) != tuple(to_move):
        raise RuntimeError(f"{variant.id}: the local game does not mirror table "
                           f"{created.table_id} (to_move {game.to_move} vs {to_move})")
    return PlayTable(created.table_id, metadata, game, version, random.Random(rng_seed))


async def create_tables(stub: pb_grpc.TableServiceStub, variant: Variant,
                        options: Mapping[str, str], count: int, tag: str,
                        concurrency: int = 32) -> list[PlayTable]:
    """``count`` started tables, created ``concurrency`` at a time, in a stable order."""
    tables: list[PlayTable | None] = [None] * count
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        while next_index < count:
            index = next_index
            next_index += 1
            tables[index] = await create_table(stub, variant, options,
                                               table_seed(tag, index), index)

    await asyncio.gather(*(worker() for _ in range(min(concurrency, count))))
    return [t for t in tables if t is not None]


def fake_tables(variant: Variant, options: Mapping[str, str], count: int, tag: str
                ) -> list[PlayTable]:
    """Local-only tables with ids and tokens shaped like real ones (for the echo server)."""
    seats = variant.seat_count(resolve_options(variant.options, options))
    return [PlayTable(secrets.token_hex(8),
                      [bearer(secrets.token_urlsafe(32)) for _ in range(seats)],
                      local_game(variant, options, table_seed(tag, n)), seats + 2,
                      random.Random(n))
            for n in range(count)]


def moves_per_game(variant: Variant, options: Mapping[str, str], games: int = 8) -> float:
    """The mean length of a random game (to size the pools of tables)."""
    total = 0
    for n in range(games):
        game = local_game(variant, options, table_seed("sizing", n))
        rng = random.Random(n)
        while game.to_move:
            seat = game.to_move[0]
            legal = game.legal_moves(seat)
            game.apply(seat, legal[rng.randrange(len(legal))])
            total += 1
    return total / games


def channel(target: str, index: int = 0, extra: Sequence[tuple[str, Any]] = ()
            ) -> grpc.aio.Channel:
    """An aio channel with a connection of its own: a local subchannel pool and a distinct
    argument keep grpc from sharing one TCP connection between channels to the same target."""
    options: list[tuple[str, Any]] = [("grpc.use_local_subchannel_pool", 1),
                                      ("bench.channel", index), *extra]
    return grpc.aio.insecure_channel(target, options=options)
