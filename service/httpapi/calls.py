"""Running one call on the servicer and writing its answer in the call's protocol: a unary
answer, a server stream (one envelope per message as it comes, then its status), or an error.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import structlog
from google.protobuf.message import Message
from google.rpc import code_pb2, status_pb2

from bezique.service.httpapi import wire
from bezique.service.httpapi.context import HttpAbort, HttpContext, internal_error
from bezique.service.httpapi.cors import Headers

log = structlog.get_logger("bezique.http")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class Rpc:
    """One method of a served service: its request type and the servicer's method."""

    name: str
    request_type: type[Message]
    streaming: bool
    implementation: Callable[..., Any]


def status_of_failure(exc: BaseException, name: str) -> status_pb2.Status:
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


@dataclass(frozen=True)
class Failure:
    """A unary call that ended with a status instead of an answer."""

    status: status_pb2.Status


async def call_unary(rpc: Rpc, request: Message, context: HttpContext,
                     timeout: float | None) -> Message | Failure:
    """The call's answer, or the status it failed with."""
    try:
        async with asyncio.timeout(timeout):
            answer: Message = await rpc.implementation(request, context)
            return answer
    except Exception as exc:
        return Failure(status_of_failure(exc, rpc.name))


async def stream(send: Send, receive: Receive, protocol: wire.Protocol, rpc: Rpc,
                 request: Message, context: HttpContext, timeout: float | None,
                 cors: Headers) -> None:
    """A server stream: one envelope per message as it comes (chunked over HTTP/1.1), then
    the end of the stream with its status. A client that goes away cancels the call. The
    servicer's messages are sent as it writes them (``context.write``, as grpc.aio serves a
    coroutine: service.servicer.streaming)."""
    started = False

    async def start() -> None:
        nonlocal started
        started = True
        headers = [(b"content-type", protocol.content_type().encode()),
                   *((k.encode(), v.encode()) for k, v in context.headers), *cors]
        await send({"type": "http.response.start", "status": 200, "headers": headers})

    async def write(message: Message) -> None:
        if not started:
            await start()
        frame = wire.envelope(0, wire.encode(protocol.codec, message))
        await send({"type": "http.response.body",
                    "body": text(frame) if protocol.text else frame, "more_body": True})

    async def pump() -> None:
        async with asyncio.timeout(timeout):
            context.writer = write
            await rpc.implementation(request, context)

    pumping = asyncio.ensure_future(pump())
    gone = asyncio.ensure_future(disconnected(receive))
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
    status = None if failure is None else status_of_failure(failure, rpc.name)
    if not started:
        await start()
    if protocol.kind == "connect-stream":
        end = wire.connect_end(status, context.trailers)
    else:
        end = wire.grpc_web_trailer(status, context.trailers)
    await send({"type": "http.response.body", "body": text(end) if protocol.text else end,
                "more_body": False})


async def disconnected(receive: Receive) -> None:
    """Returns once the client has closed the connection."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def fail(send: Send, protocol: wire.Protocol, status: status_pb2.Status,
               cors: Headers, trailers: list[tuple[str, str]] | None = None) -> None:
    """A call that ends with an error before any message: Connect unary answers with the
    code's HTTP status and a JSON error; the enveloped protocols with 200 and an end frame."""
    trailers = trailers or []
    if protocol.kind == "connect":
        extra = [(b"trailer-" + k.encode(), v.encode()) for k, v in trailers]
        await plain(send, wire.HTTP_STATUS.get(status.code, 500),
                     wire.connect_error_body(status),
                     [(b"content-type", b"application/json"), *extra, *cors])
        return
    if protocol.kind == "connect-stream":
        body = wire.connect_end(status, trailers)
    else:
        body = wire.grpc_web_trailer(status, trailers)
    await plain(send, 200, text(body) if protocol.text else body,
                 [(b"content-type", protocol.content_type().encode()), *cors])


def text(frames: bytes) -> bytes:
    """gRPC-Web's text mode: each chunk base64 on its own (clients decode 4 characters at a
    time, so padded chunks concatenate)."""
    return base64.b64encode(frames)


async def plain(send: Send, status: int, body: bytes, headers: Headers | None = None,
                head: bool = False) -> None:
    """A whole answer with its length (for HEAD, the length without the body)."""
    extra = headers or []
    if not any(k == b"content-type" for k, _ in extra):
        extra = [(b"content-type", b"text/plain; charset=utf-8"), *extra]
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-length", str(len(body)).encode()), *extra]})
    await send({"type": "http.response.body", "body": b"" if head else body})
