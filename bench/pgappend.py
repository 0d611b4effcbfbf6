"""The PostgreSQL append alone: what one costs, and how many a cluster commits a second.

Run: ``python -m bench.pgappend`` (a private cluster of tools/pgcluster.py, fsync on). Straight
to :class:`PostgresStore`, no server: ``tables`` tables in flight, one append after another
on each (one log entry of a move's size), through the store's pool. Three settings, alternating:

* ``durable``: as served (``synchronous_commit`` on: a commit waits for its WAL flush; the
  store's notifier tells the listeners afterwards, coalesced, in commits of its own);
* ``durable without notices``: the notifier off (what telling the other replicas costs);
* ``no flush wait``: ``synchronous_commit=off``, what the statement costs without the disk.

Reported: appends/s, the client's and PostgreSQL's CPU per append, appends per transaction
(group commit: the appends that queue while a commit runs share the next), one append's
latency with nothing else in flight, and how late a listener hears of an append (from the
append's return to the first notice of its version or a later one).

Then the notify lock alone, which a transaction that notifies holds from before its commit to
its end: the notifier's transactions a second from ``--notifiers`` connections at once, and
one such transaction's latency, with ``synchronous_commit`` on and off, beside an INSERT's (a
commit that waits for a flush) for scale. A transaction that only notifies writes no WAL of its
own, so PostgreSQL does not wait for a flush to commit it even with ``synchronous_commit`` on;
the notifier sets it off all the same, so that stays true whatever its statement becomes.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import dataclass

import asyncpg

from bench.common import median, percentile
from bench.layout import postgres, tree_cpu
from bezique.service.store import LogEntry, TableRecord, TableState
from bezique.service.store import postgres as pgstore

SETTINGS = ("durable", "durable without notices", "no flush wait")


@dataclass
class Figures:
    rate: float
    client_cpu: float  # seconds per append
    store_cpu: float
    alone: float  # one append's latency, nothing else in flight
    per_commit: float  # appends per transaction (group commit)
    lag: list[float]  # per append: from its return to its notice heard (none: not told)


def _record(table_id: str) -> TableRecord:
    return TableRecord(table_id, "highcard", 1, {"players": 4}, b"s" * 32, "c" * 64, 1.0, 0, {})


def _state(version: int) -> TableState:
    return TableState(version, "play", 0, False, [{"name": "a", "player_id": "p"}] * 4, None)


def _entry(version: int) -> LogEntry:
    played = {"kind": "played", "seat": version % 4, "card": "7S"}
    return LogEntry(version, "move", version % 4, {"move": {"kind": "play", "card": "7S"},
                                                   "events": [played, played]},
                    f"r{version}-{time.time_ns()}", time.time())


class _Heard:
    """A listener's notices: when each table's versions were first heard of."""

    def __init__(self) -> None:
        self.notices: dict[str, list[tuple[int, float]]] = {}

    def __call__(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        table_id, _, version = payload.rpartition(":")
        self.notices.setdefault(table_id, []).append((int(version), time.perf_counter()))

    def lags(self, done: dict[tuple[str, int], float]) -> list[float]:
        """Per append, how long after it returned a notice of it (or of a later version)
        arrived; the appends never heard of are left out."""
        lags = []
        for (table_id, version), returned in done.items():
            heard = [at for told, at in self.notices.get(table_id, []) if told >= version]
            if heard:
                lags.append(max(0.0, min(heard) - returned))
        return lags


async def measure(url: str, pg_pid: int, setting: str, tables: int, per_table: int) -> Figures:
    query = "?synchronous_commit=off" if setting == "no flush wait" else ""
    store = pgstore.PostgresStore(url + query)
    if setting == "durable without notices":
        store.notifier.committed = lambda *_args, **_kw: None  # type: ignore[method-assign]
    await store.open()
    heard, listener = _Heard(), await asyncpg.connect(url)
    await listener.add_listener(pgstore.CHANNEL, heard)
    done: dict[tuple[str, int], float] = {}
    try:
        ids = [f"{setting[:3]}-{time.time_ns()}-{n}" for n in range(tables)]
        for table_id in ids:
            await store.create_table(_record(table_id), _state(1), [_entry(1)])
        alone = []
        for version in range(2, 12):
            started = time.perf_counter()
            await store.append(ids[0], version - 1, [_entry(version)], _state(version))
            alone.append(time.perf_counter() - started)

        async def play(table_id: str, first: int) -> None:
            for version in range(first, first + per_table):
                await store.append(table_id, version - 1, [_entry(version)],
                                   _state(version))
                done[table_id, version] = time.perf_counter()

        cpu, pg_cpu, started = time.process_time(), tree_cpu(pg_pid), time.perf_counter()
        batches = store.group.batches
        await asyncio.gather(*(play(t, 12 if t == ids[0] else 2) for t in ids))
        seconds = time.perf_counter() - started
        count = tables * per_table
        figures = Figures(count / seconds, (time.process_time() - cpu) / count,
                          (tree_cpu(pg_pid) - pg_cpu) / count, median(alone),
                          count / max(1, store.group.batches - batches), [])
        await asyncio.sleep(1.0)  # the last notices
        figures.lag = heard.lags(done)
        return figures
    finally:
        await listener.close()
        await store.close()


_NOTICE = f"SELECT pg_notify('{pgstore.CHANNEL}_bench', 'x')"


async def notify_lock(url: str, synchronous: str, notifiers: int, seconds: float
                      ) -> tuple[float, float, float]:
    """With ``synchronous_commit`` as given: transactions of one NOTIFY each committed a second
    by ``notifiers`` connections at once, one such transaction's latency alone, and one
    INSERT's for scale."""
    settings = {"synchronous_commit": synchronous}
    conns = [await asyncpg.connect(url, server_settings=settings) for _ in range(notifiers)]
    try:
        await conns[0].execute("CREATE TABLE IF NOT EXISTS bench_rows (n integer)")
        alone: dict[str, list[float]] = {_NOTICE: [], "INSERT INTO bench_rows VALUES (1)": []}
        for statement, times in alone.items():
            for _ in range(100):
                started = time.perf_counter()
                await conns[0].execute(statement)
                times.append(time.perf_counter() - started)
        count = 0
        end = time.perf_counter() + seconds

        async def notify(conn: asyncpg.Connection) -> None:
            nonlocal count
            while time.perf_counter() < end:
                await conn.execute(_NOTICE)
                count += 1

        started = time.perf_counter()
        await asyncio.gather(*(notify(conn) for conn in conns))
        notices, insert = alone.values()
        return count / (time.perf_counter() - started), median(notices), median(insert)
    finally:
        for conn in conns:
            await conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pgappend")
    parser.add_argument("--tables", type=int, default=64, help="tables in flight")
    parser.add_argument("--appends", type=int, default=40, help="appends per table and run")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--settings", default=";".join(SETTINGS),
                        help=f"semicolon-separated, of: {'; '.join(SETTINGS)}")
    parser.add_argument("--notifiers", type=int, default=8,
                        help="connections notifying at once (the notify lock alone; 0: skip)")
    args = parser.parse_args()
    chosen = [s for s in SETTINGS if s in args.settings.split(";")]
    runs: dict[str, list[Figures]] = {setting: [] for setting in chosen}
    notices: dict[str, list[tuple[float, float, float]]] = {"on": [], "off": []}
    with postgres() as (url, pg_pid):
        for rep in range(args.reps):
            k = rep % len(chosen)
            for setting in chosen[k:] + chosen[:k]:
                runs[setting].append(asyncio.run(measure(url, pg_pid, setting, args.tables,
                                                         args.appends)))
            for synchronous in ("on", "off")[::1 if rep % 2 == 0 else -1]:
                if args.notifiers:
                    notices[synchronous].append(asyncio.run(
                        notify_lock(url, synchronous, args.notifiers, 3.0)))
    print(f"| setting ({args.tables} tables in flight, pool of 10) | appends/s [range] | "
          "client CPU/append | PostgreSQL CPU/append | appends/commit | one append alone | "
          "notice heard after (median, p99) |")
    print("|---|---|---|---|---|---|---|")
    for setting, figures in runs.items():
        rates = [f.rate for f in figures]
        lags = [lag for f in figures for lag in f.lag]
        heard = (f"{median(lags) * 1e3:.1f} ms, {percentile(lags, 99) * 1e3:.1f} ms"
                 if lags else "not told")
        print(f"| {setting} | {median(rates):,.0f} [{min(rates):,.0f}-{max(rates):,.0f}] | "
              f"{median([f.client_cpu for f in figures]) * 1e6:,.0f} µs | "
              f"{median([f.store_cpu for f in figures]) * 1e6:,.0f} µs | "
              f"{median([f.per_commit for f in figures]):.1f} | "
              f"{median([f.alone for f in figures]) * 1e3:.2f} ms | {heard} |")
    print(f"\n{args.reps} runs of {args.tables} x {args.appends} appends per setting, "
          "alternating; medians.")
    if args.notifiers:
        print(f"\n| the notify lock alone | transactions of one NOTIFY a second, "
              f"{args.notifiers} connections [range] | one alone | an INSERT alone |"
              "\n|---|---|---|---|")
        for synchronous, locks in notices.items():
            rates = [f[0] for f in locks]
            print(f"| synchronous_commit {synchronous} | {median(rates):,.0f} "
                  f"[{min(rates):,.0f}-{max(rates):,.0f}] | "
                  f"{median([f[1] for f in locks]) * 1e3:.3f} ms | "
                  f"{median([f[2] for f in locks]) * 1e3:.3f} ms |")


if __name__ == "__main__":
    main()
