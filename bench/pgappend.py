"""The PostgreSQL append alone: what one costs, and how many a cluster commits a second.

Run: ``python -m bench.pgappend`` (a private cluster of tools/pgcluster.py, fsync on). Straight
to :class:`PostgresStore`, no server: ``tables`` tables in flight, one append after another
on each (one log entry of a move's size), through the store's pool. Three settings, alternating:

* ``durable``: as served (``synchronous_commit`` on: a commit waits for its WAL flush);
* ``durable without NOTIFY``: the same statement without ``pg_notify``. A transaction that
  notifies holds one cluster-wide lock from before its commit until the commit is flushed, so
  notifying commits cannot share a flush: this shows what that costs;
* ``no flush wait``: ``synchronous_commit=off``, what the statement costs without the disk.

Reported: appends/s, the client's and PostgreSQL's CPU per append, appends per transaction
(group commit: the appends that queue while a commit runs share the next), and one append's
latency with nothing else in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass

from bench.common import median
from bench.layout import postgres, tree_cpu
from bezique.service.store import LogEntry, TableRecord, TableState
from bezique.service.store import postgres as pgstore

SETTINGS = ("durable", "durable without NOTIFY", "no flush wait")


@dataclass
class Figures:
    rate: float
    client_cpu: float  # seconds per append
    store_cpu: float
    alone: float  # one append's latency, nothing else in flight
    per_commit: float  # appends per transaction (group commit)


def _record(table_id: str) -> TableRecord:
    return TableRecord(table_id, "highcard", 1, {"players": 4}, b"s" * 32, "c" * 64, 1.0, 0, {})


def _state(version: int) -> TableState:
    return TableState(version, "play", 0, False, [{"name": "a", "player_id": "p"}] * 4, None)


def _entry(version: int) -> LogEntry:
    played = {"kind": "played", "seat": version % 4, "card": "7S"}
    return LogEntry(version, "move", version % 4, {"move": {"kind": "play", "card": "7S"},
                                                   "events": [played, played]},
                    f"r{version}-{time.time_ns()}", time.time())


@contextlib.contextmanager
def _without_notify(active: bool) -> Iterator[None]:
    """The append statements (alone and group-committed) without their ``pg_notify`` (the
    measurement only)."""
    if not active:
        yield
        return
    saved, saved_many = pgstore._APPEND, pgstore._APPEND_MANY
    pgstore._APPEND = saved.replace(f"pg_notify('{pgstore.CHANNEL}', $15)", "length($15)")
    pgstore._APPEND_MANY = saved_many.replace(f"pg_notify('{pgstore.CHANNEL}', notice)",
                                              "length(notice)")
    try:
        yield
    finally:
        pgstore._APPEND, pgstore._APPEND_MANY = saved, saved_many


async def measure(url: str, pg_pid: int, setting: str, tables: int, per_table: int) -> Figures:
    query = "?synchronous_commit=off" if setting == "no flush wait" else ""
    store = pgstore.PostgresStore(url + query)
    await store.open()
    try:
        with _without_notify(setting == "durable without NOTIFY"):
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

            cpu, pg_cpu, started = time.process_time(), tree_cpu(pg_pid), time.perf_counter()
            batches = store.group.batches
            await asyncio.gather(*(play(t, 12 if t == ids[0] else 2) for t in ids))
            seconds = time.perf_counter() - started
            count = tables * per_table
            return Figures(count / seconds, (time.process_time() - cpu) / count,
                           (tree_cpu(pg_pid) - pg_cpu) / count, median(alone),
                           count / max(1, store.group.batches - batches))
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pgappend")
    parser.add_argument("--tables", type=int, default=64, help="tables in flight")
    parser.add_argument("--appends", type=int, default=40, help="appends per table and run")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--settings", default=",".join(SETTINGS),
                        help=f"comma-separated, of: {', '.join(SETTINGS)}")
    args = parser.parse_args()
    chosen = [s for s in SETTINGS if s in args.settings.split(",")]
    runs: dict[str, list[Figures]] = {setting: [] for setting in chosen}
    with postgres() as (url, pg_pid):
        for rep in range(args.reps):
            k = rep % len(chosen)
            for setting in chosen[k:] + chosen[:k]:
                runs[setting].append(asyncio.run(measure(url, pg_pid, setting, args.tables,
                                                         args.appends)))
    print(f"| setting ({args.tables} tables in flight, pool of 10) | appends/s [range] | "
          "client CPU/append | PostgreSQL CPU/append | appends/commit | one append alone |")
    print("|---|---|---|---|---|---|")
    for setting, figures in runs.items():
        rates = [f.rate for f in figures]
        print(f"| {setting} | {median(rates):,.0f} [{min(rates):,.0f}-{max(rates):,.0f}] | "
              f"{median([f.client_cpu for f in figures]) * 1e6:,.0f} µs | "
              f"{median([f.store_cpu for f in figures]) * 1e6:,.0f} µs | "
              f"{median([f.per_commit for f in figures]):.1f} | "
              f"{median([f.alone for f in figures]) * 1e3:.2f} ms |")
    print(f"\n{args.reps} runs of {args.tables} x {args.appends} appends per setting, "
          "alternating; medians.")


if __name__ == "__main__":
    main()
