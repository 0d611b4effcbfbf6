"""Hostile request heads on the HTTP port, over a real socket: a head without end, or one
over 64 KiB that arrives in one read, is cut with 431 before it fills the server's memory,
and a malformed deadline header is INVALID_ARGUMENT, not a 500 (the framing after the head:
tests/http/test_wire.py; slow heads and connection caps: tests/http/test_connections.py)."""

from __future__ import annotations

import asyncio

import httpx

from bezique.service.server import start_server
from tests.helpers import highcard_registry, server_config
from tests.http.helpers import http_config

LIST = "/bezique.v1.TableService/ListVariants"


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


async def test_an_endless_request_head_is_cut_with_431() -> None:
    """Without a bound, uvicorn/httptools kept every header byte until the head ended: one
    connection could grow the server's memory without limit (16 MiB of headers here)."""
    server = await start_server(server_config(**http_config()), highcard_registry())
    try:
        assert server.http is not None
        reader, writer = await asyncio.open_connection("127.0.0.1", server.http.port)
        writer.write(b"POST " + LIST.encode() + b" HTTP/1.1\r\nhost: 127.0.0.1\r\n")
        line = b"x-filler: " + b"a" * 8000 + b"\r\n"
        before = _rss_kib()
        answer: bytes | None = b""
        try:
            for _ in range(2048):  # 16 MiB, never a blank line
                writer.write(line)
                await writer.drain()
            answer = await asyncio.wait_for(reader.read(4096), 10)
        except ConnectionError:
            pass  # cut while this end still wrote (the 431 may be lost with the reset)
        except TimeoutError:
            answer = None  # the server read all of it and still waits for the head's end
        assert answer is not None, "16 MiB of headers were read and the connection kept"
        assert answer == b"" or answer.startswith(b"HTTP/1.1 431"), answer[:80]
        assert _rss_kib() - before < 8 * 1024, "the head was kept in memory"
        writer.close()
        # an ordinary request with a few KiB of headers still passes
        async with httpx.AsyncClient(base_url=server.http.url) as http:
            answer2 = await http.post(LIST, content=b"{}", headers={
                "content-type": "application/json", "x-filler": "b" * 8000})
            assert answer2.status_code == 200
    finally:
        await server.stop()


async def test_a_70_kib_head_in_one_read_is_cut_with_431() -> None:
    """The bound counted a head's bytes only while it was incomplete after a read: a 70 KB
    head that arrived whole in one read went past the 64 KiB limit."""
    server = await start_server(server_config(**http_config()), highcard_registry())
    try:
        assert server.http is not None
        reader, writer = await asyncio.open_connection("127.0.0.1", server.http.port)
        writer.write(b"POST " + LIST.encode() + b" HTTP/1.1\r\nhost: 127.0.0.1\r\n"
                     b"content-type: application/json\r\ncontent-length: 2\r\n"
                     b"x-filler: " + b"a" * 70_000 + b"\r\n\r\n{}")
        answer = await asyncio.wait_for(reader.read(4096), 10)
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:80]
        assert await asyncio.wait_for(reader.read(4096), 10) == b""  # and closed
        writer.close()
    finally:
        await server.stop()


async def test_malformed_deadlines_are_invalid_argument_not_500() -> None:
    """A grpc-timeout of many digits overflowed float (500, a traceback in the log); a
    non-ASCII digit (latin-1 '²') passed isdigit() and broke int()."""
    server = await start_server(server_config(**http_config()), highcard_registry())
    try:
        assert server.http is not None
        async with httpx.AsyncClient(base_url=server.http.url) as http:
            for name, value in (("grpc-timeout", b"9" * 400 + b"H"),
                                ("grpc-timeout", b"\xb2S"), ("grpc-timeout", b"123456789m"),
                                ("connect-timeout-ms", b"\xb2")):
                answer = await http.post(LIST, content=b"{}", headers=[
                    (b"content-type", b"application/json"), (name.encode(), value)])
                assert answer.status_code == 400, (name, value, answer.status_code)
                assert answer.json()["code"] == "invalid_argument"
            fine = await http.post(LIST, content=b"{}", headers={
                "content-type": "application/json", "grpc-timeout": "99999999m"})
            assert fine.status_code == 200
    finally:
        await server.stop()
