"""bench.floor's bare server as an ASGI app speaking native gRPC (HTTP/2, trailers), for pyvoy.

Issue #28 asks whether an HTTP/2 server that runs an ASGI app (pyvoy: Envoy with Python inside)
could carry gRPC beside Connect and gRPC-Web. This app answers ``/bench.Floor/Play`` as
:func:`bench.floor.handlers` does (the first message joins a table's seat; each later one is a
move that pushes 300 bytes to the table's four seats), plus the few methods
``bench.h2floor``'s checks need: ``Echo`` (a unary OK), ``Fail`` (a unary error in trailers),
``Sleep`` (waits for the client to go: deadlines), ``Flood`` (pushes until the client stops
reading: flow control) and ``Seen`` (what the app saw, as JSON).

Kept apart from bench.h2floor so Envoy's embedded interpreter imports no grpc: it is loaded by
``pyvoy bench.h2app:app`` (or the Envoy command bench.h2floor builds), never by tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench.seats import PUSH, Tables

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

FLOOD_MESSAGE = b"f" * 16_384
SERVICE = "/bench.Floor/"
GRPC_HEADERS = [(b"content-type", b"application/grpc")]

SEEN: dict[str, Any] = {"timeouts": [], "gone_after": [], "flood_sent": 0, "extensions": None}
"""What the app saw, for the checks (one process, one event loop: a plain dict is enough)."""


def frame(message: bytes) -> bytes:
    """A gRPC length-prefixed message, uncompressed."""
    return b"\0" + len(message).to_bytes(4, "big") + message


class Frames:
    """A request's gRPC messages as they arrive; ``None`` once the client half-closes or goes."""

    def __init__(self, receive: Receive) -> None:
        self.receive = receive
        self.buffer = bytearray()
        self.more = True
        self.gone = False

    async def next(self) -> bytes | None:
        while True:
            if len(self.buffer) >= 5:
                length = int.from_bytes(self.buffer[1:5], "big")
                if len(self.buffer) >= 5 + length:
                    message = bytes(self.buffer[5:5 + length])
                    del self.buffer[:5 + length]
                    return message
            if not self.more:
                return None
            event = await self.receive()
            if event["type"] == "http.disconnect":
                self.more, self.gone = False, True
            else:
                self.buffer += event.get("body", b"")
                self.more = bool(event.get("more_body", False))

    async def until_gone(self) -> None:
        """Drain the request until the client resets the stream (or the connection closes)."""
        while not self.gone:
            event = await self.receive()
            self.gone = event["type"] == "http.disconnect"


def _tables() -> Tables:
    """bench.seats' bare tables; or, with ``BENCH_LEASTWORK_DB`` set (``bench.h2floor
    --work``), bench.leastwork's, which do a move's work (logging to that path and this
    process's id: several apps may run at once)."""
    where = os.environ.get("BENCH_LEASTWORK_DB")
    if not where:
        return Tables()
    from bench.leastwork import WorkingTables

    return WorkingTables(Path(f"{where}.{os.getpid()}"))


TABLES = _tables()


async def start(send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": GRPC_HEADERS,
                "trailers": True})


async def push(send: Send, message: bytes) -> None:
    await send({"type": "http.response.body", "body": frame(message), "more_body": True})


async def finish(send: Send, code: int = 0, text: str = "") -> None:
    """End the response: an empty last body, then grpc-status (and grpc-message) as trailers."""
    trailers = [(b"grpc-status", str(code).encode())]
    if text:
        trailers.append((b"grpc-message", quote(text, safe=" ").encode()))
    await send({"type": "http.response.body", "body": b"", "more_body": False})
    await send({"type": "http.response.trailers", "headers": trailers, "more_trailers": False})


async def play(scope: Scope, receive: Receive, send: Send) -> None:
    frames = Frames(receive)
    first = await frames.next()
    if first is None:
        return
    await start(send)
    table, queue = TABLES.join(first)

    async def moves() -> None:
        while await frames.next() is not None:
            TABLES.move(table)
        if frames.gone:
            queue.put_nowait(b"")  # no push is empty: this one ends the writer below

    reader = asyncio.get_running_loop().create_task(moves())
    try:
        message = PUSH
        while message:
            await push(send, message)
            message = await queue.get()
    finally:
        reader.cancel()
        TABLES.leave(table, queue)


async def echo(scope: Scope, receive: Receive, send: Send) -> None:
    message = await Frames(receive).next()
    await start(send)
    await push(send, message or b"")
    await finish(send)


async def fail(scope: Scope, receive: Receive, send: Send) -> None:
    await Frames(receive).next()
    await start(send)
    await finish(send, 3, "table: no such table (ünïcode, 100%)")


async def sleep(scope: Scope, receive: Receive, send: Send) -> None:
    """Record the grpc-timeout header, then wait until the client goes (its deadline)."""
    headers = dict(scope["headers"])
    SEEN["timeouts"].append(headers.get(b"grpc-timeout", b"").decode())
    began = time.monotonic()
    frames = Frames(receive)
    await frames.next()
    await frames.until_gone()
    SEEN["gone_after"].append(round(time.monotonic() - began, 3))


async def flood(scope: Scope, receive: Receive, send: Send) -> None:
    """Push 16 KiB messages as fast as send() lets us, counting them in SEEN."""
    await Frames(receive).next()
    await start(send)
    SEEN["flood_sent"] = 0
    with contextlib.suppress(Exception):
        while True:
            await push(send, FLOOD_MESSAGE)
            SEEN["flood_sent"] += 1


async def seen(scope: Scope, receive: Receive, send: Send) -> None:
    await Frames(receive).next()
    await start(send)
    await push(send, json.dumps(SEEN).encode())
    await finish(send)


METHODS: dict[str, Callable[[Scope, Receive, Send], Awaitable[None]]] = {
    SERVICE + "Play": play, SERVICE + "Echo": echo, SERVICE + "Fail": fail,
    SERVICE + "Sleep": sleep, SERVICE + "Flood": flood, SERVICE + "Seen": seen,
}


async def lifespan(receive: Receive, send: Send) -> None:
    while True:
        event = await receive()
        if event["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif event["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
        return
    SEEN["extensions"] = sorted(scope.get("extensions") or {})
    method = METHODS.get(scope["path"])
    if method is None:
        await send({"type": "http.response.start", "status": 200, "trailers": False,
                    "headers": [*GRPC_HEADERS, (b"grpc-status", b"12"),
                                (b"grpc-message", b"unknown method")]})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        return
    await method(scope, receive, send)
