"""The built-in variants through the gRPC server: whole matches and sessions of server bots
(the search bots among them), then the history verified against the revealed seed.

The server's bots draw their choices from the table's id, which no test can fix, so every
assertion here holds for every game the bots may play (the engine-level tests fix seeds)."""

from __future__ import annotations

import asyncio

import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.clients.verify import verify_history
from bezique.service.server import RunningServer
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import finished
from tests.quart.helpers import check_session_end


def least_bot_moves(variant_id: str, history: pb.GetHistoryResponse, deals: int) -> int:
    """The fewest bot moves any whole game can have. Bezique: a match cannot end before the
    stock is played out (claims come only then), and every stock card is drawn after a play:
    64 - 2 x 8 = 48 cards for two, 96 - 3 x 8 = 72 for three. Quart: at least one betting
    decision a deal, and a session may end after one deal when all but one seat are broke."""
    if variant_id == "bezique-2p":
        return 48
    if variant_id == "bezique-3p":
        return 72
    check_session_end(history.outcome.reason, list(history.outcome.scores),
                      dict(history.options), deals)
    return deals


@pytest.mark.parametrize(("variant_id", "options", "bots"), [
    ("bezique-2p", {}, {0: "heuristic", 1: "heuristic"}),
    ("bezique-3p", {}, {0: "heuristic", 1: "heuristic", 2: "heuristic"}),
    ("quart-bezique", {"deals": "25"}, {0: "heuristic", 1: "random", 2: "random",
                                        3: "heuristic"}),
    ("trump-quart-bezique", {"players": "3", "deals": "25"},
     {0: "heuristic", 1: "random", 2: "random"}),
    # the search bots decide from their seat's record, which the server reads from its log and
    # verify rebuilds from the history: every one of their moves is recomputed
    ("bezique-2p", {"target": "10", "claims": "false"}, {0: "search-easy", 1: "heuristic"}),
    ("bezique-3p", {"target": "10", "claims": "false"},
     {0: "heuristic", 1: "search-easy", 2: "random"}),
    ("quart-bezique", {"players": "3", "deals": "4"},
     {0: "search-easy", 1: "heuristic", 2: "search-easy"}),
    ("trump-quart-bezique", {"players": "2", "deals": "4"}, {0: "search-easy", 1: "random"}),
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
    assert "move" not in kinds
    report = verify_history(history)
    assert report.deals >= 1 and report.moves == kinds.count("bot_move")
    assert report.moves >= least_bot_moves(variant_id, history, report.deals)
    print(f"\n{variant_id}: {report.deals} deals, {report.moves} moves, "
          f"outcome {list(history.outcome.winners)} {history.outcome.reason}")
