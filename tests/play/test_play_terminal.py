"""The terminal game (``bezique play``) plays its seat over Play: every move goes up the
seat's stream, none by SubmitMove, and the game is played to its end."""

from __future__ import annotations

import io
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from rich.console import Console

from bezique.clients.play import PlaySettings, play_at
from bezique.service.servicer import TableServicer
from tests.service.helpers import STACK, serving, two_seats


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often the servicer answered a move by SubmitMove and on a Play stream."""
    counts = {"SubmitMove": 0, "Play": 0}

    def counting(name: str, method: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return await method(*args, **kwargs)
        return wrapper

    for served in ("SubmitMove", "submit_move_wire"):  # the HTTP port's, and grpc's
        monkeypatch.setattr(TableServicer, served,
                            counting("SubmitMove", getattr(TableServicer, served)))
    monkeypatch.setattr(TableServicer, "_play_move",
                        counting("Play", TableServicer._play_move))
    return counts


def first_move(prompt: str) -> str:
    """The player's line: always the first move (a little later, as a person types)."""
    time.sleep(0.05)
    return "1"


async def test_the_terminal_game_moves_over_play(calls: dict[str, int]) -> None:
    async with serving(bot_delay=0.0) as (server, _):
        out = io.StringIO()
        console = Console(file=out, width=120, height=50)
        settings = PlaySettings("highcard", {"hand_size": "3"}, "highest", server.address)
        code = await play_at(server.address, settings, console, first_move)
    assert code == 0, out.getvalue()
    assert "Game over" in out.getvalue()
    assert calls == {"SubmitMove": 0, "Play": 3}


async def test_the_counter_sees_a_submit_move_over_grpc(calls: dict[str, int]) -> None:
    """The guard above guards: grpc serves SubmitMove from ``submit_move_wire``."""
    async with serving() as (_, client):
        table_id, ann, bob = await two_seats(client, stacked_shoe=STACK)
        view = await client.view(table_id)
        mover = ann if view.to_move[0] == ann.seat else bob
        own = await client.view(table_id, mover.token)
        await client.submit(mover, own.legal_moves[0], own.version)
    assert calls == {"SubmitMove": 1, "Play": 0}
