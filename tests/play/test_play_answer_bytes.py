"""The bytes SubmitMove and a Play result are now built from (the view's rendered bytes
appended as field 2) parse to exactly the message the message API built before, for real
moves of the built-in games (bezique-2p, quart-bezique), duplicates included, and a Play
result's accepted answer equals SubmitMove's over gRPC."""

from __future__ import annotations

import random

from bezique.clients.sdk import AsyncTableClient
from bezique.service import translate
from bezique.service.commands import MoveResult
from bezique.service.server import RunningServer
from bezique.v1 import table_service_pb2 as pb


def old_submit_move_response(result: MoveResult) -> pb.SubmitMoveResponse:
    """SubmitMove's answer as 3698429^ built it (a message, the view merged in)."""
    live = result.after.live
    shoe = live.variant.shoe(live.record.options)
    response = pb.SubmitMoveResponse(version=result.version, duplicate=result.duplicate)
    translate.add_events(response.events, shoe, result.version, result.events)
    translate.view_to_pb(result.after, into=response.view)
    return response


def old_play_accepted(request_id: str, result: MoveResult) -> bytes:
    answer = pb.PlayResponse(result=pb.PlayResult(request_id=request_id))
    answer.result.accepted.CopyFrom(old_submit_move_response(result))
    return answer.SerializeToString()


async def _check_game(server: RunningServer, client: AsyncTableClient, variant: str,
                      options: dict[str, object], players: int, moves: int) -> int:
    table = await client.create_table(variant, options)
    seats = {}
    for _ in range(players):
        handle = await client.join(table.table_id)
        seats[handle.seat] = handle
    rng = random.Random(7)
    checked = 0
    for n in range(moves):
        view = await client.view(table.table_id)
        if view.HasField("outcome") or not view.to_move:
            break
        seat = seats[view.to_move[0]]
        own = await client.view(table.table_id, seat.token)
        move = rng.choice(list(own.legal_moves))
        rid = f"r{n}"
        result = await server.manager.submit(table.table_id, seat.token,
                                             translate.move_from_pb(move), own.version, rid)
        new = translate.submit_move_wire(result)
        parsed = pb.SubmitMoveResponse.FromString(new)
        old = old_submit_move_response(result)
        assert parsed == old, (variant, n)
        assert parsed.HasField("view") == old.HasField("view")
        assert parsed.SerializeToString(deterministic=True) == \
            old.SerializeToString(deterministic=True)
        data, version = translate.play_accepted(rid, result)
        assert version == result.version
        assert pb.PlayResponse.FromString(data) == \
            pb.PlayResponse.FromString(old_play_accepted(rid, result))
        # the same move again: a duplicate, answered from the log
        again = await server.manager.submit(table.table_id, seat.token,
                                            translate.move_from_pb(move), own.version, rid)
        assert again.duplicate
        assert pb.SubmitMoveResponse.FromString(translate.submit_move_wire(again)) == \
            old_submit_move_response(again)
        # and SubmitMove over gRPC sends those bytes: a repeated request id, so the same answer
        unary = await client.submit(seat, move, own.version, rid)
        assert unary == old_submit_move_response(
            await server.manager.submit(table.table_id, seat.token,
                                        translate.move_from_pb(move), own.version, rid))
        checked += 1
    return checked


async def test_bezique_2p_answers_parse_to_the_old_messages(
        builtin_server: RunningServer) -> None:
    async with AsyncTableClient(builtin_server.address, retries=0) as client:
        assert await _check_game(builtin_server, client, "bezique-2p", {"target": "10"}, 2,
                                 40) > 10


async def test_quart_answers_parse_to_the_old_messages(builtin_server: RunningServer) -> None:
    async with AsyncTableClient(builtin_server.address, retries=0) as client:
        assert await _check_game(builtin_server, client, "quart-bezique",
                                 {"players": 3, "deals": 3}, 3, 40) > 2
