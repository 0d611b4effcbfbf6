"""WatchTable over HTTP/1.1: gRPC-Web and Connect server streams follow a game live, end with
the servicer's status, and count against the same per-peer stream cap as gRPC streams."""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import AsyncIterator

import grpc
import httpx
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.httpapi.protocol import BoundedHttpToolsProtocol
from bezique.service.server import start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import eventually, highcard_registry, server_config, summary, until
from tests.http.helpers import base_url, http_config
from tests.http.web import Failure, Web
from tests.service.helpers import STACK, play_out, two_seats, watchers


async def follow(stream: AsyncIterator[pb.WatchTableResponse]) -> list[pb.WatchTableResponse]:
    """Every update until the one with the outcome."""
    updates = []
    async for update in stream:
        updates.append(update)
        if update.HasField("view") and update.view.HasField("outcome"):
            break
    return updates


@pytest.mark.parametrize("protocol", ["grpc-web", "grpc-web-text", "connect", "connect-json"])
async def test_watch_follows_a_whole_game_live_over_http_1_1(
        web: Web, grpc_client: AsyncTableClient, protocol: str) -> None:
    table_id, first, second = await two_seats(grpc_client, stacked_shoe=STACK)
    request = pb.WatchTableRequest(table_id=table_id)
    if protocol.startswith("grpc-web"):
        stream = web.grpc_web_stream("WatchTable", request, pb.WatchTableResponse,
                                     token=second.token, text=protocol.endswith("text"))
    else:
        stream = web.connect_stream("WatchTable", request, pb.WatchTableResponse,
                                    token=second.token, json=protocol.endswith("json"))
    watcher = asyncio.create_task(follow(stream))
    final = await play_out(grpc_client, table_id, first, second)
    updates = await asyncio.wait_for(watcher, 30)
    assert [u.version for u in updates] == list(range(1, final.version + 1))
    # the seat's own cards, and only its own, until they were played
    deals = [e for u in updates for e in u.events if e.kind == "deal"]
    assert [len(d.cards) for d in deals] == [0, 3] and deals[0].hidden_count == 3


async def test_a_stream_error_carries_the_grpc_details(web: Web) -> None:
    for text in (False, True):
        with pytest.raises(Failure) as failed:
            async for _ in web.grpc_web_stream("WatchTable", pb.WatchTableRequest(table_id="no"),
                                               pb.WatchTableResponse, text=text):
                pass
        assert failed.value.code == str(grpc.StatusCode.NOT_FOUND.value[0])
        assert summary(failed.value.details)["reason"] == "NOT_FOUND"
    with pytest.raises(Failure) as failed:
        async for _ in web.connect_stream("WatchTable", pb.WatchTableRequest(table_id="no"),
                                          pb.WatchTableResponse):
            pass
    assert failed.value.code == "not_found"
    assert summary(failed.value.details)["reason"] == "NOT_FOUND"


async def test_streams_count_per_peer_across_grpc_and_http_and_free_on_disconnect() -> None:
    running = await start_server(server_config(**http_config(max_watchers_per_caller=2)),
                                 highcard_registry())
    try:
        async with AsyncTableClient(running.address, retries=0) as sdk, \
                httpx.AsyncClient(base_url=base_url(running), timeout=30) as http:
            web = Web(http)
            table_id, _, _ = await two_seats(sdk)
            request = pb.WatchTableRequest(table_id=table_id)
            grpc_stream = sdk.watch(table_id, None, 0, resume=False)
            assert (await anext(grpc_stream)).version == 1  # type: ignore[call-overload]
            web_stream = web.grpc_web_stream("WatchTable", request, pb.WatchTableResponse)
            assert (await anext(web_stream)).version == 1
            # the third stream of this peer is refused, whichever protocol it uses
            with pytest.raises(Failure) as failed:
                await anext(web.connect_stream("WatchTable", request, pb.WatchTableResponse))
            assert failed.value.code == "resource_exhausted"
            assert summary(failed.value.details)["reason"] == "TOO_MANY_STREAMS"
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await anext(sdk.watch(table_id, None, 0, resume=False))  # type: ignore[call-overload]
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            # a browser that goes away frees its stream (the server sees the disconnect)
            await web_stream.aclose()  # type: ignore[attr-defined]
            deadline = asyncio.get_running_loop().time() + 20
            while True:
                third = web.connect_stream("WatchTable", request, pb.WatchTableResponse)
                try:
                    assert (await anext(third)).version == 1
                    break
                except Failure as failure:
                    assert failure.code == "resource_exhausted"
                    assert asyncio.get_running_loop().time() < deadline, "never released"
                    await asyncio.sleep(0.05)
            await third.aclose()  # type: ignore[attr-defined]
            await grpc_stream.aclose()  # type: ignore[attr-defined]
    finally:
        await running.stop()


async def test_shutdown_tells_http_watchers_where_to_resume() -> None:
    running = await start_server(server_config(**http_config()), highcard_registry())
    stopped = False
    try:
        async with AsyncTableClient(running.address, retries=0) as sdk, \
                httpx.AsyncClient(base_url=base_url(running), timeout=30) as http:
            table_id, _, _ = await two_seats(sdk)
            seen: list[int] = []
            task = asyncio.create_task(Web(http).watch_until_failure(table_id, seen))
            await eventually(lambda: len(seen) >= 4, what="the backlog")
            await running.stop()
            stopped = True
            failure = await asyncio.wait_for(task, 30)
            assert failure.code == str(grpc.StatusCode.UNAVAILABLE.value[0])
            info = summary(failure.details)
            assert info["metadata"] == {"resume_from": str(seen[-1])}, info
    finally:
        if not stopped:
            await running.stop()


async def test_a_deadline_that_ends_a_stream_blocked_in_a_write_lets_its_watcher_go(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream whose client reads nothing is blocked in a write when its deadline comes:
    its slot was freed, but the table kept its watcher (the watch was never closed, and the
    port, still sending the stream's end to that client, held the failed call's traceback
    and with it the suspended watch) for as long as the client kept the connection open."""
    def small_buffers(self: BoundedHttpToolsProtocol, transport: asyncio.Transport) -> None:
        transport.set_write_buffer_limits(high=2048)  # a few updates fill them
        transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1)
        made(self, transport)

    made = BoundedHttpToolsProtocol.connection_made
    monkeypatch.setattr(BoundedHttpToolsProtocol, "connection_made", small_buffers)
    running = await start_server(server_config(**http_config()), highcard_registry())
    loop = asyncio.get_running_loop()
    try:
        async with AsyncTableClient(running.address, retries=0) as sdk:
            table = await sdk.create_table("highcard", {"players": 4, "hand_size": 8})
            seats = {s.seat: s for s in [await sdk.join(table.table_id, name=name)
                                         for name in ("ann", "bob", "cat", "dan")]}
            request = pb.WatchTableRequest(table_id=table.table_id).SerializeToString()
            with socket.socket() as client:  # reads nothing, ever
                client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
                client.setblocking(False)
                assert running.http is not None
                await loop.sock_connect(client, ("127.0.0.1", running.http.port))
                await loop.sock_sendall(client, (
                    "POST /bezique.v1.TableService/WatchTable HTTP/1.1\r\nhost: 127.0.0.1\r\n"
                    "content-type: application/connect+proto\r\nconnect-timeout-ms: 2000\r\n"
                    f"content-length: {len(request) + 5}\r\n\r\n").encode()
                    + struct.pack(">BI", 0, len(request)) + request)
                await until(lambda: watchers(running, table.table_id), lambda n: n == 1,
                            "the stream's watcher")
                for _ in range(24):  # more than the buffers hold: the stream is blocked
                    view = await sdk.view(table.table_id)
                    seat = seats[view.to_move[0]]
                    own = await sdk.view(table.table_id, seat.token)
                    await sdk.submit(seat, own.legal_moves[0], own.version)
                registry = running.metrics.registry
                await eventually(lambda: registry.get_sample_value(
                    "bezique_rpcs_total", {"method": "WatchTable", "code": "CANCELLED"}) == 1,
                    what="the deadline to end the stream")
                await until(lambda: watchers(running, table.table_id), lambda n: n == 0,
                            "the table to let the stream's watcher go", timeout=5)
    finally:
        await running.stop()
