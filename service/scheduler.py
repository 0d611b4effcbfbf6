"""The scheduler: the server's own moves, made for bot seats and for seats whose turn clock ran
out, through the same command path as a person's.

A bot or a clock that fails (a store hiccup, a plugin bug) is retried with a growing pause and
never blocks another table: a table whose deadline could not be fired waits out its pause while
the others' clocks keep firing.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict

import structlog

from bezique.service.bot_records import BotRecords
from bezique.service.commands import CommandPath
from bezique.service.errors import ResourceExhausted, StaleVersion
from bezique.service.live import LiveTable
from bezique.service.repository import TableRepository
from bezique.service.settings import Settings
from bezique.service.store import Store
from bezique.terms import EntryKind
from bezique.variants.api import SeatRecord
from bezique.variants.host import bot_choice, reads_record
from bezique.variants.registry import Registry

log = structlog.get_logger("bezique.tables")

DUE_PER_PASS = 100
"""Deadlines fired per pass of the clock loop (tables waiting out a pause come on top)."""
MAX_PAUSE = 60.0
"""The longest pause before a failing bot or clock is tried again, in seconds."""
MAX_PAUSED = 10_000
"""Tables remembered as pausing; the oldest is forgotten first."""


def _kind(error: Exception) -> str:
    """What a log line says of a failure: its class and reason, never its message (a plugin's
    error may quote a bot's hidden card)."""
    reason = getattr(error, "reason", "")
    return f"{type(error).__name__}({reason})" if isinstance(reason, str) and reason else \
        type(error).__name__


class Scheduler:
    """Runs the bots of the tables in memory and fires the turn deadlines in the store."""

    def __init__(self, registry: Registry, store: Store, repo: TableRepository,
                 commands: CommandPath, settings: Settings) -> None:
        self.registry = registry
        self.store = store
        self.repo = repo
        self.commands = commands
        self.settings = settings
        self.closing = False
        self._bot_tasks: dict[str, asyncio.Task[None]] = {}
        self.records = BotRecords(store)
        """What each search bot's seat has seen, read from the log."""
        self._paused: OrderedDict[str, tuple[float, int]] = OrderedDict()
        """table id -> (monotonic time to try again, failures so far) for failing clocks."""

    def busy(self, table_id: str) -> bool:
        """Whether a bot of the table is at work (the table must stay in memory)."""
        return table_id in self._bot_tasks

    # ------------------------------------------------------------------ bots

    def wake(self, live: LiveTable) -> None:
        """Start the bot of the seat to move, if that seat is a bot's (one task per table)."""
        game = live.game
        if self.closing or game is None or live.table_id in self._bot_tasks or live.finished:
            return
        seats = live.table.seats
        for seat in game.to_move:  # a loop, not any() over a generator: once a move
            if seats[seat].bot:
                break
        else:
            return
        task = asyncio.get_running_loop().create_task(self._run_bots(live.table_id))
        self._bot_tasks[live.table_id] = task

    async def _run_bots(self, table_id: str) -> None:
        failures = 0
        try:
            while not self.closing:
                async with self.repo.hold(table_id) as live:
                    game = live.game
                    if game is None or live.finished:
                        self.records.forget(table_id)
                        return
                    seats = [s for s in game.to_move if live.seats[s].bot]
                    if not seats:
                        return
                    seat, version, rng = seats[0], live.version, live.bot_random(seats[0])
                    policy = self.registry.bot_policies(live.variant.id)[live.seats[seat].bot]
                    view, legal = game.view(seat), game.legal_moves(seat)
                    record: SeatRecord | None = None
                    if reads_record(policy):  # a search bot: what its seat saw, from the log
                        record = await self.records.record(table_id, version, seat,
                                                           live.record.options)
                await asyncio.sleep(self.settings.bot_delay)
                try:
                    if record is None:
                        move = bot_choice(policy, view, legal, rng)
                    else:  # a search takes milliseconds: off the event loop
                        move = await asyncio.to_thread(bot_choice, policy, view, legal, rng,
                                                       record)
                    await self.commands.server_move(table_id, seat, move, version,
                                                    EntryKind.BOT_MOVE)
                    failures = 0
                except StaleVersion:
                    continue
                except ResourceExhausted as exc:  # the table's log is full: nothing will do
                    log.error("bot_stopped", table_id=table_id, seat=seat, error=exc.message)
                    return
                except Exception as exc:
                    failures += 1
                    log.error("bot_failed", table_id=table_id, seat=seat, error=_kind(exc),
                              failures=failures)
                    await asyncio.sleep(min(MAX_PAUSE, 0.5 * 2 ** failures))
        except Exception as exc:
            log.error("bot_stopped", table_id=table_id, error=_kind(exc))
        finally:
            self._bot_tasks.pop(table_id, None)

    # ------------------------------------------------------------------ clocks

    async def fire_due_deadlines(self, now: float | None = None) -> int:
        """Apply the default move of every seat whose turn clock ran out; exactly once, since
        the move is a compare-and-set append at the version the deadline belongs to."""
        now = time.time() if now is None else now
        clock = time.monotonic()
        due = await self.store.due_deadlines(now, DUE_PER_PASS + len(self._paused))
        fired = 0
        for table_id, version in due:
            if self.closing:
                break
            paused = self._paused.get(table_id)
            if paused is not None and paused[0] > clock:
                continue
            try:
                if await self._fire(table_id, version):
                    fired += 1
                    self._paused.pop(table_id, None)
                    continue
            except StaleVersion:
                continue  # another replica (or a move) got there first
            except Exception as exc:
                log.warning("clock_failed", table_id=table_id, version=version,
                            error=_kind(exc))
            self._pause(table_id, clock)
        return fired

    async def _fire(self, table_id: str, version: int) -> bool:
        async with self.repo.hold(table_id) as live:
            game = live.game
            if live.version != version or live.finished:
                return False
            reveal_round = bool(live.awaiting_reveal)
            if not reveal_round:
                if game is None or not game.to_move:
                    return False
                seat = game.to_move[0]
                move = game.default_move(seat)
        if reveal_round:  # the round's deadline: the table ends before any deal
            return await self.commands.end_reveal_round(table_id, version)
        await self.commands.server_move(table_id, seat, move, version, EntryKind.TIMEOUT)
        return True

    # ------------------------------------------------------------------ abandoned tables

    async def sweep_abandoned(self, now: float | None = None) -> int:
        """End the tables nobody plays: first record in the store that this replica's
        connected seats are connected (``touch_tables``), then end, through the command path,
        each unfinished table with no log entry and no touch from any replica for its window
        (``--abandon-after``, ``--abandon-unstarted-after``). Every replica touches every
        :attr:`~Settings.abandon_check` seconds, a quarter of the shorter window, so a seat
        connected to any replica keeps its table; the end is a compare-and-set at the version
        found idle, so a move in between (or another replica's sweep) wins. Returns how many
        tables this pass ended."""
        settings = self.settings
        if not settings.abandon_check:
            return 0
        now = time.time() if now is None else now
        connected = [live.table_id for live in self.repo.held()
                     if not live.finished and any(w.viewer is not None for w in live.watchers)]
        if connected:
            await self.store.touch_tables(connected, now)
        idle = await self.store.idle_tables(
            now - settings.abandon_after if settings.abandon_after else 0.0,
            now - settings.abandon_unstarted_after if settings.abandon_unstarted_after else 0.0,
            DUE_PER_PASS)
        ended = 0
        for table_id, version in idle:
            if self.closing:
                break
            try:
                if await self.commands.abort(table_id, idle_at=version):
                    ended += 1
            except StaleVersion:
                continue  # someone came back, or another replica ended it
            except Exception as exc:
                log.warning("abandon_failed", table_id=table_id, version=version,
                            error=_kind(exc))
        return ended

    def _pause(self, table_id: str, clock: float) -> None:
        """Leave a table whose deadline could not be fired for a while, pausing longer each
        time, so it never holds up the tables behind it."""
        _, failures = self._paused.pop(table_id, (0.0, 0))
        failures += 1
        self._paused[table_id] = (clock + min(MAX_PAUSE, 0.5 * 2 ** failures), failures)
        while len(self._paused) > MAX_PAUSED:
            self._paused.popitem(last=False)

    async def close(self) -> None:
        self.closing = True
        for task in list(self._bot_tasks.values()):
            task.cancel()
