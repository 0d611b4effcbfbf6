"""Prometheus metrics, served on ``--metrics-port``.

RPCs by method and status code with latency histograms, tables by variant and phase, open watch
streams, moves applied, store call latency. A private registry per server, so several servers
in one process (tests) do not collide.
"""

from __future__ import annotations

import bisect
import time
from collections import Counter as Tally
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from typing import Any, TypeVar

from prometheus_client import CollectorRegistry, Gauge, start_http_server
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from bezique.service.store.base import (
    LogEntry,
    Snapshot,
    Store,
    TableRecord,
    TableResult,
    TableState,
)

_T = TypeVar("_T")
_LATENCY = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    """The server's metrics. The per-call ones (RPCs, moves, store calls) are plain counters
    bumped on the event loop's thread and turned into Prometheus families only when scraped:
    prometheus_client's own counters take a lock on every increment, several per move."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.rpcs = _Counts()
        self.rpc_seconds = _Histograms()
        self.moves = _Counts()
        self.store_seconds = _Histograms()
        self.watch_streams = Gauge("bezique_watch_streams", "Open WatchTable and Play streams",
                                   registry=self.registry)
        self.registry.register(_CallsCollector(self))

    def observe_rpc(self, method: str, code: str, seconds: float) -> None:
        self.rpcs.add((method, code))
        self.rpc_seconds.observe(method, seconds)

    def moved(self, variant: str, kind: str) -> None:
        self.moves.add((variant, kind))

    def watch_tables(self, tables: Callable[[], Iterator[tuple[str, str]]]) -> None:
        """Report the live tables by variant and phase at every scrape."""
        self.registry.register(_TablesCollector(tables))

    _http: tuple[Any, Any] | None = None

    def serve(self, port: int, address: str = "127.0.0.1") -> None:
        """Serve /metrics over HTTP from a thread, until ``shutdown()``."""
        self._http = start_http_server(port, addr=address, registry=self.registry)

    def shutdown(self) -> None:
        if self._http is not None:
            self._http[0].shutdown()
            self._http = None


class _Counts:
    """Counts by label values."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, ...], int] = {}

    def add(self, labels: tuple[str, ...]) -> None:
        counts = self.counts
        counts[labels] = counts.get(labels, 0) + 1

    def snapshot(self) -> list[tuple[tuple[str, ...], int]]:
        return list(self.counts.items())  # one C call: safe beside the loop's increments


class _Histograms:
    """Latency histograms by one label; bucket counts are per bucket, summed at scrape."""

    def __init__(self) -> None:
        self.by_label: dict[str, tuple[list[int], list[float]]] = {}

    def observe(self, label: str, seconds: float) -> None:
        found = self.by_label.get(label)
        if found is None:
            found = self.by_label[label] = ([0] * (len(_LATENCY) + 1), [0.0])
        found[0][bisect.bisect_left(_LATENCY, seconds)] += 1
        found[1][0] += seconds

    def snapshot(self) -> list[tuple[str, list[int], float]]:
        return [(label, list(counts), total[0])
                for label, (counts, total) in list(self.by_label.items())]


class _CallsCollector(Collector):
    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    def collect(self) -> Iterator[Metric]:
        m = self._metrics
        yield _counter("bezique_rpcs", "RPCs handled, by method and status code",
                       ["method", "code"], m.rpcs)
        yield _histogram("bezique_rpc_seconds", "RPC latency by method", "method",
                         m.rpc_seconds)
        yield _counter("bezique_moves_applied", "Moves applied, by variant and entry kind",
                       ["variant", "kind"], m.moves)
        yield _histogram("bezique_store_seconds", "Store call latency", "operation",
                         m.store_seconds)


def _counter(name: str, documentation: str, labels: list[str], counts: _Counts
             ) -> CounterMetricFamily:
    family = CounterMetricFamily(name, documentation, labels=labels)
    for values, count in sorted(counts.snapshot()):
        family.add_metric(list(values), count)
    return family


def _histogram(name: str, documentation: str, label: str, histograms: _Histograms
               ) -> HistogramMetricFamily:
    family = HistogramMetricFamily(name, documentation, labels=[label])
    for value, counts, total in sorted(histograms.snapshot()):
        running, buckets = 0, []
        for bound, count in zip([*map(str, _LATENCY), "+Inf"], counts, strict=True):
            running += count
            buckets.append((bound, running))
        family.add_metric([value], buckets, total)
    return family


class _TablesCollector(Collector):
    def __init__(self, tables: Callable[[], Iterator[tuple[str, str]]]) -> None:
        self._tables = tables

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily("bezique_tables", "Tables held by this process, by variant "
                                   "and phase", labels=["variant", "phase"])
        for (variant, phase), count in sorted(Tally(self._tables()).items()):
            family.add_metric([variant, phase], count)
        yield family


class TimedStore:
    """A store whose every call is timed into ``bezique_store_seconds``, by operation; it keeps
    the store contract, so the table manager cannot tell it from the store it wraps."""

    def __init__(self, store: Store, metrics: Metrics) -> None:
        self._store = store
        self._observe = metrics.store_seconds.observe
        self.shared = store.shared

    async def _timed(self, operation: str, call: Awaitable[_T]) -> _T:
        start = time.perf_counter()
        try:
            return await call
        finally:
            self._observe(operation, time.perf_counter() - start)

    def open(self) -> Coroutine[Any, Any, None]:
        return self._timed("open", self._store.open())

    def close(self) -> Coroutine[Any, Any, None]:
        return self._timed("close", self._store.close())

    def create_table(self, record: TableRecord, state: TableState,
                     entries: Sequence[LogEntry]) -> Coroutine[Any, Any, None]:
        return self._timed("create_table", self._store.create_table(record, state, entries))

    def append(self, table_id: str, expected_version: int, entries: Sequence[LogEntry],
               state: TableState, result: TableResult | None = None
               ) -> Coroutine[Any, Any, None]:
        return self._timed("append", self._store.append(table_id, expected_version, entries,
                                                        state, result))

    def read_results(self, after: int = 0, limit: int = 100
                     ) -> Coroutine[Any, Any, list[TableResult]]:
        return self._timed("read_results", self._store.read_results(after, limit))

    def load_table(self, table_id: str
                   ) -> Coroutine[Any, Any, tuple[TableRecord, TableState] | None]:
        return self._timed("load_table", self._store.load_table(table_id))

    def read_log(self, table_id: str, after_version: int = 0, limit: int | None = None
                 ) -> Coroutine[Any, Any, list[LogEntry]]:
        return self._timed("read_log", self._store.read_log(table_id, after_version, limit))

    def find_request(self, table_id: str, request_id: str
                     ) -> Coroutine[Any, Any, LogEntry | None]:
        return self._timed("find_request", self._store.find_request(table_id, request_id))

    def list_tables(self, *, variant_id: str = "", only_open: bool = False,
                    include_finished: bool = False, limit: int = 100, after: str = "",
                    only_finished: bool = False, player_id: str = ""
                    ) -> Coroutine[Any, Any, list[tuple[TableRecord, TableState]]]:
        return self._timed("list_tables", self._store.list_tables(
            variant_id=variant_id, only_open=only_open, include_finished=include_finished,
            limit=limit, after=after, only_finished=only_finished, player_id=player_id))

    def count_tables(self, *, include_finished: bool = False) -> Coroutine[Any, Any, int]:
        return self._timed("count_tables",
                           self._store.count_tables(include_finished=include_finished))

    def due_deadlines(self, now: float, limit: int = 100
                      ) -> Coroutine[Any, Any, list[tuple[str, int]]]:
        return self._timed("due_deadlines", self._store.due_deadlines(now, limit))

    def touch_tables(self, table_ids: Sequence[str], seen_at: float
                     ) -> Coroutine[Any, Any, None]:
        return self._timed("touch_tables", self._store.touch_tables(table_ids, seen_at))

    def idle_tables(self, started_before: float, unstarted_before: float, limit: int = 100
                    ) -> Coroutine[Any, Any, list[tuple[str, int]]]:
        return self._timed("idle_tables", self._store.idle_tables(started_before,
                                                                  unstarted_before, limit))

    def save_snapshot(self, table_id: str, snapshot: Snapshot) -> Coroutine[Any, Any, None]:
        return self._timed("save_snapshot", self._store.save_snapshot(table_id, snapshot))

    def load_snapshot(self, table_id: str) -> Coroutine[Any, Any, Snapshot | None]:
        return self._timed("load_snapshot", self._store.load_snapshot(table_id))

    def table_versions(self, table_ids: Sequence[str]) -> Coroutine[Any, Any, dict[str, int]]:
        return self._timed("table_versions", self._store.table_versions(table_ids))

    def listen(self, on_entry: Callable[[str, int], None], on_reconnect: Callable[[], None],
               on_result: Callable[[int], None] = lambda cursor: None) -> None:
        """Not timed: it starts a listener that runs for the life of the store."""
        self._store.listen(on_entry, on_reconnect, on_result)
