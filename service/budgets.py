"""Seat churn budgets per caller, in memory and per process: who may still give up seats
before their games start, and whom each seat's join was charged to (service/limits.py's
SeatChurn counts; this remembers joiners, so a seat joined from one address and given up from
another still spends its joiner's budget)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from bezique.service.limits import SeatChurn

MAX_JOINERS = 100_000
"""Most seats whose joiner a process remembers for the seat churn budget."""


def players(player_id: str) -> tuple[str, ...]:
    """The seat churn budget of a seat bound to a platform's player, if it is bound."""
    return ("player:" + player_id,) if player_id else ()


class SeatBudgets:
    """The callers' seat churn budgets and the joiner of each seat token (by its hash)."""

    def __init__(self, churn: SeatChurn) -> None:
        self.churn = churn
        self._joiners: OrderedDict[str, tuple[str, ...]] = OrderedDict()
        """Whom each seat's join was charged to, by its token's hash (at most
        :data:`MAX_JOINERS` remembered, the oldest forgotten first)."""

    def spent(self, caller: Sequence[str], player_id: str) -> str:
        """The first of the join's callers whose budget is used up ('' when none is)."""
        return self.churn.spent([*caller, *players(player_id)]) or ""

    def joined(self, token_hash: str, caller: Sequence[str]) -> None:
        if not caller:
            return
        if len(self._joiners) >= MAX_JOINERS:
            self._joiners.popitem(last=False)
        self._joiners[token_hash] = tuple(caller)

    def left(self, token_hash: str, caller: Sequence[str], player_id: str) -> None:
        """A seat given up here: charged to ``caller``, to whoever joined with this token
        (when this process remembers it) and to the seat's player."""
        joiner = self._joiners.pop(token_hash, ())
        self.churn.charge(list(dict.fromkeys([*caller, *joiner, *players(player_id)])))

    def left_elsewhere(self, token_hash: str) -> None:
        """A seat joined here was given up through another replica: charge its joiner here,
        where its joins are checked."""
        joiner = self._joiners.pop(token_hash, ())
        if joiner:
            self.churn.charge(joiner)
