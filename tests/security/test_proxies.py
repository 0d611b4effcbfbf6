"""Forwarded addresses are believed only from the proxies the operator names, on both ports:
without ``--trusted-proxies`` a caller that writes a new X-Forwarded-For on each call stays
one caller with one rate budget; through a trusted proxy each client is its own caller."""

from __future__ import annotations

import asyncio

import grpc
import httpx
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.proxies import TrustedProxies
from bezique.service.server import start_server
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc
from tests.helpers import eventually, highcard_registry, server_config
from tests.http.helpers import http_config
from tests.http.web import Failure, Web

LIST = "/bezique.v1.TableService/ListVariants"
CALLS = 30


async def _passed_over_http(url: str, forwarded: list[str]) -> int:
    """How many of the calls, each with its own X-Forwarded-For, the rate limit let pass."""
    passed = 0
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        for value in forwarded:
            answer = await http.post(LIST, content=b"{}", headers={
                "content-type": "application/json", "x-forwarded-for": value})
            if answer.status_code == 200:
                passed += 1
            else:
                assert answer.json()["code"] == "resource_exhausted", answer.text
    return passed


async def _passed_over_grpc(address: str, forwarded: list[str]) -> int:
    passed = 0
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        for value in forwarded:
            try:
                await stub.ListVariants(pb.ListVariantsRequest(), timeout=10,
                                        metadata=(("x-forwarded-for", value),))
                passed += 1
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error
    return passed


MADE_UP = [f"198.51.100.{n}" for n in range(CALLS)]
"""A fresh forwarded address on each call."""


@pytest.mark.parametrize("port", ["http", "grpc"])
async def test_a_made_up_forwarded_address_earns_no_budget(port: str) -> None:
    """uvicorn believed X-Forwarded-For from loopback by default: 30 of 30 calls passed a
    limit of 5/s with a burst of 10."""
    server = await start_server(server_config(**http_config(rate_limit=5.0, rate_burst=10.0)),
                                highcard_registry())
    try:
        assert server.http is not None
        passed = (await _passed_over_http(server.http.url, MADE_UP) if port == "http"
                  else await _passed_over_grpc(server.address, MADE_UP))
        assert passed <= 12, f"{passed} of {CALLS} calls passed a burst of 10"
    finally:
        await server.stop()


@pytest.mark.parametrize("port", ["http", "grpc"])
async def test_a_trusted_proxy_names_its_clients(port: str) -> None:
    """Through a trusted proxy (127.0.0.1 here) each forwarded client has its own budget; what
    a client wrote to the left of the address its proxy appended changes nothing."""
    server = await start_server(server_config(**http_config(
        rate_limit=5.0, rate_burst=10.0, trusted_proxies=("127.0.0.0/8",))),
        highcard_registry())
    try:
        assert server.http is not None

        async def passed(forwarded: list[str]) -> int:
            return (await _passed_over_http(server.http.url, forwarded)  # type: ignore[union-attr]
                    if port == "http" else await _passed_over_grpc(server.address, forwarded))

        assert await passed(MADE_UP) == CALLS  # each its own client
        spoofed = [f"203.0.113.{n}, 192.0.2.1" for n in range(CALLS)]  # one client, lying
        assert await passed(spoofed) <= 12
    finally:
        await server.stop()


async def test_a_forwarded_stream_budget_is_the_callers_own() -> None:
    """The open-stream cap keys on the same caller: made-up addresses do not raise it (40
    streams opened where the cap was 10)."""
    server = await start_server(server_config(**http_config(max_watchers_per_caller=2)),
                                highcard_registry())
    try:
        assert server.http is not None
        async with AsyncTableClient(server.address, retries=0) as client:
            table = await client.create_table("highcard", {"players": 2})
        async with httpx.AsyncClient(base_url=server.http.url, timeout=30) as http:
            web = Web(http)

            async def watch(forwarded: str) -> str:
                try:
                    async for _ in web.grpc_web_stream(
                            "WatchTable", pb.WatchTableRequest(table_id=table.table_id),
                            pb.WatchTableResponse, headers={"x-forwarded-for": forwarded}):
                        pass
                except Failure as failure:
                    return failure.code
                return "ended"

            watches = [asyncio.create_task(watch(f"198.51.100.{n}")) for n in range(4)]
            try:
                await eventually(lambda: sum(w.done() for w in watches) >= 2,
                                 what="two streams refused")
                await asyncio.sleep(0.2)
                assert sorted(w.result() for w in watches if w.done()) == ["8", "8"]
            finally:
                for task in watches:
                    task.cancel()
                await asyncio.gather(*watches, return_exceptions=True)
    finally:
        await server.stop()


@pytest.mark.parametrize(("peer", "header", "caller"), [
    ("ipv4:127.0.0.1", ["203.0.113.9"], "ipv4:203.0.113.9"),
    ("ipv4:192.0.2.50", ["203.0.113.9"], "ipv4:192.0.2.50"),  # the peer is not a proxy
    ("ipv4:127.0.0.1", ["6.6.6.6, 203.0.113.9, 10.1.2.3"], "ipv4:203.0.113.9"),
    ("ipv4:127.0.0.1", ["6.6.6.6", "203.0.113.9:5555"], "ipv4:203.0.113.9"),
    ("ipv4:127.0.0.1", ["10.0.0.1, 10.0.0.2"], "ipv4:10.0.0.1"),  # all trusted: the leftmost
    ("ipv4:127.0.0.1", ["unknown"], "ipv4:127.0.0.1"),  # not an address: the proxy is it
    ("ipv4:127.0.0.1", ["6.6.6.6, junk, 10.0.0.9"], "ipv4:10.0.0.9"),
    ("ipv4:127.0.0.1", [], "ipv4:127.0.0.1"),
    ("ipv6:[::1]", ["[2001:db8::7]:443"], "ipv6:[2001:db8::7]"),
    ("ipv6:[::1]", ["::ffff:203.0.113.9"], "ipv4:203.0.113.9"),
    ("unix:/tmp/s", ["203.0.113.9"], "unix:/tmp/s"),
])
def test_the_walk_from_the_right_stops_at_the_first_untrusted_hop(
        peer: str, header: list[str], caller: str) -> None:
    proxies = TrustedProxies(["127.0.0.1", "::1", "10.0.0.0/8"])
    assert proxies.client_host(peer, header) == caller


def test_no_proxy_is_trusted_by_default() -> None:
    assert TrustedProxies().client_host("ipv4:127.0.0.1", ["203.0.113.9"]) == "ipv4:127.0.0.1"
