"""The ASGI application of the HTTP port: Connect and gRPC-Web calls onto the servicer, CORS,
and the web table's files.

Every RPC of the service descriptor is served by name: the adapter calls the servicer's
method of that name with an :class:`HttpContext`, exactly as grpc.aio would, so the servicer's
auth, limits, errors and metrics apply unchanged, and a new RPC needs no change here.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import structlog
from google.protobuf import message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import Message
from google.rpc import code_pb2, status_pb2

from bezique.service.httpapi import wire
from bezique.service.httpapi.context import HttpAbort, HttpContext, internal_error
from bezique.service.httpapi.cors import Headers, Origins
from bezique.service.httpapi.static import MISSING, StaticFiles

log = structlog.get_logger("bezique.http")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
_TIMEOUT_UNITS = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}


class _ClientGone(Exception):
    """The client closed the connection before its request was read."""


@dataclass(frozen=True)
class _Rpc:
    name: str
    request_type: type[Message]
    streaming: bool
    implementation: Callable[..., Any]


class BrowserApp:
    """Connect (unary and server-streaming, proto and JSON), gRPC-Web (binary and text) and
    static files, for one service of one servicer."""

    def __init__(self, services: Sequence[tuple[object, ServiceDescriptor]], *,
                 max_message_bytes: int, origins: Origins, static: StaticFiles) -> None:
        self.rpcs: dict[str, _Rpc] = {}
        for servicer, service in services:
            for method in service.methods:
                if method.client_streaming:
                    continue  # browsers cannot stream requests over HTTP/1.1
                self.rpcs[f"/{service.full_name}/{method.name}"] = _Rpc(
                    method.name, message_factory.GetMessageClass(method.input_type),
                    method.server_streaming, getattr(servicer, method.name))
        self.max_message_bytes = max_message_bytes
        self.origins = origins
        self.static = static

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        method, path = scope["method"], scope["path"]
        origin = headers.get("origin")
        own = f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"
        cors: Headers = []
        if origin is not None:
            if not self.origins.permits(origin, own):
                await _plain(send, 403, b"this origin may not call this server "
                                        b"(--http-allowed-origins)\n")
                return
            if origin.lower() != own.lower():
                cors = self.origins.response_headers(origin)
        if method == "OPTIONS":
            extra = (self.origins.preflight_headers(origin) if origin is not None and cors
                     else [(b"allow", b"GET, HEAD, POST, OPTIONS")])
            await _plain(send, 204, b"", extra)
            return
        rpc = self.rpcs.get(path)
        if rpc is not None or (method == "POST" and path.count("/") == 2):
            if method != "POST":
                await _plain(send, 405, b"RPCs are called with POST\n", [(b"allow", b"POST")])
                return
            await self._rpc(scope, receive, send, headers, rpc, path, cors)
            return
        if method not in ("GET", "HEAD"):
            await _plain(send, 405, b"not an RPC of this server\n", [(b"allow", b"GET, HEAD")])
            return
        await self._static(send, path, method == "HEAD", cors)

    # ------------------------------------------------------------------------ static files

    async def _static(self, send: Send, path: str, head: bool, cors: Headers) -> None:
        if not self.static.present:
            await _plain(send, 404, MISSING, cors)
            return
        found = await self.static.read(path)
        if found is None:
            await _plain(send, 404, b"not found\n", cors)
            return
        data, kind = found
        headers = [(b"content-type", kind.encode()), (b"x-content-type-options", b"nosniff"),
                   (b"cache-control", b"no-cache"), *cors]
        await _plain(send, 200, data, headers, head=head)

    # ------------------------------------------------------------------------ RPCs

    async def _rpc(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str],
                   rpc: _Rpc | None, path: str, cors: Headers) -> None:
        protocol = wire.protocol_of(headers.get("content-type", ""))
        if protocol is None or (rpc is not None and protocol.kind != "grpc-web"
                                and protocol.streaming != rpc.streaming):
            await _plain(send, 415, b"unsupported content type for this RPC\n",
                         [(b"accept-post", wire.ACCEPTED_TYPES.encode()), *cors])
            return
        try:
            body = await self._body(receive, headers, protocol)
        except _ClientGone:
            return
        except wire.WireError as error:
            await _fail(send, protocol, error.status, cors)
            return
        if rpc is None:
            await _fail(send, protocol, status_pb2.Status(
                code=code_pb2.UNIMPLEMENTED, message=f"no such RPC: {path}"), cors)
            return
        try:
            raw = wire.single_message(body) if protocol.streaming else _decompress(
                body, headers.get("content-encoding", "identity"), self.max_message_bytes)
            request = wire.decode(protocol.codec, raw, rpc.request_type)
            timeout = _timeout(headers)
        except wire.WireError as error:
            await _fail(send, protocol, error.status, cors)
            return
        context = HttpContext(_metadata(scope["headers"]), _peer(scope.get("client")))
        if rpc.streaming:
            await _stream(send, receive, protocol, rpc, _responses(rpc, request, context),
                          context, timeout, cors)
            return
        status, response = await _call_unary(rpc, request, context, timeout)
        if status is not None:
            await _fail(send, protocol, status, cors, context.trailing_metadata)
            return
        assert response is not None
        payload = wire.encode(protocol.codec, response)
        extra = [(k.encode(), v.encode()) for k, v in context.initial_metadata]
        if protocol.kind == "connect":
            extra += [(b"trailer-" + k.encode(), v.encode())
                      for k, v in context.trailing_metadata]
            await _plain(send, 200, payload,
                         [(b"content-type", protocol.content_type().encode()), *extra, *cors])
            return
        frames = (wire.envelope(0, payload)
                  + wire.grpc_web_trailer(None, context.trailing_metadata))
        await _plain(send, 200, _text(frames) if protocol.text else frames,
                     [(b"content-type", protocol.content_type().encode()), *extra, *cors])

    async def _body(self, receive: Receive, headers: dict[str, str],
                    protocol: wire.Protocol) -> bytes:
        """The whole request body, refused past the message size limit (RESOURCE_EXHAUSTED,
        as gRPC refuses a larger message)."""
        limit = self.max_message_bytes + 5
        if protocol.text:
            limit = limit * 4 // 3 + 4
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise _too_large(self.max_message_bytes)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _ClientGone
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise _too_large(self.max_message_bytes)
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        if protocol.text:
            try:
                body = base64.b64decode(body + b"=" * (-len(body) % 4), validate=True)
            except ValueError:
                raise wire.WireError(code_pb2.INVALID_ARGUMENT,
                                     "the grpc-web-text body is not base64") from None
        return body


def _too_large(limit: int) -> wire.WireError:
    return wire.WireError(code_pb2.RESOURCE_EXHAUSTED,
                          f"the request is larger than {limit} bytes (--max-message-bytes)")


def _decompress(body: bytes, encoding: str, limit: int) -> bytes:
    """A Connect unary body as sent: identity or gzip (no more than ``limit`` bytes)."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding != "gzip":
        raise wire.WireError(code_pb2.UNIMPLEMENTED,
                             f"content-encoding {encoding!r} is not supported (gzip, identity)")
    try:
        inflater = zlib.decompressobj(wbits=31)
        data = inflater.decompress(body, limit + 1)
    except zlib.error:
        raise wire.WireError(code_pb2.INVALID_ARGUMENT, "the gzip body is corrupt") from None
    if len(data) > limit or inflater.unconsumed_tail:
        raise _too_large(limit)
    return data


def _timeout(headers: dict[str, str]) -> float | None:
    """The call's deadline in seconds from connect-timeout-ms or grpc-timeout, if given."""
    text = headers.get("connect-timeout-ms")
    if text is not None:
        if not text.isdigit() or len(text) > 10:
            raise wire.WireError(code_pb2.INVALID_ARGUMENT, "connect-timeout-ms is not a "
                                                            "whole number of milliseconds")
        return int(text) / 1000
    text = headers.get("grpc-timeout")
    if text is not None:
        if len(text) < 2 or not text[:-1].isdigit() or text[-1] not in _TIMEOUT_UNITS:
            raise wire.WireError(code_pb2.INVALID_ARGUMENT, "grpc-timeout is malformed")
        return int(text[:-1]) * _TIMEOUT_UNITS[text[-1]]
    return None


def _metadata(raw: list[tuple[bytes, bytes]]) -> tuple[tuple[str, str], ...]:
    """The request's headers as call metadata (what gRPC clients send as metadata, browsers
    send as headers: authorization, x-api-key, ...)."""
    return tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in raw)


def _peer(client: tuple[str, int] | list[Any] | None) -> str:
    """The peer in grpc's spelling (``ipv4:HOST:PORT``, ``ipv6:[HOST]:PORT``), so the limits
    per caller key HTTP callers the same way as gRPC ones."""
    if not client:
        return "unknown"
    host, port = client[0], client[1]
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


def _status_of(exc: BaseException, name: str) -> status_pb2.Status:
    """The status a failed call ends with."""
    if isinstance(exc, HttpAbort):
        return exc.status
    if isinstance(exc, wire.WireError):
        return exc.status
    if isinstance(exc, TimeoutError):
        return status_pb2.Status(code=code_pb2.DEADLINE_EXCEEDED, message="deadline exceeded")
    if isinstance(exc, NotImplementedError):
        return status_pb2.Status(code=code_pb2.UNIMPLEMENTED,
                                 message=f"{name} is not implemented by this server")
    log.error("http_rpc_failed", method=name, exc_info=exc)
    return internal_error()


async def _call_unary(rpc: _Rpc, request: Message, context: HttpContext,
                      timeout: float | None) -> tuple[status_pb2.Status | None, Message | None]:
    try:
        async with asyncio.timeout(timeout):
            return None, await rpc.implementation(request, context)
    except Exception as exc:
        return _status_of(exc, rpc.name), None


async def _responses(rpc: _Rpc, request: Message, context: HttpContext
                     ) -> AsyncIterator[Message]:
    """The messages of a server-streaming call, whichever way grpc.aio lets a servicer write
    them: yielded by an async generator, or passed to ``context.write`` by a coroutine."""
    result = rpc.implementation(request, context)
    if hasattr(result, "__aiter__"):
        async for message in result:
            yield message
        return
    written: asyncio.Queue[Message | None] = asyncio.Queue(maxsize=16)
    context.writer = written.put

    async def run() -> None:
        try:
            await result
        finally:
            await written.put(None)

    task = asyncio.ensure_future(run())
    try:
        while (message := await written.get()) is not None:
            yield message
        await task  # its failure (an abort) ends the stream
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


async def _stream(send: Send, receive: Receive, protocol: wire.Protocol, rpc: _Rpc,
                  responses: AsyncIterator[Message], context: HttpContext,
                  timeout: float | None, cors: Headers) -> None:
    """A server stream: one envelope per message as it comes (chunked over HTTP/1.1), then
    the end of the stream with its status. A client that goes away cancels the call."""
    started = False

    async def start() -> None:
        nonlocal started
        started = True
        headers = [(b"content-type", protocol.content_type().encode()),
                   *((k.encode(), v.encode()) for k, v in context.initial_metadata), *cors]
        await send({"type": "http.response.start", "status": 200, "headers": headers})

    async def pump() -> None:
        async with asyncio.timeout(timeout):
            async for message in responses:
                if not started:
                    await start()
                frame = wire.envelope(0, wire.encode(protocol.codec, message))
                await send({"type": "http.response.body",
                            "body": _text(frame) if protocol.text else frame,
                            "more_body": True})

    pumping = asyncio.ensure_future(pump())
    gone = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait((pumping, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (pumping, gone):
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
    if not pumping.done() or pumping.cancelled():
        return  # the client went away: nobody to tell
    failure = pumping.exception()
    if isinstance(failure, OSError) and not isinstance(failure, TimeoutError):
        return  # the connection broke while sending
    status = None if failure is None else _status_of(failure, rpc.name)
    if not started:
        await start()
    if protocol.kind == "connect-stream":
        end = wire.connect_end(status, context.trailing_metadata)
    else:
        end = wire.grpc_web_trailer(status, context.trailing_metadata)
    await send({"type": "http.response.body", "body": _text(end) if protocol.text else end,
                "more_body": False})


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _fail(send: Send, protocol: wire.Protocol, status: status_pb2.Status,
                cors: Headers, trailers: list[tuple[str, str]] | None = None) -> None:
    """A call that ends with an error before any message: Connect unary answers with the
    code's HTTP status and a JSON error; the enveloped protocols with 200 and an end frame."""
    trailers = trailers or []
    if protocol.kind == "connect":
        extra = [(b"trailer-" + k.encode(), v.encode()) for k, v in trailers]
        await _plain(send, wire.HTTP_STATUS.get(status.code, 500),
                     wire.connect_error_body(status),
                     [(b"content-type", b"application/json"), *extra, *cors])
        return
    if protocol.kind == "connect-stream":
        body = wire.connect_end(status, trailers)
    else:
        body = wire.grpc_web_trailer(status, trailers)
    await _plain(send, 200, _text(body) if protocol.text else body,
                 [(b"content-type", protocol.content_type().encode()), *cors])


def _text(frames: bytes) -> bytes:
    return base64.b64encode(frames)


async def _plain(send: Send, status: int, body: bytes, headers: Headers | None = None,
                 head: bool = False) -> None:
    extra = headers or []
    if not any(k == b"content-type" for k, _ in extra):
        extra = [(b"content-type", b"text/plain; charset=utf-8"), *extra]
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-length", str(len(body)).encode()), *extra]})
    await send({"type": "http.response.body", "body": b"" if head else body})
