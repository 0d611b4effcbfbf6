"""uvicorn's httptools protocol with a bound on a request's head (request line and headers).

httptools and uvicorn keep every header byte a client sends until the blank line that ends
the head, with no limit: one connection trickling headers could fill the server's memory
before the application sees a request. Here a head larger than :data:`MAX_HEAD_BYTES` is
answered 431 and the connection closed, as nginx and Node do.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

MAX_HEAD_BYTES = 64 * 1024
"""The largest request head accepted (a browser's, with a token and a grant, is a few KiB)."""

_BODY = b"the request's headers are larger than 64 KiB\n"
_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
              b"content-type: text/plain; charset=utf-8\r\n"
              b"content-length: " + str(len(_BODY)).encode() + b"\r\n"
              b"connection: close\r\n\r\n" + _BODY)


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """Counts the bytes received while a request's head is incomplete; past the bound the
    connection is answered 431 and closed, so its memory is never more than the bound plus
    one read."""

    _in_head = True
    _head_bytes = 0

    def data_received(self, data: bytes) -> None:
        if self._in_head:
            self._head_bytes += len(data)
        super().data_received(data)
        if (self._in_head and self._head_bytes > MAX_HEAD_BYTES
                and not self.transport.is_closing()):
            self.transport.write(_TOO_LARGE)
            self.transport.close()

    def on_headers_complete(self) -> None:
        self._in_head, self._head_bytes = False, 0
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._in_head = True  # what comes next is the head of the next request
        super().on_message_complete()
