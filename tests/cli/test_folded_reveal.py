"""What the end of a game reveals (rules/quart-bezique.md section 7): once a Quart table ends its
seed is revealed, every deal is derivable, and the history shows folded hands too. The clients
say so, and label each such hand, so nobody takes it for a hand shown at the table."""

from __future__ import annotations

import asyncio
import io
import re

from rich.console import Console

from bezique.clients.render import END_NOTE, FOLDED_LABEL, Words
from bezique.clients.replay import folded_deals, replay_lines
from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.quart.words import VOCABULARY
from tests.cli.helpers import Run, require_variant

QUART_WORDS = Words(events=dict(VOCABULARY.events))


def history(finished: bool) -> pb.GetHistoryResponse:
    """Two seats are dealt; seat 1 folds, seat 0 wins the pot; a second deal starts."""
    made = pb.GetHistoryResponse(table_id="t", variant_id="quart-bezique", finished=finished)
    for seat in (0, 1):
        made.entries.add(version=2 + seat, entry_kind="joined", seat=seat,
                         display_name=f"p{seat}")
    started = made.entries.add(version=4, entry_kind="started")
    started.events.add(kind="deal_start", seat=1).detail.update({"deal": 1})
    started.events.add(kind="deal", seat=0, cards=[pb.Card(code="AS", id=1)])
    started.events.add(kind="deal", seat=1, cards=[pb.Card(code="KH", id=2)])
    fold = made.entries.add(version=5, entry_kind="move", seat=1, move=pb.Move(kind="fold"))
    fold.events.add(kind="fold", seat=1)
    fold.events.add(kind="pot_won", seat=0, amount=20)
    fold.events.add(kind="deal_start", seat=0).detail.update({"deal": 2})
    fold.events.add(kind="deal", seat=1, cards=[pb.Card(code="QS", id=3)])
    return made


def printed(lines: object) -> str:
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None)
    for line in lines:  # type: ignore[attr-defined]
        console.print(line)
    return out.getvalue()


def test_a_folded_hand_is_labelled_once_the_game_has_ended() -> None:
    ended = history(finished=True)
    assert folded_deals(ended) == {(2, 2)}  # seat 1's first hand only, not its next one
    text = printed(replay_lines(ended, QUART_WORDS))
    assert END_NOTE in text
    assert re.search(rf"Seat 1 \(p1\) is dealt K♥ — {re.escape(FOLDED_LABEL)}", text)
    assert text.count(FOLDED_LABEL) == 1  # seat 0's hand and seat 1's next hand: no label


def test_before_the_end_nothing_is_labelled() -> None:
    going = history(finished=False)
    assert folded_deals(going) == set()
    text = printed(replay_lines(going))
    assert FOLDED_LABEL not in text and END_NOTE not in text


async def fold_whenever_possible(address: str) -> str:
    """A two-deal Quart table: seat 0 (us) folds whenever it may, bots in the other seats."""
    async with AsyncTableClient(address) as client:
        created = await client.create_table("quart-bezique", {"deals": "2", "players": "3"},
                                            bots={1: "heuristic", 2: "random"})
        seat = await client.join(created.table_id, 0, "folder")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while loop.time() < deadline:
            view = await client.view(created.table_id, seat.token)
            if view.HasField("outcome") and not view.to_move:
                return created.table_id
            if view.legal_moves:
                kinds = [m.kind for m in view.legal_moves]
                move = view.legal_moves[kinds.index("fold") if "fold" in kinds else 0]
                await client.submit(SeatHandle(created.table_id, 0, seat.token), move,
                                    view.version)
            else:
                await asyncio.sleep(0.01)
    raise TimeoutError("the Quart table did not end")


def test_history_and_replay_of_a_real_quart_table_label_folded_hands(run: Run,
                                                                       server: str) -> None:
    require_variant(server, "quart-bezique", "variants/quart")
    table = asyncio.run(fold_whenever_possible(server))
    full = asyncio.run(_history(server, table))
    folds = sum(e.kind == "fold" for entry in full.entries for e in entry.events)
    assert full.finished and folds >= 1
    labelled = folded_deals(full)
    assert len(labelled) == folds  # each fold has its dealt hand, shown and labelled
    replay = run("history", table, "--replay")
    assert replay.code == 0 and END_NOTE in replay.out.replace("\n", " ")
    assert replay.out.count(FOLDED_LABEL) == folds
    assert re.search(rf"Seat 0 \(folder\) is dealt (\S+ ){{4}}— {re.escape(FOLDED_LABEL)}",
                     replay.out)
    log = run("history", table)
    assert log.code == 0 and log.out.count(FOLDED_LABEL) == folds


async def _history(address: str, table: str) -> pb.GetHistoryResponse:
    async with AsyncTableClient(address) as client:
        return await client.history(table)
