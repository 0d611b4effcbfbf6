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
    TableResult,
    TableState,
    VersionConflict,
    open_store,
)


@pytest.fixture(params=["memory", "sqlite", "sqlite-full", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """Each backend; sqlite also with ``synchronous=FULL``, whose commits run on a thread of
    their own and so group appends that arrive during one."""
    if request.param == "memory":
        url = "memory:"
    elif request.param.startswith("sqlite"):
        url = f"sqlite:{tmp_path / 'store.sqlite'}"
    else:
        url = request.getfixturevalue("postgres_url")
    opened = open_store(url, sqlite_synchronous="full" if request.param == "sqlite-full"
                        else "normal")
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


async def test_table_versions_are_read_for_many_tables_at_once(store: Store) -> None:
    await store.create_table(record("t1"), state(1), [entry(1)])
    await store.create_table(record("t2"), state(1), [entry(1)])
    await store.append("t2", 1, [entry(2), entry(3)], state(3))
    assert await store.table_versions(["t1", "t2", "nope"]) == {"t1": 1, "t2": 3}
    assert await store.table_versions([]) == {}


async def test_idle_tables_by_last_entry_and_last_touch(store: Store) -> None:
    """Started tables ("play") idle since before 100, unstarted ("waiting") since before 200;
    an entry or a touch (a seat connected on any replica) is activity; finished ones never."""
    waiting = TableState(1, "waiting", 2, False, [], None)
    await store.create_table(record("a"), state(1), [LogEntry(1, "created", None, {}, None,
                                                               50.0)])
    await store.create_table(record("b"), waiting, [LogEntry(1, "created", None, {}, None,
                                                            150.0)])
    await store.create_table(record("c"), state(1), [LogEntry(1, "created", None, {}, None,
                                                               150.0)])
    await store.create_table(record("d"), state(1, finished=True), [
        LogEntry(1, "created", None, {}, None, 10.0)])
    assert await store.idle_tables(100.0, 200.0) == [("a", 1), ("b", 1)]
    assert await store.idle_tables(100.0, 200.0, limit=1) == [("a", 1)]
    await store.append("a", 1, [LogEntry(2, "move", 0, {}, None, 120.0)], state(2))
    await store.touch_tables(["b"], 210.0)
    await store.touch_tables(["b"], 160.0)  # an older touch changes nothing
    assert await store.idle_tables(100.0, 200.0) == []
    assert await store.idle_tables(130.0, 220.0) == [("a", 2), ("b", 1)]
    assert await store.idle_tables(0.0, 0.0) == []  # a window of 0: never


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


# ---------------------------------------------------------------------------- results feed


def result(table_id: str, version: int) -> TableResult:
    return TableResult(table_id, version, {"reason": "done", "scores": [1, 2]}, 5.0)


async def test_a_result_is_stored_with_the_append_that_ends_the_table(store: Store) -> None:
    await store.create_table(record("t1"), state(1), [entry(1)])
    with pytest.raises(VersionConflict):
        await store.append("t1", 5, [entry(6)], state(6, finished=True), result("t1", 6))
    assert await store.read_results() == []  # the refused append stored no result either
    await store.append("t1", 1, [entry(2)], state(2, finished=True), result("t1", 2))
    [stored] = await store.read_results()
    assert (stored.table_id, stored.version, stored.data, stored.finished_at) == (
        "t1", 2, {"reason": "done", "scores": [1, 2]}, 5.0)
    assert stored.cursor >= 1
    assert await store.read_results(stored.cursor) == []


async def test_result_cursors_follow_commit_order_under_concurrent_ends(store: Store) -> None:
    """Tables ending at once, a reader polling all the while: every read continues exactly
    where the last stopped (no result is passed over by a later cursor committed first)."""
    count = 24
    for n in range(count):
        await store.create_table(record(f"t{n:02}"), state(1), [entry(1)])
    seen: list[int] = []
    done = asyncio.Event()

    async def read() -> None:
        while True:
            finished = done.is_set()
            for row in await store.read_results(seen[-1] if seen else 0, 5):
                seen.append(row.cursor)
            if finished and len(seen) == count:
                return
            await asyncio.sleep(0)

    async def end(n: int) -> None:
        await store.append(f"t{n:02}", 1, [entry(2)], state(2, finished=True),
                           result(f"t{n:02}", 2))

    reader = asyncio.create_task(read())
    await asyncio.gather(*(end(n) for n in range(count)))
    done.set()
    await asyncio.wait_for(reader, 30)
    assert seen == sorted(seen) and len(set(seen)) == count
    assert {r.table_id for r in await store.read_results(0, 100)} == {
        f"t{n:02}" for n in range(count)}
    assert [r.cursor for r in await store.read_results(seen[9], 3)] == seen[10:13]


async def test_tables_listed_by_finished_and_by_player(store: Store) -> None:
    seats = [{"name": "a", "player_id": "p-1"}, {"name": "b", "player_id": "p-2"}]
    await store.create_table(record("a"), TableState(1, "play", 0, False, seats), [entry(1)])
    await store.create_table(record("b"), TableState(1, "play", 0, False, seats[1:]),
                             [entry(1)])
    await store.create_table(record("c"), state(1), [entry(1)])
    await store.append("b", 1, [entry(2)], TableState(2, "over", 0, True, seats[1:]),
                       result("b", 2))

    async def ids(**filters: object) -> list[str]:
        return [r.table_id for r, _ in await store.list_tables(**filters)]  # type: ignore[arg-type]

    assert await ids() == ["a", "c"]
    assert await ids(only_finished=True) == ["b"]
    assert await ids(include_finished=True) == ["a", "b", "c"]
    assert await ids(player_id="p-1") == ["a"]
    assert await ids(player_id="p-2", include_finished=True) == ["a", "b"]
    assert await ids(player_id="p-2", only_finished=True) == ["b"]
    assert await ids(player_id="p-3", include_finished=True) == []
    assert await ids(player_id="p-2", include_finished=True, after="a") == ["b"]
