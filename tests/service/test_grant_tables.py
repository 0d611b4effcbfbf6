"""Grant tables: on a server with an API key and a grant key, a table the platform made takes
a seat only with a join grant or the API key, unless its creator opened the seats on purpose;
a table with buy-ins always needs one. The rule is in the table's log, so a reload keeps it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from bezique.clients.sdk import AsyncTableClient
from bezique.service.live import LiveTable
from bezique.service.server import start_server
from bezique.variants.registry import load_registry
from tests.helpers import details, highcard_registry, server_config
from tests.service.helpers import KEY, Platform, expect_error, grant, platform_of, public_pem


@pytest.fixture
async def granting(tmp_path: Path) -> AsyncIterator[Platform]:
    async for made in platform_of(tmp_path, "EdDSA"):
        yield made


async def test_a_stranger_cannot_take_a_seat_of_a_grant_table(granting: Platform) -> None:
    table = await granting.platform.create_table("highcard", {"players": 2})
    tid = table.table_id
    refused = await expect_error(grpc.StatusCode.UNAUTHENTICATED,
                                 granting.player.join(tid, 0, "eve"))
    assert details(refused)["reason"] == "GRANT_REQUIRED"
    async with AsyncTableClient(granting.server.address, api_key="wrong", retries=0) as liar:
        await expect_error(grpc.StatusCode.PERMISSION_DENIED, liar.join(tid, 0, "eve"))
    view = await granting.player.view(tid)
    assert view.version == 1 and not any(seat.occupied for seat in view.seats)
    # the granted player gets the seat the stranger asked for; the platform's own join passes
    # an idle table leaves memory as a snapshot: the rule goes with it
    live = await granting.server.manager.table(tid)
    again = LiveTable(live.record, live.variant, len(live.seats))
    again.restore(live.snapshot())
    assert again.joins == live.joins == "platform"
    ann = await granting.player.join(tid, grant=granting.grant(tid, seat=0))
    bob = await granting.platform.join(tid, name="bob")
    assert (ann.seat, bob.seat) == (0, 1)


async def test_a_table_opened_on_purpose_takes_anyone(granting: Platform) -> None:
    table = await granting.platform.create_table("highcard", {"players": 2}, open_seats=True)
    eve = await granting.player.join(table.table_id, name="eve")
    ann = await granting.player.join(table.table_id, grant=granting.grant(table.table_id))
    assert (eve.seat, ann.seat) == (0, 1)
    history = await granting.player.history(table.table_id)
    assert [entry.entry_kind for entry in history.entries][:3] == ["created", "joined", "joined"]


async def test_the_rule_is_in_the_log_and_survives_a_reload(tmp_path: Path) -> None:
    key = ed25519.Ed25519PrivateKey.generate()
    config = server_config(api_key=KEY, grant_public_key=public_pem(key, tmp_path),
                           store=f"sqlite:{tmp_path / 'tables.db'}")
    first = await start_server(config, highcard_registry())
    async with AsyncTableClient(first.address, api_key=KEY, retries=0) as platform:
        closed = (await platform.create_table("highcard", {"players": 2})).table_id
        opened = (await platform.create_table("highcard", {"players": 2},
                                              open_seats=True)).table_id
    entries = {tid: await first.manager.store.read_log(tid) for tid in (closed, opened)}
    assert entries[closed][0].payload["joins"] == "platform"
    assert entries[opened][0].payload["joins"] == "open"
    await first.stop()
    again = await start_server(config, highcard_registry())
    try:
        async with AsyncTableClient(again.address, retries=0) as stranger:
            refused = await expect_error(grpc.StatusCode.UNAUTHENTICATED, stranger.join(closed))
            assert details(refused)["reason"] == "GRANT_REQUIRED"
            assert (await stranger.join(opened)).seat == 0
            granted = grant(key, "EdDSA", closed)
            assert (await stranger.join(closed, grant=granted)).seat == 0
    finally:
        await again.stop()


async def test_a_table_with_buy_ins_always_needs_the_platform(tmp_path: Path) -> None:
    """Even on a server with no grant key: an open join would play with a stack no wallet
    paid for. Opening such a table is refused."""
    server = await start_server(server_config(api_key=KEY), load_registry())
    try:
        async with AsyncTableClient(server.address, retries=0) as stranger, \
                AsyncTableClient(server.address, api_key=KEY, retries=0) as platform:
            table = await platform.create_table("quart-bezique", {"players": 2})
            refused = await expect_error(grpc.StatusCode.UNAUTHENTICATED,
                                         stranger.join(table.table_id))
            assert details(refused)["reason"] == "GRANT_REQUIRED"
            opened = await expect_error(grpc.StatusCode.INVALID_ARGUMENT, platform.create_table(
                "quart-bezique", {"players": 2}, open_seats=True))
            assert details(opened)["fields"] == ["open_seats"]
            seat = await platform.join(table.table_id, player_id="acct-1", buy_in=500)
            assert seat.seat == 0
            # a table without buy-ins on this server (no grant key) is open as before
            plain = await platform.create_table("bezique-2p")
            assert (await stranger.join(plain.table_id)).seat == 0
    finally:
        await server.stop()
