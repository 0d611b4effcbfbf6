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
