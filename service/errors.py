"""Domain errors of the table service, each bound to one canonical gRPC status code.

The servicer turns them into ``google.rpc.Status`` with details (service/status.py); the
table logic never imports grpc. Every ``ErrorInfo.reason`` the server sends is a key of
``REASONS``, the one list of the vocabulary: the proto's ``ErrorReason`` enum and the table in
docs/protocol.md are checked against it by tests/service/test_errors.py.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar

from bezique.variants.api import quoted as quoted  # the one quoter, for the service's messages


class Retry(enum.StrEnum):
    """Whether sending the call again can succeed, as a client should decide it."""

    NO = "no"
    """Not as sent: the request or the caller's situation must change first."""
    YES = "yes"
    """The same request, after a short back-off (a move keeps its request_id)."""
    AFTER_REFRESH = "after refresh"
    """After reading the table again (a new view, or resuming a stream from a version)."""
    LATER = "later"
    """Once something else has happened (players joined, a stream closed)."""


@dataclass(frozen=True)
class Reason:
    """One entry of the vocabulary: the status code it travels with and what a client does."""

    code: str
    retry: Retry
    meaning: str


def _reasons() -> Mapping[str, Reason]:
    r = Reason
    table = {
        # Errors without a reason of their own carry the name of their status code.
        "INVALID_ARGUMENT": r("INVALID_ARGUMENT", Retry.NO,
                              "a request field is malformed or out of range; BadRequest names it"),
        "NOT_FOUND": r("NOT_FOUND", Retry.NO, "no table with this id"),
        "UNAUTHENTICATED": r("UNAUTHENTICATED", Retry.NO,
                             "a seat token or API key is missing or not in the Bearer form"),
        "PERMISSION_DENIED": r("PERMISSION_DENIED", Retry.NO,
                               "the token holds no seat here, the API key is wrong, or test "
                               "settings need --test-mode"),
        "FAILED_PRECONDITION": r("FAILED_PRECONDITION", Retry.NO,
                                 "the table is not in a state that allows the call"),
        "RESOURCE_EXHAUSTED": r("RESOURCE_EXHAUSTED", Retry.LATER,
                                "a server limit is reached (tables, watchers of a table)"),
        "UNAVAILABLE": r("UNAVAILABLE", Retry.YES,
                         "the server is shutting down or could not store a change; metadata "
                         "`resume_from` says where a watch stream resumes"),
        "INTERNAL": r("INTERNAL", Retry.NO, "a server bug; the server logged it"),
        # Reasons of their own.
        "ILLEGAL_MOVE": r("FAILED_PRECONDITION", Retry.NO,
                          "the move is not one of the seat's legal moves; PreconditionFailure "
                          "lists them"),
        "STALE_VERSION": r("ABORTED", Retry.AFTER_REFRESH,
                           "expected_version is not the table's version; metadata "
                           "`current_version`: read the view again and choose again"),
        "SEAT_TAKEN": r("FAILED_PRECONDITION", Retry.NO, "the asked-for seat is taken"),
        "TABLE_FULL": r("FAILED_PRECONDITION", Retry.NO, "the table has no free seat"),
        "NAME_TAKEN": r("FAILED_PRECONDITION", Retry.NO,
                        "display_name looks like the name of a seated player (case, "
                        "invisible characters and look-alike letters aside)"),
        "GAME_STARTED": r("FAILED_PRECONDITION", Retry.NO,
                          "a seat cannot be given up once the game has started"),
        "WAITING_FOR_PLAYERS": r("FAILED_PRECONDITION", Retry.LATER,
                                 "no move before every seat is taken"),
        "REQUEST_ID_REUSED": r("FAILED_PRECONDITION", Retry.NO,
                               "another seat used this request_id at this table"),
        "LOG_NOT_REPLAYABLE": r("FAILED_PRECONDITION", Retry.NO,
                                "this server cannot replay the table's log (its variant or "
                                "variant version is not installed)"),
        "WATCHER_BEHIND": r("RESOURCE_EXHAUSTED", Retry.AFTER_REFRESH,
                            "a watch stream fell too far behind; resume from metadata "
                            "`resume_from`"),
        "TOO_MANY_STREAMS": r("RESOURCE_EXHAUSTED", Retry.LATER,
                              "the caller has its limit of open watch streams"),
        "RATE_LIMITED": r("RESOURCE_EXHAUSTED", Retry.YES,
                          "the caller sends too many requests a second; back off"),
        "STORE_UNAVAILABLE": r("UNAVAILABLE", Retry.YES,
                               "the table store is unavailable for a moment"),
        "SEAT_RELEASED": r("PERMISSION_DENIED", Retry.NO,
                           "a watch stream's token no longer holds its seat"),
        "TABLE_RELOADED": r("UNAVAILABLE", Retry.AFTER_REFRESH,
                            "the table was reloaded from the store; resume from metadata "
                            "`resume_from`"),
        "LOG_FULL": r("RESOURCE_EXHAUSTED", Retry.NO,
                      "the table reached its maximum number of log entries"),
        "SEAT_CHURN": r("RESOURCE_EXHAUSTED", Retry.LATER,
                        "the caller (its address, or the seat's platform player) gave up too "
                        "many seats before their games started in the last 10 minutes"),
        "INVALID_PAGE_TOKEN": r("INVALID_ARGUMENT", Retry.NO,
                                "page_token is not one this server gave for this table"),
        # Seat tokens with a life cycle, and platform join grants (docs/security.md).
        "SEAT_TOKEN_EXPIRED": r("UNAUTHENTICATED", Retry.NO,
                                "the seat token has expired (--seat-token-ttl); the platform "
                                "can reissue it"),
        "SEAT_TOKEN_REVOKED": r("PERMISSION_DENIED", Retry.NO,
                                "the seat token was replaced by ReissueSeatToken or given up "
                                "with LeaveTable"),
        "GRANT_INVALID": r("UNAUTHENTICATED", Retry.NO,
                           "the join grant is malformed, wrongly signed, of another algorithm, "
                           "missing a claim, or the server takes no grants"),
        "GRANT_EXPIRED": r("UNAUTHENTICATED", Retry.NO, "the join grant has expired"),
        "GRANT_REPLAYED": r("PERMISSION_DENIED", Retry.NO,
                            "a seat was already joined with this grant's jti"),
        "GRANT_WRONG_TABLE": r("PERMISSION_DENIED", Retry.NO,
                               "the join grant names another table"),
        "GRANT_MISMATCH": r("PERMISSION_DENIED", Retry.NO,
                            "the request asks for a seat, player_id, buy_in or display name "
                            "other than the join grant's"),
        "GRANT_REQUIRED": r("UNAUTHENTICATED", Retry.NO,
                            "the table takes joins only with a join grant or the platform API "
                            "key (its seats were not opened to anyone, or it takes buy-ins)"),
        "TABLE_FINISHED": r("FAILED_PRECONDITION", Retry.NO,
                            "the table has ended (finished or aborted): it takes no join, "
                            "leave or abort"),
        "REVEAL_MISMATCH": r("INVALID_ARGUMENT", Retry.NO,
                             "sha256 of the revealed entropy is not the seat's commitment"),
        "REVEAL_NOT_OPEN": r("FAILED_PRECONDITION", Retry.LATER,
                             "the reveal round opens once every seat is taken"),
        "NOTHING_TO_REVEAL": r("FAILED_PRECONDITION", Retry.NO,
                               "the seat joined without an entropy commitment"),
        "REVEAL_ROUND": r("FAILED_PRECONDITION", Retry.LATER,
                          "the table waits for committed seats to reveal their entropy: no "
                          "move yet, and no seat may be given up"),
        "REVEAL_TIMED_OUT": r("FAILED_PRECONDITION", Retry.NO,
                              "the table ended before any deal: a seat did not reveal its "
                              "entropy in time; start a new table"),
    }
    return MappingProxyType(table)


REASONS: Mapping[str, Reason] = _reasons()
"""Every ErrorInfo.reason the server may send, with its status code and whether to retry."""


class ServiceError(Exception):
    """Base: ``code`` is the name of a grpc.StatusCode; the message says what and why.

    ``reason`` defaults to the status code's name, so every error has a reason of the
    vocabulary even where no finer one was given.
    """

    code: ClassVar[str] = "INTERNAL"

    def __init__(self, message: str, *, field: str = "", reason: str = "",
                 metadata: dict[str, str] | None = None) -> None:
        message, field = _clip(message, MESSAGE_LIMIT), _clip(field, FIELD_LIMIT)
        super().__init__(message)
        self.message = message
        self.field = field
        self.reason = reason or self.code
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

    def __init__(self, message: str, legal: Sequence[str], *, field: str = "move",
                 metadata: dict[str, str] | None = None) -> None:
        super().__init__(message, field=field, reason="ILLEGAL_MOVE", metadata=metadata)
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


def store_unavailable() -> Unavailable:
    """The one answer to a store's failure (a ``StoreError``): UNAVAILABLE, retry, reason
    ``STORE_UNAVAILABLE``. The store's own text stays in the server's log (the caller logs
    it, with what it knows, and raises this ``from`` it): the text can name hosts, users or
    SQL, none of which a client should read."""
    return Unavailable("the table store is unavailable for a moment; retry (moves are "
                       "idempotent by request_id)", reason="STORE_UNAVAILABLE")


MESSAGE_LIMIT = 1_000
FIELD_LIMIT = 100
"""The longest message and field name an error carries: a safety net for messages that quote
input from a layer that cannot clip it (the rules core quotes option names and values)."""


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


