"""Group commit: the appends that arrive while a commit runs go into the next one.

A store hands :class:`GroupCommit` a function that commits a batch of appends in one
transaction and says, for each, whether it went in (None) or why not (its own VersionConflict,
RequestIdTaken, or StoreError such as no such table). An append that finds no commit running
commits at once, alone, in its caller's own task: an idle server waits for nothing (no timer,
no hop). Appends
that arrive while a commit is in flight queue; when it ends, one task commits all of them in
the next transaction, and so on while they keep coming. Each caller is answered when its own
batch committed, so an answered append is durable. A batch that fails as a whole (the store
itself) fails every append in it with StoreError: nothing of it is committed, callers retry.

Batches commit one after another, so the order of their commits is the order they were
formed in: what the store numbers at commit (the results feed's cursor) keeps commit order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from bezique.service.store.base import LogEntry, StoreError, TableResult, TableState

T = TypeVar("T")

Commit = Callable[[Sequence[T]], Awaitable[Sequence[StoreError | None]]]
"""Commits a batch in one transaction: for each append None (committed) or its own refusal;
raises StoreError (or anything) when the batch as a whole failed and nothing of it is stored."""


class GroupCommit(Generic[T]):
    """One commit in flight at a time; what queues meanwhile is the next batch."""

    def __init__(self, commit: Commit[T]) -> None:
        self._commit = commit
        self._busy = False
        self._queue: list[tuple[T, asyncio.Future[None]]] = []
        self._drainer: asyncio.Task[None] | None = None
        self.batches = 0
        """Transactions committed or tried (a batch of one counts too)."""
        self.largest = 0
        """The most appends one transaction carried."""

    async def submit(self, item: T) -> None:
        """Commit ``item`` (with whatever queues behind a running commit), or raise its
        refusal, or StoreError when its batch failed."""
        if self._busy:
            future = asyncio.get_running_loop().create_future()
            self._queue.append((item, future))
            await future
            return
        self._busy = True
        self.batches += 1
        self.largest = max(self.largest, 1)
        try:
            [refusal] = await self._commit((item,))
        finally:
            self._hand_over()
        if refusal is not None:
            raise refusal

    async def drained(self) -> None:
        """Wait until every queued append was committed or failed (before closing)."""
        while self._drainer is not None:
            await asyncio.shield(self._drainer)

    async def _counted(self, items: Sequence[T]) -> Sequence[StoreError | None]:
        self.batches += 1
        self.largest = max(self.largest, len(items))
        return await self._commit(items)

    def _hand_over(self) -> None:
        """After a commit: the appends that queued meanwhile are the next batch, committed by
        a task of their own (its callers' cancellation never cuts a batch short)."""
        if self._queue:
            self._drainer = asyncio.get_running_loop().create_task(self._drain())
        else:
            self._busy = False

    async def _drain(self) -> None:
        try:
            while self._queue:
                # A caller cancelled before its batch began is left out: nothing of it written.
                batch = [(item, future) for item, future in self._queue if not future.done()]
                self._queue.clear()
                if batch:
                    await self._settle(batch)
                    # The callers just answered run before the next batch is taken, so one
                    # that appends again at once joins it rather than commit alone beside it
                    # (busy load would otherwise alternate a lone commit and a full one).
                    await asyncio.sleep(0)
        finally:
            self._drainer = None
            self._busy = False

    async def _settle(self, batch: list[tuple[T, asyncio.Future[None]]]) -> None:
        try:
            refusals = await self._counted([item for item, _ in batch])
        except BaseException as exc:
            for _, future in batch:
                if not future.done():
                    failure = StoreError(f"a batch of {len(batch)} appends failed: {exc}")
                    failure.__cause__ = exc
                    future.set_exception(failure)
            if not isinstance(exc, Exception):
                raise
            return
        for (_, future), refusal in zip(batch, refusals, strict=True):
            if future.done():  # its caller was cancelled meanwhile; the append stands
                continue
            if refusal is None:
                future.set_result(None)
            else:
                future.set_exception(refusal)


@dataclass(frozen=True, slots=True)
class Append:
    """One ``Store.append`` call, waiting for its batch."""

    table_id: str
    expected_version: int
    entries: Sequence[LogEntry]
    state: TableState
    result: TableResult | None
