"""Every stream a caller holds open counts against its cap (``--max-watchers-per-caller``),
over a real port: results feeds, grpc.health.v1 watches and reflection streams, besides the
table watches of tests/security/test_limits.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2

from bezique.v1 import table_service_pb2 as pb
from tests.helpers import eventually
from tests.service.helpers import serving


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
