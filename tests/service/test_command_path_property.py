"""The command path's invariant as a property: random interleavings of joins, leaves, moves
(fresh, stale, repeated), views and watch streams, with store appends failing at random; every
view and every update anyone received equals a replay of the store's log at its version."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bezique.service import translate
from bezique.service.errors import PermissionDenied, ServiceError
from bezique.service.live import ViewResult, rebuild
from bezique.service.store import (
    LogEntry,
    RequestIdTaken,
    StoreError,
    TableResult,
    TableState,
    VersionConflict,
)
from bezique.service.store.memory import MemoryStore
from bezique.service.table_manager import Settings, TableManager, Update
from bezique.variants.api import Move
from tests.helpers import highcard_registry


class RandomlyFailingStore(MemoryStore):
    """A memory store whose appends fail now and then, as a store or a racing replica would."""

    def __init__(self, rng: random.Random, rate: float) -> None:
        super().__init__()
        self.rng = rng
        self.rate = rate

    async def append(self, table_id: str, expected_version: int, entries: Sequence[LogEntry],
                     state: TableState, result: TableResult | None = None) -> None:
        await asyncio.sleep(0)  # let readers arrive while the change is in flight
        roll = self.rng.random()
        if roll < self.rate / 2:
            raise StoreError("injected failure")
        if roll < self.rate:
            raise VersionConflict(table_id, expected_version, expected_version)
        await super().append(table_id, expected_version, entries, state, result)


@dataclass
class Seen:
    views: list[ViewResult] = field(default_factory=list)
    updates: list[list[Update]] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


def rendered(result: ViewResult) -> bytes:
    return translate.view_to_pb(result).SerializeToString(deterministic=True)


async def follow(manager: TableManager, table_id: str, token: str | None, start: int,
                 into: list[Update]) -> None:
    """A client's watch: resumed after every retryable end, from the last version it got."""
    last = start
    while True:
        try:
            async for update in manager.watch(table_id, token, last):
                into.append(update)
                last = update.version
            return
        except PermissionDenied:
            return
        except (ServiceError, StoreError):
            await asyncio.sleep(0)


async def scenario(data: st.DataObject) -> None:
    rng = random.Random(data.draw(st.integers(0, 2**32), label="store seed"))
    store = RandomlyFailingStore(rng, data.draw(st.sampled_from([0.0, 0.2, 0.5]), label="rate"))
    manager = TableManager(highcard_registry(), store, Settings(test_mode=True, bot_delay=0))
    players = data.draw(st.integers(2, 3), label="players")
    live = await manager.create_table("highcard", {"players": str(players), "hand_size": "3"},
                                      test={"seed": bytes(range(32))})
    table_id = live.table_id
    tokens: dict[int, str] = {}
    old_tokens: list[str] = []
    request_ids: list[str] = []
    seen = Seen()
    seated_first = data.draw(st.booleans(), label="seat everyone first")
    for step in range(data.draw(st.integers(5, 60), label="steps")):
        action = "join" if seated_first and step < players else data.draw(st.sampled_from(
            ["join", "join", "leave", "move", "move", "move", "move", "move", "view", "watch"]),
            label="action")
        try:
            if action == "join":
                seat, token, view = await manager.join(table_id, None, f"p{step}")
                tokens[seat] = token
                seen.views.append(view)
            elif action == "leave" and tokens:
                seat = data.draw(st.sampled_from(sorted(tokens)), label="leaver")
                token = tokens.pop(seat)
                old_tokens.append(token)
                await manager.leave(table_id, token)
            elif action == "move" and tokens:
                public = (await manager.get_view(table_id, None)).view
                to_move = [s for s in public.to_move if s in tokens] if public else []
                in_turn = bool(to_move) and data.draw(st.integers(0, 4), label="in turn") > 0
                seat = data.draw(st.sampled_from(to_move if in_turn else sorted(tokens)),
                                 label="mover")
                view = await manager.get_view(table_id, tokens[seat])
                seen.views.append(view)
                moves = list(view.legal) or [Move("play", (0,))]
                move = moves[data.draw(st.integers(0, len(moves) - 1), label="move")]
                stale = data.draw(st.integers(0, 3), label="stale") == 0
                reuse = bool(request_ids) and data.draw(st.integers(0, 3), label="reuse") == 0
                request_id = (data.draw(st.sampled_from(request_ids), label="id") if reuse
                              else f"r{step}")
                request_ids.append(request_id)
                result = await manager.submit(table_id, tokens[seat], move,
                                              view.version - stale, request_id)
                seen.views.append(result.after)
            elif action == "view":
                viewer = data.draw(st.sampled_from([None, *tokens.values(), *old_tokens]),
                                   label="viewer")
                seen.views.append(await manager.get_view(table_id, viewer))
            elif action == "watch":
                watcher = data.draw(st.sampled_from([None, *tokens.values()]), label="watcher")
                updates: list[Update] = []
                seen.updates.append(updates)
                start = data.draw(st.integers(0, 3), label="from")
                seen.tasks.append(asyncio.create_task(
                    follow(manager, table_id, watcher, start, updates)))
        except (ServiceError, StoreError, RequestIdTaken):
            pass
        await asyncio.sleep(0)
    for _ in range(5):
        await asyncio.sleep(0)
    for task in seen.tasks:
        task.cancel()
    await asyncio.gather(*seen.tasks, return_exceptions=True)
    await manager.close()
    await check(store, table_id, seen)


async def check(store: MemoryStore, table_id: str, seen: Seen) -> None:
    found = await store.load_table(table_id)
    assert found is not None
    record = found[0]
    log = await store.read_log(table_id)
    variant = highcard_registry().variant(record.variant_id)
    seats = variant.seat_count(record.options)

    def replayed(version: int, viewer: int | None) -> bytes:
        live = rebuild(record, variant, seats, log[:version])
        return rendered(live.view_for(viewer))

    for view in seen.views:
        assert view.version <= len(log)
        assert rendered(view) == replayed(view.version, view.viewer), view.version
    for updates in seen.updates:
        versions = [update.version for update in updates]
        assert versions == sorted(set(versions)), versions
        if versions:
            assert versions == list(range(versions[0], versions[-1] + 1)), versions
        for update in updates:
            entry = log[update.version - 1]
            assert (update.kind, update.seat) == (entry.kind, entry.seat)
            if update.view is not None:
                assert rendered(update.view) == replayed(update.version, update.view.viewer)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_view_and_update_is_derivable_from_the_committed_log(data: st.DataObject) -> None:
    asyncio.run(scenario(data))
