"""A grpc.aio-like servicer context for calls that arrive over HTTP.

The servicer reads a call's metadata and peer, and ends a failed call with
``abort_with_status``; this context offers the same, so the servicer's own code (auth, rate
limits, stream caps, metrics, errors) runs unchanged for Connect and gRPC-Web.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import grpc
from google.rpc import code_pb2, status_pb2

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


class HttpContext:
    """What the servicer asks of ``grpc.aio.ServicerContext``, answered from the HTTP request."""

    def __init__(self, metadata: tuple[tuple[str, str], ...], peer: str,
                 deadline: float | None = None) -> None:
        self._metadata = metadata
        self._peer = peer
        self._deadline = deadline
        self.initial_metadata: list[tuple[str, str]] = []
        self.trailing_metadata: list[tuple[str, str]] = []
        self.writer: Callable[[Any], Awaitable[None]] | None = None
        """Where ``write`` sends a streaming call's messages (set by the adapter)."""

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    async def abort_with_status(self, status: grpc.Status) -> None:
        raise HttpAbort(status_of(status.code, status.details, status.trailing_metadata))

    async def abort(self, code: grpc.StatusCode, details: str = "",
                    trailing_metadata: Sequence[tuple[str, str | bytes]] = ()) -> None:
        raise HttpAbort(status_of(code, details, trailing_metadata))

    async def send_initial_metadata(self, metadata: Sequence[tuple[str, str]]) -> None:
        self.initial_metadata.extend((k.lower(), v) for k, v in metadata)

    def set_trailing_metadata(self, metadata: Sequence[tuple[str, Any]]) -> None:
        self.trailing_metadata.extend((k.lower(), v) for k, v in metadata
                                      if isinstance(v, str))

    async def write(self, message: Any) -> None:
        """A message of a server stream whose servicer writes rather than yields."""
        if self.writer is None:
            raise grpc.aio.UsageError("write() is for server-streaming calls")
        await self.writer(message)

    def set_code(self, code: grpc.StatusCode) -> None:
        """Kept for servicers that set a code before raising (generated base classes do)."""

    def set_details(self, details: str) -> None:
        """Kept with set_code."""

    def cancelled(self) -> bool:
        return False


def internal_error() -> status_pb2.Status:
    """What an unexpected exception becomes (its text stays in the server's log)."""
    return status_pb2.Status(code=code_pb2.INTERNAL,
                             message="internal error (logged on the server)")
