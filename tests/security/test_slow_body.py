"""A request whose head is complete but whose body never arrives (or arrives a byte now and
then) holds its connection: the head deadline ended with the head and the idle timeout does
not count a request in flight. Over a real HTTP port with a 1 s head deadline and 2 s idle
timeout."""

from __future__ import annotations

import asyncio

import httpx

from bezique.service.connections import HEALTH_SLOTS
from bezique.service.server import start_server
from tests.helpers import highcard_registry, server_config
from tests.http.helpers import http_config

LIST = "/bezique.v1.TableService/ListVariants"
HEALTH = "/grpc.health.v1.Health/Check"


async def _held_for(port: int, trickle: bool, seconds: float) -> bool:
    """Whether a connection that sent a head announcing 1,000 body bytes (then nothing, or a
    byte every half second) is still open after ``seconds``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"POST {LIST} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                 "content-length: 1000\r\n\r\n".encode())
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    try:
        while loop.time() < end:
            if trickle:
                writer.write(b" ")
                await writer.drain()
            try:
                if await asyncio.wait_for(reader.read(4096), 0.5) == b"" or reader.at_eof():
                    return False
                return False  # answered (408): the server let it go
            except TimeoutError:
                continue
    except ConnectionError:
        return False
    finally:
        writer.close()
    return True


async def test_a_body_that_never_arrives_does_not_hold_its_connection() -> None:
    server = await start_server(server_config(**http_config(
        request_head_seconds=1.0, idle_connection_seconds=2.0)), highcard_registry())
    try:
        assert server.http is not None
        silent, trickled = await asyncio.gather(_held_for(server.http.port, False, 6.0),
                                                _held_for(server.http.port, True, 6.0))
        assert not silent, "a head with no body held its connection for 6 s"
        assert not trickled, "a body sent a byte every half second held its connection for 6 s"
    finally:
        await server.stop()


async def test_a_health_slot_is_not_held_by_a_check_whose_body_never_comes() -> None:
    """Past the port's cap a few slots take one health check each, closed unless the check
    comes within a second: a check's head whose body never came held its slot for good, so
    a client that filled the port and the slots kept the load balancer's check out."""
    server = await start_server(server_config(**http_config(max_connections=2)),
                                highcard_registry())
    try:
        assert server.http is not None
        port = server.http.port
        held = []
        for _ in range(2 + HEALTH_SLOTS):  # the port's cap, then every health slot
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"POST {HEALTH} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: "
                         "application/json\r\ncontent-length: 2\r\n\r\n".encode())
            held.append((reader, writer))
        await asyncio.sleep(2.5)  # past the slots' deadline of one second
        async with httpx.AsyncClient(base_url=server.http.url, timeout=5) as http:
            answer = await http.post(HEALTH, content=b"{}",
                                     headers={"content-type": "application/json"})
        assert answer.status_code == 200, answer.text
        for _, writer in held:
            writer.close()
    finally:
        await server.stop()
