"""The platform's work: open its tables, hand each player a join grant, let the players' own
clients play, and book every result the feed delivers. Everything it must remember is in its
folder (the ledger and its grant key), so it can be killed at any moment and started again
with the same arguments.

The platform never holds a seat token: a player's client joins with the grant and keeps its
token. After a restart the players' devices are new (the scripted players live in this
process): for a seat already taken the platform reissues the token to the player's new device
(ReissueSeatToken, which revokes the old one), for a free seat it signs a new grant.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique_platform.grants import GrantSigner
from bezique_platform.ledger import Ledger, SeatRecord, TableRecord
from bezique_platform.players import ScriptedPlayer

UNFILLED_NOTE = "seats not taken in time"


@dataclass(frozen=True)
class Plan:
    """What the platform runs: how many tables of which game, who plays, and how."""

    tables: int
    players: Sequence[str]
    variant: str = "quart-bezique"
    options: Mapping[str, str] | None = None
    buy_in: int = 0
    """Chips each seat buys in for (betting variants; 0: the table's default stack)."""
    apply_delay: float = 0.0
    """Seconds spent on each result before it is booked (a slower back office)."""
    fill_seconds: float = 30.0
    """A table whose seats are not all taken this long after its grants went out is
    aborted."""
    grant_seconds: float = 60.0
    """How long a join grant is valid."""
    no_show: frozenset[str] = field(default_factory=frozenset)
    """Players who drop their grants (their tables are aborted before the start)."""
    withhold: frozenset[str] = field(default_factory=frozenset)
    """Players who never reveal their entropy (their tables end by the reveal deadline)."""
    think: float = 0.0
    """Seconds each scripted player takes over a move."""


def pairing(plan: Plan, number: int) -> list[str]:
    """The two players of the platform's table ``number``: the list taken two at a time."""
    count = len(plan.players)
    return [plan.players[(2 * number) % count], plan.players[(2 * number + 1) % count]]


async def open_tables(client: AsyncTableClient, ledger: Ledger, plan: Plan) -> None:
    """Create the tables the ledger does not hold yet, and record each with its seats (the
    buy-ins leave the wallets then). A table created but not yet recorded when the platform
    is killed is left alone: nobody is granted a seat there, so it never ends. On a server
    with the grant key these tables take joins only with the platform's grants (or its API
    key): a stranger cannot sit in a seat meant for a player whose wallet paid for it."""
    for number in range(len(ledger.tables()), plan.tables):
        table = await client.create_table(plan.variant, {"players": 2, **(plan.options or {})})
        ledger.add_table(table.table_id, [SeatRecord(seat, player, plan.buy_in)
                                          for seat, player in enumerate(pairing(plan, number))])


async def open_lobby_table(client: AsyncTableClient, variant: str = "bezique-2p") -> str:
    """A practice table opened to anyone on purpose (``open_seats``): any client may join it
    without a grant or the API key, against the server's bot in seat 1. Never a table with
    buy-ins (the engine refuses to open one): nobody's wallet is at stake here, so the
    platform does not record it in the ledger."""
    table = await client.create_table(variant, bots={1: "heuristic"}, open_seats=True)
    return table.table_id


async def seat_players(client: AsyncTableClient, signer: GrantSigner,
                       players: Mapping[str, ScriptedPlayer], table: TableRecord
                       ) -> list[tuple[ScriptedPlayer, SeatHandle]]:
    """Give each seat of ``table`` to its player's client: a grant for a free seat, a
    reissued token for one taken before (the player's device changed)."""
    view = await client.view(table.table_id)
    if view.HasField("outcome"):
        return []  # ended while the platform was down: the feed books it
    seated: list[tuple[ScriptedPlayer, SeatHandle]] = []
    for record in table.seats:
        player = players[record.player_id]
        if view.seats[record.seat].occupied:
            handle: SeatHandle | None = await client.reissue(table.table_id, record.seat)
        else:
            grant = signer.sign(table.table_id, record.seat, record.player_id,
                                record.player_id, record.buy_in)
            handle = await player.join(table.table_id, grant)
        if handle is not None:
            seated.append((player, handle))
    return seated


async def filled(client: AsyncTableClient, table: TableRecord, deadline: float) -> bool:
    """Whether every seat of ``table`` is taken (or the table has ended) by ``deadline``."""
    while True:
        view = await client.view(table.table_id)
        if view.HasField("outcome") or all(seat.occupied for seat in view.seats):
            return True
        if time.time() >= deadline:
            return False
        await asyncio.sleep(0.1)


async def run_table(client: AsyncTableClient, signer: GrantSigner,
                    players: Mapping[str, ScriptedPlayer], table: TableRecord,
                    plan: Plan) -> None:
    """Once its players are free (each plays one table at a time), seat them, abort the table
    if they do not all come in time, and let them play to the end (a table whose reveal round
    times out ends by itself)."""
    async with contextlib.AsyncExitStack() as free:
        for name in sorted({seat.player_id for seat in table.seats}):  # one order: no deadlock
            await free.enter_async_context(players[name].busy)
        seated = await seat_players(client, signer, players, table)
        if not await filled(client, table, time.time() + plan.fill_seconds):
            with contextlib.suppress(grpc.aio.AioRpcError):  # ended meanwhile: nothing to abort
                await client.abort(table.table_id, note=UNFILLED_NOTE)
        await asyncio.gather(*(player.play(handle) for player, handle in seated))


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


async def run(address: str, api_key: str, home: Path, ledger: Ledger, plan: Plan) -> None:
    signer = GrantSigner.of_home(home, plan.grant_seconds)
    names = {player for number in range(plan.tables) for player in pairing(plan, number)}
    players = {name: ScriptedPlayer(name, address, no_show=name in plan.no_show,
                                    withhold=name in plan.withhold, think=plan.think)
               for name in names}
    async with AsyncTableClient(address, api_key=api_key, retries=8) as client:
        tasks: list[asyncio.Task[None]] = []
        try:
            await open_tables(client, ledger, plan)
            tables = ledger.tables()
            booking = asyncio.create_task(book_results(client, ledger, plan))
            tasks = [booking] + [asyncio.create_task(run_table(client, signer, players,
                                                               tables[t], plan))
                                 for t in ledger.unsettled()]
            while not booking.done():  # a table that fails fails the run, never hangs it
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    task.result()
                tasks = [task for task in tasks if not task.done()]
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for player in players.values():
                await player.close()
