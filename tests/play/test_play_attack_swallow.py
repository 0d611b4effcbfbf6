"""Findings about errors that end a Play source without the stream hearing of it, and about a
guard test that no longer guards.

1. A CancelledError raised *inside* the watch generator or inside a move's answer (not the
   pump or reader being cancelled by the stream: e.g. ``await asyncio.shield(drainer)`` of a
   batching store whose drainer was cancelled) ends the pump / reader task silently: no
   ``_Failed`` goes into the queue. Before 3698429 the stream re-raised it (``result()`` of
   the update task, ``reader.task.exception()``); now the stream waits forever (pump) or the
   move is never answered (reader).
2. tests/play/test_play_terminal.py counts SubmitMove calls by patching
   ``TableServicer.SubmitMove``, which grpc no longer calls (SubmitMove is served from
   ``submit_move_wire``): its ``"SubmitMove": 0`` holds whatever the client does.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from bezique.service import play
from bezique.service.servicer import TableServicer
from bezique.v1 import table_service_pb2 as pb
from tests.service.helpers import STACK, serving, two_seats


async def _requests(*moves: str, then: asyncio.Event | None = None
                    ) -> AsyncIterator[pb.PlayRequest]:
    for request_id in moves:
        yield pb.PlayRequest(move=pb.PlayMove(request_id=request_id))
    await (then or asyncio.Event()).wait()


async def test_a_cancelled_error_inside_the_updates_ends_the_stream() -> None:
    async def updates() -> AsyncIterator[tuple[int, bytes]]:
        yield 1, b"one"
        raise asyncio.CancelledError  # from inside, e.g. a cancelled shared future

    async def answer(move: pb.PlayMove) -> play.Answered:
        return play.Answered(b"never", 0)

    sent: list[bytes] = []

    async def run() -> None:
        async for data in play.play(_requests(), updates(), answer, 0):
            sent.append(data)

    task = asyncio.ensure_future(run())
    done, _ = await asyncio.wait({task}, timeout=2)
    task.cancel()
    assert sent == [b"one"]
    assert done, "the updates ended (CancelledError) and the stream waits forever"


async def test_a_cancelled_error_inside_an_answer_is_not_swallowed() -> None:
    """The move is never answered and the stream goes on as if it were being answered."""
    over = asyncio.Event()

    async def updates() -> AsyncIterator[tuple[int, bytes]]:
        yield 1, b"one"
        await over.wait()

    async def answer(move: pb.PlayMove) -> play.Answered:
        raise asyncio.CancelledError  # from inside the store, not the reader's cancel

    sent: list[bytes] = []
    error: list[BaseException] = []

    async def run() -> None:
        try:
            async for data in play.play(_requests("m1"), updates(), answer, 0):
                sent.append(data)
        except BaseException as e:  # noqa: BLE001
            error.append(e)
            raise

    task = asyncio.ensure_future(run())
    done, _ = await asyncio.wait({task}, timeout=1)
    ended = bool(done or error)
    task.cancel()
    with pytest.raises(BaseException):
        await task
    # 3698429^: the stream ended with the reader's error; now: nothing, the move is lost
    assert ended, f"the move's answer was lost silently, the stream goes on; sent {sent}"


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """test_play_terminal.py's counter, as it is."""
    counts = {"SubmitMove": 0}

    def counting(name: str, method: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return await method(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(TableServicer, "SubmitMove",
                        counting("SubmitMove", TableServicer.SubmitMove))
    return counts


async def test_the_terminal_tests_submit_move_counter_sees_a_grpc_submit_move(
        calls: dict[str, int]) -> None:
    async with serving() as (_, client):
        table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
        view = await client.view(table_id)
        mover = ann if view.to_move[0] == ann.seat else bob
        own = await client.view(table_id, mover.token)
        await client.submit(mover, own.legal_moves[0], own.version)
    assert calls["SubmitMove"] == 1, "a gRPC SubmitMove is not counted: the guard is vacuous"
