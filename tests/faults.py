"""A store that fails on purpose: appends that pause and then fail, for the command-path tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from bezique.service.store import LogEntry, Store, StoreError, TableResult, TableState


class FaultyStore:
    """Delegates to a real store; :meth:`fail_next_append` makes the next append of a table
    wait until :meth:`release` (so other calls can arrive meanwhile) and then raise."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.shared = inner.shared
        self._armed: dict[str, tuple[Callable[[], Exception], asyncio.Event | None]] = {}
        self.paused = asyncio.Event()
        """Set while an armed append is waiting for :meth:`release`."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def fail_next_append(self, table_id: str, error: Callable[[], Exception] = lambda: StoreError(
            "injected failure"), *, pause: bool = False) -> asyncio.Event | None:
        """Arm a failure; with ``pause``, returns the event that lets the append go on."""
        gate = asyncio.Event() if pause else None
        self._armed[table_id] = (error, gate)
        return gate

    async def append(self, table_id: str, expected_version: int, entries: Sequence[LogEntry],
                     state: TableState, result: TableResult | None = None) -> None:
        armed = self._armed.pop(table_id, None)
        if armed is None:
            await self.inner.append(table_id, expected_version, entries, state, result)
            return
        error, gate = armed
        if gate is not None:
            self.paused.set()
            await gate.wait()
            self.paused.clear()
        raise error()
