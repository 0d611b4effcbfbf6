"""The results feed: every finished table, in the order the entries that ended them committed.

The store numbers each result with a cursor in commit order (see service/store), in the same
transaction as the log entry that ends the table, so the feed is the store read in cursor
order: a stream reads everything after its cursor, then waits to be woken. It is woken by this
process's commits and, on PostgreSQL, by the NOTIFY of any replica's; it reads the store again
after ``poll`` seconds anyway, so a lost notification delays a result, never drops it.
Nothing is held per stream but its cursor: a consumer resumes anywhere from the last cursor
it applied.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from bezique.service.errors import InvalidArgument, Unavailable
from bezique.service.live import LiveTable
from bezique.service.store import LogEntry, Store, TableResult
from bezique.variants.api import ABORTED

PAGE = 100
"""Results read from the store at once."""


class ResultsFeed:
    """Streams committed results to any number of watchers, each from its own cursor."""

    def __init__(self, store: Store, poll: float = 1.0) -> None:
        self.store = store
        self.poll = poll
        self.closing = False
        self._changed = asyncio.Event()
        self.streams = 0
        """Open streams now (for the metrics and the tests)."""

    def wake(self) -> None:
        """A result was committed (here, or by a replica): every waiting stream reads."""
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def on_result(self, cursor: int) -> None:
        """PostgreSQL NOTIFY of a result committed by any replica."""
        self.wake()

    def close(self) -> None:
        """Shutting down: every stream ends with UNAVAILABLE and its cursor to resume from."""
        self.closing = True
        self.wake()

    async def stream(self, after: int) -> AsyncIterator[TableResult]:
        """Every result with a cursor above ``after``, in cursor order, then each new one."""
        if after < 0:
            raise InvalidArgument("from_cursor must be >= 0", field="from_cursor")
        self.streams += 1
        try:
            while True:
                if self.closing:
                    raise Unavailable(f"the server is shutting down; resume from cursor "
                                      f"{after} on another replica",
                                      metadata={"resume_from": str(after)})
                changed = self._changed  # taken before the read: a wake during it counts
                rows = await self.store.read_results(after, PAGE)
                for row in rows:
                    after = row.cursor
                    yield row
                if len(rows) == PAGE:
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), self.poll)
        finally:
            self.streams -= 1


def finished_result(live: LiveTable, last: LogEntry) -> TableResult:
    """The result of a table that ``last`` ends (part of the draft that ends it): who held
    each seat, the outcome, each seat's chip change for a betting variant, the seed."""
    record = live.record
    outcome = live.outcome()
    chips: list[int] = []
    if live.game is not None and live.start_stacks:
        end = live.game.view(None).stacks
        if len(end) == len(live.start_stacks):
            chips = [after - before for before, after in zip(live.start_stacks, end, strict=True)]
    data: dict[str, Any] = {
        "variant_id": record.variant_id, "variant_version": record.variant_version,
        "seats": [{"player_id": seat.player_id, "name": seat.name, "bot": seat.bot}
                  for seat in live.seats],
        "reason": outcome.reason if outcome is not None else ABORTED,
        "outcome": None if outcome is None else {
            "winners": list(outcome.winners), "scores": list(outcome.scores),
            "reason": outcome.reason, "detail": dict(outcome.detail)},
        "chip_changes": chips, "start_stacks": list(live.start_stacks) if chips else [],
        "commitment": record.commitment, "seed": record.seed.hex()}
    return TableResult(record.table_id, last.version, data, last.created_at)
