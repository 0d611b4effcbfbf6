"""What only the sqlite store does: its schema migrations and its one-statement appends."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bezique.service.store import LogEntry, TableRecord, TableState, VersionConflict
from bezique.service.store.sqlite import SCHEMA_VERSION, SqliteStore
from tests.helpers import eventually


def _record(table_id: str) -> TableRecord:
    return TableRecord(table_id, "highcard", 1, {}, b"s" * 32, "c" * 64, 1.0)


def _state(version: int, phase: str = "play") -> TableState:
    return TableState(version, phase, 0, False, [{"name": "a"}])


def _entry(version: int) -> LogEntry:
    return LogEntry(version, "move", 0, {"n": version}, f"r{version}", float(version))


async def test_a_schema_2_file_is_migrated_and_keeps_its_tables(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite")
    store = SqliteStore(path)
    await store.open()
    await store.create_table(_record("t1"), _state(1), [LogEntry(1, "created", None, {})])
    await store.append("t1", 1, [_entry(2)], _state(2))
    await store.close()
    with sqlite3.connect(path) as db:  # as a schema-2 server left it: no triggers
        db.execute("DROP TRIGGER IF EXISTS log_follows_version")
        db.execute("DROP TRIGGER IF EXISTS log_advances_version")
        db.execute("DROP TABLE IF EXISTS results")
        db.execute("DROP TABLE IF EXISTS presence")
        db.execute("PRAGMA user_version=2")
    reopened = SqliteStore(path)
    await reopened.open()
    try:
        assert reopened.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        await reopened.append("t1", 2, [_entry(3)], _state(3))
        with pytest.raises(VersionConflict):
            await reopened.append("t1", 2, [_entry(3)], _state(3))
        assert [e.version for e in await reopened.read_log("t1")] == [1, 2, 3]
    finally:
        await reopened.close()


async def test_a_restarted_store_writes_the_summary_it_does_not_know(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sqlite")
    first = SqliteStore(path)
    await first.open()
    await first.create_table(_record("t1"), _state(1), [LogEntry(1, "created", None, {})])
    await first.append("t1", 1, [_entry(2)], _state(2, "bidding"))
    await first.close()
    with sqlite3.connect(path) as db:  # another process changed the row behind its back
        db.execute("UPDATE tables SET phase = 'stale' WHERE table_id = 't1'")
    second = SqliteStore(path)
    await second.open()
    try:
        await second.append("t1", 2, [_entry(3)], _state(3, "bidding"))
        loaded = await second.load_table("t1")
        assert loaded is not None and loaded[1] == _state(3, "bidding")
    finally:
        await second.close()


@pytest.mark.parametrize(("synchronous", "moves"), [("normal", 4000), ("full", 800)])
async def test_the_wal_starts_over_while_moves_stream_in(tmp_path: Path, synchronous: str,
                                                         moves: int) -> None:
    """A checkpoint on another connection alone never reaches the end of a WAL that is
    written all the time, so the WAL would only grow (it reached 460 MB in a benchmark).

    Every 400 moves the test waits for the next reset instead of counting on the checkpoint
    thread to keep pace: on a loaded machine it may not be scheduled for a while, which is not
    what this checks. Without the resets the wait fails; with resets that do not let the WAL
    start over, 4,000 moves grow it to 24-39 MB. With ``synchronous=FULL`` the appends are
    committed by the writing thread, and so is the finish of a reset."""
    path = tmp_path / "busy.sqlite"
    store = SqliteStore(str(path), synchronous, checkpoint_interval=0.02, wal_reset_every=0.02)
    await store.open()
    try:
        await store.create_table(_record("t1"), _state(1), [LogEntry(1, "created", None, {})])
        for version in range(2, moves + 2):
            await store.append("t1", version - 1, [_entry(version)], _state(version))
            if version % 100 == 0:
                await asyncio.sleep(0.005)  # the event loop turns, as it does between calls
            if version % 400 == 0:
                resets = store.wal_resets
                await eventually(lambda seen=resets: store.wal_resets > seen, timeout=30,
                                 what="the WAL's next reset")
        wal = path.with_name(path.name + "-wal").stat().st_size
        assert wal < 12 * 1024 * 1024, f"the WAL grew to {wal:,} bytes"  # unbounded: 55 MB
        assert len(await store.read_log("t1")) == moves + 1
    finally:
        await store.close()


_WRITER = """
import asyncio, sys
from bezique.service.store import LogEntry, TableRecord, TableState
from bezique.service.store.sqlite import SqliteStore

async def main() -> None:
    store = SqliteStore(sys.argv[1], checkpoint_interval=0.02, wal_reset_every=0.02)
    await store.open()
    await store.create_table(TableRecord("t1", "highcard", 1, {}, b"s" * 32, "c" * 64, 1.0),
                             TableState(1, "play", 0, False, [{"name": "a"}]),
                             [LogEntry(1, "created", None, {})])
    version = 1
    while True:
        version += 1
        await store.append("t1", version - 1, [LogEntry(version, "move", 0, {"n": version},
                                                        f"r{version}", float(version))],
                           TableState(version, "play", 0, False, [{"name": "a"}]))
        print(version, store.wal_resets_off_loop, flush=True)  # acknowledged
        await asyncio.sleep(0.001)  # moves come with gaps, as at half the benchmark's rate

asyncio.run(main())
"""


def test_the_thread_starts_the_wal_over_alone_and_a_sigkill_keeps_every_acked_move(
        tmp_path: Path) -> None:
    """With gaps between moves the checkpoint thread copies the whole WAL by itself (no finish
    on the event loop), and the WAL starts over; a SIGKILL then loses no acknowledged append."""
    path = tmp_path / "crash.sqlite"
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE,
                              text=True)
    acked, off_loop = 0, 0
    try:
        assert writer.stdout is not None
        deadline = time.monotonic() + 30
        while (off_loop < 3 or acked < 500) and time.monotonic() < deadline:
            line = writer.stdout.readline()
            if not line:
                break
            acked, off_loop = (int(x) for x in line.split())
    finally:
        writer.kill()  # SIGKILL, mid-stream
        writer.wait(timeout=10)
    assert off_loop >= 3, f"the thread readied no WAL reset alone in {acked} moves"
    wal = path.with_name(path.name + "-wal").stat().st_size
    assert wal < 4 * 1024 * 1024, f"the WAL grew to {wal:,} bytes in {acked} moves"

    async def reopened() -> list[int]:
        store = SqliteStore(str(path))
        await store.open()
        try:
            return [e.version for e in await store.read_log("t1")]
        finally:
            await store.close()

    versions = asyncio.run(reopened())
    assert versions[:acked] == list(range(1, acked + 1))
