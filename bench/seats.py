"""The bare floor servers' tables: every table's seat queues, and the push a move makes.

Shared by bench.floor's grpc.aio server and bench.h2app's ASGI app, and free of grpc so the
app's interpreter (inside Envoy, under pyvoy) loads none.
"""

from __future__ import annotations

import asyncio
import contextlib

PUSH = b"p" * 300
"""A WatchTable update's size in the measured servers."""


class Tables:
    """Every table's four seat queues on a bare server; a move pushes to all four."""

    def __init__(self) -> None:
        self.seats: dict[bytes, list[asyncio.Queue[bytes]]] = {}

    def join(self, request: bytes) -> tuple[bytes, asyncio.Queue[bytes]]:
        table = request.split(b":", 1)[0]
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.seats.setdefault(table, []).append(queue)
        return table, queue

    def leave(self, table: bytes, queue: asyncio.Queue[bytes]) -> None:
        seats = self.seats.get(table, [])
        with contextlib.suppress(ValueError):
            seats.remove(queue)
        if not seats:
            self.seats.pop(table, None)

    def move(self, table: bytes) -> None:
        for queue in self.seats.get(table, ()):
            queue.put_nowait(PUSH)

    def submit(self, table: bytes) -> bytes | None:
        """A move as a unary call: its pushes, and the answer (None: the server's fixed one)."""
        self.move(table)
        return None
