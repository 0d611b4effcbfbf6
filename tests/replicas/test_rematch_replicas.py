"""A rematch asked for on two replicas at once (PostgreSQL): both callers get the same new
table, created once (the store's create decides, the loser gets the winner's table)."""

from __future__ import annotations

import asyncio

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import RunningServer
from tests.service.helpers import play_out, two_seats


async def test_two_replicas_racing_for_a_rematch_get_one_table(
        replicas: list[RunningServer]) -> None:
    async with AsyncTableClient(replicas[0].address, retries=0) as a, \
            AsyncTableClient(replicas[1].address, retries=0) as b:
        table_id, ann, bob = await two_seats(a, entropy=b"")
        await play_out(a, table_id, ann, bob)
        for _ in range(3):  # several races; a fresh finished table each time
            first, second = await asyncio.gather(a.rematch(table_id), b.rematch(table_id))
            assert first.table_id == second.table_id
            assert sorted([first.existed, second.existed]) == [False, True]
            listed = [t.table_id for t in await a.list_tables()]
            assert listed.count(first.table_id) == 1
            ann = await a.join(first.table_id, 0, name="ann", commit=False)
            bob = await b.join(first.table_id, 1, name="bob", commit=False)
            await play_out(a, first.table_id, ann, bob)
            table_id = first.table_id
