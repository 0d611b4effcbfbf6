"""A watcher process for the streams benchmark: many WatchTable streams over a few channels.

Run: ``python -m bench.watchers --target HOST:PORT --plan PLAN.json --out TIMES.bin``. The plan
lists the streams (table index, table id, from_version), the channels to spread them over and
how many live updates each stream should get. Each stream's first update is its backlog (one
entry), which proves the server has subscribed it; once every stream has had it the process
prints ``ready``. At most ``wave`` streams are opening at any time: a burst of a few thousand
opens gets some of them cancelled by grpc's server (a bare grpc.aio server does it too); a
stream cancelled before its first update is retried, and the retries are counted. Every later
update is recorded as (table index, version, CLOCK_MONOTONIC time) -- that clock is
system-wide, so the driver compares it with its own acknowledgements.
When every stream has its updates (or on ``stop`` / EOF on stdin) the records are written as
native doubles and the process prints ``done``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import threading
import time
from array import array
from pathlib import Path
from typing import Any

import grpc

from bench.common import raise_fd_limit
from bench.players import channel
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc

OPEN_ATTEMPTS = 6


class Watchers:
    def __init__(self, target: str, plan: dict[str, Any]) -> None:
        self.target = target
        self.streams: list[tuple[int, str, int]] = [tuple(s) for s in plan["streams"]]
        self.channel_count = int(plan["channels"])
        self.expect = int(plan["expect"])
        self.records = array("d")
        self.subscribed = 0
        self.finished = 0
        self.errors = 0
        self.retries = 0
        self.wave = int(plan.get("wave", 100))
        self.all_ready = asyncio.Event()
        self.all_done = asyncio.Event()

    async def watch(self, stub: pb_grpc.TableServiceStub, index: int, table_id: str,
                    from_version: int, opening: asyncio.Semaphore) -> None:
        """One stream: opened (retried while it has had no update: a burst of opens can be
        cancelled by the server), then its live updates recorded."""
        got = 0
        first = True
        await opening.acquire()
        try:
            for attempt in range(OPEN_ATTEMPTS):
                call = stub.WatchTable(pb.WatchTableRequest(table_id=table_id,
                                                            from_version=from_version))
                try:
                    async for update in call:
                        now = time.monotonic()
                        if first:
                            first = False
                            opening.release()
                            self._subscribed()
                            if update.version <= from_version + 1:
                                continue
                        self.records.extend((float(index), float(update.version), now))
                        got += 1
                        if got >= self.expect:
                            break
                    return
                except grpc.aio.AioRpcError as error:
                    if first and attempt + 1 < OPEN_ATTEMPTS:
                        self.retries += 1
                        await asyncio.sleep(0.05 * 2 ** attempt)
                        continue
                    if not self.errors:
                        print(f"stream on {table_id} failed: {error.code()} {error.details()}",
                              file=sys.stderr, flush=True)
                    self.errors += 1
                    return
                finally:
                    call.cancel()
        finally:
            if first:
                opening.release()
                self._subscribed()  # failed before its first update: counted, not awaited
            self.finished += 1
            if self.finished == len(self.streams):
                self.all_done.set()

    def _subscribed(self) -> None:
        self.subscribed += 1
        if self.subscribed == len(self.streams):
            self.all_ready.set()

    async def run(self, stop: asyncio.Event) -> None:
        channels = [channel(self.target, i) for i in range(self.channel_count)]
        stubs = [pb_grpc.TableServiceStub(c) for c in channels]  # type: ignore[no-untyped-call]
        opening = asyncio.Semaphore(self.wave)
        tasks = [asyncio.create_task(self.watch(stubs[n % len(stubs)], index, table_id, version,
                                                opening))
                 for n, (index, table_id, version) in enumerate(self.streams)]
        waiter = asyncio.create_task(stop.wait())
        await asyncio.wait([asyncio.create_task(self.all_ready.wait()), waiter],
                           return_when=asyncio.FIRST_COMPLETED)
        print(f"ready {self.subscribed - self.errors} streams on {len(channels)} channels, "
              f"{self.errors} failed, {self.retries} retried opens", flush=True)
        await asyncio.wait([asyncio.create_task(self.all_done.wait()), waiter],
                           return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*tasks, return_exceptions=True)
        for chan in channels:
            await chan.close(None)


def _stdin_stop(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    """Set ``stop`` when stdin says ``stop`` or closes (read in a thread: stdin may be a pipe
    the event loop cannot watch portably)."""
    for line in sys.stdin:
        if line.strip() == "stop":
            break
    loop.call_soon_threadsafe(stop.set)


async def main_async(target: str, plan: dict[str, Any], out: Path) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    threading.Thread(target=_stdin_stop, args=(loop, stop), daemon=True).start()
    watchers = Watchers(target, plan)
    await watchers.run(stop)
    out.write_bytes(watchers.records.tobytes())
    print(f"done {len(watchers.records) // 3} updates, {watchers.errors} errors, "
          f"{watchers.retries} retried opens", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.watchers")
    parser.add_argument("--target", required=True)
    parser.add_argument("--plan", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    raise_fd_limit()
    asyncio.run(main_async(args.target, json.loads(args.plan.read_text()), args.out))


if __name__ == "__main__":
    main()
