"""Seats bound to platform players, over a real port: a platform (API key) joins seats for its
players with a player_id and, in Quart-Bezique, a buy-in that becomes the seat's starting
stack; both are in the log, the views, the table list and the history, and verify replays it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.clients.verify import VerificationError, verify_history
from bezique.service.server import RunningServer, start_server
from bezique.service.settings import Limits
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.registry import load_registry
from tests.helpers import details, server_config
from tests.service.helpers import expect_error

KEY = "platform-key"
QUART = {"players": 2, "deals": 2, "ante": 10, "min_buy_in": 50, "max_buy_in": 5000}


@pytest.fixture
async def platform_server() -> AsyncIterator[RunningServer]:
    server = await start_server(server_config(api_key=KEY), load_registry())
    yield server
    await server.stop()


async def play_out(client: AsyncTableClient, table_id: str,
                   seats: dict[int, object]) -> pb.View:
    """Play the first legal move of the seat to move until the game ends (bounded)."""
    for _ in range(2000):
        view = await client.view(table_id)
        if view.HasField("outcome"):
            return view
        handle = seats[view.to_move[0]]
        own = await client.view(table_id, handle.token)  # type: ignore[attr-defined]
        await client.submit(handle, own.legal_moves[0], own.version)  # type: ignore[arg-type]
    raise AssertionError("the game did not end")


async def test_buy_ins_reach_the_quart_game_and_verify_replays_them(
        platform_server: RunningServer) -> None:
    async with AsyncTableClient(platform_server.address, api_key=KEY, retries=0) as platform:
        table = await platform.create_table("quart-bezique", QUART)
        ann = await platform.join(table.table_id, 0, "ann", player_id="acct-17", buy_in=3000)
        bob = await platform.join(table.table_id, 1, "bob", player_id="acct-42", buy_in=50)
        view = await platform.view(table.table_id, ann.token)
        seats = {s.seat: s for s in view.seats}
        assert (seats[0].player_id, seats[0].buy_in) == ("acct-17", 3000)
        assert (seats[1].player_id, seats[1].buy_in) == ("acct-42", 50)
        # the ante (10) is in the pot: every chip in play is a chip bought in
        assert (seats[0].stack, seats[1].stack) == (2990, 40)
        assert sum(s.stack for s in view.seats) + view.pot == 3050
        (summary,) = [t for t in await platform.list_tables() if t.table_id == table.table_id]
        assert [(s.player_id, s.buy_in) for s in summary.seats] == [("acct-17", 3000),
                                                                      ("acct-42", 50)]
        end = await play_out(platform, table.table_id, {0: ann, 1: bob})
        assert sum(end.outcome.scores) == 3050
        history = await platform.history(table.table_id)
        joined = [e for e in history.entries if e.entry_kind == "joined"]
        assert [(e.binding.player_id, e.binding.buy_in) for e in joined] == [
            ("acct-17", 3000), ("acct-42", 50)]
        verified = verify_history(history)
        assert verified.deals >= 1
        joined[1].binding.buy_in = 60  # a history that lies about a buy-in fails the replay
        with pytest.raises(VerificationError):
            verify_history(history)


async def test_a_seat_without_a_buy_in_starts_with_the_tables_stack(
        platform_server: RunningServer) -> None:
    async with AsyncTableClient(platform_server.address, api_key=KEY, retries=0) as platform:
        table = await platform.create_table("quart-bezique", {**QUART, "starting_stack": 700})
        await platform.join(table.table_id, 0, "ann", buy_in=900)
        await platform.join(table.table_id, 1, "bob")
        view = await platform.view(table.table_id)
        assert [(s.buy_in, s.stack) for s in view.seats] == [(900, 890), (0, 690)]
        assert not view.seats[1].player_id


@pytest.mark.parametrize(("request_fields", "field"), [
    ({"buy_in": 49}, "buy_in"), ({"buy_in": 5001}, "buy_in"), ({"buy_in": -5}, "buy_in"),
    ({"player_id": "x" * 129}, "player_id"), ({"player_id": "bad\nid"}, "player_id"),
])
async def test_bindings_out_of_bounds_are_refused_naming_the_field(
        platform_server: RunningServer, request_fields: dict[str, object], field: str) -> None:
    async with AsyncTableClient(platform_server.address, api_key=KEY, retries=0) as platform:
        table = await platform.create_table("quart-bezique", QUART)
        error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT, platform.join(
            table.table_id, 0, "ann", **request_fields))  # type: ignore[arg-type]
        assert details(error)["fields"] == [field]
        assert (await platform.view(table.table_id)).seats[0].occupied is False


async def test_list_tables_filters_by_a_player_id_as_long_as_a_seat_can_be_bound_to(
        platform_server: RunningServer) -> None:
    """One player-id length (``Limits.max_player_id``) for a binding and for the filter: the
    longest id a seat can hold is a filter, one character more is refused naming the field."""
    longest = Limits.max_player_id
    async with AsyncTableClient(platform_server.address, api_key=KEY, retries=0) as platform:
        table = await platform.create_table("quart-bezique", QUART)
        await platform.join(table.table_id, 0, "ann", player_id="p" * longest)
        listed = await platform.list_tables(player_id="p" * longest)
        assert [t.table_id for t in listed] == [table.table_id]
        error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                                   platform.list_tables(player_id="p" * (longest + 1)))
        assert details(error)["fields"] == ["player_id"]


async def test_a_variant_without_buy_ins_refuses_one(platform_server: RunningServer) -> None:
    async with AsyncTableClient(platform_server.address, api_key=KEY, retries=0) as platform:
        table = await platform.create_table("bezique-2p")
        error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                                   platform.join(table.table_id, 0, "ann", buy_in=100))
        assert details(error)["fields"] == ["buy_in"]
        seat = await platform.join(table.table_id, 0, "ann", player_id="acct-1")
        assert (await platform.view(table.table_id, seat.token)).seats[0].player_id == "acct-1"


async def test_a_binding_needs_the_platform_api_key(platform_server: RunningServer) -> None:
    async with AsyncTableClient(platform_server.address, api_key=KEY, retries=0) as platform, \
            AsyncTableClient(platform_server.address, retries=0) as player, \
            AsyncTableClient(platform_server.address, api_key="wrong", retries=0) as forger:
        table = await platform.create_table("quart-bezique", QUART)
        for fields in ({"player_id": "acct-1"}, {"buy_in": 100}):
            await expect_error(grpc.StatusCode.UNAUTHENTICATED,
                               player.join(table.table_id, 0, "ann", **fields))  # type: ignore[arg-type]
            await expect_error(grpc.StatusCode.PERMISSION_DENIED,
                               forger.join(table.table_id, 0, "ann", **fields))  # type: ignore[arg-type]
        # a table with buy-ins takes no seat the platform did not vouch for (a stack no
        # wallet paid for); an unbound seat of a table without buy-ins needs no key
        refused = await expect_error(grpc.StatusCode.UNAUTHENTICATED,
                                     player.join(table.table_id, 0, "ann"))
        assert details(refused)["reason"] == "GRANT_REQUIRED"
        other = await platform.create_table("bezique-2p")
        plain = await player.join(other.table_id, 0, "ann")
        assert (await player.view(other.table_id, plain.token)).seats[0].player_id == ""


async def test_quart_refuses_buy_in_bounds_that_clash(platform_server: RunningServer) -> None:
    async with AsyncTableClient(platform_server.address, api_key=KEY, retries=0) as platform:
        for options, field in (({"ante": 20, "min_buy_in": 10}, "options[min_buy_in]"),
                               ({"min_buy_in": 500, "max_buy_in": 400}, "options[max_buy_in]")):
            error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                                       platform.create_table("quart-bezique", options))
            assert details(error)["fields"] == [field]
