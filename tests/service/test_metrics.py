"""Prometheus metrics, scraped over HTTP after a game."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import urllib.request

import grpc

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import start_server
from tests.helpers import highcard_registry, server_config
from tests.service.helpers import play_out, two_seats


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def sample(text: str, name: str, **labels: str) -> float:
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split(" ")[0]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no sample {name} {labels}")


async def test_metrics_after_a_game() -> None:
    port = free_port()
    server = await start_server(server_config(metrics_port=port), highcard_registry())
    try:
        async with AsyncTableClient(server.address, retries=0) as client:
            table_id, first, second = await two_seats(client)

            streaming = asyncio.Event()

            async def watch() -> None:
                async for _ in client.watch(table_id, None, 0):
                    streaming.set()

            def scrape() -> str:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics") as response:
                    return str(response.read().decode())

            watcher = asyncio.create_task(watch())
            await asyncio.wait_for(streaming.wait(), 30)  # the stream is open: it is counted
            during = await asyncio.to_thread(scrape)
            await play_out(client, table_id, first, second)
            await asyncio.wait_for(watcher, 10)  # the stream ends once the game is over
            with contextlib.suppress(grpc.aio.AioRpcError):
                await client.view("feedfeedfeedfeed")
            text = await asyncio.to_thread(scrape)
        assert sample(text, "bezique_rpcs_total", method="SubmitMove", code="OK") == 6
        assert sample(text, "bezique_rpcs_total", method="GetView", code="NOT_FOUND") == 1
        assert sample(text, "bezique_rpc_seconds_count", method="SubmitMove") == 6
        assert sample(text, "bezique_rpc_seconds_bucket", method="SubmitMove", le="+Inf") == 6
        assert (sample(text, "bezique_rpc_seconds_bucket", method="SubmitMove", le="0.0005")
                <= sample(text, "bezique_rpc_seconds_bucket", method="SubmitMove", le="2.5"))
        assert sample(text, "bezique_moves_applied_total", variant="highcard", kind="move") == 6
        assert sample(text, "bezique_tables", variant="highcard", phase="over") == 1
        assert sample(during, "bezique_watch_streams") == 1
        assert sample(text, "bezique_watch_streams") == 0
        assert sample(text, "bezique_store_seconds_count", operation="append") >= 6
    finally:
        await server.stop()


def test_histogram_buckets_count_what_is_at_or_below_their_bound() -> None:
    from prometheus_client import generate_latest

    from bezique.service.metrics import Metrics

    metrics = Metrics()
    for seconds in (0.0003, 0.0005, 0.002, 3.0):
        metrics.observe_rpc("SubmitMove", "OK", seconds)
    text = generate_latest(metrics.registry).decode()
    assert sample(text, "bezique_rpc_seconds_bucket", method="SubmitMove", le="0.0005") == 2
    assert sample(text, "bezique_rpc_seconds_bucket", method="SubmitMove", le="0.0025") == 3
    assert sample(text, "bezique_rpc_seconds_bucket", method="SubmitMove", le="+Inf") == 4
    assert sample(text, "bezique_rpc_seconds_sum", method="SubmitMove") == 3.0028
    assert sample(text, "bezique_rpcs_total", method="SubmitMove", code="OK") == 4
