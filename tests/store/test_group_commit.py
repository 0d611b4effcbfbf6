"""Group commit: appends that queue while a commit is in flight share the next transaction.

Run on the stores whose commit lets the event loop go on meanwhile (PostgreSQL, and sqlite with
``synchronous=FULL``, whose commits run on a thread). A batch is made without any timing: the
first of several appends started together finds no commit running and commits alone at once;
the others queue behind it and are the next transaction, whole.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path

import asyncpg
import pytest

from bezique.service.store import (
    LogEntry,
    RequestIdTaken,
    StoreError,
    TableRecord,
    TableResult,
    TableState,
    VersionConflict,
)
from bezique.service.store.postgres import PostgresStore
from bezique.service.store.sqlite import SqliteStore
from tests.store.helpers import store_listener

Grouped = SqliteStore | PostgresStore


@pytest.fixture(params=["sqlite-full", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Grouped]:
    opened: Grouped = (SqliteStore(str(tmp_path / "s.sqlite"), "full")
                       if request.param == "sqlite-full"
                       else PostgresStore(request.getfixturevalue("postgres_url")))
    await opened.open()
    yield opened
    await opened.close()


def record(table_id: str) -> TableRecord:
    return TableRecord(table_id, "highcard", 1, {"players": 2}, b"s" * 32, "c" * 64, 1.0, 0, {})


def state(version: int, finished: bool = False) -> TableState:
    return TableState(version, "play", 0, finished, [{"name": "a"}], None)


def entry(version: int, request_id: str | None = None, **payload: object) -> LogEntry:
    return LogEntry(version, "move", 0, {"n": version, **payload}, request_id, float(version))


async def tables(store: Grouped, *ids: str) -> None:
    """Tables at version 1 (``lead`` among them: its append opens every batch)."""
    for table_id in ("lead", *ids):
        await store.create_table(record(table_id), state(1), [entry(1)])


async def versions(store: Grouped, table_id: str) -> list[int]:
    return [e.version for e in await store.read_log(table_id)]


async def batched(store: Grouped, *appends: Awaitable[None]) -> list[BaseException | None]:
    """``appends`` as one batch: the lead table's append, started first, commits alone; they
    queue behind it and commit together, in one transaction."""
    at = (await versions(store, "lead"))[-1]
    batches = store.group.batches
    answers = await asyncio.gather(store.append("lead", at, [entry(at + 1)], state(at + 1)),
                                   *appends, return_exceptions=True)
    assert answers[0] is None
    assert store.group.batches - batches == 2
    return list(answers[1:])


async def test_many_tables_appending_at_once_all_commit(store: Grouped) -> None:
    ids = [f"t{n:02}" for n in range(40)]
    await tables(store, *ids)
    for version in (2, 3, 4):
        answers = await batched(store, *(
            store.append(t, version - 1, [entry(version, f"{t}-{version}")], state(version))
            for t in ids))
        assert answers == [None] * len(ids)
    assert store.group.largest == len(ids)
    for t in ids:
        assert await versions(store, t) == [1, 2, 3, 4]
        loaded = await store.load_table(t)
        assert loaded is not None and loaded[1] == state(4)


async def test_a_lost_race_fails_only_its_own_append(store: Grouped) -> None:
    await tables(store, "a", "b", "c")
    answers = await batched(store,
                            store.append("a", 1, [entry(2)], state(2)),
                            store.append("b", 0, [entry(1, "stale")], state(1)),
                            store.append("c", 1, [entry(2), entry(3)], state(3)))
    assert answers[0] is None and answers[2] is None
    assert isinstance(answers[1], VersionConflict) and answers[1].current == 1
    assert await versions(store, "a") == [1, 2]
    assert await versions(store, "b") == [1]
    assert await store.find_request("b", "stale") is None
    assert await versions(store, "c") == [1, 2, 3]


async def test_a_reused_request_id_fails_only_its_own_append(store: Grouped) -> None:
    await tables(store, "a", "b")
    await store.append("a", 1, [entry(2, "once")], state(2))
    answers = await batched(store,
                            store.append("b", 1, [entry(2, "once")], state(2)),  # other table
                            store.append("a", 2, [entry(3, "new"), entry(4, "once")], state(4)),
                            store.append("b", 2, [entry(3)], state(3)))
    assert answers[0] is None and answers[2] is None
    assert isinstance(answers[1], RequestIdTaken)
    assert await versions(store, "a") == [1, 2]
    assert await store.find_request("a", "new") is None
    assert await versions(store, "b") == [1, 2, 3]


async def test_appends_to_one_table_in_a_batch_see_each_other(store: Grouped) -> None:
    """In one batch, in order: the first commits; a second at the same version loses the race
    to it; a third after it follows it; a fourth reuses its request id."""
    await tables(store, "t")
    answers = await batched(store,
                            store.append("t", 1, [entry(2, "x")], state(2)),
                            store.append("t", 1, [entry(2, "y")], state(2)),
                            store.append("t", 2, [entry(3, "z")], state(3)),
                            store.append("t", 3, [entry(4, "x")], state(4)),
                            store.append("t", 3, [entry(4)], state(4, True),
                                         TableResult("t", 4, {"by": "end"}, 4.0)))
    assert answers[0] is None and answers[2] is None and answers[4] is None
    assert isinstance(answers[1], VersionConflict) and answers[1].current == 2
    assert isinstance(answers[3], RequestIdTaken)
    assert [(e.version, e.request_id) for e in await store.read_log("t")] == [
        (1, None), (2, "x"), (3, "z"), (4, None)]
    [result] = await store.read_results()
    assert (result.table_id, result.version) == ("t", 4)


async def test_results_in_one_batch_take_cursors_in_order(store: Grouped) -> None:
    ids = [f"e{n}" for n in range(6)]
    await tables(store, *ids)
    answers = await batched(store, *(
        store.append(t, 1, [entry(2)], state(2, True), TableResult(t, 2, {}, 2.0))
        for t in ids))
    assert answers == [None] * len(ids)
    results = await store.read_results()
    assert sorted(r.table_id for r in results) == ids
    assert [r.cursor for r in results] == list(range(1, len(ids) + 1))


async def test_an_append_cancelled_while_it_queues_is_left_out(store: Grouped) -> None:
    """A caller cancelled before its batch began (its call given up) writes nothing; the others
    in that batch commit."""
    await tables(store, "a", "b", "c")
    lead = asyncio.create_task(store.append("lead", 1, [entry(2)], state(2)))
    queued = {t: asyncio.create_task(store.append(t, 1, [entry(2, t)], state(2)))
              for t in ("a", "b", "c")}
    await asyncio.sleep(0)  # every task ran to its first wait: the lead's commit is in flight
    assert not lead.done()
    queued["b"].cancel()
    await lead
    await asyncio.gather(queued["a"], queued["c"])
    assert queued["b"].cancelled()
    assert [await versions(store, t) for t in ("a", "b", "c")] == [[1, 2], [1], [1, 2]]
    assert store.group.largest == 2


async def fail_marked_entries(store: Grouped) -> None:
    """From now on, writing an entry whose payload holds ``fail`` fails inside the store (not a
    refusal: an error of the database, as a full disk or a lost connection would be)."""
    if isinstance(store, SqliteStore):
        def fail() -> None:
            raise RuntimeError("injected")

        assert store._writer is not None
        store._writer.create_function("fail", 0, fail)
        store._writer.execute(
            "CREATE TEMP TRIGGER fail_marked BEFORE INSERT ON main.log "
            "WHEN json_extract(NEW.payload, '$.fail') IS NOT NULL BEGIN SELECT fail(); END")
        return
    conn = await asyncpg.connect(store.url)
    try:
        await conn.execute("""
            CREATE FUNCTION fail_marked() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.payload ? 'fail' THEN RAISE EXCEPTION 'injected'; END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER fail_marked BEFORE INSERT ON log
                FOR EACH ROW EXECUTE FUNCTION fail_marked();""")
    finally:
        await conn.close()


async def test_a_store_failure_mid_batch_fails_the_whole_batch(store: Grouped) -> None:
    ids = ["a", "b", "c", "d"]
    await tables(store, *ids)
    await fail_marked_entries(store)
    answers = await batched(store, *(
        store.append(t, 1, [entry(2, f"r-{t}", **({"fail": 1} if t == "c" else {}))],
                     state(2, t == "d"), TableResult(t, 2, {}, 2.0) if t == "d" else None)
        for t in ids))
    assert [type(answer) for answer in answers] == [StoreError] * len(ids)
    for t in ids:  # nothing of the batch committed, not even what came before the failure
        assert await versions(store, t) == [1]
        assert await store.find_request(t, f"r-{t}") is None
    assert await store.read_results() == []
    answers = await batched(store, *(  # the callers' retries commit
        store.append(t, 1, [entry(2, f"r-{t}")], state(2)) for t in ids))
    assert answers == [None] * len(ids)


@pytest.mark.parametrize("synchronous", ["normal", "full"])
async def test_an_idle_sqlite_append_commits_at_once_alone(tmp_path: Path,
                                                           synchronous: str) -> None:
    """Nothing in flight: the append is its own transaction, begun at once, a single INSERT
    when the summary is as the store last wrote it (no waiting for company)."""
    store = SqliteStore(str(tmp_path / "s.sqlite"), synchronous)
    await store.open()
    try:
        await store.create_table(record("t"), state(1), [entry(1)])
        await store.append("t", 1, [entry(2)], state(2))
        statements: list[str] = []
        writer = store._writer or store.db
        writer.set_trace_callback(statements.append)
        batches = store.group.batches
        await store.append("t", 2, [entry(3)], state(3))
        writer.set_trace_callback(None)
        assert store.group.batches - batches == 1 and store.group.largest == 1
        # one statement, no BEGIN or SAVEPOINT (sqlite traces it again for each trigger run)
        assert len(set(statements)) == 1 and statements[0].startswith("INSERT INTO log ")
        assert await versions(store, "t") == [1, 2, 3]
    finally:
        await store.close()


async def test_sqlite_normal_commits_each_append_alone(tmp_path: Path) -> None:
    """With ``synchronous=NORMAL`` a commit runs on the event loop and never yields, so no
    append can queue behind one: appends started together still commit one by one."""
    store = SqliteStore(str(tmp_path / "s.sqlite"))
    await store.open()
    try:
        ids = [f"t{n}" for n in range(8)]
        for t in ids:
            await store.create_table(record(t), state(1), [entry(1)])
        await asyncio.gather(*(store.append(t, 1, [entry(2)], state(2)) for t in ids))
        assert store.group.largest == 1
        assert [await versions(store, t) for t in ids] == [[1, 2]] * len(ids)
    finally:
        await store.close()


async def test_a_postgres_batch_notifies_what_it_committed_and_nothing_else(
        postgres_url: str) -> None:
    from bezique.service.store.postgres import CHANNEL, RESULTS_CHANNEL

    store = PostgresStore(postgres_url)
    await store.open()
    listener, heard = await store_listener(postgres_url)
    try:
        await tables(store, "a", "b", "c")
        async with asyncio.timeout(10):  # the creations' notices, sent after their commits
            while not {(CHANNEL, f"{t}:1") for t in ("lead", "a", "b", "c")} <= set(heard):
                await asyncio.sleep(0.02)
        heard.clear()
        answers = await batched(store,
                                store.append("c", 1, [entry(2), entry(3)], state(3, True),
                                             TableResult("c", 3, {}, 3.0)),
                                store.append("b", 0, [entry(1)], state(1)),
                                store.append("a", 1, [entry(2)], state(2)))
        assert [type(answer) for answer in answers] == [type(None), VersionConflict, type(None)]
        await store.create_table(record("last"), state(1), [entry(1)])
        async with asyncio.timeout(10):
            while (CHANNEL, "last:1") not in heard:
                await asyncio.sleep(0.02)
        [result] = await store.read_results()
        # Sent after the commits, coalesced per table (the newest version): never b's.
        assert sorted(heard) == sorted([(CHANNEL, "lead:2"), (CHANNEL, "a:2"), (CHANNEL, "c:3"),
                                        (RESULTS_CHANNEL, str(result.cursor)),
                                        (CHANNEL, "last:1")])
    finally:
        await listener.close()
        await store.close()
