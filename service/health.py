"""grpc.health.v1 with the service's per-caller stream cap: a Watch is a stream like any other."""

from __future__ import annotations

from collections.abc import Callable

from grpc.aio import ServicerContext
from grpc_health.v1 import _async as health_aio
from grpc_health.v1 import health_pb2

from bezique.service.errors import InvalidArgument, ResourceExhausted
from bezique.service.limits import StreamCounter
from bezique.service.settings import Limits
from bezique.service.status import abort

Context = ServicerContext[health_pb2.HealthCheckRequest, health_pb2.HealthCheckResponse]
"""What grpc (or the HTTP port) passes a health call."""

MAX_SERVICE_NAME = Limits.max_service_name


class CappedHealth(health_aio.HealthServicer):  # type: ignore[misc]
    """The stock health service, whose Watch streams count against ``--max-watchers-per-caller``
    with the table and results streams: unbounded, one peer could hold any number open."""

    def __init__(self, streams: StreamCounter, caller: Callable[[Context], str]) -> None:
        super().__init__()
        self._streams = streams
        self._caller = caller

    async def Check(self, request: health_pb2.HealthCheckRequest, context: Context
                    ) -> health_pb2.HealthCheckResponse:
        await _check_name(request, context)
        return await super().Check(request, context)  # type: ignore[no-any-return]

    async def Watch(self, request: health_pb2.HealthCheckRequest, context: Context) -> None:
        await _check_name(request, context)
        caller = self._caller(context)
        if not self._streams.acquire(caller):
            await abort(context, ResourceExhausted(
                f"at most {self._streams.limit} open watch streams per caller",
                reason="TOO_MANY_STREAMS"))
        try:
            await super().Watch(request, context)
        finally:
            self._streams.release(caller)


async def _check_name(request: health_pb2.HealthCheckRequest, context: Context) -> None:
    if len(request.service) > MAX_SERVICE_NAME:
        await abort(context, InvalidArgument(
            f"at most {MAX_SERVICE_NAME} characters", field="service"))
