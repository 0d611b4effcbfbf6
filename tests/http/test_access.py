"""Who may call the HTTP port and how much: CORS by origin, the rate limit and the metrics
shared with gRPC, TLS with the gRPC port's certificate, and the web table's files at /."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import httpx
import pytest
from prometheus_client import generate_latest

from bezique.clients.sdk import AsyncTableClient, make_channel
from bezique.service.httpapi.static import StaticFiles
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import highcard_registry, server_config, summary
from tests.http.helpers import base_url, http_config
from tests.http.web import Failure, Web
from tests.security.certs import make_ca, make_leaf

LIST = "/bezique.v1.TableService/ListVariants"
JSON = {"content-type": "application/json"}


@pytest.fixture
async def cors_server() -> AsyncIterator[RunningServer]:
    running = await start_server(server_config(**http_config(
        http_allowed_origins=("https://games.example.com",))), highcard_registry())
    yield running
    await running.stop()


def preflight(origin: str) -> dict[str, str]:
    return {"origin": origin, "access-control-request-method": "POST",
            "access-control-request-headers": "content-type,authorization,connect-protocol-version"}


async def test_only_configured_origins_pass_the_preflight(cors_server: RunningServer) -> None:
    async with httpx.AsyncClient(base_url=base_url(cors_server)) as http:
        allowed = await http.options(LIST, headers=preflight("https://games.example.com"))
        assert allowed.status_code == 204
        assert allowed.headers["access-control-allow-origin"] == "https://games.example.com"
        granted = allowed.headers["access-control-allow-headers"]
        assert {"authorization", "content-type", "connect-protocol-version", "x-grpc-web"} <= {
            h.strip() for h in granted.split(",")}
        refused = await http.options(LIST, headers=preflight("https://evil.example.com"))
        assert refused.status_code == 403
        assert "access-control-allow-origin" not in refused.headers
        # the answer itself: CORS headers for the allowed page, 403 for any other page
        answer = await http.post(LIST, content=b"{}",
                                 headers={**JSON, "origin": "https://games.example.com"})
        assert answer.status_code == 200
        assert answer.headers["access-control-allow-origin"] == "https://games.example.com"
        assert "grpc-status" in answer.headers["access-control-expose-headers"]
        answer = await http.post(LIST, content=b"{}",
                                 headers={**JSON, "origin": "https://evil.example.com"})
        assert answer.status_code == 403


async def test_by_default_only_the_servers_own_page_may_call(web_server: RunningServer) -> None:
    own = base_url(web_server)
    async with httpx.AsyncClient(base_url=own) as http:
        refused = await http.options(LIST, headers=preflight("https://games.example.com"))
        assert refused.status_code == 403
        answer = await http.post(LIST, content=b"{}",
                                 headers={**JSON, "origin": "https://games.example.com"})
        assert answer.status_code == 403
        same = await http.post(LIST, content=b"{}", headers={**JSON, "origin": own})
        assert same.status_code == 200
        assert "access-control-allow-origin" not in same.headers  # same origin: no CORS
        plain = await http.post(LIST, content=b"{}", headers=JSON)  # curl: no Origin
        assert plain.status_code == 200


async def test_the_rate_limit_is_one_budget_for_grpc_and_http() -> None:
    running = await start_server(server_config(**http_config(rate_limit=0.01, rate_burst=4)),
                                 highcard_registry())
    try:
        async with AsyncTableClient(running.address, retries=0) as sdk, \
                httpx.AsyncClient(base_url=base_url(running)) as http:
            web = Web(http)
            await sdk.list_variants()
            await sdk.list_variants()
            await web.connect("ListVariants", pb.ListVariantsRequest(), pb.ListVariantsResponse)
            await web.grpc_web("ListVariants", pb.ListVariantsRequest(),
                               pb.ListVariantsResponse)
            with pytest.raises(Failure) as failed:
                await web.connect("ListVariants", pb.ListVariantsRequest(),
                                  pb.ListVariantsResponse, json=True)
            assert (failed.value.http_status, failed.value.code) == (429, "resource_exhausted")
            assert summary(failed.value.details)["reason"] == "RATE_LIMITED"
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await sdk.list_variants()
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    finally:
        await running.stop()


async def test_http_calls_are_counted_in_the_same_metrics(web_server: RunningServer,
                                                          web: Web) -> None:
    await web.connect("ListVariants", pb.ListVariantsRequest(), pb.ListVariantsResponse)
    with pytest.raises(Failure):
        await web.grpc_web("GetView", pb.GetViewRequest(table_id="nope"), pb.GetViewResponse)
    text = generate_latest(web_server.metrics.registry).decode()
    assert 'bezique_rpcs_total{code="OK",method="ListVariants"} 1.0' in text
    assert 'bezique_rpcs_total{code="NOT_FOUND",method="GetView"} 1.0' in text


async def test_tls_serves_the_http_port_with_the_grpc_certificate(tmp_path: Path) -> None:
    ca, ca_cert, ca_key = make_ca(tmp_path)
    leaf = make_leaf(tmp_path, "server", ca_cert, ca_key, server=True)
    running = await start_server(server_config(**http_config(
        tls_cert=str(leaf.cert), tls_key=str(leaf.key))), highcard_registry())
    try:
        assert running.http is not None and running.http.url.startswith("https://")
        trust = ssl.create_default_context(cafile=str(ca.cert))
        async with httpx.AsyncClient(base_url=running.http.url, verify=trust) as http:
            answer = await Web(http).connect("ListVariants", pb.ListVariantsRequest(),
                                             pb.ListVariantsResponse)
            assert answer.variants
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{running.http.port}") as http:
            with pytest.raises(httpx.HTTPError):
                await http.post(LIST, content=b"{}", headers=JSON)
        channel = make_channel(running.address, root_certificates=ca.cert.read_bytes())
        async with AsyncTableClient(channel, retries=0) as sdk:
            assert await sdk.list_variants()
    finally:
        await running.stop()


async def test_the_web_table_is_served_at_the_root(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><title>table</title>")
    (tmp_path / "app.js").write_text("console.log('hi')")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "table.css").write_text("body{}")
    (tmp_path.parent / "secret.txt").write_text("secret")
    running = await start_server(server_config(**http_config(http_static_dir=str(tmp_path))),
                                 highcard_registry())
    try:
        async with httpx.AsyncClient(base_url=base_url(running)) as http:
            page = await http.get("/")
            assert page.status_code == 200 and "<title>table</title>" in page.text
            assert page.headers["content-type"] == "text/html; charset=utf-8"
            script = await http.get("/app.js")
            assert script.headers["content-type"].startswith(("text/javascript",
                                                              "application/javascript"))
            assert (await http.get("/assets/table.css")).text == "body{}"
            head = await http.head("/app.js")
            assert head.status_code == 200 and head.content == b""
            assert head.headers["content-length"] == str(len("console.log('hi')"))
            for path in ("/missing.js", "/../secret.txt", "/%2e%2e/secret.txt", "/.hidden"):
                assert (await http.get(path)).status_code == 404, path
            assert (await http.post("/", content=b"")).status_code == 405
        static = StaticFiles(tmp_path)  # what a client that does not normalise paths asks
        assert static.find("/../secret.txt") is None and static.find("/a/../../x") is None
        assert static.find("/") == tmp_path.resolve() / "index.html"
    finally:
        await running.stop()


async def test_without_a_bundle_the_root_is_a_clean_404(web_server: RunningServer,
                                                        tmp_path: Path) -> None:
    running = await start_server(server_config(**http_config(
        http_static_dir=str(tmp_path / "gone"))), highcard_registry())
    try:
        async with httpx.AsyncClient(base_url=base_url(running)) as http:
            page = await http.get("/")
            assert page.status_code == 404 and "npm run build" in page.text
    finally:
        await running.stop()


async def test_no_page_may_frame_the_web_table(tmp_path: Path) -> None:
    """Without these headers any site could show the table in a frame under its own controls
    and have a player click moves unseen."""
    (tmp_path / "index.html").write_text("<!doctype html><title>table</title>")
    running = await start_server(server_config(**http_config(http_static_dir=str(tmp_path))),
                                 highcard_registry())
    try:
        async with httpx.AsyncClient(base_url=base_url(running)) as http:
            for path in ("/", "/index.html"):
                page = await http.get(path)
                assert page.status_code == 200
                assert page.headers["x-frame-options"] == "DENY"
                assert page.headers["content-security-policy"] == "frame-ancestors 'none'"
    finally:
        await running.stop()
