"""A grpc.aio servicer context for calls that arrive over HTTP.

The servicer reads a call's metadata and peer, and ends a failed call with ``abort``; this
context is a ``grpc.aio.ServicerContext`` that does the same from the HTTP request, so the
servicer's own code (auth, rate limits, stream caps, metrics, errors) runs unchanged for
Connect and gRPC-Web.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, NoReturn

import grpc
from google.protobuf.message import Message
from google.rpc import code_pb2, status_pb2

if TYPE_CHECKING:
    from grpc.aio import MetadataType  # the stubs' name; grpc.aio has it at run time elsewhere

STATUS_DETAILS_KEY = "grpc-status-details-bin"


class HttpAbort(grpc.aio.AbortError):
    """The call ended with a status (raised by ``abort``/``abort_with_status``).

    A subclass of grpc's AbortError, so the servicer's wrappers let it through as they let
    grpc's own through."""

    def __init__(self, status: status_pb2.Status) -> None:
        super().__init__(status.message)
        self.status = status


def status_of(code: grpc.StatusCode, message: str,
              trailing: Sequence[tuple[str, str | bytes]] = ()) -> status_pb2.Status:
    """The google.rpc.Status of an aborted call: the rich one from the trailing metadata
    when grpcio-status put it there, else just the code and message."""
    for key, value in trailing:
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            return status_pb2.Status.FromString(value)
    return status_pb2.Status(code=code.value[0], message=message)


class HttpContext(grpc.aio.ServicerContext[Message, Message]):
    """A ``grpc.aio.ServicerContext`` answered from the HTTP request: a real subclass, so the
    servicer's handlers, typed with grpc's context, take it as they take grpc's own.

    The request came in the body, so there is nothing to ``read``; there is no transport
    security on this context, so no peer identities; compression is the HTTP layer's. Done
    callbacks are left to the base class (grpc marks them optional; nothing here uses them).
    """

    def __init__(self, metadata: tuple[tuple[str, str], ...], peer: str,
                 deadline: float | None = None) -> None:
        self._metadata = grpc.aio.Metadata(*metadata)
        self._peer = peer
        self._deadline = deadline
        self._code = grpc.StatusCode.OK
        self._details = ""
        self.headers: list[tuple[str, str]] = []
        """The initial metadata the servicer sent: the answer's HTTP headers."""
        self.trailers: list[tuple[str, str]] = []
        """The trailing metadata the servicer set: the answer's trailers."""
        self.writer: Callable[[Message], Awaitable[None]] | None = None
        """Where ``write`` sends a streaming call's messages (set by the adapter)."""

    def invocation_metadata(self) -> grpc.aio.Metadata:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def time_remaining(self) -> float | None:  # type: ignore[override]
        """None without a deadline, as grpc.aio answers (its stub says float)."""
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    async def abort_with_status(self, status: grpc.Status) -> NoReturn:
        raise HttpAbort(status_of(status.code, status.details, status.trailing_metadata))

    async def abort(self, code: grpc.StatusCode, details: str = "",
                    trailing_metadata: MetadataType = ()) -> NoReturn:
        self._code, self._details = code, details
        raise HttpAbort(status_of(code, details, tuple(trailing_metadata)))

    async def read(self) -> Message:
        raise grpc.aio.UsageError("read() is for client-streaming calls; the request came "
                                  "in the HTTP body")

    async def write(self, message: Message) -> None:
        """A message of a server stream (the servicer writes them, as grpc.aio serves it)."""
        if self.writer is None:
            raise grpc.aio.UsageError("write() is for server-streaming calls")
        await self.writer(message)

    async def send_initial_metadata(self, initial_metadata: MetadataType) -> None:
        self.headers.extend((k.lower(), v) for k, v in initial_metadata if isinstance(v, str))

    def set_trailing_metadata(self, trailing_metadata: MetadataType) -> None:
        self.trailers.extend((k.lower(), v) for k, v in trailing_metadata if isinstance(v, str))

    def trailing_metadata(self) -> grpc.aio.Metadata:
        return grpc.aio.Metadata(*self.trailers)

    def set_code(self, code: grpc.StatusCode) -> None:
        """Kept for servicers that set a code before raising (generated base classes do)."""
        self._code = code

    def code(self) -> grpc.StatusCode:
        return self._code

    def set_details(self, details: str) -> None:
        """Kept with set_code."""
        self._details = details

    def details(self) -> str:
        return self._details

    def set_compression(self, compression: grpc.Compression) -> None:
        """Nothing to do: the HTTP layer compresses the answer (or not) as a whole."""

    def disable_next_message_compression(self) -> None:
        """Nothing to do, as with set_compression."""

    def peer_identities(self) -> Iterable[bytes] | None:
        return None

    def peer_identity_key(self) -> str | None:
        return None

    def auth_context(self) -> Mapping[str, Iterable[bytes]]:
        return {}

    def cancelled(self) -> bool:
        return False


def internal_error() -> status_pb2.Status:
    """What an unexpected exception becomes (its text stays in the server's log)."""
    return status_pb2.Status(code=code_pb2.INTERNAL,
                             message="internal error (logged on the server)")
