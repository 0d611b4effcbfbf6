"""Seat churn charged to the caller who leaves, checked on the caller who joins: a stranger who
joins from one address and leaves from another never spends the budget his joins are checked
against, so his loop is unbounded and fills a waiting table's log until nobody can join it
(LOG_FULL). Two addresses over a real port: 127.0.0.1 and ::1 on a dual-stack listener."""

from __future__ import annotations

import grpc

from tests.helpers import details
from tests.security.helpers import two_addresses
from tests.service.helpers import expect_error


async def test_joining_here_and_leaving_there_is_charged_to_the_joiner() -> None:
    async for made in two_addresses(max_seat_changes=3, max_log_entries=60):
        table = (await made.stranger.create_table("highcard", {"players": 2})).table_id
        # the seat is taken from 127.0.0.1; its token is handed to ::1, which gives it up
        for _ in range(3):
            await made.other.leave(await made.stranger.join(table, 0, commit=False))
        refused = await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                     made.stranger.join(table, 0, commit=False))
        assert details(refused)["reason"] == "SEAT_CHURN"


async def test_a_split_loop_does_not_fill_a_waiting_tables_log() -> None:
    """The harm of the loop: every join and leave is a log entry, so an unbounded loop fills a
    waiting table's log and nobody can join it any more (LOG_FULL)."""
    async for made in two_addresses(max_seat_changes=3, max_log_entries=40):
        table = (await made.stranger.create_table("highcard", {"players": 2})).table_id
        refused = 0
        for _ in range(30):
            try:
                await made.other.leave(await made.stranger.join(table, 0, commit=False))
            except grpc.aio.AioRpcError as error:
                assert details(error)["reason"] == "SEAT_CHURN"
                refused += 1
        assert refused == 27
        view = await made.stranger.view(table)
        assert view.version == 1 + 2 * 3  # created, then three joins and leaves: no more
