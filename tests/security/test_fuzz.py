"""Hostile input over a real port: malformed and random requests to every RPC, raw garbage and
half-open connections. Afterwards the server is up, every answer had a status and a message,
and no table changed on an error."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc
from tests.helpers import ServerProcess, spawn_server

INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)
UINT32 = st.integers(0, 2**32 - 1)
TEXT = st.one_of(st.text(max_size=40), st.just(""), st.text(min_size=5000, max_size=6000),
                 st.sampled_from(["highcard", "bezique-2p", "quart-bezique", "\x00", "../../"]))


@dataclass
class Target:
    server: ServerProcess
    channel: grpc.Channel
    stub: pb_grpc.TableServiceStub
    table_id: str
    tokens: list[str]

    def head(self) -> tuple[int, int]:
        history = self.stub.GetHistory(pb.GetHistoryRequest(table_id=self.table_id))
        return history.entries[-1].version, len(history.entries)


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    server = spawn_server("--store", "memory:", "--bot-delay", "0")
    channel = grpc.insecure_channel(server.address)
    stub = pb_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
    table = stub.CreateTable(pb.CreateTableRequest(variant_id="highcard"))
    tokens = [stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id)).seat_token
              for _ in range(2)]
    yield Target(server, channel, stub, table.table_id, tokens)
    channel.close()
    server.kill()


def table_ids(target: Target) -> st.SearchStrategy[str]:
    return st.one_of(TEXT, st.just(target.table_id), st.just("feedfeedfeedfeed"))


def metadata(target: Target) -> st.SearchStrategy[tuple[tuple[str, str], ...]]:
    header = st.one_of(
        st.sampled_from([f"Bearer {t}" for t in target.tokens]),
        st.builds(lambda t: f"Bearer {t}", st.text(alphabet="abcdefXYZ0123456789-_", max_size=60)),
        st.sampled_from(["Bearer", "Bearer ", "Basic abc", "", "bearer  x"]),
        st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=80))
    return st.one_of(st.just(()), header.map(lambda h: (("authorization", h),)))


def moves() -> st.SearchStrategy[pb.Move]:
    return st.builds(lambda kind, ids, amount, label: pb.Move(
        kind=kind, cards=[pb.Card(id=i) for i in ids], amount=amount, label=label),
        st.one_of(TEXT, st.just("play")), st.lists(UINT32, max_size=70), INT64, TEXT)


def requests(target: Target) -> st.SearchStrategy[tuple[str, Any]]:
    ids = table_ids(target)
    return st.one_of(
        st.tuples(st.just("ListVariants"), st.just(pb.ListVariantsRequest())),
        st.tuples(st.just("CreateTable"), st.builds(
            lambda v, opts, seat, policy, secs: pb.CreateTableRequest(
                variant_id=v, options=opts, bots=[pb.BotSeat(seat=seat, policy=policy)],
                turn_seconds=secs),
            TEXT, st.dictionaries(TEXT, TEXT, max_size=4), INT32, TEXT, INT32)),
        st.tuples(st.just("ListTables"), st.builds(
            lambda v, size, token: pb.ListTablesRequest(variant_id=v, page_size=size,
                                                        page_token=token),
            TEXT, INT32, TEXT)),
        st.tuples(st.just("JoinTable"), st.builds(
            lambda t, seat, name: pb.JoinTableRequest(table_id=t, seat=seat, display_name=name),
            ids, INT32, TEXT)),
        st.tuples(st.just("LeaveTable"), st.builds(lambda t: pb.LeaveTableRequest(table_id=t),
                                                   ids)),
        st.tuples(st.just("GetView"), st.builds(lambda t: pb.GetViewRequest(table_id=t), ids)),
        st.tuples(st.just("SubmitMove"), st.builds(
            lambda t, m, v, r: pb.SubmitMoveRequest(table_id=t, move=m, expected_version=v,
                                                    request_id=r),
            ids, moves(), st.one_of(INT64, st.integers(0, 12)), TEXT)),
        st.tuples(st.just("GetHistory"), st.builds(lambda t: pb.GetHistoryRequest(table_id=t),
                                                   ids)),
        st.tuples(st.just("WatchTable"), st.builds(
            lambda t, v: pb.WatchTableRequest(table_id=t, from_version=v), ids, INT64)),
    )


def call(target: Target, method: str, request: Any, md: tuple[tuple[str, str], ...]) -> None:
    rpc: Callable[..., Any] = getattr(target.stub, method)
    if method == "WatchTable":
        for _ in rpc(request, metadata=md, timeout=0.3):
            pass
    else:
        rpc(request, metadata=md, timeout=5)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_random_requests_get_a_status_and_change_nothing(target: Target, data: Any) -> None:
    method, request = data.draw(requests(target))
    md = data.draw(metadata(target))
    before = target.head()
    try:
        call(target, method, request, md)
    except grpc.RpcError as error:
        code = error.code()  # type: ignore[attr-defined]
        assert code != grpc.StatusCode.UNKNOWN, error
        if code == grpc.StatusCode.DEADLINE_EXCEEDED and method == "WatchTable":
            return  # a watch that was accepted and simply stayed open
        assert code != grpc.StatusCode.INTERNAL, (method, error.details())  # type: ignore[attr-defined]
        assert error.details(), (method, code)  # type: ignore[attr-defined]
        assert target.head() == before, f"{method} failed with {code} but changed the table"


def test_raw_bytes_where_a_request_belongs(target: Target) -> None:
    raw = target.channel.unary_unary("/bezique.v1.TableService/SubmitMove", None, None)
    for garbage in (b"\xff" * 50, b"\x12\x05\x0a\x03abc\xff\xff", bytes(range(256))):
        with pytest.raises(grpc.RpcError) as failed:
            raw(garbage, metadata=(("authorization", f"Bearer {target.tokens[0]}"),), timeout=5)
        assert failed.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
        message = str(failed.value.details())  # type: ignore[attr-defined]
        assert "bezique.v1.SubmitMoveRequest" in message


def test_garbage_and_half_open_connections_do_not_hurt(target: Target) -> None:
    before = target.head()
    port = target.server.port
    sockets = []
    for payload in (b"GET / HTTP/1.1\r\n\r\n", b"\x00" * 4096, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
                    bytes(range(256)) * 8, b""):
        sock = socket.create_connection(("127.0.0.1", port), timeout=2)
        if payload:
            sock.sendall(payload)
        sockets.append(sock)  # left open: half-open connections
    time.sleep(0.5)
    health = health_pb2_grpc.HealthStub(target.channel)
    answer = health.Check(health_pb2.HealthCheckRequest(service="bezique.v1.TableService"),
                          timeout=5)
    assert answer.status == health_pb2.HealthCheckResponse.SERVING
    assert target.head() == before
    for sock in sockets:
        sock.close()
    assert target.server.process.poll() is None


def test_the_server_is_up_after_the_fuzzing(target: Target) -> None:
    assert [v.id for v in target.stub.ListVariants(pb.ListVariantsRequest()).variants]
    assert target.server.process.poll() is None
