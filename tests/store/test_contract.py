"""The store contract, run on every backend: memory, sqlite and a real PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bezique.service.store import (
    LogEntry,
    RequestIdTaken,
    Store,
    StoreError,
    TableRecord,
    TableState,
    VersionConflict,
    open_store,
)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "memory":
        url = "memory:"
    elif request.param == "sqlite":
        url = f"sqlite:{tmp_path / 'store.sqlite'}"
    else:
        url = request.getfixturevalue("postgres_url")
    opened = open_store(url)
    await opened.open()
    yield opened
    await opened.close()


def record(table_id: str, variant: str = "highcard") -> TableRecord:
    return TableRecord(table_id, variant, 1, {"players": 2}, b"s" * 32, "c" * 64, 1.0, 0, {})


def state(version: int, *, free: int = 2, finished: bool = False,
          deadline: float | None = None) -> TableState:
    return TableState(version, "play", free, finished, [{"name": "a"}], deadline)


def entry(version: int, request_id: str | None = None) -> LogEntry:
    return LogEntry(version, "move", 0, {"move": {"kind": "play"}, "n": version}, request_id,
                    float(version))


async def test_create_load_and_read(store: Store) -> None:
    await store.create_table(record("t1"), state(1), [LogEntry(1, "created", None, {"a": 1})])
    loaded = await store.load_table("t1")
    assert loaded is not None
    assert loaded[0] == record("t1") and loaded[1] == state(1)
    assert await store.load_table("nope") is None
    assert [e.kind for e in await store.read_log("t1")] == ["created"]


async def test_append_is_compare_and_set(store: Store) -> None:
    await store.create_table(record("t1"), state(1), [LogEntry(1, "created", None, {})])
    await store.append("t1", 1, [entry(2)], state(2))
    with pytest.raises(VersionConflict) as conflict:
        await store.append("t1", 1, [entry(2)], state(2))
    assert conflict.value.current == 2
    await store.append("t1", 2, [entry(3), entry(4)], state(4))
    assert [e.version for e in await store.read_log("t1")] == [1, 2, 3, 4]
    assert [e.version for e in await store.read_log("t1", 2)] == [3, 4]
    assert (await store.read_log("t1"))[1].payload == {"move": {"kind": "play"}, "n": 2}
    with pytest.raises(StoreError):
        await store.append("missing", 1, [entry(2)], state(2))


async def test_racing_writers_exactly_one_wins(store: Store) -> None:
    await store.create_table(record("t1"), state(1), [LogEntry(1, "created", None, {})])
    results = await asyncio.gather(
        *(store.append("t1", 1, [entry(2, f"r{i}")], state(2)) for i in range(5)),
        return_exceptions=True)
    assert sum(r is None for r in results) == 1
    assert all(isinstance(r, VersionConflict) for r in results if r is not None)
    assert len(await store.read_log("t1")) == 2


async def test_request_ids_are_found_and_unique(store: Store) -> None:
    await store.create_table(record("t1"), state(1), [LogEntry(1, "created", None, {})])
    await store.append("t1", 1, [entry(2, "req")], state(2))
    found = await store.find_request("t1", "req")
    assert found is not None and found.version == 2
    assert await store.find_request("t1", "other") is None
    with pytest.raises(RequestIdTaken) as taken:
        await store.append("t1", 2, [entry(3, "req")], state(3))
    assert taken.value.request_id == "req"
    assert (await store.load_table("t1"))[1].version == 2  # type: ignore[index]
    assert len(await store.read_log("t1")) == 2


async def test_listing_filters_and_pages(store: Store) -> None:
    await store.create_table(record("a"), state(1), [])
    await store.create_table(record("b", "other"), state(1, free=0), [])
    await store.create_table(record("c"), state(1, finished=True), [])
    assert [r.table_id for r, _ in await store.list_tables()] == ["a", "b"]
    assert [r.table_id for r, _ in await store.list_tables(variant_id="other")] == ["b"]
    assert [r.table_id for r, _ in await store.list_tables(only_open=True)] == ["a"]
    assert [r.table_id for r, _ in await store.list_tables(limit=1, after="a")] == ["b"]
    assert await store.count_tables() == 2
    assert await store.count_tables(include_finished=True) == 3


async def test_due_deadlines(store: Store) -> None:
    await store.create_table(record("a"), state(1, deadline=10.0), [])
    await store.create_table(record("b"), state(1, deadline=50.0), [])
    await store.create_table(record("c"), state(1, deadline=5.0, finished=True), [])
    assert await store.due_deadlines(20.0) == [("a", 1)]
    await store.append("a", 1, [entry(2)], state(2))
    assert await store.due_deadlines(20.0) == []


async def test_snapshots_keep_the_newest(store: Store) -> None:
    from bezique.service.store import Snapshot

    await store.create_table(record("a"), state(1), [])
    assert await store.load_snapshot("a") is None
    await store.save_snapshot("a", Snapshot(9, 1, b"new"))
    await store.save_snapshot("a", Snapshot(5, 1, b"old"))
    assert await store.load_snapshot("a") == Snapshot(9, 1, b"new")
    await store.save_snapshot("a", Snapshot(12, 2, b"\x00\xff"))
    assert await store.load_snapshot("a") == Snapshot(12, 2, b"\x00\xff")


async def test_an_append_lands_whole_or_not_at_all(store: Store) -> None:
    await store.create_table(record("t1"), state(1), [LogEntry(1, "created", None, {})])
    await store.append("t1", 1, [entry(2, "taken")], state(2))
    with pytest.raises(RequestIdTaken):
        await store.append("t1", 2, [entry(3, "fresh"), entry(4, "taken")], state(4))
    assert [e.version for e in await store.read_log("t1")] == [1, 2]
    assert await store.find_request("t1", "fresh") is None
    assert (await store.load_table("t1"))[1].version == 2  # type: ignore[index]
    await store.append("t1", 2, [entry(3, "fresh")], state(3))


async def test_the_summary_row_follows_every_append(store: Store) -> None:
    await store.create_table(record("t1"), state(1, free=2), [LogEntry(1, "created", None, {})])
    await store.append("t1", 1, [entry(2)], state(2, free=1, deadline=7.0))
    await store.append("t1", 2, [entry(3)], state(3, free=1, deadline=7.0))  # summary unchanged
    assert await store.load_table("t1") == (record("t1"), state(3, free=1, deadline=7.0))
    await store.append("t1", 3, [entry(4)], state(4, free=0, finished=True))
    assert await store.load_table("t1") == (record("t1"), state(4, free=0, finished=True))
    assert [t for t, _ in await store.list_tables(include_finished=True)] == [record("t1")]
