"""Seat churn is charged to the caller, not the table: a stranger's join/leave loop uses up his
own budget (his address block; a bound seat's player too) and never locks a table for the
others. Two addresses over a real port: 127.0.0.1 and ::1 on a dual-stack listener."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient
from tests.helpers import details
from tests.security.helpers import TwoAddresses, two_addresses
from tests.service.helpers import expect_error

KEY = "platform-key"


def ahead_by(seconds: float) -> Callable[[], float]:
    """A monotonic clock ``seconds`` ahead of the real one."""
    return lambda: time.monotonic() + seconds


@pytest.fixture
async def pair() -> AsyncIterator[TwoAddresses]:
    async for made in two_addresses():
        yield made


async def test_a_join_leave_loop_locks_no_table(pair: TwoAddresses) -> None:
    """The attack: 128 join/leave calls from one address with no key (the default budget,
    64 seats given up in 10 minutes)."""
    table = (await pair.stranger.create_table("highcard", {"players": 2})).table_id
    budget = pair.server.manager.settings.limits.max_seat_changes
    for _ in range(budget):
        await pair.stranger.leave(await pair.stranger.join(table, 0, commit=False))
    refused = await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                 pair.stranger.join(table, commit=False))
    assert details(refused)["reason"] == "SEAT_CHURN"
    # the budget is his, not the table's: another table refuses him too ...
    other_table = (await pair.other.create_table("highcard", {"players": 2})).table_id
    await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED,
                       pair.stranger.join(other_table, commit=False))
    # ... and the table he churned takes the others' joins at once
    seats = [await pair.other.join(table, commit=False) for _ in range(2)]
    assert [seat.seat for seat in seats] == [0, 1]
    view = await pair.other.view(table, seats[0].token)
    assert view.version == 1 + 2 * budget + 2 + 1  # his loop, two joins, the start


async def test_the_budget_refills_over_the_window() -> None:
    async for made in two_addresses(max_seat_changes=3):
        table = (await made.stranger.create_table("highcard", {"players": 2})).table_id
        for _ in range(3):
            await made.stranger.leave(await made.stranger.join(table, commit=False))
        await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED,
                           made.stranger.join(table, commit=False))
        churn = made.server.manager.commands.churn
        window = made.server.manager.settings.limits.seat_churn_window
        churn.clock = ahead_by(window / 3 + 1)  # one seat earned back
        await made.stranger.leave(await made.stranger.join(table, commit=False))
        await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED,
                           made.stranger.join(table, commit=False))


async def test_a_platform_player_is_charged_not_the_platforms_address() -> None:
    """The platform seats many players from one address with its API key: only the bound
    player's budget is used, so one churning player blocks neither the platform nor others."""
    async for made in two_addresses(max_seat_changes=3, api_key=KEY):
        async with AsyncTableClient(made.server.address, api_key=KEY, retries=0) as platform:
            table = (await platform.create_table("highcard", {"players": 4})).table_id
            for _ in range(3):
                await platform.leave(await platform.join(table, player_id="acct-1",
                                                         commit=False))
            refused = await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED, platform.join(
                table, player_id="acct-1", commit=False))
            assert details(refused)["reason"] == "SEAT_CHURN"
            assert "this player" in (refused.details() or "")
            for player in ("acct-2", "acct-3"):
                await platform.leave(await platform.join(table, player_id=player,
                                                         commit=False))
            assert (await platform.join(table, player_id="acct-2", commit=False)).seat == 0
