"""A seat's Play client that never reads: the stream falls behind in the watch queue and is
ended BEHIND (its watcher let go while the client still reads nothing: memory stays
bounded), and a cancel of the stream blocked in a write leaves no task behind."""

from __future__ import annotations

import asyncio
import gc

import grpc

from bezique.v1 import table_service_pb2_grpc as pb_grpc
from tests.helpers import until
from tests.play.helpers import RawPlay
from tests.play.test_play_stream_endings import play_tasks, watchers
from tests.service.helpers import SMALL_WINDOW, serving, slow_table


async def test_a_client_that_never_reads_is_ended_behind_and_cleaned_up() -> None:
    async with serving() as (server, client):
        table_id, seats = await slow_table(server, client)
        async with grpc.aio.insecure_channel(server.address, options=SMALL_WINDOW) as channel:
            stream = RawPlay(pb_grpc.TableServiceStub(channel),  # type: ignore[no-untyped-call]
                             seats[0].token, table_id)
            await until(lambda: watchers(server, table_id), lambda n: n == 1,
                        "the stream's watcher")
            gc.collect()
            gc.disable()
            try:
                # the game is played by SubmitMove; the Play client reads nothing
                view = await client.view(table_id)
                while not view.HasField("outcome") and view.to_move:
                    seat = seats[view.to_move[0]]
                    own = await client.view(table_id, seat.token)
                    await client.submit(seat, own.legal_moves[0], own.version)
                    view = await client.view(table_id)
                # memory bounded: the server let the stream's watcher go (ended BEHIND)
                # though the client read nothing -- or the updates all fit in grpc's buffers
                behind = await watchers(server, table_id) == 0
                stream.close()
                await until(lambda: asyncio.sleep(0, play_tasks()), lambda ts: not ts,
                            "the Play stream's tasks to end", timeout=5)
            finally:
                gc.enable()
            assert behind, "no BEHIND: a stream that never reads kept its watcher"
            assert await watchers(server, table_id) == 0

