"""More than 4,096 streams on one connection (what a platform multiplexing its watchers, or
every client resuming at once after a restart, opens): a burst of 5,000 WatchTable streams on
one channel, from a client process of its own, all get their first update. With grpc core's
default queue of calls not yet taken up (1,000, at most 3,000) about a third were CANCELLED
(service/connections.py, ``PENDING_CALLS``)."""

from __future__ import annotations

import asyncio
import sys

from tests.service.helpers import serving

STREAMS = 5_000

BURST = """
import asyncio, sys
import grpc
from bezique.v1 import table_service_pb2 as pb, table_service_pb2_grpc as rpc

async def main(address, tables):
    async with grpc.aio.insecure_channel(address) as channel:
        stub = rpc.TableServiceStub(channel)
        failed = []

        async def one(i):
            call = stub.WatchTable(pb.WatchTableRequest(table_id=tables[i % len(tables)]))
            try:
                async for _ in call:
                    return call
            except grpc.aio.AioRpcError as error:
                failed.append(error.code().name)
            return call

        calls = await asyncio.gather(*(one(i) for i in range(int(sys.argv[2]))))
        print(len(calls) - len(failed), sorted(set(failed)))
        for call in calls:
            call.cancel()

asyncio.run(main(sys.argv[1], sys.argv[3:]))
"""


async def test_five_thousand_streams_on_one_connection_all_start() -> None:
    async with serving(max_watchers_per_caller=0, max_watchers_per_table=STREAMS) as (
            server, client):
        tables = [(await client.create_table("highcard")).table_id for _ in range(5)]
        burst = await asyncio.create_subprocess_exec(
            sys.executable, "-c", BURST, server.address, str(STREAMS), *tables,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(burst.communicate(), 120)
        assert burst.returncode == 0, err.decode()
        started, failed = out.decode().split(" ", 1)
        assert (int(started), failed.strip()) == (STREAMS, "[]"), err.decode()[-2000:]
