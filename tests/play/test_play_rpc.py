"""Play over a real port, driven by hand: a whole game by every seat, each refusal answered in
its result without ending the stream, a repeated request id applied once, a resume, the
stream ends WatchTable has, its caps, and no card a seat may not see."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import grpc
import pytest
from google.protobuf.message import Message
from grpc_status import rpc_status

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import details, highcard_registry, server_config, until
from tests.play.helpers import RawPlay, movers_stream, refusal
from tests.security.test_leaks import cards_in
from tests.service.helpers import STACK, STARTED, expect_error, serving, two_seats

KEY = "platform-key"


@pytest.fixture
async def keyed() -> AsyncIterator[tuple[RunningServer, AsyncTableClient]]:
    server = await start_server(server_config(api_key=KEY), highcard_registry())
    async with AsyncTableClient(server.address, api_key=KEY, retries=0) as client:
        yield server, client
    await server.stop()


async def play_game(client: AsyncTableClient, table_id: str, streams: dict[int, RawPlay]
                    ) -> pb.View:
    """Every seat moves its first legal move on its own stream until the game is over (the
    spectator's view says whose turn it is); each result is checked against the update it
    follows. Returns the final view."""
    while True:
        table = await client.view(table_id)
        if table.HasField("outcome"):
            return table
        stream = streams[table.to_move[0]]
        view = await stream.turn(table.version)
        request_id = stream.move(view.legal_moves[0], view.version)
        result = await stream.result()
        assert result.request_id == request_id and result.code == 0, result.message
        assert result.accepted.version == view.version + 1 and not result.accepted.duplicate
        # the update of the version the move reached came first, with the same view
        assert stream.updates[-1].version == result.accepted.version
        assert stream.updates[-1].view == result.accepted.view


async def test_every_seat_plays_a_whole_game_over_play(client: AsyncTableClient) -> None:
    table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
    streams = {s.seat: RawPlay(client.stub, s.token, table_id) for s in (ann, bob)}
    watched: dict[int, list[pb.WatchTableResponse]] = {ann.seat: [], bob.seat: []}

    async def watch(seat: SeatHandle) -> None:
        async for update in client.watch(table_id, seat.token, resume=False):
            watched[seat.seat].append(update)

    watchers = [asyncio.create_task(watch(seat)) for seat in (ann, bob)]
    final = await play_game(client, table_id, streams)
    assert final.HasField("outcome")
    await asyncio.wait_for(asyncio.gather(*watchers), 10)
    for seat, stream in streams.items():
        await stream.rest()  # the stream ends OK after the final update
        assert [u.version for u in stream.updates] == list(range(1, final.version + 1))
        # the updates WatchTable sent the seat meanwhile
        assert stream.updates == watched[seat]
        # a stream not opened with answers_with_updates gets every answer on its own
        assert not any(m.HasField("answer") for m in stream.messages)


async def test_answers_with_updates_sends_a_taken_moves_answer_in_its_updates_message(
        client: AsyncTableClient) -> None:
    """Opened with answers_with_updates, a taken move's answer rides the message of the
    update it led to (one message fewer), unless that update went out first; a refusal still
    comes on its own. Every answer comes once, after the update of its version."""
    table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
    streams = {s.seat: RawPlay(client.stub, s.token, table_id, answers_with_updates=True)
               for s in (ann, bob)}
    view = await client.view(table_id)
    stale = streams[view.to_move[0]]
    mine = await stale.turn(view.version)
    refused_id = stale.move(mine.legal_moves[0], mine.version - 1)
    refused = await stale.result()
    assert refused.request_id == refused_id and refused.code == grpc.StatusCode.ABORTED.value[0]
    assert stale.messages[-1].HasField("result")  # a refusal: a message of its own
    final = await play_game(client, table_id, streams)
    ridden = 0
    for stream in streams.values():
        await stream.rest()
        assert [u.version for u in stream.updates] == list(range(1, final.version + 1))
        for message in stream.messages:
            if message.HasField("answer"):
                ridden += 1
                answer = message.answer
                assert answer.code == 0 and not message.HasField("result")
                assert message.update.version >= answer.accepted.version
                assert message.update.view == answer.accepted.view
    moves = final.version - STARTED
    answers = sum(m.HasField("answer") or (m.HasField("result") and m.result.code == 0)
                  for s in streams.values() for m in s.messages)
    assert answers == moves  # each once
    assert ridden > moves // 2  # most ride their update: its update is rarely out first


async def test_refusals_come_in_results_and_the_stream_goes_on(client: AsyncTableClient) -> None:
    table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
    view = await client.view(table_id)
    mover, other = (ann, bob) if view.to_move[0] == ann.seat else (bob, ann)
    streams = {s.seat: RawPlay(client.stub, s.token, table_id) for s in (ann, bob)}
    mine = await streams[mover.seat].turn(STARTED)
    theirs = await streams[other.seat].until_version(STARTED)
    # not your turn: the other seat offers its own first card
    hand = theirs.view.hand[0]
    streams[other.seat].move(pb.Move(kind="play", cards=[hand]), STARTED, "early")
    result = await streams[other.seat].result()
    assert result.request_id == "early" and refusal(result)["reason"] == "ILLEGAL_MOVE"
    assert "not seat" in result.message and "turn" in result.message
    # an illegal move: a card the mover does not hold, the legal moves in the details
    stream = streams[mover.seat]
    stream.move(pb.Move(kind="play", cards=[hand]), STARTED, "illegal")
    result = await stream.result()
    found = refusal(result)
    assert found["code"] == grpc.StatusCode.FAILED_PRECONDITION
    legal = found["legal"]
    assert found["reason"] == "ILLEGAL_MOVE"
    assert isinstance(legal, list) and len(legal) == len(mine.legal_moves) > 0
    # a stale version
    stream.move(mine.legal_moves[0], STARTED - 1, "stale")
    result = await stream.result()
    found = refusal(result)
    assert found["code"] == grpc.StatusCode.ABORTED and found["reason"] == "STALE_VERSION"
    assert found["metadata"]["current_version"] == str(STARTED)  # type: ignore[index]
    # a move with no move at all: INVALID_ARGUMENT naming the field, as SubmitMove says it
    stream.send(pb.PlayRequest(move=pb.PlayMove(expected_version=STARTED, request_id="none")))
    result = await stream.result()
    assert refusal(result)["fields"] == ["move"]
    # the stream goes on: a legal move is taken
    stream.move(mine.legal_moves[0], STARTED, "good")
    result = await stream.result()
    assert result.request_id == "good" and result.accepted.version == STARTED + 1
    # results came in the order the moves were sent
    ids = [m.result.request_id for m in stream.messages if m.HasField("result")]
    assert ids == ["illegal", "stale", "none", "good"]
    for each in streams.values():
        each.close()


async def test_a_refusal_has_submit_moves_code_message_and_details(
        client: AsyncTableClient) -> None:
    _, mover, stream, mine = await movers_stream(client)
    wrong = pb.Move(kind="play", cards=[pb.Card(id=999, code="XX")])
    unary = await expect_error(grpc.StatusCode.FAILED_PRECONDITION,
                               client.submit(mover, wrong, mine.version, "u1"))
    stream.move(wrong, mine.version, "p1")
    result = await stream.result()
    assert result.code == unary.code().value[0] and result.message == unary.details()
    status = rpc_status.from_call(unary)  # type: ignore[arg-type]
    assert status is not None and status.SerializeToString() == result.status_details
    stream.close()


async def test_a_repeated_request_id_is_answered_duplicate_and_applied_once(
        client: AsyncTableClient) -> None:
    table_id, mover, stream, mine = await movers_stream(client)
    stream.move(mine.legal_moves[0], mine.version, "once")
    first = await stream.result()
    stream.move(mine.legal_moves[0], mine.version, "once")
    again = await stream.result()
    assert not first.accepted.duplicate and again.accepted.duplicate
    assert again.accepted.version == first.accepted.version == mine.version + 1
    # and on another call (SubmitMove) as well
    unary = await client.submit(mover, mine.legal_moves[0], mine.version, "once")
    assert unary.duplicate and unary.version == first.accepted.version
    history = await client.history(table_id)
    assert [e.entry_kind for e in history.entries].count("move") == 1
    stream.close()


async def test_a_malformed_stream_ends_with_invalid_argument_naming_the_field(
        client: AsyncTableClient) -> None:
    table_id, ann, _ = await two_seats(client, stacked_shoe=STACK)
    # no open: a move first
    stream = RawPlay(client.stub, ann.token)
    stream.move(pb.Move(kind="play"), 0)
    error = await stream.error()
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert details(error)["fields"] == ["open"]
    # no message at all
    stream = RawPlay(client.stub, ann.token)
    stream.half_close()
    error = await stream.error()
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert details(error)["fields"] == ["open"]
    # open twice: the answers worked out before it still come, then the end
    stream = RawPlay(client.stub, ann.token, table_id)
    await stream.until_version(STARTED)
    stream.move(pb.Move(kind="play"), 0, "before")
    stream.send(pb.PlayRequest(open=pb.PlayOpen(table_id=table_id)))
    error = await stream.error()
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert details(error)["fields"] == ["open"]
    assert [m.result.request_id for m in stream.messages if m.HasField("result")] == ["before"]
    # an empty request id
    stream = RawPlay(client.stub, ann.token, table_id)
    await stream.until_version(STARTED)
    stream.move(pb.Move(kind="play"), STARTED, "")
    error = await stream.error()
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert details(error)["fields"] == ["move.request_id"]
    history = await client.history(table_id)
    assert history.entries[-1].version == STARTED  # nothing was applied


async def test_play_needs_a_seat_token(client: AsyncTableClient) -> None:
    table_id, _, _ = await two_seats(client, stacked_shoe=STACK)
    stream = RawPlay(client.stub, None, table_id)
    error = await stream.error()
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert details(error)["reason"] == "UNAUTHENTICATED"
    unary = await expect_error(grpc.StatusCode.UNAUTHENTICATED, client.stub.SubmitMove(
        pb.SubmitMoveRequest(table_id=table_id, move=pb.Move(kind="play"), request_id="x")))
    assert error.details() == unary.details()
    # a token of no seat here
    stream = RawPlay(client.stub, "not-a-token", table_id)
    assert (await stream.error()).code() == grpc.StatusCode.PERMISSION_DENIED


async def test_a_cut_stream_resumes_from_the_last_version(client: AsyncTableClient) -> None:
    table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
    stream = RawPlay(client.stub, ann.token, table_id)
    await stream.until_version(STARTED)
    stream.close()
    # the game moves on while ann's stream is gone
    view = await client.view(table_id)
    seats = {ann.seat: ann, bob.seat: bob}
    mover = seats[view.to_move[0]]
    mine = await client.view(table_id, mover.token)
    await client.submit(mover, mine.legal_moves[0], mine.version)
    resumed = RawPlay(client.stub, ann.token, table_id, from_version=STARTED)
    first = await resumed.next()
    assert first is not None and first.update.version == STARTED + 1
    final = await play_game(client, table_id, {
        ann.seat: resumed, bob.seat: RawPlay(client.stub, bob.token, table_id)})
    await resumed.rest()
    assert [u.version for u in resumed.updates] == list(range(STARTED + 1, final.version + 1))


async def test_a_given_up_seat_ends_its_play_stream(
        keyed: tuple[RunningServer, AsyncTableClient]) -> None:
    _, platform = keyed
    table = await platform.create_table("highcard", {"players": 2})
    ann = await platform.join(table.table_id, 0, "ann")
    stream = RawPlay(platform.stub, ann.token, table.table_id)
    await stream.until_version(2)
    await platform.leave(ann)
    error = await stream.error()
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert details(error)["reason"] == "SEAT_RELEASED"


async def test_a_reissued_token_ends_its_play_stream(
        keyed: tuple[RunningServer, AsyncTableClient]) -> None:
    _, platform = keyed
    table_id, ann, _ = await two_seats(platform, stacked_shoe=STACK)
    stream = RawPlay(platform.stub, ann.token, table_id)
    await stream.until_version(STARTED)
    new = await platform.reissue(table_id, ann.seat)
    error = await stream.error()
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert details(error)["reason"] == "SEAT_TOKEN_REVOKED"
    # nothing after the reissue reached the old token's stream
    assert stream.updates[-1].version == STARTED
    fresh = RawPlay(platform.stub, new.token, table_id, from_version=STARTED)
    assert (await fresh.until_version(STARTED + 1)).entry_kind == "token_reissued"
    fresh.close()


async def test_the_per_caller_stream_cap_counts_play_streams() -> None:
    async with serving(max_watchers_per_caller=2) as (_, client):
        table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
        first = RawPlay(client.stub, ann.token, table_id)
        await first.until_version(STARTED)
        second = RawPlay(client.stub, bob.token, table_id)
        await second.until_version(STARTED)
        error = await RawPlay(client.stub, ann.token, table_id).error()
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert details(error)["reason"] == "TOO_MANY_STREAMS"
        # a WatchTable stream finds no slot either
        watch = client.watch(table_id, None, resume=False)
        await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED, anext(watch))
        # a closed Play stream gives its slot back
        first.close()

        async def opens() -> bool:
            stream = RawPlay(client.stub, ann.token, table_id)
            try:
                await stream.until_version(STARTED)
            except grpc.aio.AioRpcError:
                return False
            finally:
                stream.close()
            return True

        await until(opens, bool, "a Play stream to open again")
        second.close()


async def test_play_moves_are_charged_as_submit_move_is() -> None:
    # the address's budget: 5 calls, then one a hundred seconds
    async with serving(rate_limit=0.01, rate_burst=5.0) as (_, client):
        table = await client.create_table("highcard", {"players": 2}, stacked_shoe=STACK)
        ann = await client.join(table.table_id, 0, "ann", commit=False)
        stream = RawPlay(client.stub, ann.token, table.table_id)  # the third call
        await stream.until_version(2)
        codes = []
        for number in range(4):
            stream.move(pb.Move(kind="play"), 2, f"m{number}")
            codes.append((await stream.result()).code)
        # two moves (no players yet), then the budget is spent: RATE_LIMITED in the result,
        # and the stream goes on answering
        assert codes == [grpc.StatusCode.FAILED_PRECONDITION.value[0]] * 2 + [
            grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]] * 2
        stream.move(pb.Move(kind="play"), 2, "last")
        assert refusal(await stream.result())["reason"] == "RATE_LIMITED"
        stream.close()


@pytest.mark.parametrize("answers_with_updates", [False, True])
async def test_no_play_stream_shows_a_card_its_seat_may_not_see(
        client: AsyncTableClient, answers_with_updates: bool) -> None:
    """Seat 0 holds AS 7S KH and seat 1 8H QD 9D: no message of a seat's Play stream names a
    card of the other's hand before the version at which it was played (an answer sent with
    an update is checked at its own version), and the spectator's stream shows no hand at all
    before it is played."""
    table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
    seats: dict[int, SeatHandle] = {ann.seat: ann, bob.seat: bob}
    hands = {ann.seat: {"AS", "7S", "KH"}, bob.seat: {"8H", "QD", "9D"}}
    streams = {s: RawPlay(client.stub, h.token, table_id,
                          answers_with_updates=answers_with_updates)
               for s, h in seats.items()}
    spectator: list[pb.WatchTableResponse] = []

    async def watch() -> None:
        async for update in client.watch(table_id, None, resume=False):
            spectator.append(update)

    watching = asyncio.create_task(watch())
    final = await play_game(client, table_id, streams)
    await asyncio.wait_for(watching, 10)
    played: dict[str, int] = {}  # card code -> the version it was played at
    for update in spectator:
        for event in update.events:
            for card in event.cards:
                played.setdefault(card.code, update.version)
    assert set(played) >= hands[0] | hands[1]  # every card was played in the end
    for seat, stream in streams.items():
        others = set().union(*(h for s, h in hands.items() if s != seat))
        parts: list[tuple[Message, int]] = [
            (m.update, m.update.version) for m in stream.messages if m.HasField("update")]
        parts += [(m.result, m.result.accepted.version) for m in stream.messages
                  if m.HasField("result")]
        parts += [(m.answer, m.answer.accepted.version) for m in stream.messages
                  if m.HasField("answer")]
        assert any(m.HasField("answer") for m in stream.messages) == answers_with_updates
        for part, version in parts:
            for card in cards_in(part):
                if card.code in others:
                    assert version >= played[card.code], (
                        f"seat {seat} saw {card.code} at version {version}, played at "
                        f"{played[card.code]}")
    assert final.HasField("outcome")


async def test_a_request_that_is_not_protobuf_ends_the_stream(client: AsyncTableClient) -> None:
    table_id, ann, _ = await two_seats(client, stacked_shoe=STACK)
    opened = pb.PlayRequest(open=pb.PlayOpen(table_id=table_id)).SerializeToString()

    async def requests() -> AsyncIterator[bytes]:
        yield opened
        yield b"\xff\xff\xff"

    play = client.channel.stream_stream("/bezique.v1.TableService/Play", None, None)
    call = play(requests(), metadata=(("authorization", f"Bearer {ann.token}"),))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async for _ in call:
            pass
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "bezique.v1.PlayRequest" in (caught.value.details() or "")


@pytest.mark.parametrize("answers_with_updates", [False, True])
async def test_a_resent_move_taken_before_the_cut_is_answered_at_once(
        client: AsyncTableClient, answers_with_updates: bool) -> None:
    """A client resumes from the last version it received and sends again a move whose result
    it missed: the move was taken at that version, so its answer (duplicate) comes without
    waiting for any later update (the table is idle: the other seat is to move), as a
    `result` of its own even with answers_with_updates (its update went out before)."""
    table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
    view = await client.view(table_id)
    mover = ann if view.to_move[0] == ann.seat else bob
    mine = await client.view(table_id, mover.token)
    taken = await client.submit(mover, mine.legal_moves[0], mine.version, "missed")
    stream = RawPlay(client.stub, mover.token, table_id, from_version=taken.version,
                     answers_with_updates=answers_with_updates)
    stream.move(mine.legal_moves[0], mine.version, "missed")
    result = await stream.result()
    assert result.accepted.duplicate and result.accepted.version == taken.version
    assert stream.updates == []  # nothing after the version it resumed from
    assert stream.messages[-1].HasField("result")
    stream.close()


async def test_a_resent_move_whose_update_is_sent_again_is_answered_once(
        client: AsyncTableClient) -> None:
    """With answers_with_updates, a stream resumed from before a taken move's version, the
    move sent again under its request id: its answer (duplicate) comes once, with or after
    the update of its version, never before it, never again."""
    table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
    view = await client.view(table_id)
    mover = ann if view.to_move[0] == ann.seat else bob
    mine = await client.view(table_id, mover.token)
    taken = await client.submit(mover, mine.legal_moves[0], mine.version, "cut")
    stream = RawPlay(client.stub, mover.token, table_id, from_version=STARTED,
                     answers_with_updates=True)
    stream.move(mine.legal_moves[0], mine.version, "cut")
    result = await stream.result()
    assert result.accepted.duplicate and result.accepted.version == taken.version
    assert stream.updates[-1].version >= taken.version  # its update came first, or with it
    stream.move(pb.Move(kind="play"), 0, "after")  # a refusal: the stream reads on
    refused = await stream.result()
    assert refused.request_id == "after" and refused.code != 0
    answers = [m for m in stream.messages if m.HasField("result") or m.HasField("answer")]
    assert [(m.result if m.HasField("result") else m.answer).request_id
            for m in answers] == ["cut", "after"]
    assert stream.messages[-1].HasField("result")  # a refusal comes on its own
    stream.close()


async def test_an_expired_token_ends_its_play_stream_at_the_expiry() -> None:
    async with serving(seat_token_ttl=1.0) as (_, client):
        table = await client.create_table("highcard", {"players": 2})
        ann = await client.join(table.table_id, 0, "ann")
        stream = RawPlay(client.stub, ann.token, table.table_id)
        await stream.until_version(2)
        error = await stream.error()  # nothing happens at the table: the expiry ends it
        assert ann.expires is not None and time.time() >= ann.expires
        assert error.code() == grpc.StatusCode.UNAUTHENTICATED
        assert details(error)["reason"] == "SEAT_TOKEN_EXPIRED"
