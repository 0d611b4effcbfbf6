"""Moves with amounts over a real port: a ``bezique-server`` subprocess offers a Quart raise as
one move with a range; any level in it is accepted, one outside is refused naming the range,
and the history keeps the exact amount played."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from bezique.clients.render import detail_dict
from bezique.clients.sdk import AsyncTableClient, SeatHandle, with_amount
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import ServerProcess, details, spawn_server


async def _quart_table(client: AsyncTableClient) -> tuple[SeatHandle, SeatHandle, pb.View]:
    """A two-player Quart table, both seats people, seat 0 to open (seat 1 deals)."""
    table = await client.create_table("quart-bezique", {"players": "2"}, first_dealer=1)
    first = await client.join(table.table_id, 0, "first")
    second = await client.join(table.table_id, 1, "second")
    view = await client.view(table.table_id, first.token)
    assert view.to_move == [0]
    return first, second, view


def _raise_offer(view: pb.View) -> pb.Move:
    [offer] = [move for move in view.legal_moves if move.kind == "raise"]
    return offer


async def test_a_raise_to_any_level_in_range_is_accepted_and_one_outside_refused(
        server_process_factory: list[ServerProcess]) -> None:
    process = spawn_server("--store", "memory:", "--test-mode")
    server_process_factory.append(process)
    async with AsyncTableClient(process.address, retries=0) as client:
        first, second, view = await _quart_table(client)
        offer = _raise_offer(view)
        # ante 10 from a stack of 1000: the opener raises to any level from min_bet 10 to 990
        assert offer.HasField("amount_range") and offer.amount == 10
        assert (offer.amount_range.minimum, offer.amount_range.maximum,
                offer.amount_range.step) == (10, 990, 1)

        for wrong in (991, 9, 2000):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await client.submit(first, pb.Move(kind="raise", amount=wrong), view.version)
            error = caught.value
            assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
            found = details(error)
            assert found["reason"] == "ILLEGAL_MOVE"
            assert found["metadata"] == {"field": "move.amount", "amount_min": "10",
                                         "amount_max": "990", "amount_step": "1"}
            message = error.details() or ""
            assert f"amount {wrong} is outside the offered range 10..990" in message

        accepted = await client.submit(first, with_amount(offer, 37), view.version)
        assert [e.kind for e in accepted.events][:1] == ["raise"]
        assert accepted.view.detail["level"] == 37

        # the next seat's raise is offered from 37 + 10; 46 is refused, 123 is accepted
        view = await client.view(first.table_id, second.token)
        offer = _raise_offer(view)
        assert (offer.amount_range.minimum, offer.amount_range.maximum) == (47, 990)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await client.submit(second, pb.Move(kind="raise", amount=46), view.version)
        assert details(caught.value)["metadata"] == {
            "field": "move.amount", "amount_min": "47", "amount_max": "990", "amount_step": "1"}
        with pytest.raises(ValueError, match="47 to 990"):
            with_amount(offer, 46)  # the SDK says so before any call
        await client.submit(second, with_amount(offer, 123), view.version)

        history = await client.history(first.table_id)
        raises = [entry.move.amount for entry in history.entries if entry.move.kind == "raise"]
        assert raises == [37, 123]
        # the logged moves are exact amounts, without a range
        assert not any(entry.move.HasField("amount_range") for entry in history.entries)


async def test_a_log_of_exact_raise_levels_replays_after_a_restart(
        server_process_factory: list[ServerProcess], tmp_path: Path) -> None:
    """A log holds exact amounts only: levels the old fixed list offered (20, 30) and one it
    never did (47) are replayed from the store by a fresh server, to the same table."""
    store = f"sqlite:{tmp_path / 'tables.sqlite'}"
    first_server = spawn_server("--store", store, "--test-mode")
    server_process_factory.append(first_server)
    async with AsyncTableClient(first_server.address, retries=0) as client:
        table = await client.create_table("quart-bezique", {"players": "3"}, first_dealer=2)
        seats = [await client.join(table.table_id, s, f"p{s}") for s in range(3)]
        for seat, level in ((0, 20), (1, 30), (2, 47)):
            view = await client.view(table.table_id, seats[seat].token)
            await client.submit(seats[seat], pb.Move(kind="raise", amount=level), view.version)
        before = await client.view(table.table_id, seats[0].token)
    assert first_server.terminate() == 0
    second_server = spawn_server("--store", store, "--test-mode")
    server_process_factory.append(second_server)
    async with AsyncTableClient(second_server.address, retries=0) as client:
        after = await client.view(table.table_id, seats[0].token)
        history = await client.history(table.table_id)
    assert after.version == before.version and after.detail["level"] == 47
    assert detail_dict(after.detail)["contributions"] == [20, 30, 47]
    assert [e.move.amount for e in history.entries if e.move.kind == "raise"] == [20, 30, 47]
