"""grpc.health.v1 on the HTTP port: the adapter serves any grpc.aio servicer by its descriptor,
including one that streams with ``context.write``; load balancers get an HTTP health check."""

from __future__ import annotations

import asyncio

import httpx
from grpc_health.v1 import health_pb2

from bezique.service.server import RunningServer, start_server
from tests.helpers import highcard_registry, server_config
from tests.http.helpers import base_url, http_config
from tests.http.web import Web

CHECK = "/grpc.health.v1.Health/Check"


async def test_health_check_is_an_http_call(web_server: RunningServer, web: Web) -> None:
    answer = await web.http.post(CHECK, content=b"{}",
                                 headers={"content-type": "application/json"})
    assert answer.status_code == 200 and answer.json() == {"status": "SERVING"}
    answer = await web.http.post(CHECK, content=b'{"service": "no.such.Service"}',
                                 headers={"content-type": "application/json"})
    assert answer.status_code == 404 and answer.json()["code"] == "not_found"


async def test_health_watch_streams_not_serving_on_shutdown() -> None:
    running = await start_server(server_config(**http_config()), highcard_registry())
    stopping: asyncio.Task[None] | None = None
    try:
        async with httpx.AsyncClient(base_url=base_url(running), timeout=30) as http:
            seen = []
            async for answer in Web(http).grpc_web_stream(
                    "/grpc.health.v1.Health/Watch", health_pb2.HealthCheckRequest(),
                    health_pb2.HealthCheckResponse):
                seen.append(answer.status)
                if len(seen) == 1:
                    stopping = asyncio.create_task(running.stop())
                else:
                    break
            assert seen == [health_pb2.HealthCheckResponse.SERVING,
                            health_pb2.HealthCheckResponse.NOT_SERVING]
    finally:
        if stopping is None:
            await running.stop()
        else:
            await stopping
