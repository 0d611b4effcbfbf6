"""A seat's Play stream: WatchTable's updates and SubmitMove's answers on one two-way call.

The updates come from the generator WatchTable's come from (so the same caps, resume and
endings); this module only merges them with the answers to the moves read upstream. Moves are
read one at a time: each is answered, and its answer taken by the stream, before the next is
read, so a stream holds at most two answers unsent and never reads ahead (gRPC's flow control
holds back a client that sends faster). A taken move's result is sent after the update of the
version it reached (a client has the table at that version when it learns its move was
taken), and results go out in the order their moves came.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from bezique.service.errors import InvalidArgument
from bezique.v1 import table_service_pb2 as pb

T = TypeVar("T")


@dataclass(frozen=True)
class Answered:
    """One move's answer, a serialized PlayResponse; ``version``: the version a taken move
    reached (0 for a refusal), whose update goes out first."""

    data: bytes
    version: int


Answer = Callable[[pb.PlayMove], Awaitable[Answered]]
"""Answer one move as SubmitMove would (never raises for a refusal: it is the answer)."""


async def opening(requests: AsyncIterator[pb.PlayRequest]) -> pb.PlayOpen:
    """The stream's first message, which must be ``open``."""
    first = await anext(requests, None)
    if first is None or first.WhichOneof("kind") != "open":
        raise InvalidArgument("the first message of a Play stream must be `open` (the table "
                              "and from_version)", field="open")
    return first.open


async def play(requests: AsyncIterator[pb.PlayRequest],
               updates: AsyncIterator[tuple[int, bytes]], answer: Answer, from_version: int
               ) -> AsyncIterator[bytes]:
    """The stream's messages, serialized: ``updates`` (version, bytes, after
    ``from_version``) as they come, each move's answer in turn. Ends when ``updates`` does
    (after answering a move in hand), or with the error that ended them, or with the error
    of a malformed request (answers already worked out are sent first)."""
    reader = _Reader(requests, answer)
    next_update = asyncio.ensure_future(_step(updates))
    shown = from_version  # the version of the last update the client has
    held: Answered | None = None  # a taken move's answer, waiting for its update
    try:
        while True:
            waits: set[asyncio.Future[Any]] = {next_update}
            if held is None:
                waits.add(reader.next)
            if not reader.task.done():
                waits.add(reader.task)
            done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if next_update in done:
                try:
                    update = next_update.result()
                except BaseException:
                    for data in await reader.rest(held):
                        yield data
                    raise
                if update is None:  # the game is over and every update sent
                    for data in await reader.rest(held, settle=True):
                        yield data
                    return
                shown, data = update
                yield data
                next_update = asyncio.ensure_future(_step(updates))
                if held is not None and held.version <= shown:
                    yield held.data
                    held = None
            if held is None and reader.next.done():
                answered = reader.take()
                if answered.version > shown:
                    held = answered
                else:
                    yield answered.data
            if reader.task.done() and reader.task.exception() is not None:
                for data in await reader.rest(held):
                    yield data
                reader.task.result()  # raises the malformed request's error
    finally:
        next_update.cancel()
        with contextlib.suppress(BaseException):
            await next_update
        await reader.close()
        aclose = getattr(updates, "aclose", None)
        if aclose is not None:
            await aclose()


async def _step(updates: AsyncIterator[T]) -> T | None:
    """The next update, or ``None`` at the end (a task must not raise StopAsyncIteration)."""
    return await anext(updates, None)


class _Reader:
    """Reads the moves one at a time: each is answered, and its answer taken by the stream,
    before the next is read."""

    def __init__(self, requests: AsyncIterator[pb.PlayRequest], answer: Answer) -> None:
        self.next: asyncio.Future[Answered] = asyncio.get_running_loop().create_future()
        """The answer to hand over, once there is one."""
        self.answering = False
        """A move is read and its answer not worked out yet."""
        self._taken: asyncio.Future[None] | None = None
        self.task = asyncio.ensure_future(self._run(requests, answer))

    def take(self) -> Answered:
        """The answer :attr:`next` holds (call once it is done); the next move is read."""
        answered = self.next.result()
        self.next = asyncio.get_running_loop().create_future()
        if self._taken is not None and not self._taken.done():
            self._taken.set_result(None)
        return answered

    async def rest(self, held: Answered | None, *, settle: bool = False) -> list[bytes]:
        """Every answer worked out and not sent yet, in order (the stream is ending); with
        ``settle``, after waiting for the answer to a move in hand."""
        out = [held.data] if held is not None else []
        if settle and self.answering and not self.task.done():
            pending: set[asyncio.Future[Any]] = {self.next, self.task}
            await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        if self.next.done() and not self.next.cancelled():
            out.append(self.take().data)
        return out

    async def close(self) -> None:
        self.task.cancel()
        self.next.cancel()
        with contextlib.suppress(BaseException):
            await self.task

    async def _run(self, requests: AsyncIterator[pb.PlayRequest], answer: Answer) -> None:
        loop = asyncio.get_running_loop()
        async for request in requests:
            kind = request.WhichOneof("kind")
            if kind == "open":
                raise InvalidArgument("`open` is only the first message of a Play stream",
                                      field="open")
            if kind != "move":
                raise InvalidArgument("every message after `open` must be a `move`",
                                      field="move")
            if not request.move.request_id:
                raise InvalidArgument("move.request_id is required on a Play stream (the "
                                      "result carries it back)", field="move.request_id")
            self.answering = True
            try:
                answered = await answer(request.move)
            finally:
                self.answering = False
            self._taken = loop.create_future()
            self.next.set_result(answered)
            await self._taken
