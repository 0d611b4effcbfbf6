"""A watch stream's queue (service.live.Inbox): what its one reader waits for, and that a
token's expiry ends the wait, with nothing handed out once the time is up."""

from __future__ import annotations

import asyncio
import time

from bezique.service.live import Broadcast, Inbox, StreamEnd
from bezique.service.store import LogEntry


def _broadcast(version: int) -> Broadcast:
    return Broadcast(LogEntry(version, "move", 0, {}, None, 0.0))


async def test_a_reader_waits_for_the_next_item_and_gets_them_in_order() -> None:
    inbox = Inbox(3)
    reader = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    assert not reader.done()
    first, second = _broadcast(1), StreamEnd("behind")
    inbox.put_nowait(first)
    inbox.put_nowait(second)
    assert await asyncio.wait_for(reader, 5) is first
    assert inbox.qsize() == 1 and not inbox.full()
    assert await inbox.get() is second and inbox.waiter is None


async def test_a_wait_ends_empty_when_its_time_is_up() -> None:
    inbox = Inbox(3)
    started = time.monotonic()
    assert await inbox.get(0.05) is None
    assert time.monotonic() - started >= 0.04
    assert inbox.waiter is None
    inbox.put_nowait(_broadcast(1))
    assert await inbox.get(0.0) is None  # the time is up: nothing more is handed out
    assert inbox.qsize() == 1
    assert await inbox.get(5.0) is not None


async def test_an_item_put_while_a_timed_reader_waits_reaches_it() -> None:
    inbox = Inbox(2)
    reader = asyncio.create_task(inbox.get(5.0))
    await asyncio.sleep(0.01)
    item = _broadcast(2)
    inbox.put_nowait(item)
    inbox.put_nowait(StreamEnd("closing"))
    assert inbox.full()
    assert await asyncio.wait_for(reader, 5) is item
    assert inbox.qsize() == 1
