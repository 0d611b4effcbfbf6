"""Play again with the same seats (CreateTableRequest.rematch_of) over a real port: the rematch
copies the finished table's variant, options, bots and turn clock, every caller gets the same
table, and a table that has not ended, or a request that also names what it would copy, is
refused naming the field."""

from __future__ import annotations

import grpc

from bezique.clients.sdk import AsyncTableClient
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import details, until
from tests.service.helpers import expect_error, serving


async def finished_with_a_bot(client: AsyncTableClient) -> tuple[str, pb.View]:
    table = await client.create_table("highcard", {"players": 3, "hand_size": 1},
                                      bots={2: "random"}, turn_seconds=30)
    ann = await client.join(table.table_id, 0, name="ann", commit=False)
    bob = await client.join(table.table_id, 1, name="bob", commit=False)
    seats = {0: ann, 1: bob}

    async def moved() -> pb.View:
        view = await client.view(table.table_id)
        if not view.HasField("outcome") and view.to_move and view.to_move[0] in seats:
            seat = seats[view.to_move[0]]
            own = await client.view(table.table_id, seat.token)
            if own.legal_moves:
                await client.submit(seat, own.legal_moves[0], own.version)
        return view

    view = await until(moved, lambda v: v.HasField("outcome"), "the game to end", timeout=20)
    return table.table_id, view


async def test_a_rematch_copies_the_table_and_is_the_same_for_every_caller() -> None:
    async with serving() as (server, client), \
            AsyncTableClient(server.address, retries=0) as other:
        table_id, _ = await finished_with_a_bot(client)
        first = await client.rematch(table_id)
        second = await other.rematch(table_id)
        assert not first.existed and second.existed
        assert first.table_id == second.table_id != table_id
        summary = first.table
        assert summary.variant_id == "highcard" and summary.turn_seconds == 30
        assert dict(summary.options) == {"players": "3", "hand_size": "1"}
        assert [seat.bot_policy for seat in summary.seats] == ["", "", "random"]
        assert summary.free_seats == 2 and not summary.finished
        # the previous players take their seats again and the game starts
        await client.join(first.table_id, 0, name="ann", commit=False)
        await other.join(first.table_id, 1, name="bob", commit=False)
        assert not (await client.view(first.table_id)).waiting_for_players
        # the finished table is as it was
        assert (await client.view(table_id)).HasField("outcome")


async def test_a_rematch_is_refused_before_the_end_and_with_fields_it_copies() -> None:
    async with serving() as (_, client):
        table = await client.create_table("highcard", {"players": 2})
        error = await expect_error(grpc.StatusCode.FAILED_PRECONDITION,
                                   client.rematch(table.table_id))
        assert "has not ended" in (error.details() or "")
        error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.stub.CreateTable(
            pb.CreateTableRequest(rematch_of=table.table_id, variant_id="highcard")))
        assert details(error)["fields"] == ["variant_id"]
        await expect_error(grpc.StatusCode.NOT_FOUND, client.rematch("0123456789abcdef"))
