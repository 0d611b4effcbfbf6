"""Commit-reveal of the seats' entropy, over a real port: a grinding operator who seats a puppet
last no longer picks the deal once an honest seat commits; reveals are checked; a withheld
reveal ends the table before any deal; verify checks every reveal."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import AsyncIterator

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient, RevealRefused, SeatHandle
from bezique.clients.verify import OwnSeat, VerificationError, verify_history
from bezique.service.live import LiveTable
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.chance import SeededChance, mixed_seed
from bezique.variants.host import resolve_options
from tests.helpers import details, highcard_registry, server_config, until
from tests.security.helpers import tampered
from tests.service.helpers import expect_error

HAND = 8
OPTIONS = {"players": 2, "hand_size": HAND}
SEED = b"operator-knows-this-seed-32bytes"


async def serving_reveals(seconds: float) -> AsyncIterator[tuple[RunningServer, AsyncTableClient]]:
    server = await start_server(server_config(reveal_seconds=seconds), highcard_registry())
    async with AsyncTableClient(server.address, retries=0) as client:
        yield server, client
    await server.stop()


@pytest.fixture
async def served() -> AsyncIterator[tuple[RunningServer, AsyncTableClient]]:
    """A server whose reveal round outlasts any test: a loaded machine must not end a table
    that a test reveals a moment late (0.4 s here once ended one mid-test)."""
    async for pair in serving_reveals(60):
        yield pair


@pytest.fixture
async def quick_reveal() -> AsyncIterator[tuple[RunningServer, AsyncTableClient]]:
    """A server whose reveal round ends in 3 s, for the test of the deadline itself: long
    enough for the honest seat's reveal to come first on a loaded machine."""
    async for pair in serving_reveals(3):
        yield pair


def hand_of_seat_1(seed: bytes, entropies: dict[int, bytes]) -> frozenset[int]:
    """What seat 1 of a two-seat highcard table is dealt from ``seed`` and the seats' entropy,
    as the operator (who knows the seed) computes it."""
    variant = highcard_registry().variant("highcard")
    options = resolve_options(variant.options, OPTIONS)
    key = mixed_seed(seed, sorted(entropies.items()))
    game, _ = variant.start(options, SeededChance(key))
    return frozenset(game.view(1).hand)


def grind(honest: bytes) -> tuple[bytes, frozenset[int]]:
    """The operator's search for the puppet's entropy: one that deals the puppet (seat 1)
    three aces or better, given what the operator believes seat 0 contributes."""
    shoe = highcard_registry().variant("highcard").shoe({})
    for attempt in range(5_000):
        mine = attempt.to_bytes(4, "big") * 8
        hand = hand_of_seat_1(SEED, {0: honest, 1: mine})
        if sum(shoe.code(card).startswith("A") for card in hand) >= 3:
            return mine, hand
    raise AssertionError("no entropy found")


async def hand(client: AsyncTableClient, seat: SeatHandle) -> frozenset[int]:
    view = await client.view(seat.table_id, seat.token)
    assert not view.waiting_for_players, view.phase
    return frozenset(card.id for card in view.hand)


async def test_a_puppet_seated_last_cannot_pick_the_deal_against_a_committed_seat(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    server, client = served
    # In the clear, the honest seat's entropy is public from its join: a puppet seated last
    # grinds against it and gets the hand the operator chose.
    table = await client.create_table("highcard", OPTIONS, seed=SEED)
    honest = await client.join(table.table_id, seat=0, commit=False)
    public = (await client.history(table.table_id)).entries[-1].entropy
    puppet_entropy, chosen = grind(bytes(public))
    puppet = await client.join(table.table_id, seat=1, entropy=puppet_entropy, commit=False)
    assert await hand(client, puppet) == chosen

    # With commit-reveal, all the operator sees before the puppet must fix its entropy is a
    # hash. Each client below is a party of its own (the puppet's knows no honest secret).
    async with AsyncTableClient(server.address, retries=0) as honest_client, \
            AsyncTableClient(server.address, retries=0) as operator:
        table = await operator.create_table("highcard", OPTIONS, seed=SEED)
        honest = await honest_client.join(table.table_id, seat=0)
        assert honest.committed
        joined = (await operator.history(table.table_id)).entries[-1]
        assert joined.entry_kind == "joined" and joined.entropy == b""
        assert joined.entropy_commitment == hashlib.sha256(honest.entropy).digest()
        # the operator's best: grind against what it can see (here, the commitment itself)
        puppet_entropy, chosen = grind(bytes(joined.entropy_commitment))
        puppet = await operator.join(table.table_id, seat=1, entropy=puppet_entropy)
        # The table is full: the puppet's entropy is fixed (committed) before the honest
        # entropy is revealed. The round is public, and nothing can be dealt yet.
        round_view = await operator.view(table.table_id)
        assert round_view.phase == "reveal" and round_view.waiting_for_players
        assert list(round_view.awaiting_reveal) == [0]  # the puppet's client revealed at once
        assert not round_view.hand and round_view.HasField("deadline")
        entries = (await operator.history(table.table_id)).entries
        assert [e.entry_kind for e in entries] == ["created", "joined", "joined", "revealed"]
        assert entries[3].seat == 1 and entries[3].entropy == puppet_entropy
        summary = next(t for t in await operator.list_tables() if t.table_id == table.table_id)
        assert summary.phase == "reveal" and list(summary.awaiting_reveal) == [0]
        # nothing the puppet does now changes its entropy: no second reveal, no new seat
        error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT, operator.reveal(
            SeatHandle(table.table_id, 1, puppet.token, secrets.token_bytes(32))))
        assert details(error)["reason"] == "REVEAL_MISMATCH"
        error = await expect_error(grpc.StatusCode.FAILED_PRECONDITION, operator.leave(puppet))
        assert details(error)["reason"] == "REVEAL_ROUND"
        # the honest client reveals when it next looks at the table; the game starts
        view = await honest_client.view(table.table_id, honest.token)
        assert view.phase != "reveal" and len(view.hand) == HAND
        dealt = await hand(operator, puppet)
        assert dealt != chosen
        assert dealt == hand_of_seat_1(SEED, {0: honest.entropy, 1: puppet_entropy})
        history = await operator.history(table.table_id)
        assert [e.entry_kind for e in history.entries[3:6]] == ["revealed", "revealed",
                                                                "started"]


async def test_reveals_are_checked_and_the_round_holds_the_table(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    _, client = served
    table = await client.create_table("highcard", {"players": 3})
    first = await client.join(table.table_id, seat=0)
    plain = await client.join(table.table_id, seat=1, commit=False)

    async def reason(code: grpc.StatusCode, call: object) -> str:
        return str(details(await expect_error(code, call))["reason"])

    # before every seat is taken, a reveal would let the last seat choose after it: the SDK
    # sends nothing, and the server refuses a bare call all the same
    with pytest.raises(RevealRefused):
        await client.reveal(first)

    def bare_reveal(seat: SeatHandle) -> object:
        return client.stub.RevealEntropy(
            pb.RevealEntropyRequest(table_id=seat.table_id, entropy=seat.entropy or b"x" * 32),
            metadata=(("authorization", f"Bearer {seat.token}"),))

    assert await reason(grpc.StatusCode.FAILED_PRECONDITION,
                        bare_reveal(first)) == "REVEAL_NOT_OPEN"
    assert await reason(grpc.StatusCode.FAILED_PRECONDITION,
                        bare_reveal(plain)) == "NOTHING_TO_REVEAL"
    # the third seat joins through the bare stub: nobody reveals for it
    secret = secrets.token_bytes(32)
    answer = await client.stub.JoinTable(pb.JoinTableRequest(
        table_id=table.table_id, seat=2, entropy_commitment=hashlib.sha256(secret).digest()))
    third = SeatHandle(table.table_id, 2, answer.seat_token, secret, committed=True)
    assert list(answer.view.awaiting_reveal) == [0, 2] and answer.view.phase == "reveal"
    wrong = SeatHandle(table.table_id, 2, third.token, secrets.token_bytes(32))
    error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.reveal(wrong))
    assert details(error)["reason"] == "REVEAL_MISMATCH" and details(error)["fields"] == [
        "entropy"]
    # no move in the round
    move = pb.Move(kind="play", cards=[pb.Card(id=0)])
    assert await reason(grpc.StatusCode.FAILED_PRECONDITION, client.submit(
        plain, move, answer.view.version)) == "REVEAL_ROUND"
    revealed = await client.reveal(third)
    assert list(revealed.view.awaiting_reveal) == [0]
    again = await client.reveal(third)  # a retry changes nothing
    assert again.version == revealed.version
    started = await client.reveal(first)
    assert not started.view.waiting_for_players and not started.view.awaiting_reveal
    assert len(started.view.hand) == 3
    # commitment and entropy together, or a commitment of the wrong size, are refused
    other = await client.create_table("highcard")
    for request in (pb.JoinTableRequest(table_id=other.table_id, entropy=b"e" * 32,
                                        entropy_commitment=b"c" * 32),
                    pb.JoinTableRequest(table_id=other.table_id, entropy_commitment=b"short")):
        error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                                   client.stub.JoinTable(request))
        assert details(error)["fields"] == ["entropy_commitment"]


async def test_a_withheld_reveal_ends_the_table_at_the_deadline(
        quick_reveal: tuple[RunningServer, AsyncTableClient]) -> None:
    server, client = quick_reveal
    table = await client.create_table("highcard", OPTIONS)
    honest = await client.join(table.table_id, seat=0)
    secret = secrets.token_bytes(32)
    answer = await client.stub.JoinTable(pb.JoinTableRequest(  # a puppet that never reveals
        table_id=table.table_id, seat=1, entropy_commitment=hashlib.sha256(secret).digest()))
    puppet = SeatHandle(table.table_id, 1, answer.seat_token, secret, committed=True)
    assert list(answer.view.awaiting_reveal) == [0, 1]
    view = await client.view(table.table_id, honest.token)  # the honest seat reveals
    assert list(view.awaiting_reveal) == [1]
    ended = await until(lambda: client.view(table.table_id, honest.token),
                        lambda v: v.HasField("outcome"), "the reveal deadline", timeout=30)
    assert ended.outcome.reason == "reveal_timeout" and not ended.outcome.winners
    assert ended.phase == "over" and not ended.hand and not ended.awaiting_reveal
    assert ended.outcome.detail["withheld"] == [1]
    history = await client.history(table.table_id)
    assert history.finished and history.revealed_seed  # nothing was dealt: nothing to hide
    last = history.entries[-1]
    assert last.entry_kind == "ended" and list(last.withheld_seats) == [1]
    assert [e.kind for e in last.events] == ["reveal_timeout"]
    assert not [e for e in history.entries if e.entry_kind == "started"]
    # nothing more happens at this table: no late reveal, no move, no leave
    for call in (client.reveal(puppet), client.leave(honest),
                 client.submit(honest, pb.Move(kind="play"), ended.version)):
        error = await expect_error(grpc.StatusCode.FAILED_PRECONDITION, call)
        assert details(error)["reason"] == "REVEAL_TIMED_OUT"
    result = verify_history(history)
    assert (result.ended, result.withheld, result.deals) == ("reveal_timeout", (1,), 0)
    # an idle table leaves memory as a snapshot: the end survives it
    live = await server.manager.table(table.table_id)
    again = LiveTable(live.record, live.variant, len(live.seats))
    again.restore(live.snapshot())
    assert again.ended == live.ended and again.finished and again.phase == "over"
    # an operator's forgery naming the honest seat as the withholder is caught
    forged = tampered(history)
    forged.entries[-1].withheld_seats[:] = [0]
    with pytest.raises(VerificationError, match=r"seats that owed a reveal are \[1\]") as caught:
        verify_history(forged)
    assert caught.value.version == last.version


async def test_an_abort_in_the_reveal_round_names_the_seats_that_had_not_revealed() -> None:
    server = await start_server(server_config(api_key="op-key"), highcard_registry())
    try:
        async with AsyncTableClient(server.address, api_key="op-key", retries=0) as operator:
            table = await operator.create_table("highcard", OPTIONS)
            honest = await operator.join(table.table_id, seat=0)
            secret = secrets.token_bytes(32)
            await operator.stub.JoinTable(pb.JoinTableRequest(  # a puppet that never reveals
                table_id=table.table_id, seat=1,
                entropy_commitment=hashlib.sha256(secret).digest()))
            view = await operator.view(table.table_id, honest.token)
            assert list(view.awaiting_reveal) == [1]
            await operator.abort_table(table.table_id, "the round took too long")
            ended = await operator.view(table.table_id)
            assert ended.outcome.reason == "aborted"
            assert ended.outcome.detail["withheld"] == [1]
            history = await operator.history(table.table_id)
            last = history.entries[-1]
            assert last.entry_kind == "aborted" and list(last.withheld_seats) == [1]
            assert last.note == "the round took too long"
            result = await anext(operator.watch_results(0))
            assert result.outcome.detail["withheld"] == [1]
            assert verify_history(history).aborted
            # the verifier replays with the server's reducer: a forged abort naming the honest
            # seat as the one that had not revealed is caught
            forged = tampered(history)
            forged.entries[-1].withheld_seats[:] = [0]
            with pytest.raises(VerificationError, match=r"owed a reveal are \[1\]") as caught:
                verify_history(forged)
            assert caught.value.version == last.version
            # an abort while seats are free names nobody: no reveal was asked for yet
            waiting = await operator.create_table("highcard", OPTIONS)
            await operator.join(waiting.table_id, seat=0)
            await operator.abort_table(waiting.table_id)
            assert "withheld" not in (await operator.view(waiting.table_id)).outcome.detail
            assert not (await operator.history(waiting.table_id)).entries[-1].withheld_seats
    finally:
        await server.stop()


async def test_verify_accepts_an_honest_table_and_names_a_tampered_reveal(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    _, client = served
    table = await client.create_table("highcard", {"players": 2, "hand_size": 2})
    seats = [await client.join(table.table_id, seat=seat) for seat in range(2)]
    while not (view := await client.view(table.table_id)).HasField("outcome"):
        for seat in seats:
            own = await client.view(table.table_id, seat.token)
            if own.legal_moves and own.version == view.version:
                await client.submit(seat, own.legal_moves[0], own.version)
                break
    history = await client.history(table.table_id)
    result = verify_history(history)
    assert result.contributors == (0, 1) and result.committed == (0, 1)
    reveals = [e for e in history.entries if e.entry_kind == "revealed"]
    started = next(e for e in history.entries if e.entry_kind == "started")
    # the server swaps a revealed value: its commitment gives it away
    forged = tampered(history)
    next(e for e in forged.entries if e.version == reveals[0].version).entropy = \
        secrets.token_bytes(32)
    with pytest.raises(VerificationError, match="does not match its commitment") as caught:
        verify_history(forged)
    assert caught.value.version == reveals[0].version
    # ... or swaps the commitment too: then the deal no longer comes out of the reveals
    forged = tampered(history)
    fresh = secrets.token_bytes(32)
    swapped = reveals[0].seat
    next(e for e in forged.entries if e.version == reveals[0].version).entropy = fresh
    next(e for e in forged.entries if e.entry_kind == "joined" and e.seat == swapped
         ).entropy_commitment = hashlib.sha256(fresh).digest()
    with pytest.raises(VerificationError, match="cards differ") as caught:
        verify_history(forged)
    assert caught.value.version == started.version
    # ... or starts the game without a reveal
    forged = tampered(history)
    next(e for e in forged.entries if e.version == reveals[1].version).entry_kind = "joined"
    with pytest.raises(VerificationError):
        verify_history(forged)
    forged = tampered(history)
    kept = [e for e in forged.entries if e.version != reveals[1].version]
    del forged.entries[:]
    for number, entry in enumerate(kept, 1):
        entry.version = number
        forged.entries.append(entry)
    with pytest.raises(VerificationError, match=r"starts before seats .* revealed") as caught:
        verify_history(forged)
    assert caught.value.version == started.version - 1


async def test_the_sync_client_and_a_bot_table_start_by_themselves(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    server, _ = served
    from bezique.clients.sdk import TableClient

    def play() -> pb.View:
        with TableClient(server.address) as client:
            table = client.create_table("highcard", OPTIONS, bots={1: "random"})
            seat = client.join(table.table_id, seat=0)
            return client.view(table.table_id, seat.token)

    view = await asyncio.to_thread(play)
    assert not view.waiting_for_players and len(view.hand) == HAND


async def play_to_the_end(client: AsyncTableClient, seats: list[SeatHandle]) -> None:
    table_id = seats[0].table_id
    for _ in range(100):
        view = await client.view(table_id)
        if view.HasField("outcome"):
            return
        for seat in seats:
            own = await client.view(table_id, seat.token)
            if own.legal_moves and own.version == view.version:
                await client.submit(seat, own.legal_moves[0], own.version)
                break
    raise AssertionError("the game did not end")


async def test_a_seat_pins_the_others_commitments_before_it_reveals(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    """An operator who writes the log could serve, after the game, a history in which his
    puppet's commitment is another one (opened to an entropy that deals better): consistent in
    itself, it verifies. The digest the honest seat pinned before revealing catches it."""
    server, operator = served
    honest_entropy = secrets.token_bytes(32)
    histories, pins = [], []
    for puppet_entropy in (b"p" * 32, b"q" * 32):  # the same table twice, the puppet differing
        async with AsyncTableClient(server.address, retries=0) as honest_client:
            table = await operator.create_table("highcard", {"players": 2, "hand_size": 2},
                                                seed=SEED)
            honest = await honest_client.join(table.table_id, seat=0, entropy=honest_entropy)
            puppet = await operator.join(table.table_id, seat=1, entropy=puppet_entropy)
            await honest_client.view(table.table_id, honest.token)  # pins, then reveals
            pins.append(honest_client.pins[(table.table_id, 0)])
            await play_to_the_end(operator, [SeatHandle(table.table_id, 0, honest.token),
                                             puppet])
            histories.append(await operator.history(table.table_id))
    assert pins[0] != pins[1]
    mine = OwnSeat(0, honest_entropy, histories[0].seed_commitment, pins[0])
    assert verify_history(histories[0], allow_test_settings=True, seat=mine).committed == (0, 1)
    # the second history, served for the first table: the seed, the honest seat's entropy and
    # commitment are the same, and it is consistent in itself ...
    swapped = tampered(histories[1])
    swapped.table_id = histories[0].table_id
    unpinned = OwnSeat(0, honest_entropy, histories[0].seed_commitment)
    verify_history(swapped, allow_test_settings=True, seat=unpinned)
    # ... but not what the honest seat saw before it revealed
    with pytest.raises(VerificationError, match="not those seat 0 saw before it revealed"):
        verify_history(swapped, allow_test_settings=True, seat=mine)
