"""Server reflection under both names clients ask for: ``grpc.reflection.v1`` and ``v1alpha``.

grpcio-reflection ships only ``v1alpha``. ``v1`` is the same protocol under a new package name
(every message and field number is unchanged), so the v1alpha servicer answers both, and a
``grpc/reflection/v1/reflection.proto`` descriptor made from the v1alpha one is added to the
pool so that ``v1`` can be described through reflection too.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterable, AsyncIterator, Callable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha._async import ReflectionServicer  # what reflection.aio exports

from bezique.service.errors import ResourceExhausted
from bezique.service.limits import RateLimiter, StreamCounter
from bezique.service.status import abort

V1ALPHA = "grpc.reflection.v1alpha"
V1 = "grpc.reflection.v1"
V1ALPHA_SERVICE = f"{V1ALPHA}.ServerReflection"
V1_SERVICE = f"{V1}.ServerReflection"
V1_FILE = "grpc/reflection/v1/reflection.proto"


def _v1_type(name: str) -> str:
    prefix = f".{V1ALPHA}."
    return f".{V1}." + name[len(prefix):] if name.startswith(prefix) else name


def add_v1_descriptor(pool: descriptor_pool.DescriptorPool | None = None) -> None:
    """Add the v1 reflection file to ``pool`` (the default pool) unless it is there already."""
    pool = pool or descriptor_pool.Default()
    try:
        pool.FindFileByName(V1_FILE)
        return
    except KeyError:
        pass
    if pool is descriptor_pool.Default():
        try:  # a grpcio-reflection that ships v1 registers its own file on import
            importlib.import_module("grpc_reflection.v1.reflection_pb2")
            return
        except ImportError:
            pass
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name, proto.package = V1_FILE, V1
    proto.ClearField("options")
    for message in proto.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = _v1_type(field.type_name)
    for service in proto.service:
        for method in service.method:
            method.input_type = _v1_type(method.input_type)
            method.output_type = _v1_type(method.output_type)
    pool.Add(proto)


Context = grpc.aio.ServicerContext[reflection_pb2.ServerReflectionRequest,
                                   reflection_pb2.ServerReflectionResponse]
"""What grpc passes a reflection call."""


def enable(server: grpc.aio.Server, service_names: tuple[str, ...], streams: StreamCounter,
           caller: Callable[[Context], str], rate: RateLimiter | None = None) -> None:
    """Serve reflection as v1 and v1alpha, listing ``service_names`` and both reflections.
    A reflection call is a stream like any other: it counts against the caller's cap
    (``--max-watchers-per-caller``) with the table, results and health streams; and each
    request in it is charged to the caller's ``rate`` budget, as a call would be (each is
    answered with a file descriptor of several KB)."""
    add_v1_descriptor()
    servicer = ReflectionServicer((*service_names, V1_SERVICE, V1ALPHA_SERVICE))
    info = servicer.ServerReflectionInfo

    async def capped(requests: AsyncIterable[reflection_pb2.ServerReflectionRequest],
                     context: Context) -> AsyncIterator[reflection_pb2.ServerReflectionResponse]:
        who = caller(context)
        if not streams.acquire(who):
            await abort(context, ResourceExhausted(
                f"at most {streams.limit} open streams per caller", reason="TOO_MANY_STREAMS"))
        try:
            async for request in requests:
                if rate is not None and not rate.allow(who):
                    await abort(context, ResourceExhausted(
                        f"rate limit: at most {rate.rate:g} requests a second per address "
                        f"(bursts of {rate.burst:g}), reflection requests too; slow down and "
                        "retry", reason="RATE_LIMITED"))
                async for response in info(_one(request), context):
                    yield response
        finally:
            streams.release(who)

    stream: grpc.RpcMethodHandler[reflection_pb2.ServerReflectionRequest,
                                  reflection_pb2.ServerReflectionResponse]
    stream = grpc.stream_stream_rpc_method_handler(
        capped,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString)
    server.add_generic_rpc_handlers(tuple(
        grpc.method_handlers_generic_handler(name, {"ServerReflectionInfo": stream})
        for name in (V1_SERVICE, V1ALPHA_SERVICE)))


async def _one(request: reflection_pb2.ServerReflectionRequest
               ) -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
    """One request as the stream grpc's reflection servicer answers."""
    yield request
