"""The built-in variants through the gRPC server: whole matches and sessions of server bots,
then the history verified against the revealed seed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from clients.sdk import AsyncTableClient
from clients.verify import verify_history
from service.server import RunningServer, start_server
from tests.conftest import server_config
from variants.registry import load_registry


@pytest.fixture
async def builtin_server() -> AsyncIterator[RunningServer]:
    server = await start_server(server_config(), load_registry())
    yield server
    await server.stop()


async def finished(client: AsyncTableClient, table_id: str, seconds: float = 120) -> None:
    async for update in client.watch(table_id):
        if update.HasField("view") and update.view.HasField("outcome"):
            return
    raise AssertionError("the watch ended before the game")


@pytest.mark.parametrize(("variant_id", "options", "bots"), [
    ("bezique-2p", {}, {0: "heuristic", 1: "heuristic"}),
    ("bezique-3p", {}, {0: "heuristic", 1: "heuristic", 2: "heuristic"}),
    ("quart-bezique", {"deals": "25"}, {0: "heuristic", 1: "random", 2: "random",
                                        3: "heuristic"}),
    ("trump-quart-bezique", {"players": "3", "deals": "25"},
     {0: "heuristic", 1: "random", 2: "random"}),
])
async def test_bots_play_a_whole_match_through_the_server(
        builtin_server: RunningServer, variant_id: str, options: dict[str, str],
        bots: dict[int, str]) -> None:
    async with AsyncTableClient(builtin_server.address, retries=5, backoff=0.01) as client:
        table = await client.create_table(variant_id, options, bots=bots)
        await asyncio.wait_for(finished(client, table.table_id), 120)
        history = await client.history(table.table_id)
    assert history.finished and history.HasField("outcome")
    kinds = [entry.entry_kind for entry in history.entries]
    assert kinds.count("bot_move") > 20 and "move" not in kinds
    report = verify_history(history)
    assert report.deals >= 1 and report.moves == kinds.count("bot_move")
    print(f"\n{variant_id}: {report.deals} deals, {report.moves} moves, "
          f"outcome {list(history.outcome.winners)} {history.outcome.reason}")
