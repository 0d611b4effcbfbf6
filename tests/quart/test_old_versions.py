"""Quart tables written by version 1 (a ladder of raise levels, before one raise with a range)
still verify strictly, bot moves included, and are still served as version 1 played.

The fixtures are real histories played on the code of commit 19b530a and dumped from
GetHistory (tests/fixtures/README.md says how): a 3-seat quart-bezique table (seat 0 a person,
seat 1 the heuristic bot, seat 2 the random bot) and a 10-deal trump-quart-bezique table of
three heuristic bots. No code of that version is kept in the project.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import pytest
from google.protobuf import json_format

from bezique.clients.sdk import AsyncTableClient
from bezique.clients.verify import VerificationError, verify_history
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.api import Event, Move, Options
from bezique.variants.chance import Chance, SeededChance
from bezique.variants.host import resolve_options, start_game
from bezique.variants.quart.game import QuartGame
from bezique.variants.quart.variant import QuartBezique
from bezique.variants.registry import load_registry
from tests.helpers import server_config
from tests.quart.helpers import QUART, TRUMP

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def load(name: str) -> pb.GetHistoryResponse:
    return json_format.Parse((FIXTURES / name).read_text(), pb.GetHistoryResponse())


@pytest.fixture(scope="module")
def old_history() -> pb.GetHistoryResponse:
    return load("quart-bezique-v1-bots.json")


@pytest.fixture(scope="module")
def old_trump() -> pb.GetHistoryResponse:
    return load("trump-quart-bezique-v1-heuristic.json")


def copy(history: pb.GetHistoryResponse) -> pb.GetHistoryResponse:
    tampered = pb.GetHistoryResponse()
    tampered.CopyFrom(history)
    return tampered


def bot_raise(history: pb.GetHistoryResponse, seat: int, nth: int = 0) -> pb.HistoryEntry:
    """The ``nth`` raise of the bot at ``seat``."""
    return [e for e in history.entries
            if e.entry_kind == "bot_move" and e.seat == seat and e.move.kind == "raise"][nth]


def test_both_variants_are_version_2_and_replay_version_1() -> None:
    for variant in (QUART, TRUMP):
        assert variant.version == 2
        assert [variant.accepts_log_version(v) for v in (0, 1, 2, 3)] == [False, True, True,
                                                                           False]


@pytest.mark.parametrize("variant", [QUART, TRUMP], ids=lambda v: v.id)
def test_a_version_1_table_offers_the_ladder_a_version_2_table_one_range(
        variant: QuartBezique) -> None:
    """Seat to move after the antes, level 0, min_bet 10, stack 990: version 1 offered the
    minimum, level + 2, 3, 5, 10 times min_bet and the highest; version 2 one raise 10..990."""
    options = resolve_options(variant.options, {"players": 3})
    raises: dict[int | None, list[Move]] = {}
    for version in (1, 2, None):
        game, _ = start_game(variant, options, SeededChance(bytes(32)), 0, None, version)
        seat = game.to_move[0]
        raises[version] = [m for m in game.legal_moves(seat) if m.kind == "raise"]
    assert [m.amount for m in raises[1]] == [10, 20, 30, 50, 100, 990]
    assert all(m.amount_range is None for m in raises[1])
    assert raises[2] == raises[None] and len(raises[2]) == 1
    span = raises[2][0].amount_range
    assert span is not None and (span.minimum, span.maximum) == (10, 990)


def test_a_version_1_table_with_bots_verifies(old_history: pb.GetHistoryResponse) -> None:
    assert (old_history.variant_id, old_history.variant_version) == ("quart-bezique", 1)
    result = verify_history(old_history)
    assert (result.deals, result.moves, result.bot_moves) == (3, 15, 11)
    # the heuristic bot's raises there are ladder levels: version 2 would raise to 40, not 30
    assert bot_raise(old_history, 1).move.amount == 30


def test_a_version_1_trump_table_of_heuristic_bots_verifies(
        old_trump: pb.GetHistoryResponse) -> None:
    assert (old_trump.variant_id, old_trump.variant_version) == ("trump-quart-bezique", 1)
    result = verify_history(old_trump)
    assert (result.deals, result.moves, result.bot_moves) == (10, 33, 33)


@pytest.mark.parametrize(("name", "message"), [
    ("quart-bezique-v1-bots.json", r"version 8: seat 2's bot_move is raise amount=110 "),
    ("trump-quart-bezique-v1-heuristic.json", r"version 16: seat 0's bot_move is raise "
     r"amount=40 \[\], but it must be raise amount=50 "),
])
def test_replayed_as_version_2_its_bot_moves_would_not_hold(name: str, message: str) -> None:
    """The reason for playing a table as its own version: today's legal moves would give
    other bot choices (the random bot draws among other offers, the heuristic one raises to
    its target where version 1 had no such level)."""
    relabelled = load(name)
    relabelled.variant_version = 2
    with pytest.raises(VerificationError, match=message):
        verify_history(relabelled)


@pytest.mark.parametrize(("trump", "seat", "nth", "amount"), [
    (False, 1, 0, 40), (False, 2, 0, 100), (True, 0, 0, 50), (True, 2, 1, 30)])
def test_a_tampered_bot_move_in_it_is_caught(old_history: pb.GetHistoryResponse,
                                             old_trump: pb.GetHistoryResponse, trump: bool,
                                             seat: int, nth: int, amount: int) -> None:
    """A bot's raise changed to another legal level, caught as a move the bot did not
    choose: a heuristic raise to the level version 2 would choose, a random bot's raise to
    a ladder level it did not draw."""
    tampered = copy(old_trump if trump else old_history)
    moved = bot_raise(tampered, seat, nth)
    was = moved.move.amount
    moved.move.amount = amount
    with pytest.raises(VerificationError, match=rf"version {moved.version}: seat {seat}'s "
                       rf"bot_move is raise amount={amount} \[\], but it must be raise "
                       rf"amount={was} \[\]"):
        verify_history(tampered)


@pytest.fixture
async def quart_server() -> AsyncIterator[RunningServer]:
    server = await start_server(server_config(), load_registry())
    yield server
    await server.stop()


async def test_a_version_1_table_is_finished_as_version_1_and_verifies(
        quart_server: RunningServer) -> None:
    """A table created by version 1 whose game starts after the upgrade (its last seat taken
    now): the server deals it as version 1, its seat is offered the ladder, its bots choose
    from the ladder, and the finished table verifies strictly."""
    store = quart_server.store
    async with AsyncTableClient(quart_server.address, retries=5, backoff=0.01) as client:
        table = await client.create_table("quart-bezique", {"players": 3, "deals": 3},
                                          bots={1: "heuristic", 2: "random"})
        found = await store.load_table(table.table_id)
        assert found is not None
        record, state = found
        entries = await store.read_log(table.table_id)
        assert entries[0].kind == "created"
        old_id = "v1" + record.table_id[2:]
        old_entries = [dataclasses.replace(entries[0], payload={
            **entries[0].payload, "variant_version": 1}), *entries[1:]]
        await store.create_table(dataclasses.replace(record, table_id=old_id, variant_version=1),
                                 state, old_entries)
        seat = await client.join(old_id, 0, "ann")
        rng = random.Random(3)
        ladders = 0
        for _ in range(2000):  # a 3-deal table takes a few dozen moves
            view = await client.view(old_id, seat.token)
            if view.HasField("outcome"):
                break
            if not view.legal_moves:
                await asyncio.sleep(0.01)  # the bots' turn
                continue
            raises = [m for m in view.legal_moves if m.kind == "raise"]
            ladders += len(raises) > 1
            assert all(not m.HasField("amount_range") for m in raises)
            await client.submit(seat, rng.choice(list(view.legal_moves)), view.version)
        history = await client.history(old_id)
    assert ladders and history.variant_version == 1
    assert verify_history(history).bot_moves > 0


def test_a_variant_whose_start_takes_no_log_version_never_sees_it() -> None:
    """Older logs of a variant that replays them alike (it does not declare
    ``start_takes_log_version``) start exactly as before; a start that declares it is told
    only an older version."""
    told: list[int | None] = []

    class Plain(QuartBezique):
        def accepts_log_version(self, version: int) -> bool:
            return version in (0, 1, 2)

    class Told(Plain):
        def start(self, options: Options, chance: Chance, first_dealer: int | None = None, *,
                  buy_ins: Mapping[int, int] | None = None, log_version: int | None = None
                  ) -> tuple[QuartGame, tuple[Event, ...]]:
            told.append(log_version)
            return super().start(options, chance, first_dealer, buy_ins=buy_ins,
                                 log_version=log_version)

    class Untold(Plain):
        start_takes_log_version = False

        def start(self, options: Options, chance: Chance, first_dealer: int | None = None,
                  **keywords: object) -> tuple[QuartGame, tuple[Event, ...]]:
            assert not keywords
            told.append(None)
            return super().start(options, chance, first_dealer)

    options = resolve_options(QUART.options, {"players": 2})
    assert Told().start_takes_log_version and QUART.start_takes_log_version
    for version in (0, 1, 2, None):
        start_game(Told(), options, SeededChance(bytes(32)), 0, None, version)
    assert told == [0, 1, None, None]
    start_game(Untold(), options, SeededChance(bytes(32)), 0, None, 1)
    assert told[4:] == [None]
