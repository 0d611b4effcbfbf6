"""The records the server hands its search bots: what a seat has seen of its game, built from
the committed log (never from the game in memory), so ``verify``, which replays the same log,
hands the bot the same record and recomputes the same move.

A table's game events are read once and kept while its bots play (the log only grows: a
committed entry never changes); a few tables' are kept, the oldest forgotten first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from bezique.service.store import Store
from bezique.table.entries import Aborted, Moved, Started, decode
from bezique.variants.api import Event, SeatRecord

KEPT_TABLES = 64
"""Tables whose game events are kept between bot moves (a long table's are thousands)."""


class BotRecords:
    """Game events per table, read from the log up to the version a bot decides at."""

    def __init__(self, store: Store, kept: int = KEPT_TABLES) -> None:
        self.store = store
        self.kept = kept
        self._events: OrderedDict[str, tuple[int, list[Event]]] = OrderedDict()

    async def record(self, table_id: str, version: int, seat: int,
                     options: Mapping[str, Any]) -> SeatRecord:
        """``seat``'s record of the table's game as of ``version`` (a committed version)."""
        return SeatRecord.of(seat, options, await self.events(table_id, version))

    async def events(self, table_id: str, version: int) -> list[Event]:
        """The game's events in the log up to ``version``, in order."""
        kept = self._events.pop(table_id, None)
        read, events = kept if kept is not None and kept[0] <= version else (0, [])
        if read < version:
            entries = await self.store.read_log(table_id, read, version - read)
            for stored in entries:
                entry = decode(stored.kind, stored.seat, stored.payload)
                if isinstance(entry, Started | Moved | Aborted):
                    events.extend(Event.from_dict(event) for event in entry.events)
                read = stored.version
        if read != version:  # never decide on part of what the seat saw: the bot retries
            raise RuntimeError(f"the log of {table_id} ends at {read}, not {version}")
        self._events[table_id] = (read, events)
        while len(self._events) > self.kept:
            self._events.popitem(last=False)
        return events

    def forget(self, table_id: str) -> None:
        """Drop a table's events (its game is over)."""
        self._events.pop(table_id, None)
