"""The protocol's terms (bezique/terms.py) on what the code feeds them: real games' events,
views and moves, every installed option, and the log of real tables over a real port."""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from collections.abc import AsyncIterator, Iterator
from types import MappingProxyType

import pytest
from google.protobuf import json_format, struct_pb2

from bezique.clients.sdk import AsyncTableClient
from bezique.clients.verify import verify_history
from bezique.service.live import events_json
from bezique.service.server import RunningServer, start_server
from bezique.service.store import codec
from bezique.terms import (
    ENTRY_KINDS,
    MOVE_KINDS,
    SEAT_KINDS,
    EntryKind,
    card_codes,
    card_label,
    describe_move,
    jsonable,
    option_text,
    whole_numbers,
)
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.api import Event, Game, Move
from bezique.variants.chance import SeededChance
from bezique.variants.host import resolve_options
from bezique.variants.registry import load_registry
from tests.helpers import highcard_registry, server_config, until

KEY = "k" * 24


def played(variant_id: str, moves: int = 60) -> Iterator[tuple[Game, tuple[Event, ...]]]:
    """A game of an installed variant, random legal moves: the game and the events of its
    start, then of each move."""
    variant = load_registry().variant(variant_id)
    game, events = variant.start(resolve_options(variant.options, {}), SeededChance(b"s" * 32))
    yield game, events
    rng = random.Random(7)
    for _ in range(moves):
        if game.outcome() is not None or not game.to_move:
            return
        seat = game.to_move[0]
        yield game, game.apply(seat, rng.choice(game.legal_moves(seat)))


def test_every_option_value_reads_back_from_its_text() -> None:
    checked = 0
    for variant in load_registry().variants.values():
        for spec in variant.options:
            extremes = [v for v in (spec.minimum, spec.maximum) if v is not None]
            for value in (spec.default, *spec.choices, *extremes):
                assert spec.parse(option_text(value)) == value, (variant.id, spec.name, value)
                checked += 1
    assert checked > 10
    assert [option_text(v) for v in (None, True, False, 3, "quarts")] == [
        "none", "true", "false", "3", "quarts"]


@pytest.mark.parametrize("variant_id", ["bezique-2p", "quart-bezique"])
def test_jsonable_is_what_a_store_reads_back(variant_id: str) -> None:
    for _, events in played(variant_id):
        logged = events_json(events)
        assert jsonable(logged) == json.loads(json.dumps(logged)) == codec.loads(
            codec.dumps(logged))


def test_jsonable_sorts_sets_names_keys_and_refuses_the_rest() -> None:
    detail = MappingProxyType({"seats": frozenset({2, 0, 1}), 3: (1, "a"), "x": None})
    assert jsonable(detail) == {"seats": [0, 1, 2], "3": [1, "a"], "x": None}
    assert codec.loads(codec.dumps({"detail": detail})) == {"detail": jsonable(detail)}
    with pytest.raises(TypeError, match="object cannot be written as JSON"):
        jsonable({"when": object()})
    with pytest.raises(TypeError):
        codec.dumps({"when": object()})


def test_whole_numbers_undo_the_structs_doubles() -> None:
    doubled = 0
    for game, _ in played("quart-bezique"):
        detail = jsonable(game.view(0).detail)
        struct = struct_pb2.Struct()
        struct.update(detail)
        sent = json_format.MessageToDict(struct)
        doubled += json.dumps(sent, sort_keys=True) != json.dumps(detail, sort_keys=True)
        assert json.dumps(whole_numbers(sent), sort_keys=True) == json.dumps(detail,
                                                                              sort_keys=True)
    assert doubled  # the Struct did turn ints into doubles (3 arrived as 3.0)


def test_a_move_is_described_in_words() -> None:
    (game, _), *_ = played("bezique-2p", 0)
    shoe = game.shoe
    seat = game.to_move[0]
    move = next(m for m in game.legal_moves(seat) if m.kind == "play")
    (card,) = move.cards
    assert describe_move(move, shoe) == f"play {card_label(shoe.code(card))}"
    assert [card_label(code) for code in ("TH", "AS", "7D", "QC", "", "JOKER")] == [
        "10♥", "A♠", "7♦", "Q♣", "?", "JOKER"]
    assert describe_move(Move("exchange_seven", (card,)), shoe).startswith("exchange seven ")
    assert card_codes(shoe, [card, len(shoe)]) == f"{shoe.code(card)} #{len(shoe)}"
    assert card_codes(shoe, [card, len(shoe)], with_ids=True) == (
        f"{shoe.code(card)}#{card} ?#{len(shoe)}")
    long = Move("declare", tuple(range(10)), label="x" * 50)
    eight = " ".join(card_label(shoe.code(card)) for card in range(8))
    assert describe_move(long, shoe) == f"declare {'x' * 40} {eight} (+2 cards)"
    assert describe_move(Move("play", (len(shoe),)), shoe) == f"play #{len(shoe)}"


def test_an_offered_range_and_an_amount_are_described() -> None:
    offers = [m for game, _ in played("quart-bezique") for seat in game.to_move
              for m in game.legal_moves(seat) if m.amount_range is not None]
    assert offers
    offer = offers[0]
    shoe = load_registry().variant("quart-bezique").shoe({})
    span = offer.amount_range
    assert span is not None
    steps = f" in steps of {span.step}" if span.step > 1 else ""
    assert describe_move(offer, shoe) == (
        f"{offer.kind} to any amount from {span.minimum} to {span.maximum}{steps}")
    made = offer.with_amount(offer.amount)
    assert describe_move(made, shoe) == f"{offer.kind} {offer.amount}"


def test_the_kind_sets_are_entry_kinds() -> None:
    assert MOVE_KINDS | SEAT_KINDS <= ENTRY_KINDS
    assert not MOVE_KINDS & SEAT_KINDS
    assert len(ENTRY_KINDS) == len([k for k in vars(EntryKind) if k.isupper()])


@pytest.fixture
async def admin() -> AsyncIterator[AsyncTableClient]:
    running: RunningServer = await start_server(
        server_config(api_key=KEY, reveal_seconds=3), highcard_registry())
    async with AsyncTableClient(running.address, api_key=KEY, retries=0) as client:
        yield client
    await running.stop()


async def test_every_entry_kind_the_server_writes_is_named_and_verified(
        admin: AsyncTableClient) -> None:
    # a game: a bot, a clock, a move, a reissued token, an abort (the clock gives ann three
    # seconds for her move: a loaded machine may stall past one between her view and it)
    table = await admin.create_table("highcard", {"players": 2, "hand_size": 6},
                                     bots={1: "random"}, turn_seconds=3)
    ann = await admin.join(table.table_id, seat=0, name="ann")
    view = await until(lambda: admin.view(table.table_id, ann.token),
                       lambda v: bool(v.legal_moves), "ann's turn", timeout=20)
    await admin.submit(ann, view.legal_moves[0], view.version)
    ann = await admin.reissue(table.table_id, 0)
    await until(lambda: admin.history(table.table_id),
                lambda h: any(e.entry_kind == EntryKind.TIMEOUT for e in h.entries),
                "a timeout", timeout=20)
    await admin.abort_table(table.table_id)
    # a seat given up, then a reveal that never comes
    other = await admin.create_table("highcard", {"players": 2})
    bob = await admin.join(other.table_id, seat=0, name="bob")
    await admin.leave(bob)
    await admin.join(other.table_id, seat=0, name="bob")
    secret = secrets.token_bytes(32)
    await admin.stub.JoinTable(pb.JoinTableRequest(
        table_id=other.table_id, seat=1, entropy_commitment=hashlib.sha256(secret).digest()))
    await until(lambda: admin.view(other.table_id), lambda v: v.HasField("outcome"),
                "the reveal deadline", timeout=20)

    written: set[str] = set()
    for table_id in (table.table_id, other.table_id):
        history = await admin.history(table_id)
        written |= {entry.entry_kind for entry in history.entries}
        verify_history(history, highcard_registry())  # the client knows every kind
    assert written == ENTRY_KINDS
