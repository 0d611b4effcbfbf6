"""The chance source of a sampled game: the search's own random source.

A playout that ends a deal starts the next one (the game deals inside the move that ends the
deal), so a sampled game needs a :class:`~bezique.variants.chance.Chance`; the table's is
never given to a bot. This one draws from the search's seeded ``random.Random``: cheap, and
as reproducible as the rest of the decision.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


class RolloutChance:
    """A :class:`~bezique.variants.chance.Chance` over a ``random.Random`` (purposes are
    ignored: nothing is verified about a playout's deals)."""

    __slots__ = ("rng",)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def below(self, purpose: str, n: int) -> int:
        return self.rng.randrange(n)

    def shuffled(self, purpose: str, items: Sequence[T]) -> list[T]:
        result = list(items)
        self.rng.shuffle(result)
        return result

    def draw(self, purpose: str, items: Sequence[T], count: int) -> list[T]:
        return self.rng.sample(list(items), count)


class ScriptedChance(RolloutChance):
    """Draws ``first`` for the first ``draw`` (a sampled deal, laid out as the game deals it),
    then as :class:`RolloutChance` does."""

    __slots__ = ("first",)

    def __init__(self, rng: random.Random, first: list[int]) -> None:
        super().__init__(rng)
        self.first: list[int] | None = first

    def draw(self, purpose: str, items: Sequence[T], count: int) -> list[T]:
        first = self.first
        if first is not None and len(first) == count:
            self.first = None
            return list(first)  # type: ignore[arg-type]
        return super().draw(purpose, items, count)
