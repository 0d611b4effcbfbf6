"""Each update is built and serialised once per audience (a seat, or every spectator) and its
bytes sent to every stream of that audience, over a real port: the streams of one audience get
the same bytes, other audiences their own, and a seat's stream whose token was replaced never
gets the bytes made for the seat's next holder; a Play stream's updates are the same bytes,
wrapped (tests/play/test_play_wire.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.service import translate
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.api import Move, View, Zone
from tests.helpers import details, eventually, highcard_registry, server_config
from tests.service.helpers import STACK, STARTED, two_seats

KEY = "platform-key"
WATCH = "/bezique.v1.TableService/WatchTable"


async def raw_updates(address: str, table_id: str, token: str | None, start: int,
                      into: list[bytes], until: int | None = None) -> None:
    """A WatchTable stream's messages as the bytes that came over the wire, until one of
    version ``until`` (or the stream's end)."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.unary_stream(
            WATCH, request_serializer=pb.WatchTableRequest.SerializeToString,
            response_deserializer=None)
        metadata = (("authorization", f"Bearer {token}"),) if token is not None else ()
        async for raw in call(pb.WatchTableRequest(table_id=table_id, from_version=start),
                              metadata=metadata):
            into.append(raw)
            if until is not None and pb.WatchTableResponse.FromString(raw).version >= until:
                return


@pytest.fixture
async def keyed() -> AsyncIterator[RunningServer]:
    server = await start_server(server_config(api_key=KEY), highcard_registry())
    yield server
    await server.stop()


async def test_the_streams_of_one_audience_get_the_same_bytes_built_once(
        client: AsyncTableClient, server: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
    view = await client.view(table_id, ann.token)
    audiences: list[str | None] = [ann.token, ann.token, None, None, bob.token]
    got: list[list[bytes]] = [[] for _ in audiences]
    streams = [asyncio.create_task(raw_updates(server.address, table_id, token, view.version,
                                               into, view.version + 1))
               for token, into in zip(audiences, got, strict=True)]
    live = await server.manager.table(table_id)
    await eventually(lambda: len(live.watchers) == len(audiences), 10, "every stream")
    built: list[int] = []
    head: Callable[..., bytes] = translate._watch_head

    def counted(*args: Any) -> bytes:
        built.append(1)
        return head(*args)

    monkeypatch.setattr(translate, "_watch_head", counted)
    answer = await client.submit(ann, view.legal_moves[0], view.version)
    await asyncio.wait_for(asyncio.gather(*streams), 10)
    # one update built per audience (ann, the spectators, bob)
    assert len(built) == 3
    (ann_a,), (ann_b,), (spectator_a,), (spectator_b,), (bobs,) = got
    assert ann_a == ann_b and spectator_a == spectator_b
    assert len({ann_a, spectator_a, bobs}) == 3
    mine, theirs, public = (pb.WatchTableResponse.FromString(raw)
                            for raw in (ann_a, bobs, spectator_a))
    assert mine.version == theirs.version == public.version == answer.version
    assert mine.view == answer.view and mine.view.viewer_seat == 0
    assert {c.code for c in theirs.view.hand} == {"8H", "QD", "9D"}
    assert not public.view.HasField("viewer_seat") and not public.view.hand
    assert list(mine.events) == list(answer.events)


async def test_a_replaced_tokens_stream_never_gets_the_next_holders_bytes(
        keyed: RunningServer) -> None:
    async with AsyncTableClient(keyed.address, api_key=KEY, retries=0) as platform:
        table_id, ann, _ = await two_seats(platform, stacked_shoe=STACK)
        start = (await platform.view(table_id)).version
        old: list[bytes] = []
        spectator: list[bytes] = []
        old_stream = asyncio.create_task(raw_updates(keyed.address, table_id, ann.token, start,
                                                     old))
        public = asyncio.create_task(raw_updates(keyed.address, table_id, None, start,
                                                 spectator, start + 2))
        live = await keyed.manager.table(table_id)
        await eventually(lambda: len(live.watchers) == 2, 10, "both streams")
        new = await platform.reissue(table_id, ann.seat)
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            await asyncio.wait_for(old_stream, 10)
        assert details(ended.value)["reason"] == "SEAT_TOKEN_REVOKED"
        reissued = (await platform.view(table_id)).version
        assert reissued == start + 1
        fresh: list[bytes] = []
        new_stream = asyncio.create_task(raw_updates(keyed.address, table_id, new.token,
                                                     reissued, fresh, reissued + 1))
        await eventually(lambda: len(live.watchers) == 2, 10, "the new holder's stream")
        holder = SeatHandle(table_id, ann.seat, new.token)
        mine = await platform.view(table_id, new.token)
        answer = await platform.submit(holder, mine.legal_moves[0], mine.version)
        await asyncio.wait_for(asyncio.gather(new_stream, public), 10)
    assert old == []  # nothing committed after the reissue (nor the reissue itself)
    (update,) = fresh
    assert pb.WatchTableResponse.FromString(update).view == answer.view
    assert update not in spectator


async def test_a_view_whose_cards_come_as_lists_renders_and_keeps_no_part_of_it(
        client: AsyncTableClient, server: RunningServer) -> None:
    """An untyped plugin's view may hold its cards in lists: the parts viewers share are
    rendered for it each time (a list does not hash), and show every card."""
    table_id, ann, _ = await two_seats(client, stacked_shoe=STACK)
    live = await server.manager.table(table_id)
    watcher = server.manager.hub.subscribe(live, None, "")
    try:
        seat = live.view_for(0)
        assert seat.view is not None
        odd = View(0, seat.view.phase, seat.view.to_move, seat.view.hand,
                   (Zone("table", None, [5, 6]),), shoe=seat.view.shoe)  # type: ignore[arg-type]
        result = replace(seat, view=odd, legal=(Move("play", [3]),), wire=[])  # type: ignore[arg-type]
        shown = pb.View.FromString(translate.view_wire(result))
        twice = pb.View.FromString(translate.view_wire(replace(result, wire=[])))
    finally:
        server.manager.hub.unsubscribe(watcher)
    assert [card.id for card in shown.zones[0].cards] == [5, 6]
    assert [card.id for card in shown.legal_moves[0].cards] == [3]
    assert shown == twice and shown.viewer_seat == 0 and ann.seat == 0


async def test_viewers_who_see_different_events_never_share_them(
        client: AsyncTableClient, server: RunningServer) -> None:
    """The deal is published live to streams open before it: each seat's update shows its own
    hand's cards only (the spectator's none), though their updates share what they see
    alike."""
    table = await client.create_table("highcard", {"players": 2}, stacked_shoe=STACK)
    got: list[list[bytes]] = [[], []]
    streams = [asyncio.create_task(raw_updates(server.address, table.table_id, None, 0, into,
                                               STARTED)) for into in got]
    live = await server.manager.table(table.table_id)
    await eventually(lambda: len(live.watchers) == 2, 10, "both streams")
    ann = await client.join(table.table_id, name="ann")
    mine: list[bytes] = []
    own = asyncio.create_task(raw_updates(server.address, table.table_id, ann.token, 2, mine,
                                          STARTED))
    await eventually(lambda: len(live.watchers) == 3, 10, "ann's stream")
    await client.join(table.table_id, name="bob")
    await asyncio.wait_for(asyncio.gather(*streams, own), 10)
    dealt = [pb.WatchTableResponse.FromString(raw[-1]) for raw in (got[0], got[1], mine)]
    assert all(update.version == STARTED for update in dealt)
    spectator, other, ann_sees = dealt
    assert got[0][-1] == got[1][-1]  # the spectators' bytes, built once
    assert not [card for event in spectator.events for card in event.cards]
    assert {card.code for event in ann_sees.events for card in event.cards} == {"AS", "7S", "KH"}
    assert other.events == spectator.events
