"""Turning service errors into rich gRPC statuses (google.rpc.Status with details)."""

from __future__ import annotations

from typing import NoReturn, TypeVar

import grpc
import structlog
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from bezique.service.errors import REASONS, IllegalMove, ServiceError

DOMAIN = "bezique.v1"
log = structlog.get_logger("bezique.status")

Req = TypeVar("Req")
Resp = TypeVar("Resp")


def reason_of(error: ServiceError) -> str:
    """The error's reason if the vocabulary has it; else its status code's name (and a warning:
    clients switch on the list in service/errors.REASONS, so nothing else may reach them)."""
    if error.reason in REASONS:
        return error.reason
    log.warning("unlisted_error_reason", reason=error.reason, code=error.code)
    return error.code


def to_status(error: ServiceError) -> grpc.Status:
    """The status for an error: its code, its message, and details naming the field and why."""
    return rpc_status.to_status(rich_status(error))


def rich_status(error: ServiceError) -> status_pb2.Status:
    """The google.rpc.Status an error travels as (``grpc-status-details-bin``); a Play
    stream's refused move carries it serialized in its result."""
    details = []
    info = error_details_pb2.ErrorInfo(reason=reason_of(error), domain=DOMAIN,
                                       metadata=error.metadata)
    details.append(info)
    if error.field and error.code == "INVALID_ARGUMENT":
        details.append(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=error.field,
                                                        description=error.message)]))
    if isinstance(error, IllegalMove):
        details.append(error_details_pb2.PreconditionFailure(violations=[
            error_details_pb2.PreconditionFailure.Violation(
                type="ILLEGAL_MOVE", subject=move, description="a legal move")
            for move in error.legal[:200]]))
    packed = []
    for detail in details:
        wrapper = any_pb2.Any()
        wrapper.Pack(detail)
        packed.append(wrapper)
    return status_pb2.Status(code=getattr(code_pb2, error.code), message=error.message,
                             details=packed)


async def abort(context: grpc.aio.ServicerContext[Req, Resp], error: ServiceError) -> NoReturn:
    """End the call with the error's rich status. This is what grpc.aio's
    ``abort_with_status`` does, through the ``abort`` its typed context declares."""
    status = to_status(error)
    await context.abort(status.code, status.details, status.trailing_metadata)
