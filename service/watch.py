"""The watch hub: open watch streams, and the committed entries they are sent.

Only committed entries reach it (the command path publishes after the append, the repository
after a catch-up), and every update is rendered for the viewer the stream's token holds *now*:
a seat's stream whose token no longer holds the seat is ended, never shown the next occupant's
cards. Streams are counted over live streams, per seat and per table.
"""

from __future__ import annotations

import time

import structlog

from bezique.service.errors import ResourceExhausted
from bezique.service.live import Broadcast, Inbox, LiveTable, StreamEnd, ViewResult, Watcher
from bezique.service.settings import Limits
from bezique.service.store import LogEntry
from bezique.variants.api import Event

log = structlog.get_logger("bezique.watch")

BEHIND = "behind"
"""The stream's queue was full: the watcher fell behind."""
SEAT_RELEASED = "seat_released"
"""The stream's token no longer holds its seat (it was given up)."""
TOKEN_REVOKED = "token_revoked"
"""The stream's token was replaced by ReissueSeatToken."""
TOKEN_EXPIRED = "token_expired"
"""The stream's token passed its expiry."""
RELOADED = "reloaded"
"""The table was dropped from memory after a failed change: resume from the store."""
CLOSING = "closing"
"""The server is shutting down."""


class WatchHub:
    """Subscribes streams to tables and fans committed entries out to them."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits

    @staticmethod
    def seat_gone(live: LiveTable, watcher: Watcher, now: float) -> str:
        """Why a seat's stream may no longer be sent anything ('' while its token holds the
        seat): checked before every update, so a replaced, given-up or expired token is
        never shown what comes after."""
        if watcher.viewer is None:
            return ""
        if live.seats[watcher.viewer].token_hash != watcher.token_hash:
            return (TOKEN_REVOKED if live.revoked.get(watcher.token_hash) == "reissued"
                    else SEAT_RELEASED)
        if watcher.expires is not None and now >= watcher.expires:
            return TOKEN_EXPIRED
        return ""

    def subscribe(self, live: LiveTable, viewer: int | None, token_hash: str) -> Watcher:
        """A new stream of ``live`` for ``viewer`` (call under the table's lock)."""
        limits = self.limits
        if viewer is None:
            # Spectators have their own cap, so they can never crowd the seats out.
            spectators = sum(1 for w in live.watchers if w.viewer is None)
            if spectators >= limits.max_watchers_per_table:
                raise ResourceExhausted(f"table {live.table_id} has its limit of "
                                        f"{limits.max_watchers_per_table} spectator watchers",
                                        reason="TOO_MANY_STREAMS")
        else:
            open_here = sum(1 for w in live.watchers if w.viewer == viewer)
            if open_here >= limits.max_streams_per_seat:
                raise ResourceExhausted(f"seat {viewer} already has {open_here} open watch "
                                        f"streams (at most {limits.max_streams_per_seat})",
                                        reason="TOO_MANY_STREAMS")
        watcher = Watcher(viewer, token_hash, Inbox(limits.watch_queue + 1),
                          live.version, live,
                          None if viewer is None else live.seats[viewer].token_expires)
        live.watchers.add(watcher)
        return watcher

    @staticmethod
    def unsubscribe(watcher: Watcher) -> None:
        if watcher.home is not None:
            _leave(watcher.home, watcher)

    def adopt(self, live: LiveTable, orphans: list[Watcher], missed: list[LogEntry]) -> None:
        """Attach the streams of a discarded copy of the table to ``live``, just rebuilt from
        the store. The discarded change was never published, so a stream that has every
        committed entry goes on as if nothing happened; one that is behind (another replica
        moved the table meanwhile) is first sent the ``missed`` entries, with its view after
        the last, or told to resume when they do not reach back far enough."""
        sent: dict[int, Broadcast] = {}
        now = time.time()
        for watcher in orphans:
            viewer = watcher.viewer
            gone = self.seat_gone(live, watcher, now)
            if gone:
                self._end(live, watcher, gone)  # checked now, before anything is sent
                continue
            due = [entry for entry in missed if entry.version > watcher.last]
            if [entry.version for entry in due] != list(range(watcher.last + 1,
                                                              live.version + 1)):
                self._end(live, watcher, RELOADED)  # too far behind: it resumes from the store
                continue
            if watcher.queue.qsize() + len(due) >= self.limits.watch_queue:
                self._end(live, watcher, BEHIND)
                continue
            for entry in due:
                broadcast = sent.get(entry.version)
                if broadcast is None:
                    final = entry.version == live.version
                    broadcast = sent[entry.version] = Broadcast(entry, final and live.finished)
                if entry.version == live.version and viewer not in broadcast.views:
                    broadcast.views[viewer] = live.view_for(viewer)
                watcher.queue.put_nowait(broadcast)
                watcher.last = entry.version
            watcher.home = live
            live.watchers.add(watcher)

    def publish(self, live: LiveTable, entry: LogEntry, *, with_views: bool = True,
                events: tuple[Event, ...] | None = None) -> dict[int | None, ViewResult]:
        """Send a committed entry to every stream, with each viewer's view after it when
        ``live`` is at that entry (of several entries committed at once, only the last).
        ``events`` are the entry's events when in hand (else parsed from it once). Returns
        the views rendered, by viewer: the mover's answer reuses its own."""
        if not live.watchers:
            return {}
        broadcast = Broadcast(entry, finished=with_views and live.finished, parsed=events)
        now = time.time()
        for watcher in list(live.watchers):
            viewer = watcher.viewer
            if viewer is not None:
                gone = self.seat_gone(live, watcher, now)
                if gone:
                    self._end(live, watcher, gone)
                    continue
            if watcher.queue.qsize() >= self.limits.watch_queue:
                self._end(live, watcher, BEHIND)
                continue
            if with_views and viewer not in broadcast.views:
                broadcast.views[viewer] = live.view_for(viewer)
            watcher.queue.put_nowait(broadcast)
            watcher.last = entry.version
        return broadcast.views

    @staticmethod
    def end_detached(watchers: list[Watcher], why: str) -> None:
        """End streams attached to no table (their table could not be rebuilt)."""
        for watcher in watchers:
            watcher.home = None
            if not watcher.queue.full():
                watcher.queue.put_nowait(StreamEnd(why))

    def end_all(self, live: LiveTable, why: str) -> None:
        """End every stream of ``live`` (the server closes, or a table cannot be reloaded)."""
        for watcher in list(live.watchers):
            self._end(live, watcher, why)

    @staticmethod
    def _end(live: LiveTable, watcher: Watcher, why: str) -> None:
        _leave(live, watcher)
        # The queue holds one place more than the limit, kept for this.
        if not watcher.queue.full():
            watcher.queue.put_nowait(StreamEnd(why))


def _leave(live: LiveTable, watcher: Watcher) -> None:
    """Take ``watcher`` off ``live``; the table's last stream takes its kept views along."""
    live.watchers.discard(watcher)
    if not live.watchers:
        live.forget_views()
