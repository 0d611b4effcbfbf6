"""``bezique-server`` with a stall tracer: what holds its event loop, and for how long.

Run as ``python -m bench.stalltrace SERVER-FLAGS...`` (started by :mod:`bench.tail`). Inside the
server it records every garbage collection (generation, wall and CPU milliseconds), every WAL
finish the sqlite store runs on the event loop, every append slower than 1 ms, and, with
``STALLTRACE_LAG=1``, each time a 1 ms timer fired more than 2 ms late (the loop was held).
On SIGUSR1 it writes what it recorded since the last signal as JSON to ``$STALLTRACE_OUT`` and
starts over. ``STALLTRACE_GC=a,b,c`` replaces the server's collector thresholds (to compare).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Coroutine
from typing import Any

Record = dict[str, list[list[float]]]

_T0 = time.perf_counter()
_started = [0.0, 0.0]  # wall, CPU of the collection under way


def _fresh() -> Record:
    return {"gc": [], "lag": [], "finish": [], "append": [], "off_loop": []}


_record = _fresh()


def _ms(seconds: float) -> float:
    return round(seconds * 1e3, 3)


def _on_gc(phase: str, info: dict[str, int]) -> None:
    """Time each collection: [end (s since start), generation, wall ms, CPU ms, collected]."""
    if phase == "start":
        _started[:] = [time.perf_counter(), time.thread_time()]
        return
    now = time.perf_counter()
    _record["gc"].append([round(now - _T0, 4), info["generation"], _ms(now - _started[0]),
                          _ms(time.thread_time() - _started[1]), info["collected"]])


def _timed(name: str, call: Callable[..., Any], slower_than: float = 0.0) -> Callable[..., Any]:
    """``call`` (a plain function) timed into ``_record[name]`` as [start, ms]."""
    def timed(*args: Any) -> Any:
        start = time.perf_counter()
        try:
            return call(*args)
        finally:
            took = time.perf_counter() - start
            if took > slower_than:
                _record[name].append([round(start - _T0, 4), _ms(took)])
    return timed


def _timed_async(name: str, call: Callable[..., Coroutine[Any, Any, Any]],
                 slower_than: float) -> Callable[..., Coroutine[Any, Any, Any]]:
    async def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await call(*args, **kwargs)
        finally:
            took = time.perf_counter() - start
            if took > slower_than:
                _record[name].append([round(start - _T0, 4), _ms(took)])
    return timed


async def _lag_monitor() -> None:
    """A 1 ms timer: each time it fires more than 2 ms late, [start, ms late]."""
    while True:
        start = time.perf_counter()
        await asyncio.sleep(0.001)
        late = time.perf_counter() - start - 0.001
        if late > 0.002:
            _record["lag"].append([round(start - _T0, 4), _ms(late)])


def _dump() -> None:
    global _record
    with open(os.environ["STALLTRACE_OUT"], "w", encoding="utf-8") as out:
        json.dump(_record, out)
    _record = _fresh()


def main() -> None:
    from bezique.service import main as server_main

    os.environ.setdefault("GRPC_EXPERIMENTS", server_main.GRPC_EXPERIMENTS)
    from bezique.service import server
    from bezique.service.store import sqlite

    sqlite._Checkpointer._finish = _timed(  # type: ignore[method-assign]
        "finish", sqlite._Checkpointer._finish)
    reach_end = sqlite._Checkpointer._reach_end

    def reached(db: Any, *args: Any) -> bool:
        """The checkpoint thread's own WAL resets, as [time, 0] (off the loop: no stall)."""
        done = reach_end(db, *args)
        if done:
            _record["off_loop"].append([round(time.perf_counter() - _T0, 4), 0.0])
        return done

    sqlite._Checkpointer._reach_end = staticmethod(reached)  # type: ignore[method-assign,assignment]
    sqlite.SqliteStore.append = _timed_async(  # type: ignore[method-assign]
        "append", sqlite.SqliteStore.append, 0.001)
    if os.environ.get("STALLTRACE_GC"):
        a, b, c = (int(x) for x in os.environ["STALLTRACE_GC"].split(","))
        server.GC_THRESHOLDS = (a, b, c)
    serve = server.serve

    async def traced(config: Any) -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGUSR1, _dump)
        monitor = loop.create_task(_lag_monitor()) if os.environ.get("STALLTRACE_LAG") else None
        try:
            await serve(config)
        finally:
            if monitor is not None:
                monitor.cancel()

    server.serve = traced  # type: ignore[assignment]
    gc.callbacks.append(_on_gc)
    sys.exit(server_main.main(sys.argv[1:]))


if __name__ == "__main__":
    main()
