"""No leaks, on every registered variant: random games through the server, and after every
move, for every seat and a spectator, every payload the server sends (view, watch update,
history, error details, log lines) holds no card that viewer may not see at that moment.

Ground truth is the game's census (every card's place and who may see it). A view may show
only what the viewer may see now; history and watch updates only what it could see at some
moment so far (a card seen on the table stays seen). Every card is checked by id, and its code
must be the code of that id.
"""

from __future__ import annotations

import asyncio
import io
import random
import re
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
import structlog
from google.protobuf.message import Message

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.service.logs import configure_logging
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.api import Census
from bezique.variants.cards import Shoe
from bezique.variants.registry import load_registry
from tests.helpers import details, eventually, server_config

REGISTRY = load_registry()
SHORT_GAMES: dict[str, dict[str, str]] = {
    "highcard": {"players": "3", "hand_size": "8"},
    "quart-bezique": {"players": "4", "deals": "3"},
    "trump-quart-bezique": {"players": "3", "deals": "3"},
}
MOVES_PER_GAME = 90
CODE = re.compile(r"\b[789TJQKA][SHDC]\b")


def cards_in(message: Message) -> Iterable[pb.Card]:
    """Every Card message anywhere inside ``message``."""
    if isinstance(message, pb.Card):
        yield message
        return
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None or descriptor.message_type.GetOptions().map_entry:
            continue
        if isinstance(value, Message):
            yield from cards_in(value)
        else:
            for item in value:
                yield from cards_in(item)


def visible(census: Census, viewer: int | None) -> set[int]:
    return {card for pile in census.piles for card in pile.cards
            if pile.visible_to is None or (viewer is not None and viewer in pile.visible_to)}


@dataclass
class Watchers:
    updates: dict[int | None, list[pb.WatchTableResponse]] = field(default_factory=dict)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


def check(message: Message, allowed: set[int], shoe: Shoe, where: str) -> None:
    for card in cards_in(message):
        assert card.id in allowed, f"{where}: shows hidden card {card.code} (id {card.id})"
        assert card.code == shoe.code(card.id), f"{where}: id {card.id} is not {card.code}"


@pytest.fixture
async def leak_server() -> AsyncIterator[tuple[RunningServer, io.StringIO]]:
    """A server logging every level as JSON into a buffer the test reads."""
    sink = io.StringIO()
    configure_logging("json", "debug")
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(sink))
    server = await start_server(server_config(), REGISTRY)
    yield server, sink
    await server.stop()
    configure_logging("console", "info")


@pytest.mark.parametrize("variant_id", sorted(REGISTRY.variants))
async def test_no_payload_leaks_a_hidden_card(
        variant_id: str, leak_server: tuple[RunningServer, io.StringIO]) -> None:
    server, log_sink = leak_server
    async with AsyncTableClient(server.address, retries=0) as client:
        table = await client.create_table(variant_id, SHORT_GAMES.get(variant_id, {}),
                                          seed=b"leak-test-seed-" + variant_id.encode())
        table_id = table.table_id
        seats = [await client.join(table_id, name=f"p{i}", entropy=b"")  # the seed fixes the game
                 for i in range(len(table.table.seats))]
        tokens: dict[int | None, str | None] = {None: None, **{s.seat: s.token for s in seats}}
        live = await server.manager.table(table_id)
        assert live.game is not None
        shoe = live.game.shoe
        ever: dict[int | None, set[int]] = {v: visible(live.game.census(), v) for v in tokens}
        watchers = Watchers()
        for viewer, token in tokens.items():
            watchers.updates[viewer] = []
            watchers.tasks.append(asyncio.create_task(
                _watch(client, table_id, token, watchers.updates[viewer])))
        rng = random.Random(variant_id)
        for number in range(MOVES_PER_GAME):
            census = live.game.census()
            now = {v: visible(census, v) for v in tokens}
            over = live.game.outcome() is not None
            for viewer, token in tokens.items():
                ever[viewer] |= now[viewer]
                where = f"{variant_id} move {number} viewer {viewer}"
                check(await client.view(table_id, token), now[viewer], shoe, f"{where} view")
                history = await client.history(table_id, token)
                assert history.finished == over and bool(history.revealed_seed) == over
                # once the game has ended the history shows everything, by design
                check(history, set(shoe.ids) if over else ever[viewer], shoe,
                      f"{where} history")
            if over:
                break
            seat = seats[live.game.to_move[0]]
            view = await client.view(table_id, seat.token)
            await _probe_error_details(client, seat, view, now[seat.seat], shoe)
            move = rng.choice(list(view.legal_moves))
            result = await client.submit(seat, move, view.version)
            after = visible(live.game.census(), seat.seat)
            ever[seat.seat] |= after
            check(result, ever[seat.seat], shoe, f"{variant_id} move {number} answer")
        final = live.game.census()  # what the last move showed everyone (a card played)
        for viewer in tokens:
            ever[viewer] |= visible(final, viewer)
        head = live.version
        await eventually(lambda: all(u and u[-1].version == head
                                     for u in watchers.updates.values()),
                         what="every watcher to reach the last version")
        for task in watchers.tasks:
            task.cancel()
        await asyncio.gather(*watchers.tasks, return_exceptions=True)
        for viewer, updates in watchers.updates.items():
            assert updates, f"{variant_id}: viewer {viewer} got no watch update"
            for update in updates:
                check(update, ever[viewer], shoe, f"{variant_id} watch {update.version} {viewer}")
    logged = log_sink.getvalue()
    assert "move_applied" in logged, "the log capture saw nothing"
    assert not CODE.findall(logged), f"card codes in log lines: {set(CODE.findall(logged))}"


async def _watch(client: AsyncTableClient, table_id: str, token: str | None,
                 into: list[pb.WatchTableResponse]) -> None:
    async for update in client.watch(table_id, token, 0):
        into.append(update)


async def _probe_error_details(client: AsyncTableClient, seat: SeatHandle, view: pb.View,
                               allowed: set[int], shoe: Shoe) -> None:
    """An illegal move's error lists the legal moves: only the seat's own visible cards."""
    bogus = pb.Move(kind=view.legal_moves[0].kind, cards=[pb.Card(id=len(shoe) + 1)],
                    amount=view.legal_moves[0].amount + 123_456, label="no-such-label")
    try:
        await client.submit(seat, bogus, view.version)
    except grpc.aio.AioRpcError as error:
        legal: Any = details(error)["legal"]
        allowed_codes = {shoe.code(card) for card in allowed}
        for text in [error.details() or "", *legal]:
            for code in CODE.findall(text):
                assert code in allowed_codes, f"error details name hidden card {code}"
    else:
        raise AssertionError("a bogus move was accepted")
