"""The SDK does not reveal a seat's entropy early when a lying server asks (issue #26): it
reveals only when its own read of the table's history shows every seat taken, whatever
``awaiting_reveal`` says."""

from __future__ import annotations

import hashlib

import pytest

from bezique.clients.sdk import AsyncTableClient, RevealRefused
from tests.lying_table import TABLE, lying_server


async def test_the_sdk_reveals_only_when_its_history_shows_every_seat_taken() -> None:
    async with lying_server() as (address, table), AsyncTableClient(address, retries=0) as client:
        seat = await client.join(TABLE, 0)  # the join's view already asks for the reveal
        assert table.joined[0] == hashlib.sha256(seat.entropy).digest()
        view = await client.view(TABLE, seat.token)
        assert list(view.awaiting_reveal) == [0]
        assert table.reveals == []  # seat 1 is free in the history: nothing revealed
        with pytest.raises(RevealRefused, match=r"seats \[1\] are free"):
            await client.reveal(seat)
        assert table.reveals == [] and client.pins == {}

        table.take_every_seat()
        view = await client.view(TABLE, seat.token)
        assert table.reveals == [seat.entropy]  # still owed, revealed now: once
        assert not view.waiting_for_players
        assert (TABLE, 0) in client.pins
