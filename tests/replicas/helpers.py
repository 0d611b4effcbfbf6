"""Helpers of the replica tests: tables opened and played by clients that keep a ledger of
what they were told, the check that nothing acknowledged was lost, and a results feed read to
a count."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import grpc

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import eventually

KEY = "k" * 24
"""The platform key of the replicas that abort (AbortTable needs a server with one)."""


async def open_table(client: AsyncTableClient) -> tuple[str, list[SeatHandle]]:
    """A two-seat table of two cards each, both seats joined (ann and bob)."""
    table = await client.create_table("highcard", {"players": 2, "hand_size": 2})
    return table.table_id, [await client.join(table.table_id, name=n) for n in ("ann", "bob")]


async def first_results(stream: AsyncIterator[pb.TableResult], count: int
                        ) -> AsyncIterator[pb.TableResult]:
    """The first ``count`` results of a results feed (which never ends by itself)."""
    async for item in stream:
        yield item
        count -= 1
        if count == 0:
            return


@dataclass
class Ledger:
    """What the clients were told: acknowledged moves, and moves whose fate is unknown."""

    acked: dict[str, tuple[str, int]] = field(default_factory=dict)  # request id -> table, version
    unknown: dict[str, tuple[SeatHandle, pb.Move, int]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)


async def play_table(client: AsyncTableClient, table_id: str, seats: list[SeatHandle],
                     ledger: Ledger, stop: asyncio.Event) -> None:
    """Random legal moves at one table until it ends or ``stop`` is set, each in ``ledger``;
    a retryable error is counted and the move tried again."""
    rng = random.Random(table_id)
    while not stop.is_set():
        try:
            view = await client.view(table_id)
            if view.HasField("outcome"):
                return
            seat = seats[view.to_move[0]]
            own = await client.view(table_id, seat.token)
            move = rng.choice(list(own.legal_moves))
            request_id = uuid.uuid4().hex
            ledger.unknown[request_id] = (seat, move, own.version)
            result = await client.submit(seat, move, own.version, request_id)
            ledger.unknown.pop(request_id)
            ledger.acked[request_id] = (table_id, result.version)
        except grpc.aio.AioRpcError as error:
            name = error.code().name
            ledger.errors[name] = ledger.errors.get(name, 0) + 1
            if error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED,
                                    grpc.StatusCode.DEADLINE_EXCEEDED):
                raise
            await asyncio.sleep(0.05)


async def open_tables(client: AsyncTableClient, count: int
                      ) -> list[tuple[str, list[SeatHandle]]]:
    """``count`` four-seat tables, every seat joined."""
    tables = []
    for _ in range(count):
        table = await client.create_table("highcard", {"players": 4, "hand_size": 8})
        seats = [await client.join(table.table_id) for _ in range(4)]
        tables.append((table.table_id, seats))
    return tables


async def start_players(client: AsyncTableClient, tables: list[tuple[str, list[SeatHandle]]],
                        ledger: Ledger, stop: asyncio.Event, acked: int
                        ) -> list[asyncio.Task[None]]:
    """One player task per table; returns once ``acked`` moves have been acknowledged."""
    players = [asyncio.create_task(play_table(client, t, s, ledger, stop)) for t, s in tables]
    await eventually(lambda: len(ledger.acked) >= acked, 60, "acknowledged moves")
    return players


async def check_nothing_lost(client: AsyncTableClient, ledger: Ledger,
                             tables: list[tuple[str, list[SeatHandle]]]) -> None:
    """Every acknowledged move is in its table's log, which has no gap; a retried request
    gets its first answer; a request whose answer was lost was applied at most once."""
    versions: dict[str, dict[int, str]] = {}
    for table_id, _ in tables:
        history = await client.history(table_id)
        assert [e.version for e in history.entries] == list(range(1, len(history.entries) + 1))
        versions[table_id] = {e.version: e.entry_kind for e in history.entries}
    for table_id, version in ledger.acked.values():
        assert versions[table_id].get(version) == "move", (table_id, version)
    # retrying an acknowledged request after the crash gives the original answer
    for request_id, (table_id, version) in list(ledger.acked.items())[:5]:
        seats = dict(tables)[table_id]
        for seat in seats:
            try:
                again = await client.submit(seat, _any_move(), 0, request_id)
            except grpc.aio.AioRpcError:
                continue
            assert again.duplicate and again.version == version
            break
        else:
            raise AssertionError(f"no seat got the original answer for {request_id}")
    # a request whose answer was lost is applied at most once, whatever the retry says
    for request_id, (seat, move, expected) in ledger.unknown.items():
        try:
            await client.submit(seat, move, expected, request_id)
        except grpc.aio.AioRpcError as error:
            assert error.code() in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)
    for table_id, _ in tables:
        history = await client.history(table_id)
        ids = [e.version for e in history.entries]
        assert len(ids) == len(set(ids))


def _any_move() -> pb.Move:
    return pb.Move(kind="play", cards=[pb.Card(id=0)])
