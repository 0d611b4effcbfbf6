"""Fair even against the operator, over a real port: seats' entropy defeats a grinding operator,
the verifier is strict, bots are unpredictable yet rechecked, and names cannot paint screens."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import AsyncIterator

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.clients.verify import OwnSeat, VerificationError, verify_history
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.chance import SeededChance
from bezique.variants.host import resolve_options
from tests.helpers import details, highcard_registry, server_config
from tests.security.helpers import tampered
from tests.service.helpers import expect_error

HAND = 8
RANKS = "789TJQKA"


@pytest.fixture
async def served() -> AsyncIterator[tuple[RunningServer, AsyncTableClient]]:
    server = await start_server(server_config(), highcard_registry())
    async with AsyncTableClient(server.address, retries=0) as client:
        yield server, client
    await server.stop()


def dealt_to_seat_0(seed: bytes) -> frozenset[int]:
    """What seat 0 of a two-seat highcard table gets from ``seed`` alone (no entropy)."""
    variant = highcard_registry().variant("highcard")
    options = resolve_options(variant.options, {"players": 2, "hand_size": HAND})
    game, _ = variant.start(options, SeededChance(seed))
    return frozenset(game.view(0).hand)


def grind() -> tuple[bytes, frozenset[int]]:
    """A dishonest operator's search: a seed that deals seat 0 three aces or better."""
    shoe = highcard_registry().variant("highcard").shoe({})
    for attempt in range(20_000):
        seed = attempt.to_bytes(4, "big") * 8
        hand = dealt_to_seat_0(seed)
        if sum(shoe.code(card).startswith("A") for card in hand) >= 3:
            return seed, hand
    raise AssertionError("no seed found")


async def finished_table(client: AsyncTableClient, *, bots: dict[int, str], seed: bytes = b"",
                         entropy: bytes | None = None, commit: bool = True
                         ) -> pb.GetHistoryResponse:
    table = await client.create_table("highcard", {"players": 2, "hand_size": HAND}, bots=bots,
                                      seed=seed)
    humans = [await client.join(table.table_id, seat=seat, entropy=entropy, commit=commit)
              for seat in range(2) if seat not in bots]
    while True:
        view = await client.view(table.table_id)
        if view.HasField("outcome"):
            return await client.history(table.table_id)
        for human in humans:
            own = await client.view(table.table_id, human.token)
            if own.legal_moves and own.version == view.version:
                # the highest card: never the clock's default move (the lowest) but at the end
                highest = max(own.legal_moves, key=lambda m: RANKS.index(m.cards[0].code[0]))
                await client.submit(human, highest, own.version)
                break
        else:
            await asyncio.sleep(0.01)  # a bot is to move


async def test_a_grinding_operator_no_longer_picks_the_deal(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    _, client = served
    seed, chosen = grind()
    # Without entropy the operator's choice holds: this is what the nonces are for.
    table = await client.create_table("highcard", {"players": 2, "hand_size": HAND}, seed=seed)
    seat = await client.join(table.table_id, seat=0, entropy=b"")
    await client.join(table.table_id, seat=1, entropy=b"")
    view = await client.view(table.table_id, seat.token)
    assert frozenset(card.id for card in view.hand) == chosen
    # With the seats' entropy (the SDK's default) the chosen seed deals something else.
    for _ in range(3):
        table = await client.create_table("highcard", {"players": 2, "hand_size": HAND},
                                          seed=seed)
        seat = await client.join(table.table_id, seat=0)
        await client.join(table.table_id, seat=1)
        view = await client.view(table.table_id, seat.token)
        assert frozenset(card.id for card in view.hand) != chosen


async def test_verify_names_the_seats_that_contributed(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    _, client = served
    history = await finished_table(client, bots={1: "random"})
    joined = [e for e in history.entries if e.entry_kind == "joined"]
    revealed = [e for e in history.entries if e.entry_kind == "revealed"]
    # the SDK commits by default: the join holds the commitment, the reveal the entropy
    assert [(e.seat, len(e.entropy)) for e in revealed] == [(0, 32)]
    assert [(e.seat, len(e.entropy_commitment), e.entropy) for e in joined if e.seat == 0] \
        == [(0, 32, b"")]
    assert [e.bot_policy for e in joined if e.seat == 1] == ["random"]
    result = verify_history(history)
    assert result.contributors == (0,) and result.bot_moves == HAND and not result.test_settings
    assert result.committed == (0,)
    # in the clear, as older clients send it: the join holds it, and verify tells them apart
    clear = await finished_table(client, bots={1: "random"}, commit=False)
    assert [len(e.entropy) for e in clear.entries if e.entry_kind == "joined" and e.seat == 0] \
        == [32]
    assert not [e for e in clear.entries if e.entry_kind == "revealed"]
    checked = verify_history(clear)
    assert checked.contributors == (0,) and checked.committed == ()
    # a seat may contribute nothing: the table still verifies, and says nobody contributed
    plain = await finished_table(client, bots={1: "random"}, entropy=b"")
    assert verify_history(plain).contributors == ()


async def test_every_tampering_fails_verify_and_names_the_entry(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    _, client = served
    history = await finished_table(client, bots={1: "random"})
    verify_history(history)
    moves = [e for e in history.entries if e.entry_kind == "move"]
    bot_moves = [e for e in history.entries if e.entry_kind == "bot_move"]

    def fails(changed: pb.GetHistoryResponse, pattern: str, version: int) -> None:
        with pytest.raises(VerificationError, match=pattern) as caught:
            verify_history(changed)
        assert caught.value.version == version

    # a person's move relabelled as the clock's (on a table without or with a clock) or a bot's
    clocked = tampered(history)
    clocked.turn_seconds = 30
    for kind, pattern, base in (("timeout", "without a turn clock", history),
                                ("timeout", "timeout is .* but it must be", clocked),
                                ("bot_move", "no bot holds", history)):
        changed = tampered(base)
        entry = next(e for e in changed.entries if e.version == moves[0].version)
        entry.entry_kind = kind
        fails(changed, pattern, moves[0].version)
    # a bot's move relabelled as a person's
    changed = tampered(history)
    next(e for e in changed.entries if e.version == bot_moves[0].version).entry_kind = "move"
    fails(changed, "logged as a person's", bot_moves[0].version)
    # a seat given up after the start
    changed = tampered(history)
    extra = changed.entries.add(version=len(changed.entries) + 1, entry_kind="left", seat=0)
    fails(changed, "follows the start", extra.version)
    # a swapped nonce: the deal no longer comes out of the seed
    clear = await finished_table(client, bots={1: "random"}, commit=False)
    changed = tampered(clear)
    joined = next(e for e in changed.entries if e.entry_kind == "joined" and e.entropy)
    joined.entropy = secrets.token_bytes(32)
    started = next(e for e in changed.entries if e.entry_kind == "started")
    fails(changed, "cards differ", started.version)


async def test_bot_moves_are_rechecked_by_verify(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    _, client = served
    history = await finished_table(client, bots={0: "random", 1: "random"})
    assert verify_history(history).bot_moves == 2 * HAND
    changed = tampered(history)
    # the bot's first move, swapped for another card of the same hand
    first_bot = next(e for e in changed.entries if e.entry_kind == "bot_move")
    started = next(e for e in changed.entries if e.entry_kind == "started")
    hand = [c.id for ev in started.events if ev.seat == first_bot.seat for c in ev.cards]
    other = next(card for card in hand if card != first_bot.move.cards[0].id)
    first_bot.move.cards[0].id = other
    with pytest.raises(VerificationError, match="must be"):
        verify_history(changed)


async def test_test_settings_fail_verify_unless_allowed(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    _, client = served
    history = await finished_table(client, bots={1: "random"}, seed=b"t" * 32)
    with pytest.raises(VerificationError, match=r"test settings \(seed\)"):
        verify_history(history)
    assert verify_history(history, allow_test_settings=True).test_settings == ("seed",)


@pytest.mark.parametrize("name", ["\x1b[2Jhi", "evil\x1b[31m", "a\u202eb", "tab\there",
                                  "line\u2028break", "bell\x07", "c1\x9b31m",
                                  # invisible: each shows as "ann" (or as nothing) on a screen
                                  "ann\U000e0041\U000e0064", "ann\u2061", "ann\u180e",
                                  "\u3164", "ann\u2064"])
async def test_names_that_would_paint_screens_are_refused(
        served: tuple[RunningServer, AsyncTableClient], name: str) -> None:
    _, client = served
    table = await client.create_table("highcard")
    error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                               client.join(table.table_id, name=name))
    assert details(error)["fields"] == ["display_name"]
    assert "\x1b" not in (error.details() or "")
    assert (await client.view(table.table_id)).version == 1


async def test_names_in_any_script_are_welcome(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    _, client = served
    table = await client.create_table("highcard", {"players": 4})
    for name in ("Zoë", "Алексей", "👩‍👩‍👧 family",  # the family emoji holds zero-width joiners
                 "می\u200cخواهم"):  # Persian, with its zero-width non-joiner
        seat = await client.join(table.table_id, name=name)
        view = await client.view(table.table_id, seat.token)
        assert view.seats[seat.seat].display_name == name


async def test_entropy_of_a_wrong_size_is_refused(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    _, client = served
    table = await client.create_table("highcard")
    for entropy in (b"short", b"x" * 65):
        error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                                   client.join(table.table_id, entropy=entropy, commit=False))
        assert details(error)["fields"] == ["entropy"]


async def test_a_seat_holds_the_server_to_the_entropy_and_commitment_it_saw(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    _, client = served
    table = await client.create_table("highcard", {"players": 2, "hand_size": HAND},
                                      bots={1: "random"})
    seat = await client.join(table.table_id, seat=0)
    assert seat.commitment == table.seed_commitment and len(seat.entropy) == 32
    while not (view := await client.view(table.table_id, seat.token)).HasField("outcome"):
        if view.legal_moves:
            await client.submit(seat, view.legal_moves[0], view.version)
        else:
            await asyncio.sleep(0.01)
    history = await client.history(table.table_id)
    mine = OwnSeat(seat.seat, seat.entropy, seat.commitment)
    assert verify_history(history, seat=mine).contributors == (0,)
    with pytest.raises(VerificationError, match="commitment in the history is not the one it sent"):
        verify_history(history, seat=OwnSeat(0, secrets.token_bytes(32), seat.commitment))
    with pytest.raises(VerificationError, match="shown when seat 0 joined"):
        verify_history(history, seat=OwnSeat(0, seat.entropy, "0" * 64))


def test_verify_refuses_seat_entries_the_server_never_writes() -> None:
    history = pb.GetHistoryResponse(
        table_id="t", variant_id="highcard", variant_version=1, finished=True,
        options={"players": "2"}, revealed_seed=b"s" * 32,
        seed_commitment=hashlib.sha256(b"s" * 32).hexdigest())
    history.entries.add(version=1, entry_kind="created")
    history.entries.add(version=2, entry_kind="joined", seat=0)
    for entries, pattern in (
            ([("joined", 0)], "joined while it is held"),
            ([("joined", 7)], "not a seat of this table"),
            ([("left", 1)], "given up while it is free"),
            ([("started", None)], r"starts with seats \[1\] free")):
        forged = tampered(history)
        for kind, at in entries:
            entry = forged.entries.add(version=len(forged.entries) + 1, entry_kind=kind)
            if at is not None:
                entry.seat = at
        with pytest.raises(VerificationError, match=pattern):
            verify_history(forged)


async def test_verify_with_a_proof_refuses_a_history_that_drops_the_seats_entropy(
        served: tuple[RunningServer, AsyncTableClient]) -> None:
    """An operator dealt from the seed alone (which he chose) and serves a history that shows
    the player's entropy but says ``chance_version`` 1 (from before entropy was mixed in):
    verify used to check the entropy is in the history and then replay without it, so a player
    holding his proof got "verified" for deals his entropy never touched."""
    _, client = served
    table = await client.create_table("highcard", {"players": 2, "hand_size": HAND})
    seats = [await client.join(table.table_id, seat=i, entropy=b"") for i in (0, 1)]
    while not (view := await client.view(table.table_id, seats[0].token)).HasField("outcome"):
        mover = seats[view.to_move[0]]
        legal = (await client.view(table.table_id, mover.token)).legal_moves
        await client.submit(mover, legal[0], view.version)
    mine = secrets.token_bytes(32)
    forged = tampered(await client.history(table.table_id))
    forged.chance_version = 1
    joined = next(e for e in forged.entries if e.entry_kind == "joined" and e.seat == 0)
    joined.entropy = mine
    with pytest.raises(VerificationError, match="entropy did not go into the deals"):
        verify_history(forged, seat=OwnSeat(0, mine, table.seed_commitment))
