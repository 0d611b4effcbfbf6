"""Two replicas race the one-statement PostgreSQL append on one database: at the same expected
version exactly one commits, the loser is told the version the winner reached, and only what
committed is in the log, in the results feed and in a NOTIFY."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from bezique.service.store import (
    LogEntry,
    TableRecord,
    TableResult,
    TableState,
    VersionConflict,
)
from bezique.service.store.postgres import CHANNEL, RESULTS_CHANNEL, PostgresStore
from tests.store.helpers import store_listener


def _record(table_id: str) -> TableRecord:
    return TableRecord(table_id, "highcard", 1, {"players": 2}, b"s" * 32, "c" * 64, 1.0, 0, {})


def _state(version: int, finished: bool = False) -> TableState:
    return TableState(version, "play", 0, finished, [{"name": "a"}], None)


def _entry(version: int, replica: str, request_id: str | None) -> LogEntry:
    return LogEntry(version, "move", 0, {"by": replica}, request_id, float(version))


@pytest.fixture
async def two_replicas(postgres_url: str) -> AsyncIterator[tuple[PostgresStore, PostgresStore]]:
    """Two stores on one database, each with its own pool: two replicas' appends."""
    stores = (PostgresStore(postgres_url, pool_size=2), PostgresStore(postgres_url, pool_size=2))
    for store in stores:
        await store.open()
    yield stores
    for store in stores:
        await store.close()


async def _until_heard(heard: list[tuple[str, str]], last: tuple[str, str]) -> None:
    async with asyncio.timeout(20):
        while last not in heard:
            await asyncio.sleep(0.02)


async def _raced(store: PostgresStore, name: str, at: int, count: int, round_no: int) -> str:
    """One replica's append of ``count`` entries at version ``at``: won, or lost and told the
    version the table is at."""
    entries = [_entry(at + i + 1, name, f"{name}-{round_no}-{i}") for i in range(count)]
    try:
        await store.append("race", at, entries, _state(at + count))
    except VersionConflict as conflict:
        return f"lost:{conflict.current}"
    return "won"


async def test_racing_appends_commit_one_per_version_and_notify_only_the_winner(
        two_replicas: tuple[PostgresStore, PostgresStore], postgres_url: str) -> None:
    """Both replicas append at the same expected version, 60 times over (one or two entries
    each, distinct request ids): exactly one commits each time, the other is told the version
    the winner reached, the log holds the winner's rows only, once, without a gap, and the
    notices are the winners' and nothing else (a loser, refused by the compare-and-set, must
    not be announced)."""
    listener, heard = await store_listener(postgres_url)
    try:
        first, second = two_replicas
        await first.create_table(_record("race"), _state(1), [_entry(1, "a", None)])
        version, expected_log, expected_heard = 1, [(1, "a")], [(CHANNEL, "race:1")]
        rng = random.Random(3)
        for round_no in range(60):
            sizes = {"a": rng.choice((1, 2)), "b": rng.choice((1, 2))}
            answers = await asyncio.gather(
                _raced(first, "a", version, sizes["a"], round_no),
                _raced(second, "b", version, sizes["b"], round_no))
            assert sorted(answers)[1] == "won" and answers.count("won") == 1, answers
            winner = "a" if answers[0] == "won" else "b"
            reached = version + sizes[winner]
            assert sorted(answers)[0] == f"lost:{reached}", (answers, reached)
            expected_log += [(v, winner) for v in range(version + 1, reached + 1)]
            expected_heard.append((CHANNEL, f"race:{reached}"))
            version = reached
        log = await second.read_log("race")
        assert [(e.version, e.payload["by"]) for e in log] == expected_log
        assert len({e.request_id for e in log if e.request_id}) == len(log) - 1
        await _until_heard(heard, expected_heard[-1])
        await asyncio.sleep(0.2)  # a stray late NOTIFY would land here
        # Sent after the commits, coalesced, by each replica: some of the winners' versions,
        # each once, the last among them (a loser, refused by the compare-and-set, sends none).
        assert set(heard) <= set(expected_heard) and len(heard) == len(set(heard)), heard
        loaded = await first.load_table("race")
        assert loaded is not None and loaded[1].version == version
    finally:
        await listener.close()


async def test_racing_ends_store_one_result_each_and_the_cursors_have_no_gap(
        two_replicas: tuple[PostgresStore, PostgresStore], postgres_url: str) -> None:
    """Both replicas end the same table at the same version, for twelve tables: one result
    per table, the loser's statement neither stores a result nor takes a cursor (the counter
    is updated only when the compare-and-set matched), so the feed's cursors are 1..12; the
    notices name committed cursors only, each once, the last among them."""
    listener, heard = await store_listener(postgres_url)
    try:
        first, second = two_replicas
        for number in range(12):
            table_id = f"end{number:02d}"
            await first.create_table(_record(table_id), _state(1), [_entry(1, "a", None)])

            async def end(store: PostgresStore, name: str, table_id: str = table_id) -> str:
                try:
                    await store.append(table_id, 1, [_entry(2, name, name)], _state(2, True),
                                       TableResult(table_id, 2, {"by": name}, 2.0))
                except VersionConflict:
                    return "lost"
                return "won"

            answers = await asyncio.gather(end(first, "a"), end(second, "b"))
            assert sorted(answers) == ["lost", "won"], answers
        results = await second.read_results()
        assert [r.cursor for r in results] == list(range(1, 13))
        assert [r.table_id for r in results] == [f"end{n:02d}" for n in range(12)]
        await _until_heard(heard, (RESULTS_CHANNEL, "12"))
        await asyncio.sleep(0.2)
        told = [int(p) for ch, p in heard if ch == RESULTS_CHANNEL]  # coalesced, per replica
        assert set(told) <= set(range(1, 13)) and len(told) == len(set(told)), told
        for result in results:  # the stored result is the winner's, as its log row is
            [_, last] = await first.read_log(result.table_id)
            assert result.data["by"] == last.payload["by"]
    finally:
        await listener.close()
