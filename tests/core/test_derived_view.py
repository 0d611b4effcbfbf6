"""A view derived from a game's census is the state when the view was taken: a plugin's census
that hands over the game's own lists cannot show a later move in an earlier view."""

from __future__ import annotations

from typing import Any

from bezique.variants.api import BaseGame, Census, Event, Move, Pile
from bezique.variants.cards import piquet_shoe


class _LooseCensus(BaseGame):
    """A plugin that hands its census its own lists (plain Python, no mypy): the table's cards,
    the scores and a detail dict are the game's live objects. Seat 0 and 1 each play their
    one card face up, in turn."""

    shoe = piquet_shoe(1)
    phase = "play"

    def __init__(self) -> None:
        self.hands = [[7], [12]]
        self.table: list[int] = []
        self.scores = [0, 0]
        self.detail: dict[str, object] = {"played": 0}

    @property
    def to_move(self) -> tuple[int, ...]:
        return (len(self.table),) if len(self.table) < 2 else ()

    def legal_moves(self, seat: int) -> tuple[Move, ...]:
        return tuple(Move("play", (c,)) for c in self.hands[seat] if seat in self.to_move)

    def apply_legal(self, seat: int, move: Move) -> tuple[Event, ...]:
        self.table += self.hands[seat]
        self.hands[seat].clear()
        self.scores[seat] += 1
        self.detail["played"] = len(self.table)
        return (Event("play", seat, move.cards),)

    def census(self) -> Census:
        loose: Any = (self.table, self.scores, self.detail)  # what an untyped plugin writes
        return Census((Pile.hand(0, self.hands[0]), Pile.hand(1, self.hands[1]),
                       Pile("table", loose[0])), scores=loose[1], detail=loose[2])


def test_a_derived_view_is_the_state_when_it_was_taken_not_a_later_one() -> None:
    """A watch update's view is rendered after the entry was published, in the stream's
    task, possibly while the next move's draft has already changed the game and waits for its
    commit. A view derived from a census that passed the game's own lists showed that later,
    uncommitted state (the card just played, the new score) when rendered: Census.view_for must
    take the state as it is when the view is made."""
    game = _LooseCensus()
    before = {viewer: game.view(viewer) for viewer in (None, 0, 1)}
    shown = {viewer: repr(view) for viewer, view in before.items()}
    game.apply(0, Move("play", (7,)))
    assert {viewer: repr(view) for viewer, view in before.items()} == shown
    assert before[None].card_ids() == set() and before[1].card_ids() == {12}
    after = game.view(1)
    assert after.card_ids() == {7, 12} and after.scores == (1, 0)
    assert dict(after.detail) == {"played": 1} and dict(before[1].detail) == {"played": 0}
