"""WatchTable: every update once, in order, across a cut and a resume."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import RunningServer
from bezique.service.watch import BEHIND
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import eventually
from tests.service.helpers import STACK, STARTED, expect_error, play_out, two_seats


async def collect(client: AsyncTableClient, table_id: str, token: str | None, start: int,
                  until: int) -> list[pb.WatchTableResponse]:
    updates = []
    async for update in client.watch(table_id, token, start):
        updates.append(update)
        if update.version >= until:
            break
    return updates


async def test_watch_replays_the_backlog_then_follows_live(client: AsyncTableClient) -> None:
    table_id, first, second = await two_seats(client, stacked_shoe=STACK)
    watcher = asyncio.create_task(collect(client, table_id, second.token, 0, STARTED + 6))
    final = await play_out(client, table_id, first, second)
    updates = await asyncio.wait_for(watcher, 30)
    assert [u.version for u in updates] == list(range(1, final.version + 1))
    assert updates[-1].view.HasField("outcome")
    # seat 1 saw its own deal, and seat 0's only as a count until the cards were played
    deals = [e for u in updates for e in u.events if e.kind == "deal"]
    assert [len(d.cards) for d in deals] == [0, 3] and deals[0].hidden_count == 3


async def test_a_cut_watch_resumes_with_no_gap_and_no_duplicate(
        client: AsyncTableClient, server: RunningServer) -> None:
    table_id, first, second = await two_seats(client)
    seen: list[int] = []
    stream = client.watch(table_id, None, 0, resume=False)
    async for update in stream:
        seen.append(update.version)
        if update.version == STARTED:
            break
    await stream.aclose()  # type: ignore[attr-defined]
    # two moves happen while nobody watches
    for seat in (first, second):
        view = await client.view(table_id, seat.token)
        await client.submit(seat, view.legal_moves[0], view.version)
    final = await play_out(client, table_id, first, second)
    async for update in client.watch(table_id, None, seen[-1]):
        seen.append(update.version)
        if update.version == final.version:
            break
    assert seen == list(range(1, final.version + 1))


async def test_the_sdk_resumes_after_the_server_cuts_the_stream(
        client: AsyncTableClient, server: RunningServer) -> None:
    table_id, first, second = await two_seats(client)
    seen: list[int] = []

    async def watch() -> None:
        async with AsyncTableClient(server.address, retries=3, backoff=0.01) as resuming:
            async for update in resuming.watch(table_id, None, 0):
                seen.append(update.version)
                if update.HasField("view") and update.view.HasField("outcome"):
                    return

    task = asyncio.create_task(watch())
    live = await server.manager.table(table_id)
    await eventually(lambda: len(live.watchers) == 1 and seen == list(range(1, STARTED + 1)),
                     what="the backlog to arrive")
    # cut every stream of this table as a slow consumer would be cut
    server.manager.hub.end_all(live, BEHIND)
    await play_out(client, table_id, first, second)
    await asyncio.wait_for(task, 30)
    assert seen == sorted(set(seen)) == list(range(1, seen[-1] + 1))


async def test_watch_errors(client: AsyncTableClient) -> None:
    table_id, _, _ = await two_seats(client)

    async def first_update(table: str, start: int) -> None:
        async for _ in client.watch(table, None, start, resume=False):
            return

    await expect_error(grpc.StatusCode.NOT_FOUND, first_update("0123456789abcdef", 0))
    await expect_error(grpc.StatusCode.INVALID_ARGUMENT, first_update(table_id, 99))
    await expect_error(grpc.StatusCode.INVALID_ARGUMENT, first_update(table_id, -1))


@pytest.mark.parametrize("watchers", [5])
async def test_many_watchers_share_one_rendering(client: AsyncTableClient, server: RunningServer,
                                                 watchers: int) -> None:
    table_id, first, second = await two_seats(client)
    tasks = [asyncio.create_task(collect(client, table_id, None, 0, STARTED + 2))
             for _ in range(watchers)]
    live = await server.manager.table(table_id)
    await eventually(lambda: len(live.watchers) == watchers, 30, "every watcher to be live")
    for seat in (first, second):
        view = await client.view(table_id, seat.token)
        await client.submit(seat, view.legal_moves[0], view.version)
    results = await asyncio.wait_for(asyncio.gather(*tasks), 30)
    assert all([u.version for u in r] == list(range(1, STARTED + 3)) for r in results)


async def test_shutdown_tells_watchers_to_resume_elsewhere() -> None:
    from bezique.service.server import start_server
    from tests.helpers import details, eventually, highcard_registry, server_config

    server = await start_server(server_config(), highcard_registry())
    async with AsyncTableClient(server.address, retries=0) as client:
        table_id, _, _ = await two_seats(client)
        seen: list[int] = []

        async def watch() -> None:
            async for update in client.watch(table_id, None, 0, resume=False):
                seen.append(update.version)

        task = asyncio.create_task(watch())
        live = await server.manager.table(table_id)
        await eventually(lambda: bool(live.watchers) and len(seen) == STARTED,
                         what="the backlog")
        await server.stop()
        with pytest.raises(grpc.aio.AioRpcError) as cut:
            await asyncio.wait_for(task, 30)
    assert cut.value.code() == grpc.StatusCode.UNAVAILABLE
    assert details(cut.value)["metadata"] == {"resume_from": str(seen[-1])}


async def test_a_movers_answer_is_the_view_its_own_stream_gets_and_no_one_elses(
        client: AsyncTableClient) -> None:
    """The answer and the mover's stream share one rendering of the mover's view: the bytes
    are the same, and they are never another watcher's (seat 1 watches too, and sees its own
    hand, not the mover's)."""
    table_id, first, second = await two_seats(client, stacked_shoe=STACK)
    view = await client.view(table_id, first.token)
    mine = asyncio.create_task(collect(client, table_id, first.token, view.version,
                                       view.version + 1))
    theirs = asyncio.create_task(collect(client, table_id, second.token, view.version,
                                         view.version + 1))
    await asyncio.sleep(0.2)  # both streams are open before the move
    answer = await client.submit(first, view.legal_moves[0], view.version)
    own = (await asyncio.wait_for(mine, 30))[-1]
    other = (await asyncio.wait_for(theirs, 30))[-1]
    assert own.version == other.version == answer.version
    assert answer.view.SerializeToString(deterministic=True) == own.view.SerializeToString(
        deterministic=True)
    assert answer.view.viewer_seat == 0 and other.view.viewer_seat == 1
    played = {c.code for c in view.legal_moves[0].cards}
    assert {c.code for c in answer.view.hand} == {"AS", "7S", "KH"} - played
    assert {c.code for c in other.view.hand} == {"8H", "QD", "9D"}
    assert list(answer.view.legal_moves) == [] and list(other.view.legal_moves)
