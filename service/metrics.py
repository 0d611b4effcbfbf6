"""Prometheus metrics, served on ``--metrics-port``.

RPCs by method and status code with latency histograms, tables by variant and phase, open watch
streams, moves applied, store call latency. A private registry per server, so several servers
in one process (tests) do not collide.
"""

from __future__ import annotations

import time
from collections import Counter as Tally
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

_LATENCY = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.rpcs = Counter("bezique_rpcs", "RPCs handled, by method and status code",
                            ["method", "code"], registry=self.registry)
        self.rpc_seconds = Histogram("bezique_rpc_seconds", "RPC latency by method",
                                     ["method"], buckets=_LATENCY, registry=self.registry)
        self.watch_streams = Gauge("bezique_watch_streams", "Open WatchTable streams",
                                   registry=self.registry)
        self.moves = Counter("bezique_moves_applied", "Moves applied, by variant and entry kind",
                             ["variant", "kind"], registry=self.registry)
        self.store_seconds = Histogram("bezique_store_seconds", "Store call latency",
                                       ["operation"], buckets=_LATENCY, registry=self.registry)

        self._children: dict[tuple[object, ...], Any] = {}

    def _child(self, metric: Any, *labels: str) -> Any:
        """``metric.labels(*labels)``, looked up once (labels() costs microseconds a call)."""
        key = (id(metric), *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def observe_rpc(self, method: str, code: str, seconds: float) -> None:
        self._child(self.rpcs, method, code).inc()
        self._child(self.rpc_seconds, method).observe(seconds)

    def moved(self, variant: str, kind: str) -> None:
        self._child(self.moves, variant, kind).inc()

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
    """Wraps a store so every awaited call is timed (the store contract is unchanged)."""

    def __init__(self, store: Any, metrics: Metrics) -> None:
        self._store = store
        self._metrics = metrics
        self.shared = store.shared

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._store, name)
        if not callable(attribute) or name.startswith("_") or name in ("listen",):
            return attribute
        histogram = self._metrics.store_seconds.labels(name)

        async def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await attribute(*args, **kwargs)
            finally:
                histogram.observe(time.perf_counter() - start)

        setattr(self, name, timed)  # __getattr__ is not asked again for this name
        return timed

    @property
    def inner(self) -> Any:
        return self._store
