"""One error vocabulary: every ErrorInfo.reason is listed once (service/errors.REASONS),
matches the proto's ErrorReason enum and the table in docs/protocol.md, and is what the server
sends, also over a real port."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import code_pb2, error_details_pb2, status_pb2

from bezique.clients.sdk import (
    AsyncTableClient,
    error_info,
    error_reason,
    legal_moves_now,
    status_details,
)
from bezique.service import errors
from bezique.service.errors import REASONS, Retry, ServiceError
from bezique.service.server import RunningServer
from bezique.service.status import DOMAIN, to_status
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc
from tests.helpers import details
from tests.service.helpers import two_seats

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "ERROR_REASON_"


def error_classes() -> Iterator[type[ServiceError]]:
    """ServiceError and every subclass of it, however deep."""
    pending: list[type[ServiceError]] = [ServiceError]
    while pending:
        cls = pending.pop()
        yield cls
        pending.extend(cls.__subclasses__())


def instance(cls: type[ServiceError]) -> ServiceError:
    """An instance made with the arguments the class's constructor asks for."""
    arguments: dict[str, Any] = {"message": "why", "legal": ["play 7S"], "table_id": "t",
                                 "expected": 3, "current": 4}
    names = [p.name for p in inspect.signature(cls.__init__).parameters.values()
             if p.kind is p.POSITIONAL_OR_KEYWORD and p.name != "self"]
    return cls(*[arguments[name] for name in names])


def status_error_info(status: grpc.Status) -> error_details_pb2.ErrorInfo:
    """The ErrorInfo a client finds in the status's grpc-status-details-bin trailer."""
    trailer = dict(status.trailing_metadata)["grpc-status-details-bin"]
    decoded = status_pb2.Status.FromString(trailer)
    for detail in decoded.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    raise AssertionError("no ErrorInfo in the status")


def protocol_table() -> dict[str, tuple[str, str]]:
    """docs/protocol.md's reason table: reason -> (status code, retry)."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    rows = re.findall(r"^\| `([A-Z_]+)` \| `([A-Z_]+)` \| ([a-z ]+) \|", text, re.MULTILINE)
    return {reason: (code, retry.strip()) for reason, code, retry in rows}


def test_every_error_class_sends_a_listed_reason_with_its_code() -> None:
    classes = list(error_classes())
    assert len(classes) >= 10
    for cls in classes:
        error = instance(cls)
        assert error.reason in REASONS, cls
        assert REASONS[error.reason].code == error.code, cls
        status = to_status(error)
        assert status.code == getattr(grpc.StatusCode, error.code), cls
        info = status_error_info(status)
        assert (info.reason, info.domain) == (error.reason, DOMAIN)


def test_an_error_without_a_reason_of_its_own_carries_its_code_name() -> None:
    for cls in (errors.InvalidArgument, errors.NotFound, errors.PermissionDenied,
                errors.Unauthenticated, errors.FailedPrecondition,
                errors.ResourceExhausted, errors.Unavailable):
        assert cls("x").reason == cls.code


def test_an_unlisted_reason_never_reaches_a_client() -> None:
    info = status_error_info(to_status(errors.NotFound("x", reason="NoSuchTable")))
    assert info.reason == "NOT_FOUND"


def test_every_reason_the_code_names_is_listed_with_the_right_code() -> None:
    """Every ``SomeError(..., reason="X")`` in the server's code uses a listed X of its code."""
    codes = {cls.__name__: cls.code for cls in error_classes()}
    seen: set[str] = set()
    for path in [*(ROOT / "service").rglob("*.py"), *(ROOT / "variants").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in codes):
                continue
            for keyword in node.keywords:
                if keyword.arg == "reason" and isinstance(keyword.value, ast.Constant):
                    reason = str(keyword.value.value)
                    assert reason in REASONS, f"{path}: {reason}"
                    assert REASONS[reason].code == codes[node.func.id], f"{path}: {reason}"
                    seen.add(reason)
    assert {"RATE_LIMITED", "GAME_STARTED", "SEAT_TAKEN"} <= seen  # the scan finds them


def test_the_vocabulary_is_upper_snake_and_its_codes_are_grpc_codes() -> None:
    for reason, entry in REASONS.items():
        assert re.fullmatch(r"[A-Z]+(_[A-Z]+)*", reason), reason
        assert entry.code != "OK" and entry.code in code_pb2.Code.keys(), reason  # noqa: SIM118
        assert isinstance(entry.retry, Retry) and entry.meaning, reason


def test_the_proto_enum_lists_exactly_the_vocabulary() -> None:
    every = pb.ErrorReason.keys()
    names = [name for name in every if name != PREFIX + "UNSPECIFIED"]
    assert all(name.startswith(PREFIX) for name in names)
    assert {name.removeprefix(PREFIX) for name in names} == set(REASONS)
    proto = (ROOT / "proto" / "bezique" / "v1" / "table_service.proto").read_text()
    for reason, entry in REASONS.items():
        comment = re.search(rf"// {entry.code}; retry: ([a-z ]+)\.[^=]*{PREFIX}{reason} = ",
                            proto)
        assert comment is not None, f"{reason}: its comment must start '{entry.code}; retry:'"
        assert comment.group(1) == entry.retry.value, reason


def test_docs_protocol_lists_every_reason_with_code_and_retry() -> None:
    table = protocol_table()
    assert table == {reason: (entry.code, entry.retry.value)
                     for reason, entry in REASONS.items()}


@pytest.mark.parametrize("case", ["missing table", "bad token form", "bad from_version"])
async def test_the_server_sends_code_named_reasons(
        server: RunningServer, client: AsyncTableClient, case: str) -> None:
    async with grpc.aio.insecure_channel(server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        created = await client.create_table("highcard", {"players": 2})
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            if case == "missing table":
                await stub.GetView(pb.GetViewRequest(table_id="nope" * 5))
            elif case == "bad token form":
                await stub.GetView(pb.GetViewRequest(table_id=created.table_id),
                                   metadata=(("authorization", "Basic x"),))
            else:
                stream = stub.WatchTable(pb.WatchTableRequest(table_id=created.table_id,
                                                              from_version=-1))
                await stream.read()
    error = caught.value
    reason = details(error)["reason"]
    assert reason == error.code().name
    assert reason in REASONS and REASONS[str(reason)].code == error.code().name


async def test_the_sdk_reads_the_reason_as_an_error_reason(client: AsyncTableClient) -> None:
    table_id, ann, _ = await two_seats(client)
    view = await client.view(table_id, ann.token)
    move = view.legal_moves[0] if view.legal_moves else pb.Move(kind="play")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.submit(ann, move, view.version + 5)
    assert error_reason(caught.value) == pb.ERROR_REASON_STALE_VERSION
    info = error_info(caught.value)
    assert info is not None and info.metadata["current_version"] == str(view.version)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.join(table_id, 0)
    assert error_reason(caught.value) == pb.ERROR_REASON_SEAT_TAKEN
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.join(table_id)
    assert error_reason(caught.value) == pb.ERROR_REASON_TABLE_FULL


async def test_the_sdk_reads_the_legal_moves_an_illegal_move_names(
        client: AsyncTableClient) -> None:
    """``legal_moves_now`` reads them from the one decoder (``status_details``), which the
    CLI's error text uses too; any other error names none."""
    table_id, ann, bob = await two_seats(client)
    views = [(seat, await client.view(table_id, seat.token)) for seat in (ann, bob)]
    seat, view = next((seat, view) for seat, view in views if view.legal_moves)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.submit(seat, pb.Move(kind="nonsense"), view.version)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert legal_moves_now(caught.value) == details(caught.value)["legal"] != []
    # The same text as the view's legal moves carry: one text of a move, the server's.
    assert legal_moves_now(caught.value) == [move.text for move in view.legal_moves]
    assert status_details(caught.value)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.join(table_id)
    assert legal_moves_now(caught.value) == []
