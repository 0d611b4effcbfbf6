"""Races between two replicas on one PostgreSQL database, each as a real client would start
them: the final move against an abort, a move with a token being reissued."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Awaitable

import grpc

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.service.server import RunningServer
from bezique.v1 import table_service_pb2 as pb
from tests.replicas.helpers import KEY, first_results, open_table


async def _to_last_move(client: AsyncTableClient, table_id: str, seats: list[SeatHandle]
                        ) -> tuple[SeatHandle, pb.View]:
    """Play the first three of the four cards (2 seats, 2 each); the last seat and its view."""
    for played in range(4):
        view = await client.view(table_id)
        seat = seats[view.to_move[0]]
        own = await client.view(table_id, seat.token)
        if played == 3:
            return seat, own
        await client.submit(seat, own.legal_moves[0], own.version)
    raise AssertionError("unreachable")


async def _move(client: AsyncTableClient, seat: SeatHandle, own: pb.View, delay: float) -> int:
    await asyncio.sleep(delay)
    return (await client.submit(seat, own.legal_moves[0], own.version)).version


async def _reissue(client: AsyncTableClient, table_id: str, seat: int, delay: float
                   ) -> pb.ReissueSeatTokenResponse:
    await asyncio.sleep(delay)
    answer: pb.ReissueSeatTokenResponse = await client.stub.ReissueSeatToken(
        pb.ReissueSeatTokenRequest(table_id=table_id, seat=seat), metadata=(("x-api-key", KEY),))
    return answer


async def test_an_abort_racing_the_final_move_gives_one_result(
        keyed_replicas: list[RunningServer]) -> None:
    """The last move on one replica and AbortTable on the other, at once: one of them ends the
    table, and the results feed holds the table once, with the end its history shows."""
    replicas = keyed_replicas
    async with AsyncTableClient(replicas[0].address, api_key=KEY, retries=0) as one, \
            AsyncTableClient(replicas[1].address, api_key=KEY, retries=0) as two:
        ended: list[tuple[str, str]] = []
        for round_ in range(8):
            table_id, seats = await open_table(one)
            seat, own = await _to_last_move(one, table_id, seats)
            await two.view(table_id)  # the other replica holds the table too

            # the start shifted from round to round, so that each side wins some
            move, abort = await asyncio.gather(_move(one, seat, own, round_ * 0.004),
                                               two.abort_table(table_id), return_exceptions=True)
            won = [r for r in (move, abort) if not isinstance(r, BaseException)]
            assert len(won) == 1, (move, abort)
            lost = abort if won[0] is move else move
            assert isinstance(lost, grpc.aio.AioRpcError), lost
            assert lost.code() in (grpc.StatusCode.FAILED_PRECONDITION,
                                   grpc.StatusCode.ABORTED), lost.details()
            history = await two.history(table_id)
            assert history.finished
            ended.append((table_id, history.outcome.reason))
        for client in (one, two):
            results = [r async for r in first_results(client.watch_results(0), len(ended))]
            assert [(r.table_id, r.reason) for r in results] == ended
            cursors = [r.cursor for r in results]
            assert cursors == sorted(set(cursors))
            late = client.watch_results(results[-1].cursor)
            try:
                extra = await asyncio.wait_for(anext(aiter(late)), 1.0)
            except TimeoutError:
                extra = None
            assert extra is None, f"a result after the last table: {extra}"


async def test_a_move_with_a_token_being_reissued_is_logged_before_the_reissue(
        keyed_replicas: list[RunningServer]) -> None:
    """A move with the old token on one replica while the other reissues it: either the move
    is in the log before the token_reissued entry, or it is refused; never after it."""
    replicas = keyed_replicas
    async with AsyncTableClient(replicas[0].address, api_key=KEY, retries=0) as one, \
            AsyncTableClient(replicas[1].address, api_key=KEY, retries=0) as two:
        for round_ in range(8):
            table_id, seats = await open_table(one)
            view = await one.view(table_id)
            seat = seats[view.to_move[0]]
            own = await one.view(table_id, seat.token)
            await two.view(table_id)

            moved, reissued = await asyncio.gather(
                _move(one, seat, own, 0.0), _reissue(two, table_id, seat.seat, round_ * 0.002),
                return_exceptions=True)
            assert isinstance(reissued, pb.ReissueSeatTokenResponse), reissued
            if isinstance(moved, int):
                assert moved < reissued.version
            else:
                assert isinstance(moved, grpc.aio.AioRpcError), moved
            again = await asyncio.gather(
                *(client.submit(seat, own.legal_moves[0], own.version + 10)
                  for client in (one, two)), return_exceptions=True)
            for refused in again:
                assert isinstance(refused, grpc.aio.AioRpcError), refused
                assert refused.code() in (grpc.StatusCode.PERMISSION_DENIED,
                                          grpc.StatusCode.UNAUTHENTICATED), refused.details()


async def test_reveals_at_once_on_two_replicas_both_succeed(
        keyed_replicas: list[RunningServer]) -> None:
    """Both seats reveal at the same moment, each through its own replica (as two players'
    clients do when the last seat is taken). A reveal carries no version, so the one that lost
    the compare-and-set was answered ABORTED 'get the view again and resubmit', which the SDK
    (it retries no ABORTED) raised to its caller; the server now catches up and takes it."""
    replicas = keyed_replicas
    async with AsyncTableClient(replicas[0].address, api_key=KEY, retries=0) as one, \
            AsyncTableClient(replicas[1].address, retries=0) as two:
        for round_ in range(8):
            table = await one.create_table("highcard", {"players": 2, "hand_size": 2})
            secrets_ = [secrets.token_bytes(32) for _ in range(2)]
            tokens = [(await client.stub.JoinTable(pb.JoinTableRequest(
                table_id=table.table_id, seat=seat,
                entropy_commitment=hashlib.sha256(secrets_[seat]).digest()))).seat_token
                for seat, client in enumerate((one, two))]
            await one.view(table.table_id)
            await two.view(table.table_id)  # each replica holds the table in its round
            answers = await asyncio.gather(*(
                _later(client.stub.RevealEntropy(
                    pb.RevealEntropyRequest(table_id=table.table_id, entropy=secrets_[seat]),
                    metadata=(("authorization", f"Bearer {tokens[seat]}"),)),
                       (round_ % 4) * 0.002 * seat)
                for seat, client in enumerate((one, two))), return_exceptions=True)
            for answer in answers:
                assert isinstance(answer, pb.RevealEntropyResponse), answer
            history = await one.history(table.table_id)
            kinds = [e.entry_kind for e in history.entries]
            assert kinds == ["created", "joined", "joined", "revealed", "revealed", "started"]


async def _later(call: Awaitable[pb.RevealEntropyResponse], delay: float
                 ) -> pb.RevealEntropyResponse:
    await asyncio.sleep(delay)
    return await call
