"""A Play call driven by hand (no SDK): requests sent one by one, every message kept."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import grpc
from google.rpc import status_pb2

from bezique.clients.sdk import AsyncTableClient, SeatHandle, move_request
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc
from tests.helpers import summary
from tests.service.helpers import STACK, STARTED, two_seats

WAIT = 10.0
"""How long a test waits for one message."""


async def drained(queue: asyncio.Queue[pb.PlayRequest | None]
                  ) -> AsyncIterator[pb.PlayRequest]:
    """A Play call's requests as a test puts them in ``queue``, until it puts ``None``."""
    while (request := await queue.get()) is not None:
        yield request


class RawPlay:
    """One Play call: ``send`` puts a request on it, ``next`` reads the next message."""

    def __init__(self, stub: pb_grpc.TableServiceStub, token: str | None,
                 table_id: str | None = None, from_version: int = 0,
                 answers_with_updates: bool = False) -> None:
        self.outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
        if table_id is not None:
            self.send(pb.PlayRequest(open=pb.PlayOpen(
                table_id=table_id, from_version=from_version,
                answers_with_updates=answers_with_updates)))
        metadata = (("authorization", f"Bearer {token}"),) if token else ()
        self.call = stub.Play(self._requests(), metadata=metadata)
        self.messages: list[pb.PlayResponse] = []
        self.updates: list[pb.WatchTableResponse] = []

    def _requests(self) -> AsyncIterator[pb.PlayRequest]:
        return drained(self.outbox)

    def send(self, request: pb.PlayRequest) -> None:
        self.outbox.put_nowait(request)

    def move(self, move: pb.Move, version: int, request_id: str | None = None) -> str:
        """Send a move; its request id."""
        request_id = uuid.uuid4().hex if request_id is None else request_id
        self.send(pb.PlayRequest(move=pb.PlayMove(move=move_request(move),
                                                  expected_version=version,
                                                  request_id=request_id)))
        return request_id

    def half_close(self) -> None:
        self.outbox.put_nowait(None)

    async def next(self) -> pb.PlayResponse | None:
        """The next message; None when the call ended OK (a failed call raises)."""
        message = await asyncio.wait_for(self.call.read(), WAIT)
        if message is grpc.aio.EOF:  # type: ignore[attr-defined]
            return None
        if not isinstance(message, pb.PlayResponse):
            raise AssertionError(f"not a PlayResponse: {message!r}")
        self.messages.append(message)
        if message.HasField("update"):
            self.updates.append(message.update)
        return message

    async def result(self) -> pb.PlayResult:
        """The next result, on its own or sent with an update (updates before it are
        kept)."""
        while True:
            message = await self.next()
            if message is None:
                raise AssertionError("the stream ended before a result")
            if message.HasField("result"):
                return message.result
            if message.HasField("answer"):
                return message.answer

    async def until_version(self, version: int) -> pb.WatchTableResponse:
        """Read until the update of ``version``."""
        while not self.updates or self.updates[-1].version < version:
            message = await self.next()
            if message is None:
                raise AssertionError(f"the stream ended before version {version}")
        return self.updates[-1]

    async def turn(self, version: int) -> pb.View:
        """The seat's view at ``version`` or later (read until an update carries one)."""
        while not (self.updates and self.updates[-1].version >= version
                   and self.updates[-1].HasField("view")):
            if await self.next() is None:
                raise AssertionError(f"the stream ended before version {version}")
        return self.updates[-1].view

    async def rest(self) -> None:
        """Read until the call ends OK."""
        while await self.next() is not None:
            pass
        self.half_close()

    async def error(self) -> grpc.aio.AioRpcError:
        """Read until the call fails; its error."""
        try:
            while await self.next() is not None:
                pass
        except grpc.aio.AioRpcError as error:
            self.half_close()  # the request iterator ends too
            return error
        raise AssertionError("the stream ended OK")

    def close(self) -> None:
        self.call.cancel()
        self.half_close()


def refusal(result: pb.PlayResult) -> dict[str, object]:
    """A refused result's rich details in tests.helpers.summary's shape, with its code."""
    status = status_pb2.Status.FromString(result.status_details)
    assert status.code == result.code and status.message == result.message
    code = next(c for c in grpc.StatusCode if c.value[0] == result.code)
    return {"code": code, **summary(list(status.details))}


async def movers_stream(client: AsyncTableClient) -> tuple[str, SeatHandle, RawPlay, pb.View]:
    """A two-seat table at its start: its id, the seat to move, that seat's Play stream and
    its view there."""
    table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
    view = await client.view(table_id)
    mover = ann if view.to_move[0] == ann.seat else bob
    stream = RawPlay(client.stub, mover.token, table_id)
    return table_id, mover, stream, await stream.turn(STARTED)
