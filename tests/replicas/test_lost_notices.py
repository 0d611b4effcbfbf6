"""Replicas that are not told: notices of other replicas' commits lost at random (dropped at the
store's listen layer), sent before a replica listens, or heard while it loads the table. Every
watcher on every replica still gets every entry, in order; a reissue on one replica still ends
the old token's stream on the other, and a result still reaches the other's results feed,
within the poll bound."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import asyncpg
import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.service.server import RunningServer, start_server
from bezique.service.store import LogEntry
from bezique.service.store.memory import MemoryStore
from bezique.service.store.pgnotify import CHANNEL, Notifier
from bezique.service.store.postgres import PostgresStore
from bezique.service.table_manager import Settings, TableManager
from tests.helpers import details, eventually, highcard_registry, server_config
from tests.replicas.helpers import KEY
from tests.service.helpers import STACK, stream_end, two_seats

POLL = 0.25
"""The replicas' --replica-poll-seconds here: a lost notice is late by about this."""
BOUND = 5.0
"""How long a change may take to reach the other replica when its notice is lost: the poll
plus a catch-up, with room for a loaded machine."""


@contextlib.contextmanager
def dropping(rate: float, rng: random.Random) -> Iterator[list[int]]:
    """Stores opened meanwhile lose each notice of an entry or a result with probability
    ``rate`` (the list counts those lost)."""
    lost = [0]
    original = PostgresStore.listen

    def listen(self: PostgresStore, on_entry: Callable[[str, int], None],
               on_reconnect: Callable[[], None],
               on_result: Callable[[int], None] = lambda cursor: None) -> None:
        def entry(table_id: str, version: int) -> None:
            if rng.random() < rate:
                lost[0] += 1
            else:
                on_entry(table_id, version)

        def result(cursor: int) -> None:
            if rng.random() < rate:
                lost[0] += 1
            else:
                on_result(cursor)

        original(self, entry, on_reconnect, result)

    PostgresStore.listen = listen  # type: ignore[method-assign]
    try:
        yield lost
    finally:
        PostgresStore.listen = original  # type: ignore[method-assign]


async def versions_seen(client: AsyncTableClient, table_id: str, start: int) -> list[int]:
    """Every version a public stream from ``start`` gets, until it ends with the game."""
    return [update.version async for update in client.watch(table_id, None, start,
                                                            resume=False)]


async def result_of(client: AsyncTableClient, table_id: str) -> None:
    """Read a results feed until ``table_id``'s result is in it."""
    async for result in client.watch_results(0, resume=False):
        if result.table_id == table_id:
            return


async def move(client: AsyncTableClient, table_id: str, seats: dict[int, SeatHandle],
               pick: int) -> bool:
    """One legal move by whoever is to move, through ``client``; False once the game is over."""
    view = await client.view(table_id)
    if view.HasField("outcome"):
        return False
    seat = seats[view.to_move[0]]
    own = await client.view(table_id, seat.token)
    legal = list(own.legal_moves)
    await client.submit(seat, legal[pick % len(legal)], own.version)
    return True


async def scenario(url: str, data: st.DataObject) -> None:
    rate = data.draw(st.sampled_from([1.0, 0.5, 0.2]), label="rate of lost notices")
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    with dropping(rate, rng):
        servers = [await start_server(server_config(store=url, api_key=KEY,
                                                    replica_poll_seconds=POLL),
                                      highcard_registry()) for _ in range(2)]
    clients = [AsyncTableClient(s.address, api_key=KEY, retries=0) for s in servers]
    tasks: list[asyncio.Task[Any]] = []
    try:
        creator = data.draw(st.integers(0, 1), label="creator")
        table_id, ann, bob = await two_seats(clients[creator], stacked_shoe=STACK)
        seats = {0: ann, 1: bob}
        watchers: list[tuple[int, asyncio.Task[list[int]]]] = []
        results = [asyncio.create_task(result_of(c, table_id)) for c in clients]
        reissue_at = data.draw(st.integers(0, 3), label="reissue before move")
        step = 0
        while True:
            if data.draw(st.booleans(), label="another watcher"):
                where = data.draw(st.integers(0, 1), label="watched on")
                start = data.draw(st.integers(0, 2), label="from")
                watchers.append((start, asyncio.create_task(
                    versions_seen(clients[where], table_id, start))))
            if step == reissue_at:
                await reissued(clients, data.draw(st.integers(0, 1), label="reissued on"),
                               table_id, seats)
            via = data.draw(st.integers(0, 1), label="moved through")
            if not await move(clients[via], table_id, seats, data.draw(st.integers(0, 3))):
                break
            step += 1
        tasks = [*(task for _, task in watchers), *results]
        final = len((await clients[0].history(table_id)).entries)
        for start, watcher in watchers:
            assert await asyncio.wait_for(watcher, BOUND) == list(range(start + 1, final + 1))
        await asyncio.wait_for(asyncio.gather(*results), BOUND)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for client in clients:
            await client.close()
        for server in servers:
            await server.stop()


async def reissued(clients: list[AsyncTableClient], where: int, table_id: str,
                   seats: dict[int, SeatHandle]) -> None:
    """Reissue seat 0 through ``clients[where]`` while its stream is on the other replica:
    that stream ends, revoked, within the bound."""
    other = clients[1 - where]
    watching = asyncio.Event()
    stream = asyncio.create_task(stream_end(other, seats[0], watching))
    await asyncio.wait_for(watching.wait(), BOUND)
    seats[0] = await clients[where].reissue(table_id, 0)
    started = time.monotonic()
    error = await asyncio.wait_for(stream, BOUND)
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED, error.details()
    assert details(error)["reason"] == "SEAT_TOKEN_REVOKED"
    assert time.monotonic() - started < BOUND


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_every_watcher_gets_every_entry_in_order_whatever_notices_are_lost(
        postgres_url: str, data: st.DataObject) -> None:
    asyncio.run(scenario(postgres_url, data))


async def test_a_change_committed_before_a_replica_listens_reaches_its_streams(
        postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A replica's LISTEN starts after it serves (its own connection, under load later still):
    a change committed before then was never heard. With no poll to fall back on, the replica
    reads what it holds once it listens."""
    gate = asyncio.Event()
    connect = asyncpg.connect

    async def slow_listener(*args: Any, **kwargs: Any) -> asyncpg.Connection:
        if kwargs.get("server_settings", {}).get("application_name") == "bezique-listener":
            await gate.wait()
        return await connect(*args, **kwargs)

    monkeypatch.setattr(asyncpg, "connect", slow_listener)
    servers: list[RunningServer] = [
        await start_server(server_config(store=postgres_url, api_key=KEY,
                                         replica_poll_seconds=600.0), highcard_registry())
        for _ in range(2)]
    async with AsyncTableClient(servers[0].address, api_key=KEY, retries=0) as a, \
            AsyncTableClient(servers[1].address, api_key=KEY, retries=0) as b:
        table_id, ann, _ = await two_seats(b, stacked_shoe=STACK)
        watching = asyncio.Event()
        stream = asyncio.create_task(stream_end(b, ann, watching))
        await asyncio.wait_for(watching.wait(), 10)
        await a.reissue(table_id, ann.seat)  # committed (and told) before B listens
        await asyncio.sleep(0.2)
        gate.set()
        error = await asyncio.wait_for(stream, 10)
        assert details(error)["reason"] == "SEAT_TOKEN_REVOKED"
    for server in servers:
        await server.stop()


def watched(server: RunningServer, table_id: str) -> bool:
    live = server.manager.repo.cached(table_id)
    return live is not None and bool(live.watchers)


async def test_a_replica_told_nothing_catches_up_by_its_poll(postgres_url: str) -> None:
    """Every notice lost: the poll alone brings B's watchers A's moves, in order."""
    with dropping(1.0, random.Random(0)) as lost:
        servers = [await start_server(server_config(store=postgres_url,
                                                    replica_poll_seconds=POLL),
                                      highcard_registry()) for _ in range(2)]
    async with AsyncTableClient(servers[0].address, retries=0) as a, \
            AsyncTableClient(servers[1].address, retries=0) as b:
        table_id, ann, bob = await two_seats(a, stacked_shoe=STACK)
        watcher = asyncio.create_task(versions_seen(b, table_id, 0))
        await eventually(lambda: watched(servers[1], table_id), 10, "the watch on b")
        while await move(a, table_id, {0: ann, 1: bob}, 0):
            pass
        final = len((await a.history(table_id)).entries)
        assert await asyncio.wait_for(watcher, BOUND) == list(range(1, final + 1))
        assert lost[0] > 0
    for server in servers:
        await server.stop()


class SharedMemoryStore(MemoryStore):
    """A memory store two table managers share, as two replicas share PostgreSQL; one read of
    the log can be made to answer late (what it read is from before it was held up)."""

    shared = True  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.stall_next_read = False
        self.stalled = asyncio.Event()
        self.release = asyncio.Event()

    async def read_log(self, table_id: str, after_version: int = 0,
                       limit: int | None = None) -> list[LogEntry]:
        entries = await super().read_log(table_id, after_version, limit)
        if self.stall_next_read:
            self.stall_next_read = False
            self.stalled.set()
            await self.release.wait()
        return entries


async def test_a_notice_heard_while_the_table_loads_is_not_lost() -> None:
    """A table rebuilt after a failed change reads its log; another replica commits after that
    read and its notice arrives before the table is back in memory: the table catches up once
    it is, and the streams it adopted get the entry."""
    store = SharedMemoryStore()
    here, there = (TableManager(highcard_registry(), store, Settings(test_mode=True))
                   for _ in range(2))
    live = await here.create_table("highcard", {"players": "2"})
    seen: list[int] = []

    async def watch() -> None:
        async for update in here.watch(live.table_id, None, 0):
            seen.append(update.version)

    watcher = asyncio.create_task(watch())
    await eventually(lambda: seen == [1], 5, "the stream's backlog")
    store.stall_next_read = True
    here.repo.discard(live)  # rebuilt at once: its log is read, then held up
    await asyncio.wait_for(store.stalled.wait(), 5)
    await there.join(live.table_id, None, "bob")  # committed after that read
    here.on_remote_entry(live.table_id, 2)  # its notice, while the table is loading
    store.release.set()
    await eventually(lambda: seen == [1, 2], 5, "the entry committed during the load")
    watcher.cancel()
    await here.close()
    await there.close()


async def test_a_notice_whose_send_failed_is_sent_again(postgres_url: str) -> None:
    """The notifier's connection is cut (a restart, a failover): what it had to send is sent
    on a new one, not dropped."""
    heard: list[str] = []
    listener = await asyncpg.connect(postgres_url)
    notifier = Notifier(postgres_url)
    try:
        await listener.add_listener(CHANNEL, lambda *notice: heard.append(notice[3]))
        notifier.committed("t", 1)
        await eventually(lambda: "t:1" in heard, 10, "the first notice")
        await listener.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                               "WHERE application_name = 'bezique-notifier'")
        notifier.committed("t", 2)
        notifier.committed("u", 1, cursor=7)
        await eventually(lambda: {"t:2", "u:1"} <= set(heard), 10, "the notices after the cut")
    finally:
        await notifier.close()
        await listener.close()
