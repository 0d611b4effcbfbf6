"""Which web pages may call the HTTP port: the server's own page, and the configured origins.

A request from a page of another origin is refused (403) unless its origin is allowed, even
when it needs no preflight: the browser would hide the answer, but the call would still act.
"""

from __future__ import annotations

from collections.abc import Iterable

ALLOWED_HEADERS = ("authorization, content-type, x-api-key, connect-protocol-version, "
                   "connect-timeout-ms, connect-content-encoding, connect-accept-encoding, "
                   "grpc-timeout, x-grpc-web, x-user-agent")
EXPOSED_HEADERS = ("grpc-status, grpc-message, grpc-status-details-bin, "
                   "connect-content-encoding, connect-accept-encoding, content-encoding")
MAX_AGE = "7200"

Headers = list[tuple[bytes, bytes]]


class Origins:
    """The allowed cross-origin callers (``*``: any page, opt-in only)."""

    def __init__(self, allowed: Iterable[str]) -> None:
        self.allowed = frozenset(origin.lower().rstrip("/") for origin in allowed)

    def permits(self, origin: str, own: str) -> bool:
        """Whether a page of ``origin`` may call a server whose own origin is ``own``."""
        origin = origin.lower()
        return origin == own.lower() or "*" in self.allowed or origin in self.allowed

    def response_headers(self, origin: str) -> Headers:
        """The CORS headers of an answer to a permitted page."""
        return [(b"access-control-allow-origin", origin.encode()), (b"vary", b"Origin"),
                (b"access-control-expose-headers", EXPOSED_HEADERS.encode())]

    def preflight_headers(self, origin: str) -> Headers:
        return [(b"access-control-allow-origin", origin.encode()),
                (b"access-control-allow-methods", b"POST, GET"),
                (b"access-control-allow-headers", ALLOWED_HEADERS.encode()),
                (b"access-control-max-age", MAX_AGE.encode()),
                (b"vary", b"Origin, Access-Control-Request-Method, "
                          b"Access-Control-Request-Headers")]
