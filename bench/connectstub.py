"""A gRPC-stub look-alike that speaks Connect (binary proto) over HTTP/1.1, for the loads.

It lets :mod:`bench.peerload` play the same game with the same loop over the HTTP port as over
gRPC. One stub is one seat as a browser page holds it: a keep-alive connection for its unary
calls (one at a time) and a connection of its own for each server stream (HTTP/1.1 cannot
share one). The client is minimal, on asyncio streams, so the load's CPU stays the server's
story, not a client library's.
"""

from __future__ import annotations

import asyncio
import json
import re
import struct
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

from google.protobuf.message import Message

from bezique.v1 import table_service_pb2 as pb

SERVICE = "/bezique.v1.TableService/"
END_STREAM = 0x02
M = TypeVar("M", bound=Message)
Metadata = Sequence[tuple[str, str]]


class ConnectError(Exception):
    """A call that did not succeed: the HTTP status or the stream's end said so."""


async def _open(host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection(host, port, limit=1 << 20)


def _request(host: str, port: int, path: str, kind: str, metadata: Metadata,
             body: bytes) -> bytes:
    head = f"POST {path} HTTP/1.1\r\nhost: {host}:{port}\r\ncontent-type: {kind}\r\n"
    head += "".join(f"{key}: {value}\r\n" for key, value in metadata)
    return (head + f"content-length: {len(body)}\r\n\r\n").encode() + body


async def _head(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    return int(head[9:12]), head


class ConnectStream:
    """A server stream, iterated like grpc.aio's; ``cancel`` closes its connection."""

    def __init__(self, stub: ConnectStub, method: str, request: Message, metadata: Metadata,
                 reply: type[Message]) -> None:
        self.stub, self.method, self.request = stub, method, request
        self.metadata, self.reply = metadata, reply
        self.cancelled = False
        self._writer: asyncio.StreamWriter | None = None

    def cancel(self) -> None:
        self.cancelled = True
        if self._writer is not None:
            self._writer.close()

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._messages()

    async def _messages(self) -> AsyncIterator[Any]:
        if self.cancelled:
            return
        reader, self._writer = await _open(self.stub.host, self.stub.port)
        if self.cancelled:  # while connecting
            self._writer.close()
            return
        data = self.request.SerializeToString()
        self._writer.write(_request(self.stub.host, self.stub.port, SERVICE + self.method,
                                    "application/connect+proto", self.metadata,
                                    struct.pack(">BI", 0, len(data)) + data))
        try:
            status, head = await _head(reader)
            if status != 200 or b"chunked" not in head.lower():
                raise ConnectError(f"{self.method}: HTTP {status}")
            buffer = b""
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                buffer += (await reader.readexactly(size + 2))[:size]
                while len(buffer) >= 5:
                    flags, length = struct.unpack_from(">BI", buffer)
                    if len(buffer) < 5 + length:
                        break
                    payload, buffer = buffer[5:5 + length], buffer[5 + length:]
                    if flags & END_STREAM:
                        end = json.loads(payload or b"{}")
                        if "error" in end:
                            raise ConnectError(f"{self.method}: {end['error']}")
                        return
                    yield self.reply.FromString(payload)
                if size == 0:
                    raise ConnectError(f"{self.method}: the stream ended without its end")
        except (OSError, asyncio.IncompleteReadError):
            if not self.cancelled:
                raise
        finally:
            self._writer.close()


class ConnectStub:
    """The calls :mod:`bench.peerload` makes, over Connect; each ``(request, metadata=,
    timeout=)`` as the grpc.aio stub's."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self._connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self._lock = asyncio.Lock()
        self.CreateTable = self._unary("CreateTable", pb.CreateTableResponse)
        self.JoinTable = self._unary("JoinTable", pb.JoinTableResponse)
        self.SubmitMove = self._unary("SubmitMove", pb.SubmitMoveResponse)

    def _unary(self, method: str, reply: type[M]) -> Callable[..., Awaitable[M]]:
        async def call(request: Message, metadata: Metadata = (),
                       timeout: float | None = None) -> M:
            async with self._lock, asyncio.timeout(timeout):
                return reply.FromString(await self._post(method, request, metadata))

        return call

    async def _post(self, method: str, request: Message, metadata: Metadata) -> bytes:
        """One call on the seat's keep-alive connection. The server closes a connection idle
        for a few seconds (uvicorn: 5); a call that finds its reused connection closed before
        any answer is sent again on a fresh one, as browsers do."""
        data = _request(self.host, self.port, SERVICE + method, "application/proto", metadata,
                        request.SerializeToString())
        reused = self._connection is not None
        while True:
            if self._connection is None:
                self._connection = await _open(self.host, self.port)
            reader, writer = self._connection
            try:
                writer.write(data)
                status, head = await _head(reader)
                found = re.search(rb"\r\ncontent-length: *(\d+)", head, re.IGNORECASE)
                if found is None:
                    raise ConnectError(f"{method}: HTTP {status} without a content-length")
                body = await reader.readexactly(int(found.group(1)))
                break
            except (asyncio.IncompleteReadError, ConnectionError) as error:
                writer.close()
                self._connection = None
                partial = getattr(error, "partial", b"")
                if not reused or partial:
                    raise
                reused = False
            except BaseException:
                writer.close()
                self._connection = None
                raise
        if status != 200:
            raise ConnectError(f"{method}: HTTP {status}: {body[:300]!r}")
        return body

    def WatchTable(self, request: pb.WatchTableRequest,
                   metadata: Metadata = ()) -> ConnectStream:
        return ConnectStream(self, "WatchTable", request, metadata, pb.WatchTableResponse)

    async def close(self) -> None:
        if self._connection is not None:
            self._connection[1].close()
            self._connection = None
