"""``declare_prompt`` (spec section 5): with ``always`` the public phase after a trick tells a
spectator nothing about the winner's hand; with ``when_possible`` it tells (the old way)."""

from __future__ import annotations

import copy
import dataclasses
import random
from dataclasses import dataclass

import pytest

from bezique.variants.api import Move
from bezique.variants.bezique.game import BeziqueGame
from bezique.variants.bezique.rules import PHASE_ONE_TRICKS
from tests.bezique.scenario import seeded_game

TRICKS = 100
PASS = Move("pass")
ASKED = {(("declare", True), ("play", True)), (("declare", True), ("endgame", True))}
"""After every phase-1 trick: the winner's declaration step, then his lead (the last tricks
begin after the 24th)."""


@dataclass(frozen=True)
class Watched:
    """One phase-1 trick as a spectator saw it, and what the winner really held."""

    holds: bool
    """The winner could declare something (a meld or a seven) after this trick."""
    seen: tuple[tuple[str, bool], ...]
    """The spectator's (phase, winner to move) after the trick and after each of the
    winner's declaration-step moves, up to the next lead."""


def could_declare(game: BeziqueGame, seat: int, move: Move) -> bool:
    """Whether the trick's winner could declare once ``move`` ends the trick (what a
    spectator must not learn): asked of a copy that always prompts, before any draw."""
    probe = copy.deepcopy(game)
    probe.rules = dataclasses.replace(probe.rules, declare_always=True)
    probe.apply(seat, move)
    return any(m.kind != "pass" for m in probe.legal_moves(probe.turn))


def watch(options: dict[str, object], seats: int = 2) -> list[Watched]:
    """Random legal play over seeded games until ``TRICKS`` phase-1 tricks were watched; the
    winner always passes on the declaration step, so both kinds of hand act alike."""
    watched: list[Watched] = []
    seed = 0
    while len(watched) < TRICKS:
        seed += 1
        game, _ = seeded_game(seats, seed, options)
        rng = random.Random(seed)
        while game.outcome() is None and game.deal_no == 1 and len(watched) < TRICKS:
            seat = game.to_move[0]
            legal = game.legal_moves(seat)
            move = PASS if PASS in legal else rng.choice(legal)
            phase_one = game.stage == "play"
            last_card = phase_one and len(game.trick) == seats - 1
            holds = last_card and could_declare(game, seat, move)
            events = game.apply(seat, move)
            ended = [e for e in events if e.kind == "trick"]
            if not (phase_one and ended) or game.tricks > PHASE_ONE_TRICKS:
                continue
            winner = ended[0].seat
            assert winner is not None
            seen = [_seen(game, winner)]
            while game.stage == "declare":
                game.apply(winner, PASS)
                seen.append(_seen(game, winner))
            watched.append(Watched(holds, tuple(seen)))
    return watched


def _seen(game: BeziqueGame, winner: int) -> tuple[str, bool]:
    view = game.view(None)  # a spectator
    return view.phase, view.to_move == (winner,)


@pytest.mark.parametrize("seats", [2, 3])
def test_always_a_spectator_sees_the_same_phases_whatever_the_winner_holds(seats: int) -> None:
    watched = watch({"declare_prompt": "always"}, seats)
    holding = {w.seen for w in watched if w.holds}
    empty = {w.seen for w in watched if not w.holds}
    assert sum(w.holds for w in watched) >= 5 and sum(not w.holds for w in watched) >= 5
    assert holding <= ASKED and empty <= ASKED  # the 24th trick: too few to see both kinds
    assert (("declare", True), ("play", True)) in holding & empty


def test_always_is_the_default() -> None:
    assert {w.seen for w in watch({})} <= ASKED


def test_when_possible_the_phase_tells_who_holds_a_declaration() -> None:
    """The old behaviour, kept for tables that choose it (and for version 1 logs)."""
    watched = watch({"declare_prompt": "when_possible"})
    assert any(w.holds for w in watched) and not all(w.holds for w in watched)
    for w in watched:
        assert (w.seen[0] == ("declare", True)) == w.holds, w
