"""The table manager: the service's one entry point to tables, reading and changing them.

It composes four parts, each with one job:

* :class:`~service.repository.TableRepository`: the tables in memory (load, rebuild, cache,
  evict, snapshot, catch up with other replicas);
* :class:`~service.commands.CommandPath`: every change, committed before anyone sees it;
* :class:`~service.watch.WatchHub`: open watch streams and what they are sent;
* :class:`~service.scheduler.Scheduler`: bots and turn clocks.

The invariant they keep together: every view and every update any caller receives is derivable
from the committed log. Reads here hold the table like commands do, so they see committed
state only. The game itself is the variant's business: nothing here interprets a card.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from bezique.service import auth, inputs
from bezique.service.commands import Binding, CommandPath, MoveResult
from bezique.service.errors import (
    InvalidArgument,
    PermissionDenied,
    ResourceExhausted,
    ServiceError,
    StaleVersion,
    Unauthenticated,
    Unavailable,
)
from bezique.service.live import (
    Broadcast,
    LiveTable,
    Seat,
    StreamEnd,
    ViewResult,
)
from bezique.service.metrics import Metrics
from bezique.service.redaction import events_for, parsed_events, redacted
from bezique.service.rematch import rematch
from bezique.service.repository import TableRepository
from bezique.service.results import ResultsFeed
from bezique.service.scheduler import Scheduler
from bezique.service.settings import Limits, Settings
from bezique.service.store import LogEntry, Store, TableResult
from bezique.service.watch import (
    BEHIND,
    CLOSING,
    RELOADED,
    SEAT_RELEASED,
    TOKEN_EXPIRED,
    TOKEN_REVOKED,
    WatchHub,
)
from bezique.table.entries import Moved, decode
from bezique.terms import MOVE_KINDS
from bezique.variants.api import Event, Move, Outcome
from bezique.variants.cards import Shoe
from bezique.variants.registry import Registry

__all__ = ["HistoryItem", "HistoryPage", "Limits", "MoveResult", "Settings", "TableManager",
           "Update"]


@dataclass(frozen=True)
class HistoryItem:
    entry: LogEntry
    move: Move | None
    events: tuple[Event, ...]


@dataclass(frozen=True)
class HistoryPage:
    """One page of a table's history as a viewer may see it, at the table's ``version``."""

    live: LiveTable
    version: int
    finished: bool
    outcome: Outcome | None
    seats: tuple[Seat, ...]
    items: list[HistoryItem]
    next_page_token: str


@dataclass(slots=True)
class Update:
    """One entry as a watcher may see it, with the watcher's view after it when current
    (one per stream and entry: not frozen, whose constructor costs four times as much)."""

    version: int
    kind: str
    seat: int | None
    events: tuple[Event, ...]
    view: ViewResult | None
    viewer: int | None
    shoe: Shoe
    broadcast: Broadcast | None = None


def _visible_move(entry: LogEntry, viewer: int | None, events: Sequence[Event],
                  finished: bool) -> Move | None:
    record = decode(entry.kind, entry.seat, entry.payload) if entry.kind in MOVE_KINDS else None
    if not isinstance(record, Moved):
        return None
    move = record.move
    if finished or viewer == entry.seat:
        return move
    shown = {card for event in events for card in event.cards}
    return Move(move.kind, tuple(c for c in move.cards if c in shown), move.amount, move.label)


def _stream_end(why: str, last: int) -> ServiceError:
    """The error that ends a watch stream, with where to resume when resuming makes sense."""
    resume = {"resume_from": str(last)}
    if why == SEAT_RELEASED:
        return PermissionDenied("this stream's token no longer holds its seat",
                                field="authorization", reason="SEAT_RELEASED")
    if why == TOKEN_REVOKED:
        return PermissionDenied("this stream's seat token was replaced by a newer one",
                                field="authorization", reason="SEAT_TOKEN_REVOKED")
    if why == TOKEN_EXPIRED:
        return Unauthenticated("this stream's seat token has expired", field="authorization",
                               reason="SEAT_TOKEN_EXPIRED")
    if why == BEHIND:
        return ResourceExhausted(f"watcher fell behind; resume from version {last}",
                                 reason="WATCHER_BEHIND", metadata=resume)
    if why == RELOADED:
        return Unavailable(f"the table was reloaded from the store; resume from version {last}",
                           reason="TABLE_RELOADED", metadata=resume)
    return Unavailable(f"the server is shutting down; resume from version {last} on another "
                       "replica", metadata=resume)


T = TypeVar("T")

UNVERSIONED_TRIES = 3
"""How often a change sent without a version (a reveal, a reissue, a leave, an abort) is worked
out again when another replica appended to the table first. Its caller has no version to put
right, so ABORTED ('get the view again and resubmit') would only make him send the same again:
the table is caught up from the store and the change decided anew (so a table that ended
meanwhile refuses it as ended)."""


async def _unversioned(change: Callable[[], Awaitable[T]]) -> T:
    for attempt in range(1, UNVERSIONED_TRIES + 1):
        try:
            return await change()
        except StaleVersion:
            if attempt == UNVERSIONED_TRIES:
                raise
    raise AssertionError("unreachable")


class TableManager:
    """Owns the live tables of this process and every path that reads or changes them."""

    def __init__(self, registry: Registry, store: Store, settings: Settings | None = None,
                 metrics: Metrics | None = None) -> None:
        self.registry = registry
        self.store = store
        self.settings = settings or Settings()
        self.metrics = metrics
        self.hub = WatchHub(self.settings.limits)
        self.repo = TableRepository(registry, store, self.hub)
        self.commands = CommandPath(registry, store, self.repo, self.hub, self.settings, metrics)
        self.scheduler = Scheduler(registry, store, self.repo, self.commands, self.settings)
        self.repo.on_loaded = self.scheduler.wake
        self.commands.on_committed = self.scheduler.wake
        self.results = ResultsFeed(store, self.settings.results_poll)
        self.commands.on_result = self.results.wake
        self.closing = False

    # ------------------------------------------------------------------ changing

    async def create_table(self, variant_id: str, options: Mapping[str, str],
                           bots: Sequence[tuple[int, str]] = (), turn_seconds: int = 0,
                           test: Mapping[str, Any] | None = None, open_seats: bool = False
                           ) -> LiveTable:
        return await self.commands.create(variant_id, options, bots, turn_seconds, test,
                                          open_seats)

    async def rematch(self, table_id: str) -> tuple[LiveTable, bool]:
        return await rematch(self.commands, self.repo, table_id)

    async def join(self, table_id: str, seat: int | None, name: str, entropy: bytes = b"",
                   binding: Binding | None = None, entropy_commitment: bytes = b"",
                   caller: Sequence[str] = ()) -> tuple[int, str, ViewResult]:
        name = inputs.check_join(self.settings.limits, name, entropy, entropy_commitment)
        return await self.commands.join(table_id, seat, name, entropy, binding,
                                        entropy_commitment, caller)

    async def reissue(self, table_id: str, seat: int) -> tuple[str, float | None, int]:
        return await _unversioned(lambda: self.commands.reissue(table_id, seat))

    async def reveal(self, table_id: str, token: str, entropy: bytes) -> ViewResult:
        inputs.check_reveal(entropy)
        return await _unversioned(lambda: self.commands.reveal(table_id, token, entropy))

    async def leave(self, table_id: str, token: str, caller: Sequence[str] = ()) -> int:
        return await _unversioned(lambda: self.commands.leave(table_id, token, caller))

    async def submit(self, table_id: str, token: str, move: Move, expected_version: int,
                     request_id: str) -> MoveResult:
        inputs.check_request_id(self.settings.limits, request_id)
        return await self.commands.submit(table_id, token, move, expected_version, request_id)

    async def abort(self, table_id: str, note: str = "") -> int:
        inputs.check_note(self.settings.limits, note)
        return await _unversioned(lambda: self.commands.abort(table_id, note))

    def watch_results(self, from_cursor: int) -> AsyncIterator[TableResult]:
        """Every finished table after ``from_cursor``, in commit order, then live ones."""
        if self.closing:
            raise Unavailable("the server is shutting down; watch on another replica",
                              metadata={"resume_from": str(from_cursor)})
        return self.results.stream(from_cursor)

    # ------------------------------------------------------------------ reading

    async def table(self, table_id: str) -> LiveTable:
        """The table as committed now (its facts: record, variant; for state, hold it)."""
        async with self.repo.hold(table_id) as live:
            return live

    async def get_view(self, table_id: str, token: str | None) -> ViewResult:
        async with self.repo.hold(table_id) as live:
            return live.view_for(await self._viewer(live, token))

    async def _viewer(self, live: LiveTable, token: str | None) -> int | None:
        return None if token is None else await self.commands.seat_for(live, token)

    async def history(self, table_id: str, token: str | None, page_size: int = 0,
                      page_token: str = "") -> HistoryPage:
        """One page of the log as the caller may see it (everything once the game is over)."""
        limits = self.settings.limits
        if not 0 <= page_size <= limits.max_history_page:
            raise InvalidArgument(f"page_size must be 0..{limits.max_history_page} (0: "
                                  f"{limits.history_page})", field="page_size")
        after = 0
        if page_token:
            if not (page_token.isascii() and page_token.isdigit()) or len(page_token) > 12:
                raise InvalidArgument("page_token is not one this server gave",
                                      field="page_token", reason="INVALID_PAGE_TOKEN")
            after = int(page_token)
        size = page_size or limits.history_page
        async with self.repo.hold(table_id) as live:
            viewer = await self._viewer(live, token)
            version, finished, seats = live.version, live.finished, tuple(live.seats)
            outcome = live.outcome()
        if after > version:
            raise InvalidArgument("page_token is past the end of the table's log",
                                  field="page_token", reason="INVALID_PAGE_TOKEN")
        entries = [entry for entry in await self.store.read_log(table_id, after, size)
                   if entry.version <= version]
        items = []
        for entry in entries:
            events = tuple(events_for(entry, viewer, finished))
            items.append(HistoryItem(entry, _visible_move(entry, viewer, events, finished),
                                     events))
        last = entries[-1].version if entries else after
        return HistoryPage(live, version, finished, outcome, seats, items,
                           str(last) if last < version else "")

    # ------------------------------------------------------------------ watching

    async def watch(self, table_id: str, token: str | None, from_version: int
                    ) -> AsyncIterator[Update]:
        """Every update after ``from_version`` the caller may see, then live ones, each once;
        the stream ends once the game is over and everything has been sent."""
        if from_version < 0:
            raise InvalidArgument("from_version must be >= 0", field="from_version")
        if self.closing:
            raise Unavailable("the server is shutting down; watch on another replica")
        # Subscribe under the table's lock: entries up to ``head`` come from the store (the
        # backlog, read page by page outside the lock), later ones from the hub.
        async with self.repo.hold(table_id) as live:
            viewer = await self._viewer(live, token)
            if from_version > live.version:
                raise InvalidArgument(f"from_version {from_version} is ahead of the table "
                                      f"(version {live.version})", field="from_version")
            watcher = self.hub.subscribe(live, viewer,
                                         auth.token_hash(token) if token is not None else "")
            head, current, finished = live.version, live.view_for(viewer), live.finished
            shoe = live.variant.shoe(live.record.options)
        try:
            if viewer is not None and self.store.shared and self.settings.abandon_check:
                # A seat back at a table idle for nearly its window is recorded now: another
                # replica's abandon sweep before this one's next touch must see it connected.
                await self.store.touch_tables([table_id], time.time())
            last = from_version
            # What a stream waits with is kept to its watcher: the backlog's pages, the view
            # and the update last sent are let go (kept, they cost a few KB a stream).
            async for update in self._backlog(table_id, viewer, shoe, finished, current,
                                              from_version, head):
                last = update.version
                yield update
                del update
            del current
            while not finished:
                # The stream's next item; a seat's stream whose token expires meanwhile gets
                # its end at the expiry, with nothing sent after it (awaited here, not in a
                # coroutine of its own: a waiting stream keeps a frame per layer).
                item = await watcher.queue.get(None if watcher.expires is None
                                               else watcher.expires - time.time())
                if item is None:
                    item = StreamEnd(TOKEN_EXPIRED)
                if isinstance(item, StreamEnd):
                    raise _stream_end(item.why, last)
                if item.entry.version <= last:
                    continue
                last = item.entry.version
                finished = item.finished
                yield self._update(item.entry, viewer, shoe, finished, item.views.get(viewer),
                                   item)
                del item
        finally:
            self.hub.unsubscribe(watcher)

    async def _backlog(self, table_id: str, viewer: int | None, shoe: Shoe, finished: bool,
                       current: ViewResult, after: int, head: int) -> AsyncIterator[Update]:
        """The committed entries after ``after`` up to ``head`` (read page by page from the
        store, outside the lock), the last with ``current``, the viewer's view at ``head``."""
        last = after
        page = self.settings.limits.history_page
        while last < head:
            entries = await self.store.read_log(table_id, last, min(page, head - last))
            if not entries:
                raise Unavailable(f"the table's log ends before version {head}; resume "
                                  f"from version {last}", reason="TABLE_RELOADED",
                                  metadata={"resume_from": str(last)})
            for entry in entries:
                last = entry.version
                yield self._update(entry, viewer, shoe, finished,
                                   current if last == head else None, None)

    @staticmethod
    def _update(entry: LogEntry, viewer: int | None, shoe: Shoe, finished: bool,
                view: ViewResult | None, broadcast: Broadcast | None) -> Update:
        if broadcast is None:
            events = tuple(events_for(entry, viewer, finished))
        else:
            cached = broadcast.events.get(viewer)
            if cached is None:
                parsed = broadcast.parsed
                if parsed is None:  # once per entry, then redacted once per viewer
                    parsed = broadcast.parsed = parsed_events(entry)
                cached = broadcast.events[viewer] = redacted(parsed, viewer, finished)
            events = cached
        return Update(entry.version, entry.kind, entry.seat, events, view, viewer, shoe,
                      broadcast)

    # ------------------------------------------------------------------ housekeeping

    async def fire_due_deadlines(self, now: float | None = None) -> int:
        return await self.scheduler.fire_due_deadlines(now)

    async def sweep_abandoned(self, now: float | None = None) -> int:
        return await self.scheduler.sweep_abandoned(now)

    def forget_stale_views(self, keep: float, now: float | None = None) -> int:
        return self.repo.forget_stale_views(keep, now)

    async def evict_idle(self, idle_seconds: float, now: float | None = None) -> int:
        return await self.repo.evict_idle(idle_seconds, self.scheduler.busy, now)

    def on_remote_entry(self, table_id: str, version: int) -> None:
        self.repo.on_remote_entry(table_id, version)

    async def poll_replicas(self) -> int:
        """Catch up the tables other replicas moved without this one being told (a lost
        notice); the results feed reads the store on its own poll. Returns how many."""
        return await self.repo.poll()

    def on_reconnect(self) -> None:
        self.repo.on_reconnect()
        self.results.wake()  # notifications of results may have been lost too

    def live_tables(self) -> Iterator[tuple[str, str]]:
        """(variant, phase) of every table held in memory and not in the middle of a change,
        for the metrics (a draft's phase is not shown either)."""
        for live in self.repo.held():
            if not live.lock.locked():
                yield live.variant.id, live.phase

    async def close(self) -> None:
        self.closing = True
        self.results.close()
        await self.scheduler.close()
        self.repo.close(CLOSING)

