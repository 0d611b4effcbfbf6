"""The SDK's Play session over a real port: a game played by every seat, refusals raised as
SubmitMove raises them, a cut stream resumed, and the ends that cannot be resumed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest

from bezique.clients.sdk import (
    AsyncTableClient,
    PlaySession,
    error_reason,
    legal_moves_now,
)
from bezique.service.server import RunningServer, start_server
from bezique.service.watch import BEHIND
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import details, eventually, highcard_registry, server_config
from tests.service.helpers import STACK, STARTED, expect_error, two_seats


async def seat_plays(session: PlaySession) -> list[int]:
    """Play the session's seat (its first legal move each turn) until the game is over; the
    versions of the updates it received."""
    seen = []
    async for update in session:
        seen.append(update.version)
        view = update.view
        if update.HasField("view") and view.legal_moves:
            answer = await session.move(view.legal_moves[0], view.version)
            assert answer.version == view.version + 1 and not answer.duplicate
            # the update of the move's version was received before its answer
            assert session.last >= answer.version and session.view is not None
    return seen


async def test_every_seat_plays_a_game_with_a_session(client: AsyncTableClient) -> None:
    table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
    async with client.play(ann) as first, client.play(bob) as second:
        seen = await asyncio.wait_for(asyncio.gather(seat_plays(first), seat_plays(second)), 30)
    final = await client.view(table_id)
    assert final.HasField("outcome")
    assert seen[0] == seen[1] == list(range(1, final.version + 1))


async def test_a_refusal_raises_what_submit_raises(client: AsyncTableClient) -> None:
    table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
    view = await client.view(table_id)
    mover = ann if view.to_move[0] == ann.seat else bob
    other = bob if mover is ann else ann
    mine = await client.view(table_id, mover.token)
    theirs = await client.view(table_id, other.token)
    wrong = pb.Move(kind="play", cards=[theirs.hand[0]])
    unary = await expect_error(grpc.StatusCode.FAILED_PRECONDITION,
                               client.submit(mover, wrong, mine.version))
    async with client.play(mover) as session:
        streamed = await expect_error(grpc.StatusCode.FAILED_PRECONDITION,
                                      session.move(wrong, mine.version))
        assert streamed.details() == unary.details()
        assert error_reason(streamed) == error_reason(unary) == pb.ERROR_REASON_ILLEGAL_MOVE
        assert legal_moves_now(streamed) == legal_moves_now(unary) != []
        stale = await expect_error(grpc.StatusCode.ABORTED,
                                   session.move(mine.legal_moves[0], mine.version - 1))
        assert details(stale)["reason"] == "STALE_VERSION"
        # the session goes on
        taken = await session.move(mine.legal_moves[0], mine.version)
        assert taken.version == mine.version + 1


async def test_a_session_resumes_a_cut_stream(server: RunningServer) -> None:
    async with AsyncTableClient(server.address, retries=3, backoff=0.01) as client:
        table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
        async with client.play(ann) as first, client.play(bob) as second:
            live = await server.manager.table(table_id)
            await eventually(lambda: first.last == second.last == STARTED
                             and len(live.watchers) == 2, what="both streams to be live")
            server.manager.hub.end_all(live, BEHIND)  # cut as a slow consumer's stream is
            seen = await asyncio.wait_for(
                asyncio.gather(seat_plays(first), seat_plays(second)), 30)
        final = await client.view(table_id)
        assert final.HasField("outcome")
        # every update once, in order, across the cut
        assert seen[0] == seen[1] == list(range(1, final.version + 1))


async def test_a_move_after_the_end_is_answered_as_submit_move_would(
        client: AsyncTableClient) -> None:
    table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
    async with client.play(ann) as first, client.play(bob) as second:
        await asyncio.wait_for(asyncio.gather(seat_plays(first), seat_plays(second)), 30)
        final = await client.view(table_id, ann.token)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await first.move(pb.Move(kind="play"), final.version)
    assert error_reason(refused.value) == pb.ERROR_REASON_ILLEGAL_MOVE
    assert "the game is over" in (refused.value.details() or "")


@pytest.fixture
async def platform() -> AsyncIterator[AsyncTableClient]:
    server = await start_server(server_config(api_key="key"), highcard_registry())
    async with AsyncTableClient(server.address, api_key="key", retries=3,
                                backoff=0.01) as client:
        yield client
    await server.stop()


async def test_a_reissued_token_ends_the_session_with_the_stream_error(
        platform: AsyncTableClient) -> None:
    table_id, ann, _ = await two_seats(platform, stacked_shoe=STACK)
    async with platform.play(ann) as session:
        await eventually(lambda: session.last == STARTED, what="the stream to be live")
        await platform.reissue(table_id, ann.seat)
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            async for _ in session:
                pass
        assert details(ended.value)["reason"] == "SEAT_TOKEN_REVOKED"
        # and a move on the ended session raises the same error
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await session.move(pb.Move(kind="play"), STARTED)
        assert refused.value is ended.value


async def test_a_session_is_used_inside_async_with(client: AsyncTableClient) -> None:
    _, ann, _ = await two_seats(client)
    session = client.play(ann)
    with pytest.raises(RuntimeError, match="async with"):
        await session.move(pb.Move(kind="play"), STARTED)


async def test_the_sync_client_plays_a_seat_over_play(server: RunningServer) -> None:
    """The sync SDK's session: every seat on its own stream, each moving when its view says
    so, until the game is over (the sync client runs in a thread: the server is this loop's)."""
    outcome = await asyncio.wait_for(asyncio.to_thread(_play_synchronously, server.address), 60)
    assert outcome.reason


def _play_synchronously(address: str) -> pb.Outcome:
    from bezique.clients.sdk import TableClient

    with TableClient(address, retries=0) as client:
        table = client.create_table("highcard", {"players": 2}, stacked_shoe=STACK)
        seats = [client.join(table.table_id, name=name) for name in ("ann", "bob")]
        sessions = [client.play(seat) for seat in seats]
        for session in sessions:
            session.__enter__()
        try:
            updates = [iter(session) for session in sessions]
            while not (view := client.view(table.table_id)).HasField("outcome"):
                seat = view.to_move[0]
                while (mine := sessions[seat].view) is None or mine.version < view.version:
                    next(updates[seat])
                answer = sessions[seat].move(mine.legal_moves[0], mine.version)
                if answer.version != view.version + 1:
                    raise AssertionError(f"{answer.version} after {view.version}")
        finally:
            for session in sessions:
                session.__exit__(None, None, None)
        return view.outcome
