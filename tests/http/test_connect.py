"""Connect and gRPC-Web calls on the HTTP port reach the same servicer as gRPC: the same
answers, the same seat tokens, the same errors with the same details."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.service.server import RunningServer
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import details, summary
from tests.http.web import Failure, Web, connect_failure
from tests.service.helpers import STACK


async def new_table(web: Web) -> str:
    request = pb.CreateTableRequest(variant_id="highcard", options={"players": "2"},
                                    test=pb.TestSettings(stacked_shoe=STACK))
    created = await web.connect("CreateTable", request, pb.CreateTableResponse)
    return created.table_id


async def test_connect_json_lists_the_variants(web: Web) -> None:
    answer = await web.connect("ListVariants", pb.ListVariantsRequest(),
                               pb.ListVariantsResponse, json=True)
    assert [v.id for v in answer.variants] == ["highcard"]
    assert {o.name for o in answer.variants[0].options} >= {"players", "hand_size"}


async def test_connect_json_is_plain_json_a_browser_could_send(web: Web) -> None:
    answer = await web.http.post("/bezique.v1.TableService/CreateTable",
                                 content=b'{"variantId": "highcard", "options": {"players": "2"}}',
                                 headers={"content-type": "application/json; charset=utf-8"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["tableId"] and body["seedCommitment"]


async def test_a_seat_joined_over_connect_plays_over_grpc_web_and_grpc(
        web: Web, grpc_client: AsyncTableClient) -> None:
    table_id = await new_table(web)
    first = await web.connect("JoinTable", pb.JoinTableRequest(table_id=table_id,
                                                               display_name="ann"),
                              pb.JoinTableResponse)
    second = await web.grpc_web("JoinTable", pb.JoinTableRequest(table_id=table_id,
                                                                 display_name="bob"),
                                pb.JoinTableResponse)
    assert (first.seat, second.seat) == (0, 1)
    # the token works with the Authorization header on either protocol, and over gRPC
    own = await web.connect("GetView", pb.GetViewRequest(table_id=table_id),
                            pb.GetViewResponse, token=first.seat_token, json=True)
    assert sorted(c.code for c in own.view.hand) == ["7S", "AS", "KH"]
    spectator = await web.grpc_web("GetView", pb.GetViewRequest(table_id=table_id),
                                   pb.GetViewResponse)
    assert not spectator.view.hand and not spectator.view.legal_moves
    move = own.view.legal_moves[0]
    moved = await web.grpc_web("SubmitMove", pb.SubmitMoveRequest(
        table_id=table_id, move=move, expected_version=own.view.version, request_id="m1"),
        pb.SubmitMoveResponse, token=first.seat_token, text=True)
    assert moved.version == own.view.version + 1 and not moved.duplicate
    seen_by_grpc = await grpc_client.view(table_id, second.seat_token)
    assert seen_by_grpc.version == moved.version
    again = await grpc_client.submit(SeatHandle(table_id, 0, first.seat_token), move,
                                     own.view.version, request_id="m1")
    assert again.duplicate and again.version == moved.version


async def test_errors_carry_the_same_details_as_grpc(
        web: Web, grpc_client: AsyncTableClient) -> None:
    table_id = await new_table(web)
    first = await web.connect("JoinTable", pb.JoinTableRequest(table_id=table_id),
                              pb.JoinTableResponse)
    await web.connect("JoinTable", pb.JoinTableRequest(table_id=table_id), pb.JoinTableResponse)
    view = (await web.connect("GetView", pb.GetViewRequest(table_id=table_id),
                              pb.GetViewResponse, token=first.seat_token)).view
    other = min(set(range(32)) - {c.id for c in view.hand})  # a card of another hand
    bad = pb.SubmitMoveRequest(table_id=table_id, expected_version=view.version,
                               move=pb.Move(kind="play", cards=[pb.Card(id=other)]))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await grpc_client.submit(SeatHandle(table_id, 0, first.seat_token), bad.move,
                                 view.version)
    expected = details(caught.value)
    assert expected["reason"] == "ILLEGAL_MOVE" and expected["legal"]
    for protocol in ("connect", "json", "grpc-web"):
        with pytest.raises(Failure) as failed:
            if protocol == "grpc-web":
                await web.grpc_web("SubmitMove", bad, pb.SubmitMoveResponse,
                                   token=first.seat_token)
            else:
                await web.connect("SubmitMove", bad, pb.SubmitMoveResponse,
                                  token=first.seat_token, json=protocol == "json")
        failure = failed.value
        assert summary(failure.details) == expected, protocol
        assert failure.message == caught.value.details()
        if protocol == "grpc-web":
            assert failure.code == str(grpc.StatusCode.FAILED_PRECONDITION.value[0])
        else:
            assert (failure.http_status, failure.code) == (400, "failed_precondition")
    # a stale version: ABORTED (409) with the current version in the metadata
    stale = pb.SubmitMoveRequest(table_id=table_id, expected_version=view.version + 5,
                                 move=view.legal_moves[0])
    with pytest.raises(Failure) as failed:
        await web.connect("SubmitMove", stale, pb.SubmitMoveResponse, token=first.seat_token)
    assert (failed.value.http_status, failed.value.code) == (409, "aborted")
    assert summary(failed.value.details)["reason"] == "STALE_VERSION"
    # unknown table: NOT_FOUND (404)
    with pytest.raises(Failure) as failed:
        await web.connect("GetView", pb.GetViewRequest(table_id="nope"), pb.GetViewResponse)
    assert (failed.value.http_status, failed.value.code) == (404, "not_found")


async def test_auth_header_is_checked_as_grpc_metadata_is(web: Web) -> None:
    table_id = await new_table(web)
    with pytest.raises(Failure) as failed:
        await web.connect("LeaveTable", pb.LeaveTableRequest(table_id=table_id),
                          pb.LeaveTableResponse)
    assert (failed.value.http_status, failed.value.code) == (401, "unauthenticated")
    assert summary(failed.value.details)["reason"] == "UNAUTHENTICATED"
    with pytest.raises(Failure) as failed:
        await web.connect("GetView", pb.GetViewRequest(table_id=table_id), pb.GetViewResponse,
                          headers={"authorization": "Basic abc"})
    assert failed.value.code == "unauthenticated"
    with pytest.raises(Failure) as failed:
        await web.connect("LeaveTable", pb.LeaveTableRequest(table_id=table_id),
                          pb.LeaveTableResponse, token="0" * 64)
    assert (failed.value.http_status, failed.value.code) == (403, "permission_denied")


async def test_malformed_requests_are_invalid_argument_naming_the_type(
        web: Web, web_server: RunningServer) -> None:
    garbage = b"\xff\xff\xff"
    async with grpc.aio.insecure_channel(web_server.address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await channel.unary_unary("/bezique.v1.TableService/GetView", None, None)(garbage)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    answer = await web.http.post("/bezique.v1.TableService/GetView", content=garbage,
                                 headers={"content-type": "application/proto"})
    assert answer.status_code == 400
    failure = connect_failure(400, answer.json())
    assert failure.code == "invalid_argument"
    assert "bezique.v1.GetViewRequest" in failure.message
    assert summary(failure.details) == details(caught.value) == {
        "reason": "INVALID_ARGUMENT", "metadata": {}, "fields": ["request"], "legal": []}
    answer = await web.http.post("/bezique.v1.TableService/GetView", content=b"{not json",
                                 headers={"content-type": "application/json"})
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_argument"
    answer = await web.http.post("/bezique.v1.TableService/NoSuchCall", content=b"{}",
                                 headers={"content-type": "application/json"})
    assert answer.status_code == 501 and answer.json()["code"] == "unimplemented"
    answer = await web.http.post("/bezique.v1.TableService/GetView", content=b"{}",
                                 headers={"content-type": "text/plain"})
    assert answer.status_code == 415
    answer = await web.http.get("/bezique.v1.TableService/GetView")
    assert answer.status_code == 405
    # WatchTable is a stream: not callable with the unary content type
    answer = await web.http.post("/bezique.v1.TableService/WatchTable", content=b"{}",
                                 headers={"content-type": "application/json"})
    assert answer.status_code == 415


async def test_a_request_over_the_message_limit_is_resource_exhausted(web: Web) -> None:
    huge = pb.JoinTableRequest(table_id="x", display_name="n" * (1 << 20))
    with pytest.raises(Failure) as failed:
        await web.connect("JoinTable", huge, pb.JoinTableResponse)
    assert (failed.value.http_status, failed.value.code) == (429, "resource_exhausted")
    assert summary(failed.value.details)["reason"] == "RESOURCE_EXHAUSTED"
    with pytest.raises(Failure) as failed:
        await web.grpc_web("JoinTable", huge, pb.JoinTableResponse)
    assert failed.value.code == str(grpc.StatusCode.RESOURCE_EXHAUSTED.value[0])
    assert summary(failed.value.details)["reason"] == "RESOURCE_EXHAUSTED"


async def test_a_connect_deadline_ends_a_call_as_deadline_exceeded(web: Web) -> None:
    table_id = await new_table(web)
    seen = []
    with pytest.raises(Failure) as failed:
        async with asyncio.timeout(20):
            async for update in web.connect_stream(
                    "WatchTable", pb.WatchTableRequest(table_id=table_id),
                    pb.WatchTableResponse, headers={"connect-timeout-ms": "300"}):
                seen.append(update.version)
    assert failed.value.code == "deadline_exceeded"
    assert seen == [1]
