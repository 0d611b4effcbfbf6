"""The search bot as a bot policy, at three strengths.

Its entry point is :meth:`SearchPolicy.choose_seen`: the seat's view, its legal moves, the
random source the host derives from the table's secret seed, and the seat's record (what it
saw of the game, built by the host from the log). It never receives the game: whatever it
knows of the hidden cards it has from those, by construction. A host without a record calls
:meth:`SearchPolicy.choose`, which plays as the variant's heuristic.

A level is a :class:`~bezique.variants.search.engine.Budget`: iterations and a cap on the moves
made in all. The clock decides nothing (a decision is the same on every machine, so ``verify``
recomputes it); the move cap bounds the time instead, and the bench measures it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from bezique.variants.api import BotPolicy, Move, SeatRecord, View
from bezique.variants.search.engine import Budget, Position, Searched, search

Knowledge = Callable[[View, SeatRecord], Position]
"""Builds the searching seat's knowledge of the position from its view and record."""
RootMoves = Callable[[View, Sequence[Move]], Sequence[Move]]
"""The concrete moves searched at the root (an offer with a range: a few amounts in it)."""


class SearchPolicy:
    """Information-set Monte Carlo tree search over the variant's own rules."""

    def __init__(self, name: str, description: str, budget: Budget, knowledge: Knowledge,
                 fallback: BotPolicy, root_moves: RootMoves | None = None) -> None:
        self.name = name
        self.description = description
        self.budget = budget
        self.knowledge = knowledge
        self.fallback = fallback
        self.root_moves = root_moves

    def choose(self, view: View, legal: Sequence[Move], rng: random.Random) -> Move:
        """Without the seat's record there is nothing to sample from: the heuristic's move."""
        return self.fallback.choose(view, legal, rng)

    def choose_seen(self, view: View, legal: Sequence[Move], rng: random.Random,
                    record: SeatRecord) -> Move:
        return self.decide(view, legal, rng, record).move

    def decide(self, view: View, legal: Sequence[Move], rng: random.Random,
               record: SeatRecord) -> Searched:
        """The move and the work it took (the bench reads both)."""
        moves = list(legal) if self.root_moves is None else list(self.root_moves(view, legal))
        if len(moves) == 1:
            return Searched(moves[0], 0, 0, {})
        return search(self.knowledge(view, record), moves, self.budget, rng)


LEVEL_NAMES = ("search-easy", "search", "search-hard")
"""The three strengths, weakest first; ``search`` is the default."""


def levels(budgets: Sequence[Budget], knowledge: Knowledge, fallback: BotPolicy,
           root_moves: RootMoves | None = None, what: str = "") -> list[SearchPolicy]:
    """The three search policies of a variant, one per budget (weakest first)."""
    words = ("Quick search", "Search", "Thorough search")
    return [SearchPolicy(name, f"{word}: samples the hidden cards {budget.iterations} times "
                               f"from what its seat has seen and plays each sample out"
                               f"{what}.", budget, knowledge, fallback, root_moves)
            for name, word, budget in zip(LEVEL_NAMES, words, budgets, strict=True)]
