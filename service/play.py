"""A seat's Play stream: WatchTable's updates and SubmitMove's answers on one two-way call.

The updates come from the generator WatchTable's come from (so the same caps, resume and
endings); this module only merges them with the answers to the moves read upstream. Two
long-lived tasks feed one queue the stream sends from: a pump that takes the updates (at most
:data:`UPDATES_AHEAD` waiting, so a slow client still falls behind in the watch queue, where
the caps are) and a reader that reads the moves one at a time. Each move is answered, and its
answer sent, before the next is read, so the stream never reads ahead (gRPC's flow control
holds back a client that sends faster). A taken move's answer is sent after the update of the
version it reached (a client has the table at that version when it learns its move was
taken), and answers go out in the order their moves came.

Per update this costs one wake of the pump and one of the stream, where a task made per
update and ``asyncio.wait`` over the two sources cost about three times as much.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from bezique.service import translate
from bezique.service.errors import InvalidArgument
from bezique.v1 import table_service_pb2 as pb

SETTLE_SECONDS = 1.0
"""How long a stream the server ends waits for the answer to a move in hand. A command takes
milliseconds; the bound keeps a stalled store from holding the stream open, and a shutdown's
ending (its status, where to resume) within the grace period. Past it the stream ends without
that answer, and the client sends the move again with its request id."""

UPDATES_AHEAD = 4
"""Updates the pump takes before the stream has sent them; then it waits (the watch queue
behind it fills, and a stream that falls that far behind is ended BEHIND, as WatchTable's)."""


@dataclass(frozen=True)
class Answered:
    """One move's answer, a serialized PlayResponse; ``version``: the version a taken move
    reached (0 for a refusal), whose update goes out first."""

    data: bytes
    version: int


@dataclass(frozen=True)
class _Failed:
    """A source's error: the stream ends with it, once the answers worked out are sent."""

    error: BaseException


class _Over:
    """The updates ended: the game is over and every update was sent."""


_OVER = _Over()

Answer = Callable[[pb.PlayMove], Awaitable[Answered]]
"""Answer one move as SubmitMove would (never raises for a refusal: it is the answer)."""

Update = tuple[int, bytes]
Item = Update | Answered | _Failed | _Over


async def opening(requests: AsyncIterator[pb.PlayRequest]) -> pb.PlayOpen:
    """The stream's first message, which must be ``open``."""
    first = await anext(requests, None)
    if first is None or first.WhichOneof("kind") != "open":
        raise InvalidArgument("the first message of a Play stream must be `open` (the table "
                              "and from_version)", field="open")
    return first.open


class _Queue:
    """What the stream sends next, put by the pump and the reader; read by the stream alone."""

    __slots__ = ("items", "room", "updates", "waiter")

    def __init__(self) -> None:
        self.items: list[Item] = []
        """In order; a list, not a deque: it holds a few items at most (the pump's
        :data:`UPDATES_AHEAD` and an answer), and an empty deque costs every waiting stream
        600 bytes more."""
        self.updates = 0
        """Updates in ``items``."""
        self.waiter: asyncio.Future[None] | None = None
        """The stream, waiting for an item."""
        self.room: asyncio.Future[None] | None = None
        """The pump, waiting for the stream to send an update."""

    def put(self, item: Item) -> None:
        self.items.append(item)
        if isinstance(item, tuple):
            self.updates += 1
        _wake(self.waiter)

    def take(self) -> Item | None:
        """The next item, or None when there is none yet (then await :meth:`arrival`)."""
        if not self.items:
            return None
        self.waiter = None
        item = self.items.pop(0)
        if isinstance(item, tuple):
            self.updates -= 1
            _wake(self.room)
        return item

    def arrival(self) -> asyncio.Future[None]:
        """Done when an item is put. The stream awaits it itself, not a coroutine of this
        queue's: a waiting stream keeps no frame for it."""
        self.waiter = asyncio.get_running_loop().create_future()
        return self.waiter

    async def wait_for_room(self) -> None:
        while self.updates >= UPDATES_AHEAD:
            self.room = asyncio.get_running_loop().create_future()
            try:
                await self.room
            finally:
                self.room = None

    def answers(self) -> list[bytes]:
        """The answers waiting, in order (the stream is ending)."""
        return [item.data for item in self.items if isinstance(item, Answered)]


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)


async def play(requests: AsyncIterator[pb.PlayRequest], updates: AsyncIterator[Update],
               answer: Answer, from_version: int, *, answers_with_updates: bool = False,
               settle_within: float = SETTLE_SECONDS) -> AsyncGenerator[bytes, None]:
    """The stream's messages, serialized: ``updates`` (version, bytes, after
    ``from_version``) as they come, each move's answer in turn. Ends when ``updates`` does,
    or with the error that ended them (a revoked token, a slow client, the shutdown), or with
    the error of a malformed request: every move read before the end is answered first, a
    move in hand once its command is done, if within ``settle_within`` seconds (so the client
    learns whether it was taken without asking again). Only the client's own cancel, or a
    command slower than that, cuts a move in hand off.

    ``answers_with_updates`` (the client asked for it in ``open``): a taken move's answer
    that waits for its update goes out in the update's message (``PlayResponse.answer``),
    one message where there were two."""
    queue = _Queue()
    reader = _Reader(requests, answer, queue)
    pump = asyncio.ensure_future(_pump(updates, queue))
    shown = from_version  # the version of the last update the client has
    held: Answered | None = None  # a taken move's answer, waiting for its update
    try:
        while True:
            item = queue.take()
            while item is None:
                await queue.arrival()
                item = queue.take()
            if isinstance(item, tuple):
                shown, data = item
                del item  # a waiting stream keeps nothing of what it sent
                if held is not None and held.version <= shown:
                    if answers_with_updates:
                        yield data + translate.answer_beside_update(held.data)
                    else:
                        yield data
                        yield held.data
                    held = None
                    reader.sent()
                else:
                    yield data
                del data
            elif isinstance(item, Answered):
                if item.version > shown:
                    held = item  # its update is not in the queue yet (the reader
                    # usually answers before the pump has taken the update)
                else:
                    yield item.data
                    reader.sent()
                del item
            elif isinstance(item, _Over):
                if held is not None:
                    yield held.data
                    reader.sent()
                for data in await reader.settle(queue, settle_within):
                    yield data
                return
            else:
                if held is not None:
                    yield held.data
                for data in await reader.settle(queue, settle_within):
                    yield data
                raise item.error
    finally:
        pump.cancel()
        with contextlib.suppress(BaseException):
            await pump
        await reader.close()
        aclose = getattr(updates, "aclose", None)
        if aclose is not None:
            await aclose()


async def _pump(updates: AsyncIterator[Update], queue: _Queue) -> None:
    try:
        async for update in updates:
            queue.put(update)
            del update
            await queue.wait_for_room()
    except asyncio.CancelledError as error:
        if _cancelled_here():
            raise
        queue.put(_Failed(error))  # from inside the source: the stream ends with it
        return
    except Exception as error:  # handed to the stream, which raises it
        queue.put(_Failed(error))
        return
    queue.put(_OVER)


def _cancelled_here() -> bool:
    """Whether the running task itself is being cancelled (the stream ending it), not an
    awaited thing inside it that raised CancelledError: that one must reach the stream, or
    it would wait for a source that has gone."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


class _Reader:
    """Reads the moves one at a time: each is answered, and its answer sent, before the next
    is read."""

    def __init__(self, requests: AsyncIterator[pb.PlayRequest], answer: Answer,
                 queue: _Queue) -> None:
        self.answering = False
        """A move is read and its answer not in the queue yet."""
        self._sent: asyncio.Future[None] | None = None
        self._answered: asyncio.Future[None] | None = None
        """Set when a move's answer is put in the queue (what :meth:`settle` waits for)."""
        self.task = asyncio.ensure_future(self._run(requests, answer, queue))

    def sent(self) -> None:
        """The last answer was sent: the next move is read."""
        _wake(self._sent)

    async def settle(self, queue: _Queue, within: float) -> list[bytes]:
        """Every answer not sent yet, after the one to a move in hand is worked out or
        ``within`` seconds have passed (the updates are over: the stream ends after these)."""
        if self.answering and self._answered is not None and not self.task.done():
            await asyncio.wait({self._answered, self.task}, timeout=within,
                               return_when=asyncio.FIRST_COMPLETED)
        return queue.answers()

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(BaseException):
            await self.task

    async def _run(self, requests: AsyncIterator[pb.PlayRequest], answer: Answer,
                   queue: _Queue) -> None:
        loop = asyncio.get_running_loop()
        try:
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
                self._answered = loop.create_future()
                try:
                    answered = await answer(request.move)
                finally:
                    self.answering = False
                self._sent = loop.create_future()
                queue.put(answered)
                _wake(self._answered)
                await self._sent
        except asyncio.CancelledError as error:
            if _cancelled_here():
                raise
            queue.put(_Failed(error))
        except Exception as error:  # handed to the stream, which raises it
            queue.put(_Failed(error))
