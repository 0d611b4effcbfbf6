"""The platform's work: open its tables, seat its players, let the scripted players play, and
book every result the feed delivers. Everything it must remember is in its ledger, so it can
be killed at any moment and started again with the same arguments."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import grpc

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique_platform.ledger import Ledger, SeatRecord


@dataclass(frozen=True)
class Plan:
    """What the platform runs: how many tables of which game, and who plays."""

    tables: int
    players: Sequence[str]
    variant: str = "quart-bezique"
    options: Mapping[str, str] | None = None
    apply_delay: float = 0.0
    """Seconds spent on each result before it is booked (a slower back office)."""


async def seat_player(client: AsyncTableClient, table_id: str, seat: int,
                      player_id: str) -> SeatHandle:
    """Seat one platform player.

    Today the platform joins on the player's behalf with its API key, and keeps the seat
    token for the player's client. With join grants, the platform instead signs a short-lived
    grant naming the table, the seat and the ``player_id``, hands it to the player's own
    client, and that client joins with it: this function is the one place to change.
    """
    return await client.join(table_id, seat=seat, name=player_id)


async def open_tables(client: AsyncTableClient, ledger: Ledger, plan: Plan) -> None:
    """Create the tables the ledger does not hold yet, two players each. A table created but
    not yet in the ledger when the platform is killed is left alone: nobody plays it, so it
    never ends and never reaches the feed."""
    for number in range(len(ledger.tables()), plan.tables):
        table = await client.create_table(plan.variant, {"players": 2, **(plan.options or {})})
        names = [plan.players[(number + k) % len(plan.players)] for k in range(2)]
        seats = [await seat_player(client, table.table_id, k, name)
                 for k, name in enumerate(names)]
        ledger.add_table(table.table_id, [SeatRecord(s.seat, name, s.token)
                                          for s, name in zip(seats, names, strict=True)])


async def play_table(client: AsyncTableClient, table_id: str, seats: list[SeatRecord]) -> None:
    """Two scripted players: whoever is to move picks a random legal move."""
    tokens = {s.seat: s.token for s in seats}
    rng = random.Random(table_id)
    while True:
        view = await client.view(table_id)
        if view.HasField("outcome"):
            return
        seat = view.to_move[0]
        own = await client.view(table_id, tokens[seat])
        if not own.legal_moves:
            continue
        move = rng.choice(list(own.legal_moves))
        handle = SeatHandle(table_id, seat, tokens[seat])
        try:
            await client.submit(handle, move, own.version)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.ABORTED:  # stale: look again
                raise


async def book_results(client: AsyncTableClient, ledger: Ledger, plan: Plan) -> None:
    """Follow the feed from the ledger's cursor until every table of the platform is booked."""
    if not ledger.unsettled():
        return
    async for result in client.watch_results(ledger.cursor):
        if plan.apply_delay:
            await asyncio.sleep(plan.apply_delay)
        ledger.apply(result)
        if not ledger.unsettled():
            return


async def run(address: str, api_key: str, ledger: Ledger, plan: Plan) -> None:
    async with AsyncTableClient(address, api_key=api_key, retries=8) as client:
        await open_tables(client, ledger, plan)
        tables = ledger.tables()
        players = [asyncio.create_task(play_table(client, t, tables[t]))
                   for t in ledger.unsettled()]
        try:
            await book_results(client, ledger, plan)
        finally:
            for task in players:
                task.cancel()
            await asyncio.gather(*players, return_exceptions=True)
