"""WatchTable and Play streams ended by their transport rather than by the servicer: a client
that cancels while a message is in flight (a write blocked on a client that reads nothing).
Such a stream is cancelled, not failed: counted CANCELLED, its caller's slot free again."""

from __future__ import annotations

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.service.server import RunningServer
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc
from tests.helpers import eventually, until
from tests.play.helpers import RawPlay
from tests.service.helpers import SMALL_WINDOW, serving, slow_table, watchers

STREAMS = 4
"""Streams cut at once (and the caller's cap): one cut is enough to fail, four make it sure."""


def opened(stub: pb_grpc.TableServiceStub, rpc: str, table_id: str, token: str
           ) -> grpc.aio.Call:
    """A stream of ``rpc`` whose client reads nothing."""
    if rpc == "Play":
        call: grpc.aio.Call = RawPlay(stub, token, table_id).call
    else:
        call = stub.WatchTable(pb.WatchTableRequest(table_id=table_id),
                               metadata=(("authorization", f"Bearer {token}"),))
    return call


async def all_behind(server: RunningServer, client: AsyncTableClient, table_id: str,
                     seats: dict[int, SeatHandle]) -> None:
    """Moves made by SubmitMove until the hub let go of every watcher of the table: each
    stream is then blocked in a write its client never reads (the watch queue behind it
    overflowed)."""
    while await watchers(server, table_id):
        view = await client.view(table_id)
        assert view.to_move, "the game ended before the streams fell behind"
        seat = seats[view.to_move[0]]
        own = await client.view(table_id, seat.token)
        await client.submit(seat, own.legal_moves[0], own.version)


@pytest.mark.parametrize("rpc", ["WatchTable", "Play"])
async def test_a_cancel_with_a_write_in_flight_is_a_cancel_not_an_internal_error(
        rpc: str) -> None:
    """The streams write their messages with ``context.write``: grpc.aio's error for a write
    the client's cancel cut (ExecuteBatchError) reached the servicer's error mapping, so the
    stream was counted INTERNAL, logged as ``rpc_failed`` with a traceback, and aborted a
    second time: an ERROR line for every client that merely went away mid-write."""
    async with serving(max_watchers_per_caller=STREAMS) as (server, client):
        table_id, seats = await slow_table(server, client)
        token = seats[0].token
        async with grpc.aio.insecure_channel(server.address, options=SMALL_WINDOW) as channel:
            stub = pb_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
            calls = [opened(stub, rpc, table_id, token) for _ in range(STREAMS)]
            await until(lambda: watchers(server, table_id), lambda n: n == STREAMS,
                        "the streams' watchers")
            await all_behind(server, client, table_id, seats)
            for call in calls:
                call.cancel()
            registry = server.metrics.registry
            await eventually(lambda: registry.get_sample_value("bezique_watch_streams") == 0,
                             what="the cut streams to end")
        ended = {code: registry.get_sample_value("bezique_rpcs_total",
                                                 {"method": rpc, "code": code})
                 for code in ("CANCELLED", "INTERNAL")}
        assert ended == {"CANCELLED": STREAMS, "INTERNAL": None}
        # the caller's slots are free: as many streams open again
        again = [client.watch(table_id, token, 0, resume=False)
                 for _ in range(STREAMS)]
        for stream in again:
            assert (await anext(stream)).version == 1  # type: ignore[call-overload]
            await stream.aclose()  # type: ignore[attr-defined]
