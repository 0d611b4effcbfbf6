"""Connections are a bounded resource on both ports: caps in total and per peer address,
deadlines for a request's head and for idle connections, and a descriptor limit raised at
start with a reserve. One client that opens connections and sends nothing (or a header line
now and then) cannot stop another from playing; all over real ports."""

from __future__ import annotations

import asyncio
import re
import resource
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import grpc
import httpx
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bezique.clients.sdk import AsyncTableClient
from bezique.service.connections import HEALTH_SLOTS
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import highcard_registry, server_config, serving
from tests.http.helpers import http_config
from tests.http.web import Web

ATTACKER = "127.0.0.2"
"""Another loopback address: the attacker's connections come from it, the players' from
127.0.0.1, as two clients on two machines would."""
HEALTH = "/grpc.health.v1.Health/Check"


@asynccontextmanager
async def served(**overrides: object) -> AsyncIterator[RunningServer]:
    server = await start_server(server_config(**http_config(**overrides)), highcard_registry())
    try:
        yield server
    finally:
        await server.stop()


Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def open_many(port: int, count: int) -> list[Connection]:
    """``count`` connections from the attacker's address that send nothing."""
    return [await asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0))
            for _ in range(count)]


async def first_bytes(connection: Connection, wait: float) -> bytes | None:
    """What the server sent on a connection before closing it, or None if it is still open
    and silent after ``wait`` seconds."""
    reader = connection[0]
    data = b""
    try:
        async with asyncio.timeout(wait):
            while chunk := await reader.read(4096):
                data += chunk
    except TimeoutError:
        return None
    except ConnectionError:
        pass
    return data


def close_all(connections: list[Connection]) -> None:
    for _, writer in connections:
        writer.close()


async def health_over_http(url: str) -> str:
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        answer = await http.post(HEALTH, content=b"{}",
                                 headers={"content-type": "application/json"})
        assert answer.status_code == 200, answer.text
        status: str = answer.json()["status"]
        return status


async def health_over_grpc(address: str) -> int:
    async with grpc.aio.insecure_channel(address) as channel:
        answer = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=10)
        status: int = answer.status
        return status


async def play_over_grpc(address: str) -> None:
    """Create a table with a bot, join it and play until the game ends."""
    async with AsyncTableClient(address, retries=0) as client:
        table = await client.create_table("highcard", {"players": 2}, bots={1: "random"})
        seat = await client.join(table.table_id, seat=0, name="ann")
        moves = 0
        async with asyncio.timeout(30):
            while True:
                view = await client.view(table.table_id, seat.token)
                if view.HasField("outcome"):
                    break
                if view.legal_moves:
                    await client.submit(seat, view.legal_moves[0], view.version)
                    moves += 1
                else:
                    await asyncio.sleep(0.02)
        assert moves >= 1


async def play_over_http(url: str) -> None:
    """The same game as :func:`play_over_grpc`, over Connect."""
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        web = Web(http)
        table = await web.connect("CreateTable", pb.CreateTableRequest(
            variant_id="highcard", options={"players": "2"},
            bots=[pb.BotSeat(seat=1, policy="random")]), pb.CreateTableResponse)
        joined = await web.connect("JoinTable", pb.JoinTableRequest(
            table_id=table.table_id, seat=0, display_name="bob"), pb.JoinTableResponse)
        moves = 0
        async with asyncio.timeout(30):
            while True:
                view = (await web.connect("GetView", pb.GetViewRequest(table_id=table.table_id),
                                          pb.GetViewResponse, token=joined.seat_token)).view
                if view.HasField("outcome"):
                    break
                if view.legal_moves:
                    await web.connect("SubmitMove", pb.SubmitMoveRequest(
                        table_id=table.table_id, move=view.legal_moves[0],
                        expected_version=view.version), pb.SubmitMoveResponse,
                        token=joined.seat_token)
                    moves += 1
                else:
                    await asyncio.sleep(0.02)
        assert moves >= 1


# ------------------------------------------------------------------------ the HTTP port


async def test_one_address_gets_its_cap_of_connections_and_the_others_still_play() -> None:
    async with served(max_connections_per_peer=4, request_head_seconds=30) as server:
        assert server.http is not None
        flood = await open_many(server.http.port, 10)
        try:
            answers = await asyncio.gather(*(first_bytes(c, 1.0) for c in flood))
            refused = [a for a in answers if a is not None]
            assert len(refused) == 6, answers
            for answer in refused:
                assert answer.startswith(b"HTTP/1.1 503 "), answer
                assert b"--max-connections-per-peer" in answer
            assert await health_over_http(server.http.url) == "SERVING"
            await play_over_http(server.http.url)
            await play_over_grpc(server.address)
        finally:
            close_all(flood)


async def test_a_silent_or_trickling_connection_is_closed_at_the_head_deadline() -> None:
    async with served(request_head_seconds=0.5) as server:
        assert server.http is not None
        started = time.monotonic()
        silent, trickling = await open_many(server.http.port, 2)
        try:
            trickling[1].write(b"POST /bezique.v1.TableService/ListVariants HTTP/1.1\r\n")

            async def trickle() -> None:
                # one header line every 0.3 s (sparse enough that the 408 is read before a
                # line written after the server closed makes its kernel reset the connection)
                for number in range(10):
                    if trickling[1].is_closing():
                        return
                    trickling[1].write(f"x-line-{number}: a\r\n".encode())
                    await asyncio.sleep(0.3)

            dripping = asyncio.create_task(trickle())
            closed = await first_bytes(silent, 3.0)
            assert closed == b"", "a connection that sent nothing was kept"
            answer = await first_bytes(trickling, 3.0)
            assert answer is not None and answer.startswith(b"HTTP/1.1 408 "), answer
            assert time.monotonic() - started < 3.0
            dripping.cancel()
            # an ordinary caller, a few requests on one connection, is not affected
            async with httpx.AsyncClient(base_url=server.http.url) as http:
                for _ in range(3):
                    listed = await http.post("/bezique.v1.TableService/ListVariants",
                                             content=b"{}",
                                             headers={"content-type": "application/json"})
                    assert listed.status_code == 200
        finally:
            close_all([silent, trickling])


async def test_an_idle_keep_alive_connection_is_closed() -> None:
    async with served(idle_connection_seconds=1) as server:
        assert server.http is not None
        reader, writer = await asyncio.open_connection("127.0.0.1", server.http.port)
        try:
            writer.write(b"GET /missing HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            assert head.startswith(b"HTTP/1.1 404 ")
            length = int(re.search(rb"content-length: (\d+)", head).group(1))  # type: ignore[union-attr]
            await reader.readexactly(length)
            started = time.monotonic()
            assert await first_bytes((reader, writer), 3.0) == b""
            assert 0.5 < time.monotonic() - started < 3.0
        finally:
            writer.close()


# ------------------------------------------------------------------------ the gRPC port


async def test_the_grpc_port_caps_its_connections_and_closes_silent_ones() -> None:
    """grpc core has no cap per peer: past the port's total cap a connection is closed at
    once, and one that never finishes its handshake is closed at the head deadline."""
    async with served(max_connections=6, request_head_seconds=0.5) as server:
        assert server.http is not None
        flood = await open_many(server.port, 12)
        try:
            answers = await asyncio.gather(*(first_bytes(c, 0.3) for c in flood))
            assert sum(1 for a in answers if a == b"") >= 6, answers
            # the HTTP port, its own descriptors and cap, answers all along
            assert await health_over_http(server.http.url) == "SERVING"
            await play_over_http(server.http.url)
            # the silent ones are closed (after grpc's HTTP/2 settings and a GOAWAY)
            later = await asyncio.gather(*(first_bytes(c, 3.0) for c in flood))
            assert all(a is not None for a in later), later
            assert await health_over_grpc(server.address) == health_pb2.HealthCheckResponse.SERVING
            await play_over_grpc(server.address)
        finally:
            close_all(flood)


# ------------------------------------------------------------------------ descriptors


def _low_descriptor_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (300, 300))


async def test_more_connections_than_descriptors_leave_the_grpc_port_serving(
        tmp_path: Path) -> None:
    """Under a limit of 300 descriptors, 400 connections to the HTTP port: the port's cap is
    lowered at start to fit the limit with its reserve, the connections past it are refused
    (but for a few health-check slots, closed unless a check comes within a second), and the
    gRPC port still accepts health checks and games."""
    log = tmp_path / "server.log"
    with serving(log, "--max-connections-per-peer", "1000", "--request-head-seconds", "60",
                 http=True, preexec_fn=_low_descriptor_limit) as listening:
        address, url = listening.grpc_address, listening.http_url
        flood = await open_many(int(url.rsplit(":", 1)[1]), 400)
        try:
            answers = await asyncio.gather(*(first_bytes(c, 2.0) for c in flood))
            assert await health_over_grpc(address) == health_pb2.HealthCheckResponse.SERVING
            await play_over_grpc(address)
            # the HTTP port is full, but a health check still gets one of its slots
            assert await health_over_http(url) == "SERVING"
            async with httpx.AsyncClient(base_url=url) as http:
                other = await http.post("/bezique.v1.TableService/ListVariants",
                                        content=b"{}",
                                        headers={"content-type": "application/json"})
                assert other.status_code == 503 and "--max-connections" in other.text
        finally:
            close_all(flood)
    lowered = re.search(r'"cap": (\d+)', log.read_text())
    assert lowered is not None and "max_connections_lowered" in log.read_text()
    cap = int(lowered.group(1))
    assert cap == (300 - 128) // 2
    refused = [a for a in answers if a]
    assert len(refused) == 400 - cap - HEALTH_SLOTS, len(refused)
    assert all(a.startswith(b"HTTP/1.1 503 ") and b"--max-connections" in a for a in refused)
    # the silent ones in the health slots were closed within a second
    assert sum(1 for a in answers if a == b"") == HEALTH_SLOTS
