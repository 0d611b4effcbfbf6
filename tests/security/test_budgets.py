"""One peer address has one budget whatever seats it holds: the seat tokens an address mints
by joining open seats never raise what it may send in total (calls and stream opens alike)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import details, highcard_registry, server_config

SEATS = 24


@pytest.fixture
async def limited() -> AsyncIterator[RunningServer]:
    """A server allowing 1 call a second per caller after a burst of 40: enough for one
    address to take 24 seats (8 tables of 4 seats, 3 taken each: none starts)."""
    running = await start_server(server_config(rate_limit=1, rate_burst=40),
                                 highcard_registry())
    yield running
    await running.stop()


async def take_seats(client: AsyncTableClient) -> list[SeatHandle]:
    seats = []
    for _ in range(SEATS // 3):
        table = await client.create_table("highcard", {"players": 4})
        for _ in range(3):
            seats.append(await client.join(table.table_id, commit=False))
    return seats


async def passed(calls: list[object]) -> int:
    """How many of the calls (awaitables) pass; every refusal must be RATE_LIMITED."""
    count = 0
    for call in calls:
        try:
            await call  # type: ignore[misc]
            count += 1
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert details(error)["reason"] == "RATE_LIMITED"
    return count


async def test_minted_seat_tokens_do_not_multiply_an_address_budget(
        limited: RunningServer) -> None:
    async with AsyncTableClient(limited.address, retries=0) as client:
        seats = await take_seats(client)  # 32 of the address's 40
        calls = [client.stub.GetHistory(pb.GetHistoryRequest(table_id=seat.table_id),
                                        metadata=(("authorization", f"Bearer {seat.token}"),))
                 for seat in seats * 2]
        got = await passed(calls)
        # the address has about 8 calls left (and earns 1 a second): 48 were sent, one per
        # seat would already be 24 (each seat's own bucket alone let all 48 pass)
        assert got < SEATS, f"{got} of {len(calls)} seat calls passed one address's budget"
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await client.list_variants()  # the address itself is spent too
        assert details(refused.value)["reason"] == "RATE_LIMITED"


async def test_stream_opens_are_charged_to_the_address_too(limited: RunningServer) -> None:
    async with AsyncTableClient(limited.address, retries=0) as client:
        seats = await take_seats(client)
        opened = 0
        for seat in seats:
            call = client.stub.WatchTable(pb.WatchTableRequest(table_id=seat.table_id),
                                          metadata=(("authorization", f"Bearer {seat.token}"),))
            try:
                await call.read()
                opened += 1
            except grpc.aio.AioRpcError as error:
                assert details(error)["reason"] == "RATE_LIMITED"
            finally:
                call.cancel()
        assert opened < SEATS // 2, f"{opened} streams opened past one address's budget"
