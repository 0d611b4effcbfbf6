"""Snapshots speed up rebuilding a table; the log stays the truth."""

from __future__ import annotations

import pickle
from pathlib import Path

from bezique.clients.sdk import AsyncTableClient
from bezique.service.live import Seat, TableSnapshot
from bezique.service.server import start_server
from bezique.service.store import Snapshot
from tests.helpers import highcard_registry, server_config
from tests.service.helpers import two_seats


async def test_a_table_is_rebuilt_from_its_snapshot_and_the_log_after_it(tmp_path: Path) -> None:
    config = server_config(store=f"sqlite:{tmp_path / 's.sqlite'}", snapshot_every=3)
    server = await start_server(config, highcard_registry())
    async with AsyncTableClient(server.address, retries=0) as client:
        table = await client.create_table("highcard", {"players": 2, "hand_size": 8})
        ann = await client.join(table.table_id)
        bob = await client.join(table.table_id)
        table_id, seats = table.table_id, {0: ann, 1: bob}
        for _ in range(8):
            view = await client.view(table_id)
            own = await client.view(table_id, seats[view.to_move[0]].token)
            await client.submit(seats[view.to_move[0]], own.legal_moves[-1], own.version)
        before = await client.view(table_id, ann.token)
    snapshot = await server.store.load_snapshot(table_id)
    await server.stop()
    assert snapshot is not None and 4 < snapshot.version < before.version

    for stored in (snapshot, Snapshot(snapshot.version, snapshot.variant_version, b"garbage")):
        server = await start_server(config, highcard_registry())
        await server.store.save_snapshot(table_id, stored)  # same version: kept as it was
        if stored.state == b"garbage":  # force the corrupt one in, newer than the log head
            await server.store.save_snapshot(table_id, Snapshot(before.version, 1, b"garbage"))
        try:
            async with AsyncTableClient(server.address, retries=0) as client:
                after = await client.view(table_id, ann.token)
                assert after == before
        finally:
            await server.stop()


async def test_snapshots_never_go_backwards(tmp_path: Path) -> None:
    server = await start_server(server_config(store=f"sqlite:{tmp_path / 'b.sqlite'}"),
                                highcard_registry())
    try:
        async with AsyncTableClient(server.address, retries=0) as client:
            table_id, _, _ = await two_seats(client)
        await server.store.save_snapshot(table_id, Snapshot(9, 1, b"new"))
        await server.store.save_snapshot(table_id, Snapshot(5, 1, b"old"))
        kept = await server.store.load_snapshot(table_id)
        assert kept is not None and kept.version == 9 and kept.state == b"new"
    finally:
        await server.stop()


async def test_idle_tables_leave_memory_and_come_back_unchanged(tmp_path: Path) -> None:
    server = await start_server(server_config(store=f"sqlite:{tmp_path / 'i.sqlite'}"),
                                highcard_registry())
    try:
        async with AsyncTableClient(server.address, retries=0) as client:
            table_id, first, _ = await two_seats(client)
            view = await client.view(table_id, first.token)
            moved = await client.submit(first, view.legal_moves[0], view.version)
            busy, _, _ = await two_seats(client)
            assert await server.manager.evict_idle(3600) == 0
            live = await server.manager.table(busy)
            live.last_used -= 7200  # only this one has been idle
            assert await server.manager.evict_idle(3600) == 1
            for table in (table_id, busy):
                (await server.manager.table(table)).last_used -= 7200
            assert await server.manager.evict_idle(3600) == 2
            assert not list(server.manager.live_tables())
            again = await client.view(table_id, first.token)
            assert again == moved.view
            snapshot = await server.store.load_snapshot(table_id)
            assert snapshot is not None and snapshot.version == moved.version
    finally:
        await server.stop()


async def test_a_snapshot_of_another_format_is_ignored_and_the_log_replayed(
        tmp_path: Path) -> None:
    """Snapshots are versioned records; the positional tuple of earlier servers (or any other
    format) costs a full replay, never a wrong table."""
    config = server_config(store=f"sqlite:{tmp_path / 'f.sqlite'}")
    server = await start_server(config, highcard_registry())
    try:
        async with AsyncTableClient(server.address, retries=0) as client:
            table_id, first, _ = await two_seats(client)
            view = await client.view(table_id, first.token)
            moved = await client.submit(first, view.legal_moves[0], view.version)
            live = await server.manager.table(table_id)
            # an earlier server's snapshot: (game, seats, version, deadline, ...), here with
            # nobody seated, which a server that read it would show
            old = pickle.dumps((live.game, [Seat(), Seat()], moved.version, None, [], 2, {},
                                set(), False, (), None))
            await server.store.save_snapshot(table_id, Snapshot(moved.version, 1, old))
            server.manager.repo.discard(live)
            assert await client.view(table_id, first.token) == moved.view
            fresh = await server.manager.table(table_id)
            assert fresh is not live and fresh.seats[0].occupied
            assert isinstance(pickle.loads(fresh.snapshot().state), TableSnapshot)
    finally:
        await server.stop()
