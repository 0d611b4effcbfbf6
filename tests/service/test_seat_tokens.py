"""Seat tokens with a life cycle, over a real port: ReissueSeatToken replaces a seat's token
and revokes the old one (its streams end), LeaveTable revokes, a token past
``--seat-token-ttl`` is refused and its streams end; all of it is in the log, so a restarted
server agrees."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.clients.verify import verify_history
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import details, highcard_registry, server_config
from tests.service.helpers import STACK, expect_error, stream_end, two_seats

KEY = "platform-key"


@pytest.fixture
async def keyed() -> AsyncIterator[RunningServer]:
    server = await start_server(server_config(api_key=KEY), highcard_registry())
    yield server
    await server.stop()


async def test_a_reissued_token_works_and_the_old_one_with_its_streams_stops(
        keyed: RunningServer) -> None:
    async with AsyncTableClient(keyed.address, api_key=KEY, retries=0) as platform:
        table_id, ann, bob = await two_seats(platform, stacked_shoe=STACK)
        watching = asyncio.Event()
        old_stream = asyncio.create_task(stream_end(platform, ann, watching))
        await asyncio.wait_for(watching.wait(), 10)
        new = await platform.reissue(table_id, ann.seat)
        assert new.token != ann.token and new.expires is None
        error = await asyncio.wait_for(old_stream, 10)
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED
        assert details(error)["reason"] == "SEAT_TOKEN_REVOKED"
        refused = await expect_error(grpc.StatusCode.PERMISSION_DENIED,
                                     platform.view(table_id, ann.token))
        assert details(refused)["reason"] == "SEAT_TOKEN_REVOKED"
        own = await platform.view(table_id, new.token)
        assert own.viewer_seat == ann.seat and len(own.hand) == 3
        # the game goes on with the new token, and the finished game verifies
        handles = {ann.seat: SeatHandle(table_id, ann.seat, new.token), bob.seat: bob}
        while not (view := await platform.view(table_id)).HasField("outcome"):
            seat = handles[view.to_move[0]]
            mine = await platform.view(table_id, seat.token)
            await platform.submit(seat, mine.legal_moves[0], mine.version)
        history = await platform.history(table_id)
        assert [e.entry_kind for e in history.entries].count("token_reissued") == 1
        verify_history(history, highcard_registry(), allow_test_settings=True)


async def test_reissue_needs_the_api_key_and_a_players_seat(keyed: RunningServer) -> None:
    async with AsyncTableClient(keyed.address, api_key=KEY, retries=0) as platform, \
            AsyncTableClient(keyed.address, retries=0) as player, \
            AsyncTableClient(keyed.address, api_key="wrong", retries=0) as forger:
        table = await platform.create_table("highcard", {"players": 3}, bots={2: "random"})
        ann = await platform.join(table.table_id, 0, "ann")
        await expect_error(grpc.StatusCode.UNAUTHENTICATED, player.reissue(table.table_id, 0))
        await expect_error(grpc.StatusCode.PERMISSION_DENIED, forger.reissue(table.table_id, 0))
        for seat, code in ((1, grpc.StatusCode.FAILED_PRECONDITION),  # free
                           (2, grpc.StatusCode.FAILED_PRECONDITION),  # a bot's
                           (3, grpc.StatusCode.INVALID_ARGUMENT)):  # no such seat
            await expect_error(code, platform.reissue(table.table_id, seat))
        assert (await platform.view(table.table_id, ann.token)).viewer_seat == 0


async def test_reissue_is_refused_by_a_server_without_an_api_key(
        client: AsyncTableClient) -> None:
    table_id, ann, _ = await two_seats(client)
    error = await expect_error(grpc.StatusCode.PERMISSION_DENIED,
                               client.reissue(table_id, ann.seat))
    assert "--api-key" in (error.details() or "")
    assert (await client.view(table_id, ann.token)).viewer_seat == ann.seat


async def test_a_reissue_keeps_the_turn_clock(keyed: RunningServer) -> None:
    async with AsyncTableClient(keyed.address, api_key=KEY, retries=0) as platform:
        table_id, ann, _ = await two_seats(platform, stacked_shoe=STACK, turn_seconds=600)
        before = await platform.view(table_id)
        await platform.reissue(table_id, ann.seat)
        after = await platform.view(table_id)
        assert after.version == before.version + 1
        assert after.deadline == before.deadline and after.HasField("deadline")


async def test_leaving_revokes_the_token(keyed: RunningServer) -> None:
    async with AsyncTableClient(keyed.address, api_key=KEY, retries=0) as platform:
        table = await platform.create_table("highcard", {"players": 2})
        ann = await platform.join(table.table_id, 0, "ann")
        await platform.leave(ann)
        error = await expect_error(grpc.StatusCode.PERMISSION_DENIED,
                                   platform.view(table.table_id, ann.token))
        assert details(error)["reason"] == "SEAT_TOKEN_REVOKED"


async def test_an_expired_token_is_refused_and_its_stream_ends() -> None:
    ttl = 1.5
    server = await start_server(server_config(api_key=KEY, seat_token_ttl=ttl),
                                highcard_registry())
    try:
        async with AsyncTableClient(server.address, api_key=KEY, retries=0) as platform:
            table = await platform.create_table("highcard", {"players": 2}, stacked_shoe=STACK)
            before = time.time()
            ann = await platform.join(table.table_id, 0, "ann")
            assert ann.expires is not None and before + ttl - 1 <= ann.expires <= time.time() + ttl
            watching = asyncio.Event()
            stream = asyncio.create_task(stream_end(platform, ann, watching))
            await asyncio.wait_for(watching.wait(), 10)
            assert time.time() < ann.expires  # the stream was open before the expiry
            # nothing happens at the table: the stream ends at the expiry all the same
            error = await asyncio.wait_for(stream, 15)
            assert time.time() >= ann.expires
            assert error.code() == grpc.StatusCode.UNAUTHENTICATED
            assert details(error)["reason"] == "SEAT_TOKEN_EXPIRED"
            refused = await expect_error(grpc.StatusCode.UNAUTHENTICATED,
                                         platform.view(table.table_id, ann.token))
            assert details(refused)["reason"] == "SEAT_TOKEN_EXPIRED"
            fresh = await platform.reissue(table.table_id, 0)
            assert fresh.expires is not None and fresh.expires > time.time()
            assert (await platform.view(table.table_id, fresh.token)).viewer_seat == 0
    finally:
        await server.stop()


async def test_token_state_survives_a_restart(tmp_path: Path) -> None:
    """The reissue and the expiry are log entries: a new process over the same file agrees."""
    config = server_config(api_key=KEY, store=f"sqlite:{tmp_path / 'tables.sqlite'}",
                           seat_token_ttl=3600)
    server = await start_server(config, highcard_registry())
    async with AsyncTableClient(server.address, api_key=KEY, retries=0) as platform:
        table_id, ann, bob = await two_seats(platform, stacked_shoe=STACK)
        new = await platform.reissue(table_id, ann.seat)
    await server.stop()
    server = await start_server(config, highcard_registry())
    try:
        async with AsyncTableClient(server.address, api_key=KEY, retries=0) as platform:
            error = await expect_error(grpc.StatusCode.PERMISSION_DENIED,
                                       platform.view(table_id, ann.token))
            assert details(error)["reason"] == "SEAT_TOKEN_REVOKED"
            assert (await platform.view(table_id, new.token)).viewer_seat == ann.seat
            answer = await platform.stub.GetView(pb.GetViewRequest(table_id=table_id),
                                                 metadata=(("authorization",
                                                            f"Bearer {bob.token}"),))
            assert answer.view.viewer_seat == bob.seat
    finally:
        await server.stop()
