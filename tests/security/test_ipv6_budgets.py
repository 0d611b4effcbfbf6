"""One party's rate and stream budgets are its address block's, as its seat churn budget and its
connections are: an IPv6 subscriber is given a whole /64 and can take a fresh address of it per
call, so a budget per IPv6 address is no budget. Forwarded by a trusted proxy (127.0.0.1), each
call names a new address of 2001:db8:1::/64, over both real ports."""

from __future__ import annotations

import grpc
import httpx
import pytest

from bezique.service.server import start_server
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc
from tests.helpers import highcard_registry, server_config
from tests.http.helpers import http_config

LIST = "/bezique.v1.TableService/ListVariants"
CALLS = 30
ONE_SUBNET = [f"2001:db8:1::{n + 1:x}" for n in range(CALLS)]


async def _passed_over_http(url: str) -> int:
    passed = 0
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        for address in ONE_SUBNET:
            answer = await http.post(LIST, content=b"{}", headers={
                "content-type": "application/json", "x-forwarded-for": address})
            passed += answer.status_code == 200
    return passed


async def _passed_over_grpc(address: str) -> int:
    passed = 0
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        for client in ONE_SUBNET:
            try:
                await stub.ListVariants(pb.ListVariantsRequest(), timeout=10,
                                        metadata=(("x-forwarded-for", client),))
                passed += 1
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error
    return passed


@pytest.mark.parametrize("port", ["http", "grpc"])
async def test_addresses_of_one_ipv6_64_share_one_rate_budget(port: str) -> None:
    server = await start_server(server_config(**http_config(
        rate_limit=5.0, rate_burst=10.0, trusted_proxies=("127.0.0.1",))), highcard_registry())
    try:
        assert server.http is not None
        passed = (await _passed_over_http(server.http.url) if port == "http"
                  else await _passed_over_grpc(server.address))
        assert passed <= 12, f"{passed} of {CALLS} calls from one /64 passed a burst of 10"
    finally:
        await server.stop()
