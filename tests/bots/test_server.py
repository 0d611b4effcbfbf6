"""Search bots at a table of the real server: they play it to the end from the records the
server builds from its log, and ``verify`` (which replays the log and builds the same records)
recomputes every one of their moves from the revealed seed."""

from __future__ import annotations

import asyncio

import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.clients.verify import verify_history
from bezique.service.server import RunningServer
from tests.helpers import finished


@pytest.mark.parametrize(("variant_id", "options", "bots"), [
    ("bezique-2p", {"target": "10", "claims": "false"}, {0: "search-easy", 1: "heuristic"}),
    ("bezique-3p", {"target": "10", "claims": "false"},
     {0: "heuristic", 1: "search-easy", 2: "random"}),
    ("quart-bezique", {"players": "3", "deals": "4"},
     {0: "search-easy", 1: "heuristic", 2: "search-easy"}),
    ("trump-quart-bezique", {"players": "2", "deals": "4"}, {0: "search-easy", 1: "random"}),
])
async def test_a_table_of_search_bots_finishes_and_verifies(
        builtin_server: RunningServer, variant_id: str, options: dict[str, str],
        bots: dict[int, str]) -> None:
    async with AsyncTableClient(builtin_server.address, retries=5, backoff=0.01) as client:
        table = await client.create_table(variant_id, options, bots=bots)
        await asyncio.wait_for(finished(client, table.table_id), 120)
        history = await client.history(table.table_id)
    assert history.finished and history.HasField("outcome")
    kinds = [entry.entry_kind for entry in history.entries]
    report = verify_history(history)
    assert report.moves == report.bot_moves == kinds.count("bot_move") > 0
