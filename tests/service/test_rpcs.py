"""Every RPC's success path and its error paths, over a real port (the highcard example)."""

from __future__ import annotations

import hashlib

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient, SeatHandle, auth_metadata
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import details, until
from tests.service.helpers import STACK, STARTED, expect_error, play_out, two_seats

# test_grants.py (being edited elsewhere) still imports expect_error from here


async def test_list_variants_gives_the_option_schema(client: AsyncTableClient) -> None:
    (variant,) = await client.list_variants()
    assert (variant.id, variant.min_seats, variant.max_seats) == ("highcard", 2, 4)
    options = {o.name: o for o in variant.options}
    assert options["hand_size"].type == pb.OPTION_TYPE_INT
    assert (options["hand_size"].default_value, options["hand_size"].minimum,
            options["hand_size"].maximum) == ("3", 1, 8)
    assert options["hand_size"].description
    assert list(variant.bot_policies) == ["random", "highest"]


async def test_create_table_publishes_the_commitment(client: AsyncTableClient) -> None:
    table = await client.create_table("highcard", {"players": 3, "hand_size": 5})
    assert len(table.seed_commitment) == 64
    assert table.table.options["hand_size"] == "5"
    assert table.table.free_seats == 3 and table.table.phase == "waiting"


@pytest.mark.parametrize(("options", "field"), [
    ({"hand_size": 9}, "options[hand_size]"),
    ({"hand_size": "many"}, "options[hand_size]"),
    ({"colour": "red"}, "options[colour]"),
])
async def test_create_table_names_the_bad_option(client: AsyncTableClient,
                                                 options: dict[str, object], field: str) -> None:
    error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                               client.create_table("highcard", options))
    assert details(error)["fields"] == [field]
    assert field.split("[")[1].rstrip("]") in (error.details() or "")


async def test_create_table_refuses_an_unknown_variant(client: AsyncTableClient) -> None:
    error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.create_table("chess"))
    assert details(error)["fields"] == ["variant_id"]


async def test_create_table_refuses_bad_bot_seats(client: AsyncTableClient) -> None:
    await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                       client.create_table("highcard", bots={5: "random"}))
    error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                               client.create_table("highcard", bots={1: "genius"}))
    assert "highest" in (error.details() or "")


async def test_stacked_shoe_must_be_exactly_the_shoe(client: AsyncTableClient) -> None:
    error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                               client.create_table("highcard", stacked_shoe=["AS"] * 32))
    assert details(error)["fields"] == ["test.stacked_shoe"]


async def test_list_tables_filters(client: AsyncTableClient) -> None:
    open_table = await client.create_table("highcard")
    full_id, _, _ = await two_seats(client)
    listed = {t.table_id: t for t in await client.list_tables("highcard")}
    assert {open_table.table_id, full_id} <= set(listed)
    assert listed[full_id].free_seats == 0 and listed[full_id].phase == "play"
    only_open = {t.table_id for t in await client.list_tables(only_open=True)}
    assert open_table.table_id in only_open and full_id not in only_open
    assert await client.list_tables("no-such-variant") == []


async def test_join_first_free_or_a_given_seat(client: AsyncTableClient) -> None:
    table = await client.create_table("highcard", {"players": 3})
    second = await client.join(table.table_id, seat=1, name="bob")
    first = await client.join(table.table_id, name="ann")
    assert (second.seat, first.seat) == (1, 0)
    assert first.token != second.token and len(first.token) >= 40
    error = await expect_error(grpc.StatusCode.FAILED_PRECONDITION,
                               client.join(table.table_id, seat=1))
    assert details(error)["reason"] == "SEAT_TAKEN"
    await expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.join(table.table_id, seat=7))
    await expect_error(grpc.StatusCode.NOT_FOUND, client.join("feedfeedfeedfeed"))
    await client.join(table.table_id)
    error = await expect_error(grpc.StatusCode.FAILED_PRECONDITION, client.join(table.table_id))
    assert details(error)["reason"] == "TABLE_FULL"


async def test_leave_before_the_start_only(client: AsyncTableClient) -> None:
    table = await client.create_table("highcard")
    seat = await client.join(table.table_id)
    version = await client.leave(seat)
    assert version == 3
    (summary,) = [t for t in await client.list_tables() if t.table_id == table.table_id]
    assert summary.free_seats == 2
    await expect_error(grpc.StatusCode.PERMISSION_DENIED, client.leave(seat))
    await expect_error(grpc.StatusCode.UNAUTHENTICATED,
                       client.leave(SeatHandle(table.table_id, 0, "")))
    _, first, _ = await two_seats(client)
    await expect_error(grpc.StatusCode.FAILED_PRECONDITION, client.leave(first))


async def test_a_seat_sees_its_hand_and_nobody_else_does(client: AsyncTableClient) -> None:
    table_id, first, second = await two_seats(client, stacked_shoe=STACK)
    mine = await client.view(table_id, first.token)
    theirs = await client.view(table_id, second.token)
    spectator = await client.view(table_id)
    assert [c.code for c in mine.hand] == ["7S", "KH", "AS"] or sorted(
        c.code for c in mine.hand) == ["7S", "AS", "KH"]
    assert sorted(c.code for c in theirs.hand) == ["8H", "9D", "QD"]
    assert not spectator.hand and not spectator.HasField("viewer_seat")
    assert [s.hidden_hand_count for s in spectator.seats] == [3, 3]
    everything = str(spectator) + str(theirs)
    for card in mine.hand:
        assert f'code: "{card.code}"' not in everything
    assert mine.legal_moves and not theirs.legal_moves and not spectator.legal_moves
    assert mine.viewer_seat == 0 and list(mine.to_move) == [0]


async def test_submit_move_applies_and_returns_the_new_view(client: AsyncTableClient) -> None:
    table_id, first, _ = await two_seats(client, stacked_shoe=STACK)
    view = await client.view(table_id, first.token)
    ace = next(m for m in view.legal_moves if m.cards[0].code == "AS")
    result = await client.submit(first, ace, view.version, "req-1")
    assert result.version == view.version + 1 and not result.duplicate
    assert [e.kind for e in result.events] == ["play"]
    assert [c.code for c in result.events[0].cards] == ["AS"]
    assert sorted(c.code for c in result.view.hand) == ["7S", "KH"]
    assert list(result.view.to_move) == [1]


async def test_a_stale_version_is_aborted_with_the_current_one(client: AsyncTableClient) -> None:
    table_id, first, _ = await two_seats(client)
    view = await client.view(table_id, first.token)
    error = await expect_error(grpc.StatusCode.ABORTED,
                               client.submit(first, view.legal_moves[0], view.version - 1))
    info = details(error)
    assert info["reason"] == "STALE_VERSION"
    assert info["metadata"] == {"current_version": str(view.version),
                                "expected_version": str(view.version - 1)}
    assert (await client.view(table_id, first.token)).version == view.version


async def test_a_repeated_request_id_is_applied_once(client: AsyncTableClient) -> None:
    table_id, first, _ = await two_seats(client)
    view = await client.view(table_id, first.token)
    once = await client.submit(first, view.legal_moves[0], view.version, "same-id")
    again = await client.submit(first, view.legal_moves[0], view.version, "same-id")
    assert again.duplicate and again.version == once.version
    assert [e.kind for e in again.events] == [e.kind for e in once.events]
    history = await client.history(table_id)
    assert sum(1 for e in history.entries if e.entry_kind == "move") == 1


async def test_another_seat_cannot_reuse_a_request_id(client: AsyncTableClient) -> None:
    table_id, first, second = await two_seats(client)
    view = await client.view(table_id, first.token)
    await client.submit(first, view.legal_moves[0], view.version, "reused")
    other = await client.view(table_id, second.token)
    error = await expect_error(grpc.StatusCode.FAILED_PRECONDITION, client.submit(
        second, other.legal_moves[0], other.version, "reused"))
    assert details(error)["reason"] == "REQUEST_ID_REUSED"
    assert (await client.view(table_id)).version == other.version


async def test_a_seat_reusing_its_request_id_at_a_later_version(
        client: AsyncTableClient) -> None:
    table = await client.create_table("highcard", {"players": 2, "hand_size": 8},
                                      bots={1: "random"})
    seat = await client.join(table.table_id)
    view = await client.view(table.table_id, seat.token)
    once = await client.submit(seat, view.legal_moves[0], view.version, "mine")
    later = await until(lambda: client.view(table.table_id, seat.token),
                        lambda v: bool(v.legal_moves), "seat 0's next turn")
    again = await client.submit(seat, later.legal_moves[0], later.version, "mine")
    assert again.duplicate and again.version == once.version
    history = await client.history(table.table_id)
    assert sum(1 for e in history.entries if e.entry_kind == "move") == 1


async def test_illegal_moves_name_the_move_and_the_legal_ones(client: AsyncTableClient) -> None:
    table_id, first, second = await two_seats(client, stacked_shoe=STACK)
    view = await client.view(table_id, first.token)
    foreign = pb.Move(kind="play", cards=[pb.Card(id=next(
        c.id for c in (await client.view(table_id, second.token)).hand))])
    error = await expect_error(grpc.StatusCode.FAILED_PRECONDITION,
                               client.submit(first, foreign, view.version))
    info = details(error)
    assert info["reason"] == "ILLEGAL_MOVE"
    # named in words, by the same text as the view's legal moves carry
    assert sorted(info["legal"]) == ["play 7♠", "play A♠", "play K♥"]  # type: ignore[call-overload]
    assert sorted(info["legal"]) == sorted(m.text for m in view.legal_moves)  # type: ignore[call-overload]
    # seat 1 may not move for seat 0, nor out of turn
    error = await expect_error(grpc.StatusCode.FAILED_PRECONDITION,
                               client.submit(second, view.legal_moves[0], view.version))
    assert "not seat 1's turn" in (error.details() or "")
    await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                       client.submit(first, pb.Move(), view.version))
    assert (await client.view(table_id, first.token)).version == view.version


async def test_tokens_are_checked(client: AsyncTableClient) -> None:
    table_id, first, _ = await two_seats(client)
    view = await client.view(table_id, first.token)
    other_table, _, _ = await two_seats(client)
    await expect_error(grpc.StatusCode.PERMISSION_DENIED, client.submit(
        SeatHandle(other_table, 0, first.token), view.legal_moves[0], view.version))
    await expect_error(grpc.StatusCode.PERMISSION_DENIED, client.submit(
        SeatHandle(table_id, 0, "forged-token"), view.legal_moves[0], view.version))
    await expect_error(grpc.StatusCode.UNAUTHENTICATED, client.submit(
        SeatHandle(table_id, 0, ""), view.legal_moves[0], view.version))
    bad_header = client.stub.GetView(pb.GetViewRequest(table_id=table_id),
                                     metadata=(("authorization", "Basic abc"),))
    await expect_error(grpc.StatusCode.UNAUTHENTICATED, bad_header)


async def test_moves_wait_for_every_seat(client: AsyncTableClient) -> None:
    table = await client.create_table("highcard")
    seat = await client.join(table.table_id)
    view = await client.view(table.table_id, seat.token)
    assert view.waiting_for_players and not view.legal_moves
    error = await expect_error(grpc.StatusCode.FAILED_PRECONDITION, client.submit(
        seat, pb.Move(kind="play", cards=[pb.Card(id=0)]), view.version))
    assert details(error)["reason"] == "WAITING_FOR_PLAYERS"


async def test_history_is_redacted_until_the_end(client: AsyncTableClient) -> None:
    table_id, first, second = await two_seats(client, stacked_shoe=STACK)
    during = await client.history(table_id, first.token)
    assert not during.finished and not during.revealed_seed
    dealt = [e for entry in during.entries for e in entry.events if e.kind == "deal"]
    assert sorted(c.code for c in dealt[0].cards) == ["7S", "AS", "KH"]
    assert not dealt[1].cards and dealt[1].hidden_count == 3
    spectator = await client.history(table_id)
    assert all(not e.cards for entry in spectator.entries for e in entry.events)
    await play_out(client, table_id, first, second)
    after = await client.history(table_id)
    assert after.finished and after.HasField("outcome")
    assert hashlib.sha256(after.revealed_seed).hexdigest() == after.seed_commitment
    assert list(after.test.stacked_shoe) == STACK
    dealt = [e for entry in after.entries for e in entry.events if e.kind == "deal"]
    assert sorted(c.code for c in dealt[1].cards) == ["8H", "9D", "QD"]
    assert [e.entry_kind for e in after.entries][:STARTED] == [
        "created", "joined", "joined", "revealed", "revealed", "started"]
    assert [e.version for e in after.entries] == list(range(1, len(after.entries) + 1))


async def test_bot_seats_play_through_the_same_path(client: AsyncTableClient) -> None:
    table = await client.create_table("highcard", bots={0: "highest", 1: "random"})
    history = await until(lambda: client.history(table.table_id), lambda h: h.finished,
                          "the bots to finish")
    kinds = [e.entry_kind for e in history.entries]
    assert kinds.count("bot_move") == 6 and "move" not in kinds


async def test_history_and_view_of_an_unknown_table(client: AsyncTableClient) -> None:
    for call in (client.view("0123456789abcdef"), client.history("0123456789abcdef")):
        error = await expect_error(grpc.StatusCode.NOT_FOUND, call)
        assert "0123456789abcdef" in (error.details() or "")
    await expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.view(""))


async def test_test_settings_need_test_mode() -> None:
    from bezique.service.server import start_server
    from tests.helpers import highcard_registry, server_config

    running = await start_server(server_config(test_mode=False), highcard_registry())
    try:
        async with AsyncTableClient(running.address, retries=0) as sdk:
            for settings in ({"seed": b"x" * 32}, {"stacked_shoe": STACK},
                             {"first_dealer": 1}):
                await expect_error(grpc.StatusCode.PERMISSION_DENIED,
                                   sdk.create_table("highcard", **settings))  # type: ignore[arg-type]
            assert await sdk.create_table("highcard")
    finally:
        await running.stop()


async def test_a_fixed_seed_deals_the_same_twice(client: AsyncTableClient) -> None:
    hands = []
    for _ in range(2):
        table_id, first, _ = await two_seats(client, seed=b"s" * 32, entropy=b"")
        hands.append([c.code for c in (await client.view(table_id, first.token)).hand])
    assert hands[0] == hands[1]


async def test_metadata_helper() -> None:
    assert auth_metadata("t", "k") == (("authorization", "Bearer t"), ("x-api-key", "k"))
