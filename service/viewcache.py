"""What the views of a table's current version share, kept while the table is watched.

Every entry moves a table's version, so what is kept for a version is what its committed log
shows: the views given out (the watchers of a viewer, the mover's answer and GetView share
one), the bytes that views render alike, and the census that :class:`BaseGame` derives each
view from. An unwatched table keeps none of it, and a watched one only for a moment after it
began keeping a version (``--views-kept-seconds``): its streams have been sent that version by
then, so a table waiting for a player's next move costs no memory for views (the server's
housekeeping lets them go, :meth:`ViewCache.let_go`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

from bezique.variants.api import BaseGame, CensusViews, Game, View

if TYPE_CHECKING:
    from bezique.service.live import ViewResult, Watcher


Kept = deque[tuple[float, "ViewCache", int]]
"""The versions caches began to keep, oldest first: (``time.monotonic()``, cache, version).
The server's one queue of them (:meth:`ViewCache.let_go`), so letting them go costs a step
per version kept, not a walk over every table in memory."""


class ViewCache:
    """The views of one version of a table (``at``), its shared bytes and its census."""

    __slots__ = ("at", "census", "kept", "kept_at", "views", "watchers", "wire")

    def __init__(self, watchers: set[Watcher] | None = None) -> None:
        self.views: dict[int | None, ViewResult] = {}
        """The views given out at ``at``, by viewer (``LiveTable.view_for``)."""
        self.wire: dict[Hashable, bytes] = {}
        """Parts of the views at ``at`` that viewers share (:meth:`shared`)."""
        self.census: CensusViews | None = None
        """The views of the census at ``at`` of a game whose views are derived from it."""
        self.at = -1
        self.kept_at = 0.0
        """``time.monotonic()`` when ``at`` began to be kept."""
        self.kept: Kept | None = None
        """The server's queue of kept versions, once the table is in its memory."""
        self.watchers: set[Watcher] = set() if watchers is None else watchers
        """The table's streams (the table's own set): while one has an update of this
        version still to render, its views are kept (:meth:`let_go`)."""

    def of(self, version: int) -> dict[int | None, ViewResult]:
        """The views kept of ``version``; what was kept of another version is let go."""
        if self.at != version:
            self.clear()
            self.at = version
            self.kept_at = time.monotonic()
            if self.kept is not None:
                self.kept.append((self.kept_at, self, version))
        return self.views

    @staticmethod
    def let_go(kept: Kept, now: float, keep: float) -> int:
        """Let go of what each cache of ``kept`` began to keep ``keep`` seconds before ``now``
        or earlier, unless it moved on since (a view asked for later is rendered again).
        A cache whose table has a stream that has not taken its update yet (a server too busy
        to send them in ``keep``) keeps its version for another ``keep``: letting it go then
        would have each of those streams render anew what they share, more work on a server
        already behind. Returns how many caches let a version go."""
        forgot = 0
        while kept and now - kept[0][0] >= keep:
            since, cache, version = kept.popleft()
            if cache.at != version or cache.kept_at != since:
                continue  # let go, or moved on, since
            if any(watcher.queue.qsize() for watcher in cache.watchers):
                cache.kept_at = now
                kept.append((now, cache, version))
                continue
            cache.clear()
            forgot += 1
        return forgot

    def clear(self) -> None:
        """Let go of all that is kept (the table moved on, is discarded, or is unwatched)."""
        self.views.clear()
        self.wire.clear()
        self.census = None
        self.at = -1

    def shared(self, version: int, key: Hashable, render: Callable[[], bytes],
               keep: bool) -> bytes:
        """``render()``, kept by ``key`` for the version kept when ``keep`` (the table is
        watched); an older version's bytes are rendered as asked, not kept, as are those
        whose key does not hash (an untyped plugin's list of cards)."""
        if version != self.at or not keep:
            return render()
        try:
            found = self.wire.get(key)
        except TypeError:
            return render()
        if found is None:
            found = self.wire[key] = render()
        return found

    def derived(self, game: Game, viewer: int | None, keep: bool) -> View:
        """``game.view(viewer)``. For a game that keeps :meth:`BaseGame.view`, which derives
        each view from the census, the census of this version is taken once, when ``keep``
        (the table is watched), for the views of all its viewers, which share what they see
        alike (:class:`CensusViews`; the same views: the census at a version is that of its
        committed log, and the views copy what they show)."""
        if getattr(type(game), "view", None) is not BaseGame.view:
            return game.view(viewer)
        census = self.census
        if census is None:
            census = game.census().views(game.phase, game.to_move, game.shoe)
            if keep:
                self.census = census
        return census.view_for(viewer)
