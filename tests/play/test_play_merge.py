"""How a Play stream merges its two sources (service.play.play), driven by hand with fake
updates and moves: the order its messages go out in, how far ahead it takes updates, and the
answers it still sends when its updates end or fail."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bezique.service import play, translate
from bezique.service.errors import InvalidArgument, Unavailable
from bezique.v1 import table_service_pb2 as pb
from tests.play.helpers import drained


class Updates:
    """An update source the test feeds by hand; counts what the stream took from it."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[int, bytes] | Exception | None] = asyncio.Queue()
        self.taken = 0
        self.closed = False

    def put(self, version: int) -> None:
        self.queue.put_nowait((version, f"u{version}".encode()))

    async def iterate(self) -> AsyncIterator[tuple[int, bytes]]:
        try:
            while True:
                item = await self.queue.get()
                if item is None:
                    return
                if isinstance(item, Exception):
                    raise item
                self.taken += 1
                yield item
        finally:
            self.closed = True


class Moves:
    """The client's side: moves sent one by one, each answered by ``answers``."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
        self.answers: dict[str, asyncio.Future[play.Answered]] = {}
        self.read: list[str] = []

    def send(self, request_id: str) -> None:
        self.queue.put_nowait(pb.PlayRequest(move=pb.PlayMove(request_id=request_id)))

    def answer_with(self, request_id: str, version: int) -> None:
        self.answers.setdefault(request_id, asyncio.get_running_loop().create_future()
                                ).set_result(play.Answered(f"a:{request_id}".encode(), version))

    def requests(self) -> AsyncIterator[pb.PlayRequest]:
        return drained(self.queue)

    async def answer(self, move: pb.PlayMove) -> play.Answered:
        self.read.append(move.request_id)
        future = self.answers.setdefault(move.request_id,
                                         asyncio.get_running_loop().create_future())
        return await future


async def _settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


async def _next(stream: AsyncIterator[bytes]) -> bytes:
    return await asyncio.wait_for(anext(stream), 5)


async def test_a_taken_moves_answer_waits_for_the_update_of_its_version() -> None:
    updates, moves = Updates(), Moves()
    stream = play.play(moves.requests(), updates.iterate(), moves.answer, 0)
    first = asyncio.ensure_future(_next(stream))
    moves.send("m1")
    await _settle()
    moves.answer_with("m1", 1)  # answered before its update reached the stream
    await _settle()
    assert not first.done()
    updates.put(1)
    assert await first == b"u1"
    assert await _next(stream) == b"a:m1"
    await stream.aclose()
    assert updates.closed


async def test_with_answers_with_updates_the_waiting_answer_goes_in_its_updates_message(
        ) -> None:
    """The answer's serialized PlayResponse{result} is appended as field 3: one message that
    parses as the update and the answer; an answer whose update went out first comes alone."""
    updates, moves = Updates(), Moves()
    stream = play.play(moves.requests(), updates.iterate(), moves.answer, 0,
                       answers_with_updates=True)
    update = pb.PlayResponse(update=pb.WatchTableResponse(version=1)).SerializeToString()
    result = pb.PlayResult(request_id="m1", accepted=pb.SubmitMoveResponse(version=1))
    first = asyncio.ensure_future(_next(stream))
    moves.send("m1")
    await _settle()
    moves.answers["m1"].set_result(play.Answered(
        pb.PlayResponse(result=result).SerializeToString(), 1))
    await _settle()
    assert not first.done()
    updates.queue.put_nowait((1, update))
    both = pb.PlayResponse.FromString(await first)
    assert both.update.version == 1 and both.answer == result
    assert not both.HasField("result")
    updates.put(2)
    assert await _next(stream) == b"u2"
    moves.send("m2")
    moves.answer_with("m2", 2)  # its update is out already: the answer comes alone
    assert await _next(stream) == b"a:m2"
    await stream.aclose()


def test_only_a_result_can_ride_an_update() -> None:
    with pytest.raises(ValueError, match="only `result`"):
        translate.answer_beside_update(pb.PlayResponse(update=pb.WatchTableResponse()).SerializeToString())


async def test_answers_go_out_in_move_order_and_the_next_move_waits_for_the_last_answer(
        ) -> None:
    updates, moves = Updates(), Moves()
    stream = play.play(moves.requests(), updates.iterate(), moves.answer, 0)
    for request_id in ("m1", "m2"):
        moves.send(request_id)
    moves.answer_with("m1", 0)  # a refusal: sent at once, and the stream goes on
    moves.answer_with("m2", 0)
    assert await _next(stream) == b"a:m1"
    assert await _next(stream) == b"a:m2"
    assert moves.read == ["m1", "m2"]
    await stream.aclose()


async def test_the_pump_takes_at_most_a_few_updates_ahead_of_the_stream() -> None:
    """A client that reads nothing holds the updates back in the watch queue (where the
    caps end a stream that falls behind), not in an unbounded list of the stream's own."""
    updates, moves = Updates(), Moves()
    stream = play.play(moves.requests(), updates.iterate(), moves.answer, 0)
    for version in range(1, 51):
        updates.put(version)
    assert await _next(stream) == b"u1"
    await _settle()
    assert updates.taken <= 2 + play.UPDATES_AHEAD
    assert [await _next(stream) for _ in range(3)] == [b"u2", b"u3", b"u4"]
    await _settle()
    assert updates.taken <= 5 + play.UPDATES_AHEAD
    await stream.aclose()


async def test_when_the_updates_end_the_answer_to_a_move_in_hand_is_still_sent() -> None:
    updates, moves = Updates(), Moves()
    stream = play.play(moves.requests(), updates.iterate(), moves.answer, 0)
    moves.send("last")
    await _settle()
    updates.put(1)
    updates.queue.put_nowait(None)  # the game is over: the updates end
    assert await _next(stream) == b"u1"
    waiting = asyncio.ensure_future(_next(stream))
    await _settle()
    assert not waiting.done()  # the stream waits for the move in hand
    moves.answer_with("last", 1)
    assert await waiting == b"a:last"
    with pytest.raises(StopAsyncIteration):
        await _next(stream)


async def test_a_failure_of_the_updates_ends_the_stream_after_the_answers_worked_out() -> None:
    updates, moves = Updates(), Moves()
    stream = play.play(moves.requests(), updates.iterate(), moves.answer, 0)
    moves.send("m1")
    moves.answer_with("m1", 2)  # taken at version 2, whose update never comes
    updates.put(1)
    assert await _next(stream) == b"u1"
    await _settle()
    updates.queue.put_nowait(Unavailable("the table was reloaded"))
    assert await _next(stream) == b"a:m1"
    with pytest.raises(Unavailable):
        await _next(stream)
    assert updates.closed


async def test_a_malformed_request_ends_the_stream_after_what_was_worked_out() -> None:
    updates, moves = Updates(), Moves()
    stream = play.play(moves.requests(), updates.iterate(), moves.answer, 0)
    updates.put(1)
    assert await _next(stream) == b"u1"
    moves.queue.put_nowait(pb.PlayRequest(move=pb.PlayMove()))  # no request id
    with pytest.raises(InvalidArgument, match="request_id"):
        await _next(stream)
    assert updates.closed


async def test_a_client_that_stops_sending_still_gets_the_updates() -> None:
    updates, moves = Updates(), Moves()
    stream = play.play(moves.requests(), updates.iterate(), moves.answer, 0)
    moves.queue.put_nowait(None)  # half-closed
    await _settle()
    updates.put(1)
    updates.put(2)
    assert [await _next(stream), await _next(stream)] == [b"u1", b"u2"]
    await stream.aclose()


async def test_closing_the_stream_ends_both_of_its_tasks() -> None:
    updates, moves = Updates(), Moves()
    before = len(asyncio.all_tasks())
    stream = play.play(moves.requests(), updates.iterate(), moves.answer, 0)
    moves.send("m1")  # its answer never comes: the reader waits in answer()
    updates.put(1)
    assert await _next(stream) == b"u1"
    assert len(asyncio.all_tasks()) == before + 2
    await stream.aclose()
    await _settle()
    assert len(asyncio.all_tasks()) == before and updates.closed


async def test_a_cancelled_error_from_inside_the_updates_ends_the_stream() -> None:
    """A source's own CancelledError (an awaited future someone cancelled), not the stream
    cancelling its pump: it reaches the stream, which would otherwise wait forever."""
    async def updates() -> AsyncIterator[tuple[int, bytes]]:
        yield 1, b"u1"
        raise asyncio.CancelledError

    moves = Moves()
    stream = play.play(moves.requests(), updates(), moves.answer, 0)
    assert await _next(stream) == b"u1"
    with pytest.raises(asyncio.CancelledError):
        await _next(stream)


async def test_a_cancelled_error_from_inside_an_answer_ends_the_stream() -> None:
    """The move would otherwise never be answered, and the stream go on as if it were."""
    async def answer(move: pb.PlayMove) -> play.Answered:
        raise asyncio.CancelledError

    updates, moves = Updates(), Moves()
    stream = play.play(moves.requests(), updates.iterate(), answer, 0)
    moves.send("m1")
    with pytest.raises(asyncio.CancelledError):
        await _next(stream)
    assert updates.closed
