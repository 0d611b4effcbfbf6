"""Domain errors of the table service, each bound to one canonical gRPC status code.

The servicer turns them into ``google.rpc.Status`` with details (service/status.py); the
table logic never imports grpc.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar


class ServiceError(Exception):
    """Base: ``code`` is the name of a grpc.StatusCode; the message says what and why."""

    code: ClassVar[str] = "INTERNAL"

    def __init__(self, message: str, *, field: str = "", reason: str = "",
                 metadata: dict[str, str] | None = None) -> None:
        message, field = _clip(message, MESSAGE_LIMIT), _clip(field, FIELD_LIMIT)
        super().__init__(message)
        self.message = message
        self.field = field
        self.reason = reason or type(self).__name__.upper()
        self.metadata = metadata or {}


class InvalidArgument(ServiceError):
    code = "INVALID_ARGUMENT"


class NotFound(ServiceError):
    code = "NOT_FOUND"


class Unauthenticated(ServiceError):
    code = "UNAUTHENTICATED"


class PermissionDenied(ServiceError):
    code = "PERMISSION_DENIED"


class FailedPrecondition(ServiceError):
    code = "FAILED_PRECONDITION"


class IllegalMove(FailedPrecondition):
    """A move that is not among the seat's legal moves; ``legal`` lists them (as text)."""

    def __init__(self, message: str, legal: Sequence[str]) -> None:
        super().__init__(message, field="move", reason="ILLEGAL_MOVE")
        self.legal = list(legal)


class StaleVersion(ServiceError):
    code = "ABORTED"

    def __init__(self, table_id: str, expected: int, current: int) -> None:
        super().__init__(
            f"table {table_id} is at version {current}, not the expected {expected}: "
            "get the view again and resubmit",
            field="expected_version", reason="STALE_VERSION",
            metadata={"current_version": str(current), "expected_version": str(expected)})
        self.current = current


class ResourceExhausted(ServiceError):
    code = "RESOURCE_EXHAUSTED"


class Unavailable(ServiceError):
    code = "UNAVAILABLE"


MESSAGE_LIMIT = 1_000
FIELD_LIMIT = 100
"""The longest message and field name an error carries: a safety net for messages that quote
input from a layer that cannot clip it (the rules core quotes option names and values)."""


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


QUOTE_LIMIT = 40
"""How much of a client's input an error message quotes (the rest is counted, not echoed)."""


def quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as an error message quotes it: its repr, cut to ``limit`` characters, so a
    huge input is never echoed back (it would exceed the client's message size)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"
