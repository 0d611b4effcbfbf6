"""An operator's abort of a Quart table: the current deal's stakes go back to who staked
them, chips carried over from earlier deals are shared among the seats dealt in."""

from __future__ import annotations

from bezique.variants.api import Move
from bezique.variants.host import abort_game
from bezique.variants.quart.game import QuartGame
from tests.quart.helpers import stacked_game


def _call_down(game: QuartGame) -> tuple[int, Move]:
    """Show, else bet, else the smallest raise: every seat stays in to the showdown."""
    seat = game.to_move[0]
    legal = game.legal_moves(seat)
    for kind in ("show", "bet", "raise"):
        for move in legal:
            if move.kind == kind:
                return seat, move
    raise AssertionError(f"no way to stay in: {legal}")


def test_abort_returns_the_deals_stakes_and_shares_the_carried_pot() -> None:
    # filler hands hold no combination: deal 1's pot of 90 is carried into deal 2
    game, _ = stacked_game({"players": 3, "starting_stack": 100, "ante": 10}, dealer=2,
                           hands={}, later={2: {}})
    while game.deal_no == 1:
        game.apply(*_call_down(game))
    assert (game.stacks, game.pot) == ([70, 70, 70], 90)  # 60 carried + 30 antes of deal 2
    seat = game.to_move[0]
    game.apply(seat, next(m for m in game.legal_moves(seat) if m.kind == "raise"))
    chips = game.census().chips
    ended, events = abort_game(game)
    assert ended is game
    returned = {e.seat: e.amount for e in events if e.kind == "stake_returned"}
    assert returned == {0: 10, 1: 20, 2: 10}  # the ante each, and seat 1's raise
    assert sum(e.amount for e in events if e.kind == "carry_returned") == 60
    assert game.stacks == [100, 100, 100] and game.pot == 0 and game.census().chips == chips
    outcome = game.outcome()
    assert outcome is not None and (outcome.reason, outcome.winners) == ("aborted", ())
    assert game.to_move == () and game.legal_moves(seat) == ()
    assert events[-1].kind == "table_end" and game.phase == "over"
