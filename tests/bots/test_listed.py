"""The levels are offered where bots are chosen: ``ListVariants`` lists them for every
built-in game (the CLI's ``variants``, the terminal game's ``--bot-policy`` and the web lobby
read that list), and ``CreateTable`` seats them."""

from __future__ import annotations

from rich.console import Console

from bezique.clients.render import variants_table
from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import RunningServer

BUILT_IN = ("bezique-2p", "bezique-3p", "quart-bezique", "trump-quart-bezique")
LEVELS = ["search-easy", "search", "search-hard"]


async def test_list_variants_offers_the_levels_and_create_table_seats_them(
        builtin_server: RunningServer) -> None:
    async with AsyncTableClient(builtin_server.address, retries=5, backoff=0.01) as client:
        variants = {v.id: v for v in await client.list_variants()}
        for variant_id in BUILT_IN:
            assert list(variants[variant_id].bot_policies)[-3:] == LEVELS
        table = await client.create_table("bezique-2p", {"target": "10"},
                                          bots={1: "search-hard"})
        seats = (await client.view(table.table_id)).seats
    assert seats[1].bot_policy == "search-hard"
    console = Console(width=200, record=True)
    console.print(variants_table([variants["quart-bezique"]]))
    assert "bot policies: random, heuristic, search-easy, search, search-hard" in \
        console.export_text()
