"""A Play stream's two tasks (the pump, the reader) and its watcher, when the call ends every
way it can: the client cancels (idle, mid-move, after half-closing), the game ends with a
move in hand, the seat's token is replaced with a move in hand, the server shuts down with a
move in hand."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import details, highcard_registry, server_config, until
from tests.play.helpers import RawPlay, movers_stream
from tests.service.helpers import STACK, STARTED, serving, two_seats

KEY = "platform-key"


def play_tasks() -> list[asyncio.Task[Any]]:
    """The pump and reader tasks of every Play stream in this loop."""
    return [t for t in asyncio.all_tasks() if not t.done()
            and getattr(t.get_coro(), "__qualname__", "") in ("_pump", "_Reader._run")]


async def watchers(server: RunningServer, table_id: str) -> int:
    async with server.manager.repo.hold(table_id) as live:
        return len(live.watchers)


async def settled(server: RunningServer, table_id: str, expect_watchers: int = 0) -> None:
    """The stream's tasks end and its watcher is gone (without a cyclic GC run)."""
    await until(lambda: asyncio.sleep(0, play_tasks()), lambda ts: not ts,
                "the Play stream's tasks to end", timeout=5)
    await until(lambda: watchers(server, table_id), lambda n: n == expect_watchers,
                "the Play stream's watcher to be unsubscribed", timeout=5)


class Gate:
    """Holds every move the manager is asked for until ``open``; ``entered``: one is held."""

    def __init__(self, server: RunningServer, monkeypatch: pytest.MonkeyPatch) -> None:
        self.entered = asyncio.Event()
        self.opened = asyncio.Event()
        submit = server.manager.submit

        async def held(*args: Any, **kwargs: Any) -> Any:
            self.entered.set()
            await self.opened.wait()
            return await submit(*args, **kwargs)

        monkeypatch.setattr(server.manager, "submit", held)


async def hold_a_move(server: RunningServer, monkeypatch: pytest.MonkeyPatch,
                      stream: RawPlay, view: pb.View, request_id: str) -> Gate:
    """Send the seat's first legal move on ``stream``; returns once the manager holds it."""
    gate = Gate(server, monkeypatch)
    stream.move(view.legal_moves[0], view.version, request_id)
    await asyncio.wait_for(gate.entered.wait(), 5)
    return gate


@pytest.fixture
async def keyed() -> AsyncIterator[tuple[RunningServer, AsyncTableClient]]:
    async with (serving(api_key=KEY) as (server, _),
                AsyncTableClient(server.address, api_key=KEY, retries=0) as client):
        yield server, client


@pytest.fixture
def no_gc() -> Any:
    gc.collect()
    gc.disable()
    yield
    gc.enable()


async def test_a_cancel_while_idle_ends_the_tasks_and_the_watcher(
        keyed: tuple[RunningServer, AsyncTableClient], no_gc: None) -> None:
    server, client = keyed
    table_id, _, stream, _ = await movers_stream(client)
    assert play_tasks() and await watchers(server, table_id) == 1
    stream.close()
    await settled(server, table_id)


async def test_a_cancel_mid_move_ends_the_tasks_and_the_watcher(
        keyed: tuple[RunningServer, AsyncTableClient], monkeypatch: pytest.MonkeyPatch,
        no_gc: None) -> None:
    server, client = keyed
    table_id, _, stream, view = await movers_stream(client)
    gate = await hold_a_move(server, monkeypatch, stream, view, "held")
    stream.close()
    await settled(server, table_id)
    gate.opened.set()


async def test_a_half_closed_stream_still_gets_updates_and_answers_then_cancel_cleans_up(
        keyed: tuple[RunningServer, AsyncTableClient], no_gc: None) -> None:
    server, client = keyed
    table_id, _, stream, view = await movers_stream(client)
    stream.move(view.legal_moves[0], view.version, "last-before-close")
    stream.half_close()
    result = await stream.result()
    assert result.request_id == "last-before-close" and result.code == 0
    assert stream.updates[-1].version == result.accepted.version
    # the move was taken: the table is one version on
    table = await client.view(table_id)
    assert table.version == view.version + 1
    stream.call.cancel()
    await settled(server, table_id)


async def test_the_game_ending_with_a_move_in_hand_still_answers_it(
        keyed: tuple[RunningServer, AsyncTableClient], monkeypatch: pytest.MonkeyPatch,
        no_gc: None) -> None:
    server, client = keyed
    table_id, _, stream, view = await movers_stream(client)
    gate = await hold_a_move(server, monkeypatch, stream, view, "in-hand")
    final = await client.abort_table(table_id, "ended by the platform")
    await stream.until_version(final)
    gate.opened.set()
    result = await stream.result()
    assert result.request_id == "in-hand" and result.code != 0  # refused: the game is over
    assert await stream.next() is None  # then the stream ends OK
    stream.half_close()
    await settled(server, table_id)


async def test_a_reissued_token_with_a_move_in_hand_answers_it_then_ends(
        keyed: tuple[RunningServer, AsyncTableClient], monkeypatch: pytest.MonkeyPatch,
        no_gc: None) -> None:
    """The seat's token is replaced while a move is in hand: the stream waits for the move's
    command, sends its answer (refused: the token is gone), then ends SEAT_TOKEN_REVOKED."""
    server, client = keyed
    table_id, mover, stream, view = await movers_stream(client)
    gate = await hold_a_move(server, monkeypatch, stream, view, "in-hand")
    await client.reissue(table_id, mover.seat)
    await until(lambda: watchers(server, table_id), lambda n: n == 0,
                "the updates to end (the watcher unsubscribed)", timeout=5)
    ending = asyncio.ensure_future(stream.error())
    await asyncio.sleep(0.3)
    assert not ending.done()  # the stream waits for the move in hand
    gate.opened.set()
    error = await asyncio.wait_for(ending, 5)
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert details(error)["reason"] == "SEAT_TOKEN_REVOKED"
    results = [m.result for m in stream.messages if m.HasField("result")]
    assert [r.request_id for r in results] == ["in-hand"]
    assert results[0].code == grpc.StatusCode.PERMISSION_DENIED.value[0], results[0]
    # the reissue's entry alone: the move was not taken
    assert (await client.view(table_id)).version == view.version + 1
    await settled(server, table_id, expect_watchers=0)


async def test_a_shutdown_with_a_move_in_hand_answers_it_then_ends_unavailable(
        monkeypatch: pytest.MonkeyPatch, no_gc: None) -> None:
    """The server stops while a move is in hand: the move's command runs to its end within
    the grace period, the move is taken and answered, then the stream ends UNAVAILABLE (with
    where to resume)."""
    server = await start_server(server_config(api_key=KEY), highcard_registry())
    async with AsyncTableClient(server.address, api_key=KEY, retries=0) as client:
        _, _, stream, view = await movers_stream(client)
        gate = await hold_a_move(server, monkeypatch, stream, view, "in-hand")
        stopping = asyncio.ensure_future(server.stop())
        ending = asyncio.ensure_future(stream.error())
        await asyncio.sleep(0.3)
        assert not ending.done()  # the stream waits for the move in hand
        gate.opened.set()
        error = await asyncio.wait_for(ending, 5)
        await stopping
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    results = [m.answer if m.HasField("answer") else m.result for m in stream.messages
               if m.HasField("answer") or m.HasField("result")]
    assert [(r.request_id, r.code) for r in results] == [("in-hand", 0)]
    assert results[0].accepted.version == view.version + 1


@pytest.mark.parametrize("ending", ["reissue", "shutdown"])
async def test_a_move_in_hand_slower_than_the_wait_is_cut_off_and_the_stream_ends_as_it_would(
        monkeypatch: pytest.MonkeyPatch, no_gc: None, ending: str) -> None:
    """A move in hand whose command does not end (a stalled store, say): the stream waits
    for it at most its bound (at shutdown, half the grace period), then ends with its own
    status and details all the same, without the answer; the move is not taken."""
    server = await start_server(server_config(api_key=KEY, grace_seconds=1.0),
                                highcard_registry())
    async with AsyncTableClient(server.address, api_key=KEY, retries=0) as client:
        table_id, mover, stream, view = await movers_stream(client)
        gate = await hold_a_move(server, monkeypatch, stream, view, "in-hand")  # never opened
        started = asyncio.get_running_loop().time()
        if ending == "reissue":
            await client.reissue(table_id, mover.seat)
            error = await stream.error()
        else:
            stopping = asyncio.ensure_future(server.stop())
            error = await stream.error()
        waited = asyncio.get_running_loop().time() - started
        assert not gate.opened.is_set()
        assert not [m for m in stream.messages if m.HasField("result") or m.HasField("answer")]
        if ending == "reissue":
            assert error.code() == grpc.StatusCode.PERMISSION_DENIED
            assert details(error)["reason"] == "SEAT_TOKEN_REVOKED"
            assert (await client.view(table_id)).version == view.version + 1  # the reissue
            await settled(server, table_id)
            await server.stop()
        else:
            assert error.code() == grpc.StatusCode.UNAVAILABLE
            assert details(error)["metadata"] == {"resume_from": str(view.version)}
            await stopping
    assert waited >= 0.4  # it did wait (the bound: 1 s, or 0.5 s at shutdown)


@pytest.mark.parametrize("answers_with_updates", [False, True])
async def test_a_taken_moves_answer_comes_alone_when_its_stream_ends_before_its_update(
        keyed: tuple[RunningServer, AsyncTableClient], monkeypatch: pytest.MonkeyPatch,
        answers_with_updates: bool) -> None:
    """The mover's stream is ended BEHIND when its own move is published (its queue full):
    the update of the move's version never comes on it, so the answer waiting for that update
    goes out as a `result` of its own, then the stream's end; with answers_with_updates too
    (there is no update to send it with)."""
    server, client = keyed
    table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
    mover = ann if (await client.view(table_id)).to_move[0] == ann.seat else bob
    mine = await client.view(table_id, mover.token)
    stream = RawPlay(client.stub, mover.token, table_id, from_version=STARTED,
                     answers_with_updates=answers_with_updates)
    await until(lambda: watchers(server, table_id), lambda n: n == 1,
                "the Play stream's watcher", timeout=5)
    hub = server.manager.hub
    monkeypatch.setattr(hub, "limits", dataclasses.replace(hub.limits, watch_queue=0))
    request_id = stream.move(mine.legal_moves[0], mine.version)
    error = await stream.error()
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert [(m.WhichOneof("kind"), m.HasField("answer")) for m in stream.messages] == [
        ("result", False)]
    result = stream.messages[0].result
    assert result.request_id == request_id and result.code == 0
    assert result.accepted.version == mine.version + 1
    await settled(server, table_id)


async def test_many_cancelled_streams_leave_no_tasks(
        keyed: tuple[RunningServer, AsyncTableClient], no_gc: None) -> None:
    server, client = keyed
    table_id, mover, stream, _ = await movers_stream(client)
    stream.close()
    for n in range(20):
        again = RawPlay(client.stub, mover.token, table_id)
        await again.until_version(STARTED)
        if n % 2:
            again.move(pb.Move(kind="play"), 0, f"bad{n}")  # a refusal
            await again.result()
        again.close()
    await settled(server, table_id)
