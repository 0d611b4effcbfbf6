"""uvicorn's httptools protocol with bounds on what one connection may hold.

- A request's head (request line and headers) larger than :data:`MAX_HEAD_BYTES` is
  answered 431 and the connection closed, as nginx and Node do: httptools and uvicorn keep
  every header byte until the blank line that ends the head, with no limit of their own. The
  bytes are counted per read while the head is incomplete, and as parsed once it is complete
  (one read may hold a whole oversized head).
- A connection must send a complete head within ``head_seconds`` of opening, and of the
  first byte of each later request: a client that sends nothing, or one header line now and
  then (slowloris), is closed. The body must then be complete within ``head_seconds`` of
  the head's end (a request here is one small message): a head followed by no body, or by a
  byte now and then, is closed too, as uvicorn's keep-alive timeout does not count a request
  in flight. uvicorn's keep-alive timeout closes an idle connection
  between requests.
- Connections are counted per port in total and per peer address
  (:class:`~bezique.service.connections.ConnectionCounter`); one past a cap is answered 503
  and closed at once, before it can hold a descriptor. Past the total cap a few connections
  are still taken for one health check each, so a load balancer sees the port alive.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from bezique.service.connections import HEALTH, ConnectionCounter, peer_key
from bezique.service.proxies import TrustedProxies

HEALTH_CHECK = b"/grpc.health.v1.Health/Check"
"""The one call a connection past the port's cap may make (in the health slots)."""
HEALTH_HEAD_SECONDS = 1.0
"""The head deadline of a connection in a health slot."""

MAX_HEAD_BYTES = 64 * 1024
"""The largest request head accepted (a browser's, with a token and a grant, is a few KiB)."""


def _answer(status: bytes, text: bytes) -> bytes:
    return (b"HTTP/1.1 " + status + b"\r\n"
            b"content-type: text/plain; charset=utf-8\r\n"
            b"content-length: " + str(len(text)).encode() + b"\r\n"
            b"connection: close\r\n\r\n" + text)


_TOO_LARGE = _answer(b"431 Request Header Fields Too Large",
                     b"the request's headers are larger than 64 KiB\n")
_TOO_SLOW = _answer(b"408 Request Timeout",
                    b"the request's head did not arrive in time (--request-head-seconds)\n")
_TOO_SLOW_BODY = _answer(b"408 Request Timeout",
                         b"the request's body did not arrive in time (--request-head-seconds)\n")


def _refused(flag: str) -> bytes:
    return _answer(b"503 Service Unavailable",
                   f"too many open connections ({flag}); close one and retry\n".encode())


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """Counts the bytes of a request's head and the time it takes to arrive; past either bound
    the connection is answered (431, 408) and closed. The class attributes are the port's:
    :func:`bounded_protocol` makes the class of one port."""

    counter: ConnectionCounter | None = None
    proxies = TrustedProxies()
    head_seconds = 10.0

    _in_head = True
    _head_bytes = 0
    _parsed_bytes = 0
    _refused_head = False
    _peer_key: str | None = None
    _admitted: str | None = None
    """How the counter admitted this connection ("" or HEALTH); None: not counted."""
    _head_timer: asyncio.TimerHandle | None = None
    _body_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        counter = self.counter
        if counter is not None:
            host = self.client[0] if self.client else ""
            self._peer_key = None if self.proxies.trusts_ip(host) else peer_key(host)
            admitted = counter.admit(self._peer_key)
            if admitted.startswith("--"):
                transport.write(_refused(admitted))
                transport.close()
                return
            self._admitted = admitted
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        self._cancel_body_timer()
        counter = self.counter
        if self._admitted is not None and counter is not None:
            counter.release(self._peer_key, self._admitted)
            self._admitted = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._in_head:
            self._head_bytes += len(data)
            if self._head_timer is None:
                self._arm_head_timer()  # the first byte of a request after an idle spell
        super().data_received(data)
        if (self._in_head and self._head_bytes > MAX_HEAD_BYTES
                and not self.transport.is_closing()):
            self._refuse(_TOO_LARGE)

    def on_url(self, url: bytes) -> None:
        self._parsed_bytes += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._parsed_bytes += len(name) + len(value) + 4  # ": " and CRLF
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._cancel_head_timer()
        if self._parsed_bytes > MAX_HEAD_BYTES:
            self._refuse(_TOO_LARGE)
            raise _HeadRefused  # stops the parser: no request is made of this head
        if self._admitted == HEALTH and self.url.split(b"?", 1)[0] != HEALTH_CHECK:
            self._refuse(_refused("--max-connections"))
            raise _HeadRefused
        self._in_head, self._head_bytes, self._parsed_bytes = False, 0, 0
        super().on_headers_complete()
        self._cancel_body_timer()
        self._body_timer = self.loop.call_later(self._deadline(), self._body_late)

    def on_message_complete(self) -> None:
        self._cancel_body_timer()
        self._in_head = True  # what comes next is the head of the next request
        super().on_message_complete()

    def _cancel_body_timer(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _body_late(self) -> None:
        """The body did not arrive in time: 408 unless an answer has begun, and closed."""
        self._body_timer = None
        if self.transport.is_closing():
            return
        cycle = getattr(self, "cycle", None)
        if cycle is None or not getattr(cycle, "response_started", False):
            self.transport.write(_TOO_SLOW_BODY)
        self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._admitted == HEALTH and not self.transport.is_closing():
            self.transport.close()  # a health slot serves one check

    def send_400_response(self, msg: str) -> None:
        if not self._refused_head:  # a head refused above was answered already
            super().send_400_response(msg)

    def _refuse(self, answer: bytes) -> None:
        self._refused_head = True
        self._cancel_head_timer()
        if not self.transport.is_closing():
            self.transport.write(answer)
            self.transport.close()

    def _deadline(self) -> float:
        """Seconds a request's head, and then its body, may take to arrive."""
        if self._admitted == HEALTH:  # a check is one short request: a slot is not held long
            return min(self.head_seconds, HEALTH_HEAD_SECONDS)
        return self.head_seconds

    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        self._head_timer = self.loop.call_later(self._deadline(), self._head_late)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if self._in_head and not self.transport.is_closing():
            if self._head_bytes:
                self._refuse(_TOO_SLOW)
            else:  # nothing was asked: nothing to answer
                self._refused_head = True
                self.transport.close()


class _HeadRefused(Exception):
    """Raised in a parser callback so httptools stops parsing a refused head."""


def bounded_protocol(counter: ConnectionCounter, proxies: TrustedProxies,
                     head_seconds: float) -> type[BoundedHttpToolsProtocol]:
    """The protocol class of one HTTP port: its connection counter, its trusted proxies (not
    capped per peer: many clients arrive through one) and its head deadline."""
    return type("PortHttpToolsProtocol", (BoundedHttpToolsProtocol,),
                {"counter": counter, "proxies": proxies, "head_seconds": head_seconds})
