"""Information-set Monte Carlo tree search (single observer) over a variant's own rules.

Every iteration draws one *determinization* (a full game consistent with what the searching
seat has seen, from :class:`Position.sample`), walks the tree from the root choosing, among the
children whose moves are legal in that determinization, the one with the best upper confidence
bound (counted against how often it was *available*, not only visited), expands one untried
move, plays the rest of the horizon out with a cheap rollout policy, and credits each seat its
reward. The decision is the root move visited most.

With a tree one move deep (``Budget.max_depth`` 1) it is flat Monte Carlo with common random
numbers instead (:func:`flat`): every root move played out on each sample.

Nothing here knows a game: moves come from ``legal_moves`` and are made with ``apply``, so the
rules are the variant's, once. The work is bounded by the budget only (iterations, and a cap
on the moves made in all), never by the clock, so a decision depends on the position, the
budget and the random source alone: ``verify`` recomputes it anywhere. Its arithmetic is
only what IEEE 754 rounds exactly alike everywhere (``+ - * /`` and ``sqrt``; the logarithm is
:func:`exact_log`, not the platform's), so no machine's library can tip a close choice.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bezique.variants.api import Game, Move


@dataclass(frozen=True, slots=True)
class Budget:
    """The work one decision may take: ``iterations`` determinizations searched, and at most
    ``max_steps`` moves applied over all of them (the safety net for long horizons: it bounds
    the time as the iterations do, but counts moves, so it is the same on every machine)."""

    iterations: int
    max_steps: int
    exploration: float = 0.7
    """The UCB constant (rewards are in [0, 1])."""
    max_depth: int = 64
    """How deep the tree grows (1: flat Monte Carlo over the root moves)."""


class Position(Protocol):
    """The searching seat's knowledge of one position (a variant's adapter builds it from the
    seat's view and record)."""

    seat: int

    def sample(self, rng: random.Random) -> Game:
        """A fresh full game, its hidden cards drawn consistently with what the seat saw."""
        ...

    def clone(self, game: Game) -> Game:
        """A copy of a sampled game to play on (the flat search plays every move on one)."""
        ...

    def moves(self, game: Game, seat: int) -> Sequence[Move]:
        """The concrete moves the search considers for ``seat`` (an offer with a range
        stands for a few amounts in it)."""
        ...

    def rollout_move(self, game: Game, seat: int, rng: random.Random) -> Move:
        """The cheap policy that plays the horizon out."""
        ...

    def done(self, game: Game) -> bool:
        """Whether the horizon is reached (the deal is over)."""
        ...

    def rewards(self, game: Game) -> Sequence[float]:
        """Each seat's reward in [0, 1] at the end of a playout."""
        ...


class _Node:
    __slots__ = ("avail", "children", "move", "seat", "total", "visits")

    def __init__(self, move: Move | None, seat: int) -> None:
        self.move = move
        self.seat = seat
        self.children: dict[Move, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0


@dataclass(slots=True)
class Searched:
    """What a search found: the move, and how much work it took (for the bench)."""

    move: Move
    iterations: int
    steps: int
    visits: dict[Move, int]


def search(position: Position, root_moves: Sequence[Move], budget: Budget,
           rng: random.Random) -> Searched:
    """The root move the search prefers (``root_moves``: the concrete moves open to the
    searching seat now, all legal in every determinization)."""
    if len(root_moves) == 1:
        return Searched(root_moves[0], 0, 0, {})
    if budget.max_depth <= 1:
        return flat(position, root_moves, budget, rng)
    root = _Node(None, -1)
    for move in root_moves:
        root.children[move] = _Node(move, position.seat)
    steps = iterations = 0
    c = budget.exploration
    while iterations < budget.iterations and steps < budget.max_steps:
        iterations += 1
        game = position.sample(rng)
        path = [root]
        node = root
        depth = 0
        while depth < budget.max_depth and not position.done(game):
            seat = game.to_move[0]
            moves = root_moves if node is root else position.moves(game, seat)
            children = node.children
            untried = [m for m in moves if m not in children]
            if untried:
                move = untried[rng.randrange(len(untried))]
                child = children[move] = _Node(move, seat)
            else:
                child = _best(children, moves, c)
                move = child.move  # type: ignore[assignment]
            for m in moves:
                found = children.get(m)
                if found is not None:
                    found.avail += 1
            game.apply(seat, move)
            steps += 1
            path.append(child)
            node = child
            depth += 1
            if untried:
                break
        # a playout's moves come from the legal moves: the base's guard is not needed
        apply = getattr(game, "apply_legal", game.apply)
        done, rollout_move = position.done, position.rollout_move
        while not done(game) and steps < budget.max_steps:
            seat = game.to_move[0]
            apply(seat, rollout_move(game, seat, rng))
            steps += 1
        rewards = position.rewards(game)
        for visited in path[1:]:
            visited.visits += 1
            visited.total += rewards[visited.seat]
    visits = {move: child.visits for move, child in root.children.items()}
    best = max(root_moves, key=lambda m: (visits[m], _mean(root.children[m])))
    return Searched(best, iterations, steps, visits)


def flat(position: Position, root_moves: Sequence[Move], budget: Budget,
         rng: random.Random) -> Searched:
    """Flat Monte Carlo with common random numbers: every root move is played out on each
    sample (a copy of the same determinization, the playout's random source seeded alike),
    so the moves are compared on the same hidden cards; the best mean reward wins. For short
    horizons (a Quart deal), where the moves' values differ by little next to the luck of
    the cards."""
    totals = dict.fromkeys(root_moves, 0.0)
    seat = position.seat
    steps = iterations = 0
    while iterations < budget.iterations and steps < budget.max_steps:
        iterations += 1
        sample = position.sample(rng)
        seed = rng.getrandbits(64)
        for move in root_moves:
            game = position.clone(sample)
            playout = random.Random(seed)
            game.apply(seat, move)
            steps += 1
            while not position.done(game) and steps < budget.max_steps:
                mover = game.to_move[0]
                game.apply(mover, position.rollout_move(game, mover, playout))
                steps += 1
            totals[move] += position.rewards(game)[seat]
    best = max(root_moves, key=lambda m: totals[m])
    return Searched(best, iterations, steps, {m: iterations for m in root_moves})


def _mean(node: _Node) -> float:
    return node.total / node.visits if node.visits else 0.0


def _best(children: dict[Move, _Node], moves: Sequence[Move], c: float) -> _Node:
    """The child among ``moves`` with the highest upper confidence bound (availability
    counts, as information-set search needs: a move is not on offer in every sample)."""
    best: _Node | None = None
    best_score = -1.0
    for move in moves:
        child = children[move]
        if child.visits == 0:
            return child
        score = child.total / child.visits + c * math.sqrt(
            exact_log(max(child.avail, 1)) / child.visits)
        if score > best_score:
            best, best_score = child, score
    assert best is not None
    return best


LN2 = 0.6931471805599453
"""ln 2, as a literal (not computed by the platform's library)."""


def exact_log(x: float) -> float:
    """The natural logarithm of ``x > 0`` from ``frexp`` and a series in exactly rounded
    operations: the same bits on every machine (the platform's ``log`` may differ by an ulp
    from one C library to another, which could tip a tie between two moves).

    >>> abs(exact_log(10.0) - 2.302585092994046) < 1e-12, exact_log(1.0)
    (True, 0.0)
    """
    mantissa, exponent = math.frexp(x)  # exact: x = mantissa * 2**exponent, 0.5 <= m < 1
    z = (mantissa - 1.0) / (mantissa + 1.0)  # ln m = 2 atanh z, |z| <= 1/3
    square = z * z
    term, total = z, 0.0
    for k in range(1, 40, 2):
        total += term / k
        term *= square
    return 2.0 * total + exponent * LN2
