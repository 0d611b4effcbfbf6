"""Attacks on the platform and browser surfaces over real ports: a request head without end,
malformed deadlines, and results feeds opened without end."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2

from bezique.service.server import start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import eventually, highcard_registry, server_config
from tests.http.helpers import http_config
from tests.service.helpers import serving, two_seats

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


async def test_results_feeds_count_against_the_callers_stream_cap() -> None:
    """WatchResults held no stream cap: on a server without an API key anybody could open
    feeds without end, each polling the store every second."""
    async with serving(max_watchers_per_caller=2) as (server, client):
        calls = [client.stub.WatchResults(pb.WatchResultsRequest()) for _ in range(2)]
        await eventually(lambda: server.manager.results.streams == 2, what="two feeds")
        third = client.stub.WatchResults(pb.WatchResultsRequest())
        try:  # refused at once; a feed that is served never ends
            code = await asyncio.wait_for(third.code(), 10)
        except TimeoutError:
            third.cancel()
            raise AssertionError("a third feed was served") from None
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "TOO_MANY_STREAMS" in str(await third.trailing_metadata())
        for call in calls:
            call.cancel()
        await eventually(lambda: server.manager.results.streams == 0, what="feeds released")
        again = client.stub.WatchResults(pb.WatchResultsRequest())
        await eventually(lambda: server.manager.results.streams == 1, what="a feed again")
        again.cancel()


async def test_abort_is_refused_on_a_server_without_an_api_key() -> None:
    """Without --api-key, _check_api_key let every AbortTable through: any player (over gRPC,
    or the HTTP port) could end any table mid-game, a losing one his own, voiding the result
    (Quart gives the stakes back). ReissueSeatToken is refused there for the same reason."""
    async with serving() as (_, client):
        table_id, first, _ = await two_seats(client)
        before = await client.view(table_id, first.token)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await client.abort_table(table_id, note="I was losing")
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        after = await client.view(table_id, first.token)
        assert not after.HasField("outcome") and after.version == before.version


async def test_health_watches_count_against_the_callers_stream_cap() -> None:
    """grpc.health.v1 Watch streams were the stock servicer's, uncapped: one peer could hold
    any number open (each a waiter kept by the server), and each under a new service name of
    any length (each name a key kept while its stream is open)."""
    async with serving(max_watchers_per_caller=2) as (_, client):
        channel = client.channel
        watch = channel.unary_stream("/grpc.health.v1.Health/Watch",
                                     request_serializer=health_pb2.HealthCheckRequest
                                     .SerializeToString,
                                     response_deserializer=health_pb2.HealthCheckResponse
                                     .FromString)
        calls = [watch(health_pb2.HealthCheckRequest(service=name)) for name in ("", "x")]
        for call in calls:
            first = await call.read()
            assert isinstance(first, health_pb2.HealthCheckResponse)
            assert first.status in (health_pb2.HealthCheckResponse.SERVING,
                                                  health_pb2.HealthCheckResponse.SERVICE_UNKNOWN)
        third = watch(health_pb2.HealthCheckRequest(service=""))
        try:
            code = await asyncio.wait_for(third.code(), 10)
        except TimeoutError:
            third.cancel()
            raise AssertionError("a third health watch was served") from None
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "TOO_MANY_STREAMS" in str(await third.trailing_metadata())
        for call in calls:
            call.cancel()
        long_name = watch(health_pb2.HealthCheckRequest(service="s" * 100_000))
        assert await asyncio.wait_for(long_name.code(), 10) == grpc.StatusCode.INVALID_ARGUMENT
        again = watch(health_pb2.HealthCheckRequest(service=""))
        answer = await asyncio.wait_for(again.read(), 10)
        assert isinstance(answer, health_pb2.HealthCheckResponse)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
        again.cancel()


async def test_reflection_streams_count_against_the_callers_stream_cap() -> None:
    """Server reflection is a bidirectional stream: uncapped, one peer could hold any number
    open. It counts against --max-watchers-per-caller with the other streams."""
    async with serving(max_watchers_per_caller=2) as (_, client):
        info = client.channel.stream_stream(
            "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
        ask = reflection_pb2.ServerReflectionRequest(list_services="")

        async def held() -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
            yield ask  # then the stream stays open until the call is cancelled
            await asyncio.Event().wait()

        calls = [info(held()) for _ in range(2)]
        for call in calls:
            answer = await asyncio.wait_for(call.read(), 10)
            assert isinstance(answer, reflection_pb2.ServerReflectionResponse)
            assert any(s.name == "bezique.v1.TableService"
                       for s in answer.list_services_response.service)
        third = info(held())
        try:
            code = await asyncio.wait_for(third.code(), 10)
        except TimeoutError:
            third.cancel()
            raise AssertionError("a third reflection stream was served") from None
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "TOO_MANY_STREAMS" in str(await third.trailing_metadata())
        for call in calls:
            call.cancel()
        again = info(held())
        answer = await asyncio.wait_for(again.read(), 10)
        assert isinstance(answer, reflection_pb2.ServerReflectionResponse)
        assert answer.list_services_response.service
        again.cancel()
