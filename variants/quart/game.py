"""One Quart-Bezique table: deal after deal of ante, deal, betting, showdown and settlement.

Moves (all with empty ``cards`` and ``label``):

* ``fold``; ``bet`` (call up to the level, three or more players in); ``show`` (two players in:
  call, at no cost when a fold left the two level, and force the showdown); ``allin`` (the
  whole stack, only when it is short of a call or of a minimum raise);
* ``raise`` with ``amount`` = **the new level**, i.e. the seat's total contribution this deal
  after the raise (antes not counted), from ``level + min_bet`` to ``level + max_bet`` and at most
  the contribution plus the stack.

``legal_moves`` offers one ``raise`` with an :class:`~bezique.variants.api.AmountRange` from the
lowest to the highest allowed level (step 1; the highest is the all-in when the stack is the
limit) and ``amount`` at the lowest; :meth:`QuartGame.apply` accepts *every* integer level in that
range. Anything outside the range, or any other malformed move, is refused with
IllegalMoveError and changes nothing. A table of version 1 (``QuartRules.raise_ladder``) offers
the raise levels version 1 offered instead, a representative ladder (the minimum, a few
multiples of ``min_bet`` above the level, and the highest), so its bots choose as they did;
``apply`` accepts every level in the range there too.

Chance: the first dealer is drawn by lot (purposes ``lot/1``, ``lot/2``, ... one per card drawn;
lowest rank deals, 9 < 10 < J < Q < K < A, ties draw again) unless ``first_dealer`` is given;
deal ``N`` shuffles the whole shoe with purpose ``deal/N``.

Visibility (rules §7): own hand; every ante, bet, fold and show; stacks and pot; the turned
trump card. At a showdown the hands of the players in are revealed by ``reveal`` events whose
detail holds the faces (codes such as ``QS``), points and combination names: the cards then go
back into the next deal's shuffle within the same move, so they are published as faces, never
as card ids. A folded hand is not revealed while the game goes on; once it ends the seed is
revealed, every deal with it, and the history shows every hand (rules §7).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from bezique.variants.api import (
    ABORTED,
    EMPTY,
    HAND,
    AmountRange,
    BaseGame,
    Census,
    Event,
    Move,
    Outcome,
    Pile,
    Public,
    View,
    Zone,
)
from bezique.variants.cards import Shoe
from bezique.variants.chance import Chance
from bezique.variants.quart.betting import (
    KINDS,
    LAST_STANDING,
    OPEN,
    Betting,
    Choices,
    pot_winners,
    side_pots,
    split,
)
from bezique.variants.quart.evaluator import HandRules, evaluator_for
from bezique.variants.quart.lot import draw_dealer

CARRY_OVER = "carry_over"
SPLIT = "split"
NO_COMBINATION_CHOICES = (CARRY_OVER, SPLIT)
HAND_SIZE = 4
RAISE_STEPS = (2, 3, 5, 10)
"""Version 1's ladder: the raises offered above the minimum, in multiples of ``min_bet``."""
MOVE_KINDS = frozenset(KINDS)
# Moves are frozen values: the fixed ones are built once.
FOLD, BET, SHOW, ALLIN = Move("fold"), Move("bet"), Move("show"), Move("allin")


_ONLY = tuple(frozenset({seat}) for seat in range(64))  # ``visible_to`` of one seat
_SEAT = tuple((seat,) for seat in range(64))  # ``to_move`` of one seat (asked twice a move)


def _clockwise(seats: int, seat: int) -> tuple[int, ...]:
    """Every seat clockwise from ``seat``'s left, ``seat`` itself last (deal and ante order)."""
    return tuple([(seat + i) % seats for i in range(1, seats + 1)])


def _raise_offer(low: int, high: int) -> Move:
    """The one raise offered: to any level from ``low`` to ``high`` (rules §3: "any sum"),
    suggesting the minimum."""
    return Move("raise", amount=low, amount_range=AmountRange(low, high))


def _offers(choices: Choices) -> tuple[Move, ...]:
    """The legal moves of a seat whose betting choices are ``choices``, in the betting's order,
    with one raise to any level in range."""
    span = choices.raise_range
    return _moves_for(choices, () if span is None else (_raise_offer(*span),))


def _moves_for(choices: Choices, raises: tuple[Move, ...]) -> tuple[Move, ...]:
    """Fold, then what ``choices`` opens, with ``raises`` in the raise's place: the betting's
    order, for one raise offer with a range and for a version 1 table's ladder alike."""
    result: tuple[Move, ...] = (FOLD, BET) if choices.bet else (FOLD,)
    if choices.show:
        result += (SHOW,)
    result += raises
    if choices.allin:
        result += (ALLIN,)
    return result


def _raise_move(level: int) -> Move:
    return Move("raise", amount=level)


def _raise_ladder(level: int, min_bet: int) -> tuple[tuple[int, ...], tuple[Move, ...]]:
    """Version 1's raise levels below any maximum, lowest first, and their moves: the minimum
    raise ``level + min_bet``, then ``RAISE_STEPS`` multiples of ``min_bet`` above ``level``."""
    levels = (level + min_bet, *(level + step * min_bet for step in RAISE_STEPS))
    return levels, tuple([_raise_move(new_level) for new_level in levels])


def _ladder_raises(level: int, min_bet: int, high: int) -> tuple[Move, ...]:
    """The raises a version 1 table offers up to the maximum level ``high``, lowest first: the
    minimum, the ladder's steps below ``high``, and ``high`` itself."""
    levels, moves = _raise_ladder(level, min_bet)
    if high > levels[-1]:  # the usual case: the whole ladder is below the maximum
        return (*moves, _raise_move(high))
    if high <= levels[0]:  # only the minimum raise fits: it is the maximum too
        return moves[:1]
    return (*moves[:bisect_left(levels, high, 1)], _raise_move(high))


@dataclass(frozen=True, slots=True)
class QuartRules:
    """The resolved options of a table."""

    seats: int
    starting_stack: int
    ante: int
    min_bet: int
    max_bet: int | None
    multiway_showdown: bool
    no_combination: str
    bezique_cards: str
    deals: int | None
    trump: bool
    trump_doubles_combinations: bool
    raise_ladder: bool = False
    """Offer version 1's raise ladder rather than one raise with a range (a table whose log
    version 1 wrote: its bots chose from the ladder, and ``verify`` recomputes them)."""


class QuartGame(BaseGame):
    """A table of (trump) Quart-Bezique. Changed only by :meth:`apply`, which BaseGame guards
    (and an operator's :meth:`abort`); the view is written here, from the public part built
    once per state."""

    over_reason = "the table is over"

    def __init__(self, shoe: Shoe, rules: QuartRules, chance: Chance, dealer: int,
                 stacks: Sequence[int] | None = None) -> None:
        self._shoe = shoe
        self.rules = rules
        self.chance = chance
        self.seats = rules.seats
        self.stacks = [rules.starting_stack] * rules.seats if stacks is None else list(stacks)
        if len(self.stacks) != rules.seats or min(self.stacks) < 0:
            raise ValueError(f"need {rules.seats} stacks of at least 0, got {self.stacks}")
        self.dealer = dealer
        self.deal_no = 0
        self.carried = 0
        self.dead = 0
        self.hands: list[list[int]] = [[] for _ in range(rules.seats)]
        self.stock_size = len(shoe)
        self.trump_card: int | None = None
        self.muck_folded: list[int] = []
        self.muck_shown: list[int] = []
        self.betting: Betting | None = None
        self.hand_rules = HandRules(rules.bezique_cards, None, False)
        self.settled = True
        self.end_reason = ""
        self._legal: dict[int, tuple[Move, ...]] = {}
        self._public: Public | None = None

    # ------------------------------------------------------------------ chance steps

    @classmethod
    def begin(cls, shoe: Shoe, rules: QuartRules, chance: Chance, first_dealer: int | None,
              stacks: Sequence[int] | None = None) -> tuple[QuartGame, tuple[Event, ...]]:
        """A new table: the lot for the first dealer (unless given), then the first deal.

        ``stacks`` sets per-seat starting stacks (a platform may set them at join; the default
        is ``starting_stack`` for every seat)."""
        events: list[Event] = []
        if first_dealer is None:
            first_dealer, events = draw_dealer(shoe, rules.seats, chance)
        dealer = first_dealer
        game = cls(shoe, rules, chance, dealer, stacks)
        start = len(events)
        game._begin_deal(events, first=True)
        game._run(events, start)
        return game, tuple(events)

    def _begin_deal(self, events: list[Event], *, first: bool = False) -> None:
        rules = self.rules
        seats, stacks, ante = self.seats, self.stacks, rules.ante
        # the seats that can pay, clockwise from the old dealer's left (the old dealer last)
        payers = [s for s in _clockwise(seats, self.dealer) if stacks[s] >= ante]
        if len(payers) < 2:
            self._end(events, "fewer than two seats can pay the ante")
            return
        if rules.deals is not None and self.deal_no >= rules.deals:
            self._end(events, f"{rules.deals} deals played")
            return
        self.deal_no += 1
        if first and stacks[self.dealer] >= ante:
            order = payers  # the first dealer deals: the old dealer is the dealer
        else:  # the deal passes to the next seat that can pay, who is now last in turn
            self.dealer = payers[0]
            order = payers[1:] + payers[:1]
        dealer = self.dealer
        append = events.append
        append(Event("deal_start", dealer, (), 0, "", {
            "deal": self.deal_no, "dealer": dealer, "seats": order,
            "carried": self.carried}))
        count = len(order)
        if count < seats:
            for seat in range(seats):
                if stacks[seat] < ante:
                    append(Event("sit_out", seat, (), 0, "", {"stack": stacks[seat]}))
        self.dead, self.carried = self.carried + ante * count, 0
        for seat in order:
            stacks[seat] -= ante
            append(Event("ante", seat, (), ante, "", {"stack": stacks[seat]}))
        # Only the dealt cards (and the turn-up) of the shuffle are ever seen, so only they are
        # drawn: the first cards of the same shuffle (variants/chance.py, ``draw``).
        dealt = HAND_SIZE * count
        needed = dealt + (1 if rules.trump else 0)
        shoe = self._shoe
        drawn = self.chance.draw(f"deal/{self.deal_no}", shoe.ids, needed)
        # one card at a time clockwise from the dealer's left
        hands: list[list[int]] = [[] for _ in range(seats)]
        for index, seat in enumerate(order):
            hand = hands[seat] = drawn[index:dealt:count]
            append(Event("deal", seat, tuple(hand), 0, "", EMPTY,
                         _ONLY[seat] if seat < len(_ONLY) else frozenset({seat})))
        self.hands = hands
        # the undealt cards stay in the middle, face down: only their number is ever shown
        self.stock_size = len(shoe.cards) - needed
        self.muck_folded, self.muck_shown = [], []
        self.trump_card = None
        if rules.trump:
            trump_card = self.trump_card = drawn[dealt]
            code, suit, letter = evaluator_for(shoe).turn_ups[trump_card]
            self.hand_rules = HandRules(rules.bezique_cards, suit,
                                        rules.trump_doubles_combinations)
            append(Event("trump", None, (trump_card,), 0, "", {"suit": letter, "card": code}))
        # without trumps the hand rules are those set up with the table
        self.betting = Betting(order, stacks, min_bet=rules.min_bet,
                               max_bet=rules.max_bet, multiway=rules.multiway_showdown)
        self.settled = False

    def _run(self, events: list[Event], deal_start: int | None) -> None:
        """Settle closed deals and deal again until someone must act or the table ends.

        ``deal_start`` is where the current deal's events begin if nobody has acted in it yet.
        A deal that closes before anyone can act (every seat but one all-in on the ante) is
        dealt, shown and reshuffled within this one step, so its ``deal`` and ``trump`` events
        carry no card ids: its hands are published as faces by the ``reveal`` events.
        """
        while not self.end_reason and self.betting is not None and self.betting.status != OPEN:
            if deal_start is not None:
                events[deal_start:] = [_concealed(e) for e in events[deal_start:]]
            self._settle(events)
            deal_start = len(events)
            self._begin_deal(events)
        # what _touch does, inline: this runs after every move
        self._legal.clear()
        self._public = None

    # ------------------------------------------------------------------ settlement

    def _next_deal_possible(self) -> bool:
        rules = self.rules
        if rules.deals is not None and self.deal_no >= rules.deals:
            return False
        return sum(1 for stack in self.stacks if stack >= rules.ante) >= 2

    def _pay(self, events: list[Event], pot: int, amount: int, winners: list[int],
             reason: str) -> None:
        for seat, share in split(amount, winners):
            self.stacks[seat] += share
            events.append(Event("pot_won", seat, (), share, "", {
                "pot": pot, "reason": reason, "stack": self.stacks[seat]}))

    def _settle(self, events: list[Event]) -> None:
        betting = self.betting
        assert betting is not None
        live = betting.live
        if betting.status == LAST_STANDING:
            self._pay(events, 0, self.dead + sum(betting.contrib), live, "last-standing")
        else:
            scores = self._reveal(events, live)
            unresolved: list[tuple[int, int, list[int]]] = []
            pots = side_pots(betting.contrib, live, betting.order, self.dead)
            for index, pot in enumerate(pots):
                taken = pot_winners(pot, scores)
                if taken is None:
                    unresolved.append((index, pot.amount, list(pot.eligible)))
                else:
                    self._pay(events, index, pot.amount, *taken)
            carry = bool(unresolved) and self.rules.no_combination == CARRY_OVER and \
                self._next_deal_possible()
            for index, amount, eligible in unresolved:
                if carry:
                    self.carried += amount
                    events.append(Event("carry_over", None, (), amount, "", {"pot": index}))
                else:
                    self._pay(events, index, amount, eligible, "no-combination-split")
        self.dead = 0
        betting.contrib = [0] * self.seats
        self.settled = True
        events.append(Event("deal_end", None, (), 0, "", {
            "deal": self.deal_no, "stacks": list(self.stacks), "carried": self.carried}))

    def _reveal(self, events: list[Event], live: list[int]) -> dict[int, int | None]:
        """Show the hands of the players in: faces and scores, published in the detail. The
        result is each hand's points, or None for a hand without a combination (it cannot
        win)."""
        evaluator = evaluator_for(self._shoe)
        codes = evaluator.codes
        scores: dict[int, int | None] = {}
        for seat in live:
            hand = self.hands[seat]
            points, has_combination, summary = evaluator.score(hand, self.hand_rules)
            scores[seat] = points if has_combination else None
            detail: dict[str, Any] = {"hand": [codes[c] for c in hand]}
            detail.update(summary)
            events.append(Event("reveal", seat, (), points, "", detail))
            self.muck_shown.extend(hand)
            self.hands[seat] = []
        return scores

    def _end(self, events: list[Event], reason: str) -> None:
        self.end_reason = reason
        self.betting = None
        events.append(Event("table_end", None, detail={
            "reason": reason, "stacks": list(self.stacks), "deals": self.deal_no}))

    # ------------------------------------------------------------------ the Game protocol

    @property
    def shoe(self) -> Shoe:
        return self._shoe

    @property
    def phase(self) -> str:
        return "over" if self.end_reason else "betting"

    @property
    def to_move(self) -> tuple[int, ...]:
        betting = self.betting
        if self.end_reason or betting is None or betting.turn is None:
            return ()
        turn = betting.turn
        return _SEAT[turn] if turn < len(_SEAT) else (turn,)

    @property
    def pot(self) -> int:
        betting = self.betting
        live = 0 if self.settled or betting is None else self.dead + sum(betting.contrib)
        return self.carried + live

    def legal_moves(self, seat: int) -> tuple[Move, ...]:
        cached = self._legal.get(seat)
        if cached is not None:
            return cached
        betting = self.betting
        result: tuple[Move, ...] = ()
        if not self.end_reason and betting is not None and betting.turn == seat:
            choices = betting.choices(seat)
            if not self.rules.raise_ladder:
                result = _offers(choices)
            else:
                span = choices.raise_range
                result = _moves_for(choices, () if span is None else _ladder_raises(
                    betting.level, self.rules.min_bet, span[1]))
        self._legal[seat] = result
        return result

    def why_illegal(self, seat: int, move: Move) -> str | None:
        """The narrowest reason a move of the seat to move is refused, from the betting's own
        verdict; ``None`` for a move the betting allows though not offered as such (a raise to
        any level in range, which a version 1 table accepts though its ladder offers a few)."""
        betting = self.betting
        assert betting is not None
        if move.kind not in MOVE_KINDS:
            return f"unknown move kind {move.kind!r} (one of {', '.join(sorted(MOVE_KINDS))})"
        if move.cards or move.label or (move.amount and move.kind != "raise"):
            return f"{move.kind} takes no cards or label" + (
                "" if move.kind == "raise" else " and no amount")
        reason = betting.refusal(seat, move.kind, move.amount)
        if reason is not None:
            offered = ", ".join(str(m) for m in self.legal_moves(seat))
            return f"{reason} (legal: {offered})"
        return None

    def apply_legal(self, seat: int, move: Move) -> tuple[Event, ...]:
        betting = self.betting
        assert betting is not None
        kind = move.kind
        # legal, as checked above: the betting need not check again
        chips = betting.act(seat, kind, move.amount)
        if kind == "fold":
            self.muck_folded.extend(self.hands[seat])
            self.hands[seat] = []
        events = [Event(kind, seat, (), chips, "", {
            "contribution": betting.contrib[seat], "level": betting.level,
            "stack": self.stacks[seat], "all_in": betting.all_in[seat]})]
        self._run(events, None)  # which forgets the legal moves and public part kept
        return tuple(events)

    def default_move(self, seat: int) -> Move:
        """Fold, or show/bet when that costs nothing (rules §8)."""
        betting = self.betting
        if betting is not None and betting.turn == seat and betting.to_call(seat) == 0:
            for move in (SHOW, BET):
                if move in self.legal_moves(seat):
                    return move
        return FOLD

    def abort(self) -> tuple[Event, ...]:
        """An operator ends the table: the current deal's stakes (antes and bets) go back to
        who staked them, and chips carried over from earlier deals are shared among the seats
        dealt in, as a pot nobody can win is (the odd chips clockwise from the dealer's left).
        The table then ends with the reason ``aborted`` and no winner."""
        events: list[Event] = []
        betting = self.betting
        if betting is not None and not self.settled:
            order, ante = betting.order, self.rules.ante
            carried = self.dead - ante * len(order)
            for seat in order:
                stake = ante + betting.contrib[seat]
                self.stacks[seat] += stake
                events.append(Event("stake_returned", seat, (), stake, "", {
                    "deal": self.deal_no, "stack": self.stacks[seat]}))
            if carried > 0:
                for seat, share in split(carried, list(order)):
                    self.stacks[seat] += share
                    events.append(Event("carry_returned", seat, (), share, "", {
                        "deal": self.deal_no, "stack": self.stacks[seat]}))
            self.dead = 0
            betting.contrib = [0] * self.seats
            self.settled = True
        self.carried = 0
        self._end(events, ABORTED)
        self._touch()
        return tuple(events)

    def outcome(self) -> Outcome | None:
        if not self.end_reason:
            return None
        best = max(self.stacks)
        winners = tuple(s for s in range(self.seats) if self.stacks[s] == best)
        if self.end_reason == ABORTED:
            winners = ()
        return Outcome(winners, tuple(self.stacks), self.end_reason,
                       MappingProxyType({"deals": self.deal_no}))

    def _public_detail(self) -> dict[str, Any]:
        betting = self.betting
        detail: dict[str, Any] = {
            "deal": self.deal_no, "dealer": self.dealer, "ante": self.rules.ante,
            "min_bet": self.rules.min_bet, "max_bet": self.rules.max_bet,
            "carried": self.carried, "seats": self.seats,
            "bezique_cards": self.rules.bezique_cards,
            "trump_doubles_combinations": self.rules.trump_doubles_combinations,
            "trump": None if self.trump_card is None else self._shoe[self.trump_card].suit.letter,
        }
        if betting is not None:
            turn = betting.turn
            span = None if turn is None else betting.raise_range(turn)
            detail.update({
                "in_deal": list(betting.order), "level": betting.level,
                "contributions": list(betting.contrib), "folded": list(betting.folded),
                "all_in": list(betting.all_in), "players_in": len(betting.live),
                "to_call": 0 if turn is None else betting.to_call(turn),
                "raise_range": None if span is None else list(span),
            })
        return detail

    def _touch(self) -> None:
        """Forget the legal moves and the public part kept: the state has changed."""
        self._legal.clear()
        self._public = None

    def _public_part(self) -> Public:
        """What every viewer sees alike, built once per state."""
        public = self._public
        if public is None:
            hands = tuple([Zone(HAND, seat, (), len(self.hands[seat]))
                           for seat in range(self.seats) if self.hands[seat]])
            common = [Zone("stock", None, (), self.stock_size)]
            if self.trump_card is not None:
                common.append(Zone("trump", None, (self.trump_card,)))
            common.append(Zone("muck/folded", None, (), len(self.muck_folded)))
            if self.muck_shown:
                common.append(Zone("muck/shown", None, tuple(self.muck_shown)))
            public = self._public = Public(hands, tuple(common), stacks=tuple(self.stacks),
                                           pot=self.pot,
                                           detail=MappingProxyType(self._public_detail()))
        return public

    def view(self, viewer: int | None) -> View:
        hand = () if viewer is None else tuple(self.hands[viewer])
        return self._public_part().view_for(viewer, self.phase, self.to_move, hand, self._shoe)

    def census(self) -> Census:
        placed = {*self.muck_folded, *self.muck_shown}
        for hand in self.hands:
            placed.update(hand)
        if self.trump_card is not None:
            placed.add(self.trump_card)
        stock = tuple(card for card in self._shoe.ids if card not in placed)
        piles = [Pile("stock", stock, frozenset())]
        if self.trump_card is not None:
            piles.append(Pile("trump", (self.trump_card,)))
        piles += [Pile(f"hand/{s}", tuple(self.hands[s]), frozenset({s}))
                  for s in range(self.seats)]
        piles.append(Pile("muck/folded", tuple(self.muck_folded), frozenset()))
        piles.append(Pile("muck/shown", tuple(self.muck_shown)))
        return Census(tuple(piles), chips=sum(self.stacks) + self.pot)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_legal"], state["_public"] = {}, None
        return state


def _concealed(event: Event) -> Event:
    """The event without card ids (for a deal dealt and reshuffled within one step)."""
    if event.kind not in ("deal", "trump") or not event.cards:
        return event
    return Event(event.kind, event.seat, (), event.amount, event.label,
                 {**event.detail, "concealed": True}, event.visible_to, len(event.cards))
