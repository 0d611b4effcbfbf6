"""Server reflection answers as grpc.reflection.v1 (what current grpcurl and IDEs ask first)
and as v1alpha (older tools), over a real port."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2

from bezique.service.server import RunningServer

Request: Any = reflection_pb2.ServerReflectionRequest  # grpc_reflection ships no stubs
Response: Any = reflection_pb2.ServerReflectionResponse


async def ask(address: str, package: str, request: Any) -> Any:
    """One reflection request to ``<package>.ServerReflection`` (the messages are the same)."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(f"/{package}.ServerReflection/ServerReflectionInfo",
                                     request_serializer=Request.SerializeToString,
                                     response_deserializer=Response.FromString)
        stream = call(iter([request]))
        answer = await stream.read()
        stream.cancel()
    assert isinstance(answer, Response)
    return answer


def files(answer: Any) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    parsed = [descriptor_pb2.FileDescriptorProto.FromString(raw)
              for raw in answer.file_descriptor_response.file_descriptor_proto]
    return {proto.name: proto for proto in parsed}


@pytest.mark.parametrize("package", ["grpc.reflection.v1", "grpc.reflection.v1alpha"])
async def test_reflection_lists_and_describes_the_table_service(
        server: RunningServer, package: str) -> None:
    listed = await ask(server.address, package, Request(list_services=""))
    names = {service.name for service in listed.list_services_response.service}
    assert {"bezique.v1.TableService", "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection"} <= names

    described = files(await ask(server.address, package,
                                Request(file_containing_symbol="bezique.v1.TableService")))
    table_file = described["bezique/v1/table_service.proto"]
    methods = {method.name for method in table_file.service[0].method}
    assert {"SubmitMove", "WatchTable", "GetHistory"} <= methods
    assert "ErrorReason" in {enum.name for enum in table_file.enum_type}
    assert table_file.options.go_package.endswith(";beziquev1")


async def test_reflection_describes_the_v1_reflection_service_itself(
        server: RunningServer) -> None:
    described = files(await ask(server.address, "grpc.reflection.v1", Request(
        file_containing_symbol="grpc.reflection.v1.ServerReflection")))
    proto = described["grpc/reflection/v1/reflection.proto"]
    assert proto.package == "grpc.reflection.v1"
    method = proto.service[0].method[0]
    assert method.input_type == ".grpc.reflection.v1.ServerReflectionRequest"
    assert method.client_streaming and method.server_streaming
