"""Every reflection request is charged to its caller's rate budget: a reflection stream is
opened once (and counted with the other streams), but each request in it is answered with a
file descriptor of ~10 KB, so one open stream gave one address ~20,000 answers a second under
``--rate-limit 5``. Over a real port."""

from __future__ import annotations

import grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from bezique.service.server import start_server
from tests.helpers import highcard_registry, server_config

ASKED = 30
REQUEST = reflection_pb2.ServerReflectionRequest(file_containing_symbol="bezique.v1.TableService")


async def test_reflection_requests_are_charged_to_the_rate_budget() -> None:
    server = await start_server(server_config(rate_limit=5.0, rate_burst=10.0),
                                highcard_registry())
    try:
        answered = 0
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)  # type: ignore[no-untyped-call]
            call = stub.ServerReflectionInfo(timeout=10)
            try:
                for _ in range(ASKED):  # one request at a time, as a reflection client asks
                    await call.write(REQUEST)
                    if await call.read() == grpc.aio.EOF:  # type: ignore[attr-defined]
                        break
                    answered += 1
            except grpc.aio.AioRpcError:
                pass
            code = await call.code()
        assert answered <= 12, f"{answered} of {ASKED} reflection requests passed a burst of 10"
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    finally:
        await server.stop()
