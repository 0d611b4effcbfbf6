"""The betting engine of one Quart-Bezique deal: pure, integer chips, every chip accounted for.

The rule text's "each next player must put in at least as much as the previous one; if he puts in
more, the previous ones must make up the difference" is modelled poker-style (rules §3 [R]):

* every dealt-in seat has a *contribution* this deal (antes are kept apart, as dead money);
  the *level* ``L`` is the highest contribution;
* ``bet`` brings a contribution up to ``L`` (a call; only while three or more seats are in);
* ``raise`` to a new level ``T`` with ``L + min_bet <= T <= L + max_bet`` and within the stack
  (the opener's first raise is the opening, so it is at least ``min_bet``);
* ``show`` (exactly two seats in) brings a contribution up to ``L`` and ends the betting;
* ``allin`` puts in the whole stack when no bet, show or raise can: for less than ``L``, or a
  short raise below ``L + min_bet``; an all-in that lifts ``L`` counts as a raise;
* ``fold`` gives up the deal.

The betting closes when one seat is left, when ``show`` is made, or when every seat that can
still act has matched ``L`` and acted since the last raise; with three or more seats in, that is
a multiway showdown (or, with ``multiway`` off, the next seat must raise or fold). When a fold
leaves exactly two seats in, level, the betting goes on: the next of them may ``show`` (at no
cost), raise or fold (rules §3 [R]; the text gives the right to show, not a duty). If one of the
two is all-in there is nobody left to bet against, and the showdown follows at once. A seat is
never offered a raise when every other seat in is all-in. Each move either removes a seat or
moves chips, so a deal always ends.

What a seat may do is written once, in :meth:`Betting.choices`; the predicates (``can_bet``,
``raise_range``, ...), the verdict on one move (:meth:`Betting.refusal`), the checked actions
(:meth:`Betting.do`, ``bet``, ``raise_to``, ...) and a table's legal moves and refusals all read
it (pokerkit's verify/can/do split).

:func:`side_pots` splits the chips into pots, each contested only by the seats that paid its
whole layer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

OPEN = "open"
SHOWDOWN = "showdown"
LAST_STANDING = "last-standing"
KINDS = ("fold", "bet", "show", "raise", "allin")
"""The betting actions, in the order a table offers them."""


class BettingError(ValueError):
    """A betting action that is not allowed now; the reason says why. Nothing was changed."""


@dataclass(frozen=True, slots=True)
class Pot:
    """One pot: its chips and the seats that may win it, clockwise from the dealer's left."""

    amount: int
    eligible: tuple[int, ...]


class Choices(NamedTuple):
    """What one seat may do now besides fold (which is always open to the seat to act)."""

    bet: bool
    show: bool
    raise_range: tuple[int, int] | None
    """The lowest and highest level a raise may go to, or None: no raise."""
    allin: bool


_new = tuple.__new__  # builds a Choices without the generated __new__'s Python call


class Betting:
    """The betting state of one deal.

    ``stacks`` is the table's list of stacks, shared and updated in place, so the table's
    chip count (stacks + dead money + contributions) never changes across an action.
    """

    __slots__ = ("acted", "all_in", "contrib", "folded", "level", "max_bet", "min_bet",
                 "multiway", "order", "stacks", "status", "turn")

    def __init__(self, order: Sequence[int], stacks: list[int], *, min_bet: int,
                 max_bet: int | None = None, multiway: bool = True) -> None:
        """``order``: the dealt-in seats clockwise from the dealer's left (the dealer last)."""
        if min_bet < 1 or (max_bet is not None and max_bet < min_bet):
            raise ValueError(f"need 1 <= min_bet <= max_bet, got {min_bet}, {max_bet}")
        seats = len(stacks)
        self.order: tuple[int, ...] = tuple(order)
        self.stacks = stacks
        self.min_bet = min_bet
        self.max_bet = max_bet
        self.multiway = multiway
        self.contrib = [0] * seats
        self.folded = folded = [True] * seats  # seats not dealt in count as folded
        self.all_in = all_in = [False] * seats
        for seat in self.order:
            folded[seat] = False
            all_in[seat] = stacks[seat] == 0
        self.acted = [False] * seats
        self.level = 0
        self.status = OPEN
        self.turn: int | None = None
        self._advance(self.order[-1])

    # ------------------------------------------------------------------ what may be done

    @property
    def live(self) -> list[int]:
        """Seats still in the deal (not folded), clockwise from the dealer's left."""
        folded = self.folded
        return [s for s in self.order if not folded[s]]

    def to_call(self, seat: int) -> int:
        """The chips ``seat`` must put in to match the level."""
        return self.level - self.contrib[seat]

    def choices(self, seat: int) -> Choices:
        """What ``seat`` may do besides fold, were it its turn: the betting rules of the module
        docstring, written here once. The predicates below, the checked actions and a table's
        legal moves all read this (a table asks it once per new state)."""
        folded, all_in, level = self.folded, self.all_in, self.level
        contrib, stack = self.contrib[seat], self.stacks[seat]
        players_in = folded.count(False)  # seats not dealt in count as folded
        total = contrib + stack  # the level the whole stack reaches
        call = level - contrib
        low = level + self.min_bet  # the lowest raise
        # a raise (or a short all-in raise) needs someone left to bet against
        opponent = False
        for s in self.order:
            if s != seat and not folded[s] and not all_in[s]:
                opponent = True
                break
        span = None
        if opponent:
            high, max_bet = total, self.max_bet
            if max_bet is not None and level + max_bet < high:
                high = level + max_bet
            if low <= high:
                span = (low, high)
        return _new(Choices, (
            players_in >= 3 and 0 < call <= stack,  # bet: a call, three or more in
            players_in == 2 and level > 0 and call <= stack,  # show: a call, two in
            span,
            # all-in only when nothing else puts the stack in: short of the call (a call of
            # the exact stack is a bet or a show), or a short raise below the lowest raise
            stack > 0 and (total < level or (total != level and total < low and opponent))))

    def can_bet(self, seat: int) -> bool:
        return self.choices(seat).bet

    def can_show(self, seat: int) -> bool:
        return self.choices(seat).show

    def raise_range(self, seat: int) -> tuple[int, int] | None:
        """The lowest and highest level ``seat`` may raise to, or None."""
        return self.choices(seat).raise_range

    def can_allin(self, seat: int) -> bool:
        return self.choices(seat).allin

    def refusal(self, seat: int, kind: str, total: int = 0) -> str | None:
        """Why ``seat`` may not make the move ``kind`` (a raise to the level ``total``) now, or
        None when it may: :meth:`choices` said as a verdict on one move."""
        if self.status != OPEN:
            return "the betting is closed"
        if seat != self.turn:
            return f"it is seat {self.turn}'s turn"
        if kind == "fold":
            return None
        choices = self.choices(seat)
        if kind == "raise":
            span = choices.raise_range
            if span is None:
                return "no raise is possible now"
            if not span[0] <= total <= span[1]:
                return f"the raise amount is the new level, from {span[0]} to {span[1]}"
            return None
        if kind == "bet":
            return None if choices.bet else ("a bet (call) needs three or more players in and "
                                             f"chips to call {self.to_call(seat)}")
        if kind == "show":
            return None if choices.show else ("show needs exactly two players in, an opened "
                                              f"pot and chips to call {self.to_call(seat)}")
        if kind == "allin":
            return None if choices.allin else ("all-in is only for a stack short of a call or "
                                               "a minimum raise")
        return f"unknown betting action {kind!r} (one of {', '.join(KINDS)})"

    # ------------------------------------------------------------------ actions

    def do(self, seat: int, kind: str, total: int = 0) -> int:
        """Make the move if :meth:`refusal` allows it (else BettingError, nothing changed);
        the chips put in."""
        reason = self.refusal(seat, kind, total)
        if reason is not None:
            raise BettingError(reason)
        return self.act(seat, kind, total)

    def fold(self, seat: int) -> int:
        return self.do(seat, "fold")

    def bet(self, seat: int) -> int:
        return self.do(seat, "bet")

    def show(self, seat: int) -> int:
        return self.do(seat, "show")

    def raise_to(self, seat: int, total: int) -> int:
        return self.do(seat, "raise", total)

    def allin(self, seat: int) -> int:
        return self.do(seat, "allin")

    def act(self, seat: int, kind: str, total: int = 0) -> int:
        """Make a move that is already known to be legal, without asking again: ``fold``,
        ``bet``, ``show``, ``raise`` (to the level ``total``) or ``allin``; the chips put in.

        :meth:`do` checks, then comes here; a table whose move is one it offered from
        :meth:`choices` (or that :meth:`refusal` allowed) calls this directly."""
        if kind == "raise":
            return self._put(seat, total - self.contrib[seat], closing=False)
        if kind == "fold":
            self.folded[seat] = True
            self._advance(seat)
            return 0
        if kind == "allin":
            return self._put(seat, self.stacks[seat], closing=False)
        # a bet and a show both call the level; a show also ends the betting
        return self._put(seat, self.level - self.contrib[seat], closing=kind == "show")

    def _put(self, seat: int, chips: int, *, closing: bool) -> int:
        stacks, contrib = self.stacks, self.contrib
        stacks[seat] -= chips
        contrib[seat] += chips
        if stacks[seat] == 0:
            self.all_in[seat] = True
        if contrib[seat] > self.level:
            self.level = contrib[seat]
            self.acted = [False] * len(self.acted)
        self.acted[seat] = True
        if closing:
            self.status, self.turn = SHOWDOWN, None
        else:
            self._advance(seat)
        return chips

    # ------------------------------------------------------------------ turn order

    def _advance(self, seat: int) -> None:
        """Pass the turn to the first seat after ``seat`` that still has to act, or close the
        betting. One pass over the seats in turn order, stopped as soon as the answer is known
        (this runs after every action)."""
        folded, all_in, contrib, level, acted = (self.folded, self.all_in, self.contrib,
                                                 self.level, self.acted)
        live = folded.count(False)  # seats not dealt in count as folded
        if live == 1:
            self.status, self.turn = LAST_STANDING, None
            return
        order = self.order
        start = order.index(seat) + 1 if seat in order else 0
        actors = 0  # the seats that can still act, counted while it matters (up to two)
        first_actor = pending = -1
        for s in order[start:] + order[:start]:  # clockwise after ``seat``, ``seat`` last
            if folded[s] or all_in[s]:
                continue
            actors += 1
            if first_actor < 0:
                first_actor = s
            if pending < 0 and (not acted[s] or contrib[s] < level):
                pending = s
            if pending >= 0 and actors > 1:
                break
        if actors == 1 and contrib[first_actor] >= level:
            pending = -1  # nobody left to bet against
        if pending < 0:  # also when no seat can act
            if live == 2 and actors == 2 and folded[seat]:
                # rules §3 [R]: a fold left exactly two players, level and both able to act: the
                # next of them may show (at no cost), raise or fold; no straight showdown
                self.turn = first_actor
                return
            if live == 2 or self.multiway or actors <= 1:
                self.status, self.turn = SHOWDOWN, None
                return
            self.acted = [False] * len(acted)  # keep going: raise or fold
            pending = first_actor
        self.turn = pending


def side_pots(contrib: Sequence[int], live: Sequence[int], order: Sequence[int], dead: int
              ) -> list[Pot]:
    """Split the chips into pots, main pot first.

    ``live`` are the seats still in; each distinct contribution among them closes a layer, and a
    layer is contested by the live seats that paid all of it. Dead money (antes, a carried pot)
    goes to the main pot; any chips above the highest live contribution (folded excess) to the
    last pot.
    """
    live_set = set(live)
    levels = sorted({contrib[s] for s in live})
    if len(levels) == 1:  # the usual case, one pot: every chip and every seat still in
        return [Pot(sum(contrib) + dead, tuple([s for s in order if s in live_set]))]
    pots: list[Pot] = []
    previous = 0
    for index, level in enumerate(levels):
        amount = sum([min(c, level) - min(c, previous) for c in contrib])
        if index == 0:
            amount += dead
        if index == len(levels) - 1:
            amount += sum([max(0, c - level) for c in contrib])
        eligible = tuple([s for s in order if s in live_set and contrib[s] >= level])
        pots.append(Pot(amount, eligible))
        previous = level
    return pots


def pot_winners(pot: Pot, scores: Mapping[int, int | None]) -> tuple[list[int], str] | None:
    """Who takes ``pot`` and why: its only player (``uncontested``), or the best score among
    the hands in it that may win (``showdown``; ``scores`` is None for a hand that may not,
    i.e. one without a combination). None when nobody in it may win."""
    if len(pot.eligible) == 1:
        return [pot.eligible[0]], "uncontested"
    contenders = [s for s in pot.eligible if scores[s] is not None]
    if not contenders:
        return None
    best = max([scores[s] or 0 for s in contenders])
    return [s for s in contenders if scores[s] == best], "showdown"


def split(amount: int, winners: Sequence[int]) -> list[tuple[int, int]]:
    """Share ``amount`` equally; ``winners`` are in clockwise order from the dealer's left and
    the odd chips go one each to the first of them."""
    share, odd = divmod(amount, len(winners))
    return [(seat, share + (1 if i < odd else 0)) for i, seat in enumerate(winners)]
