"""Seat churn across replicas: the budgets are kept by each process, a join is checked on the
replica it reaches and a leave is charged on the replica it reaches. So one address that joined
through replica A and gave the seat up through replica B never spent the budget A checks: its
loop was unbounded (10 of 10 past a budget of 3) and could fill a waiting table's log
(LOG_FULL). Replica A now charges its joiner when it learns of the leave from the log."""

from __future__ import annotations

import grpc

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import start_server
from tests.helpers import details, highcard_registry, server_config


async def test_joining_through_one_replica_and_leaving_through_another_is_bounded(
        postgres_url: str) -> None:
    servers = [await start_server(server_config(store=postgres_url, max_seat_changes=3),
                                  highcard_registry()) for _ in range(2)]
    try:
        async with AsyncTableClient(servers[0].address, retries=0) as a, \
                AsyncTableClient(servers[1].address, retries=0) as b:
            table = (await a.create_table("highcard", {"players": 2})).table_id
            refused = 0
            for _ in range(10):
                try:
                    await b.leave(await a.join(table, 0, commit=False))
                except grpc.aio.AioRpcError as error:
                    assert details(error)["reason"] == "SEAT_CHURN"
                    refused += 1
            assert refused >= 10 - 2 * 3, f"{10 - refused} join/leave loops passed a budget of 3"
    finally:
        for server in servers:
            await server.stop()
