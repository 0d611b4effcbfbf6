"""What a Quart-Bezique seat knows of a deal, and the full deals consistent with it.

Every deal is a fresh shuffle of the whole shoe, so what matters is the deal being played: the
seat knows its own four cards, the turn-up (trump Quart) and every public action since the deal
began (antes, bets, raises, folds). A sample deals the other hands from the cards it has not
seen, lays them out as the game deals them, starts the deal with the variant's own
``QuartGame`` and replays the public actions with the game's own ``apply``, so the sampled game
is exactly in the position the seat sees. Hands are drawn in proportion to how well they
explain the opponents' actions: each candidate is weighed by whether the variant's heuristic,
holding it, would have acted as the opponent did (a raise from a hand that would fold is
unlikely, not impossible), and one is drawn by those weights.

The search plays the deal out (the heuristic for every seat after the tree) and scores the
chips each seat ends the deal with.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from bezique.variants.api import Event, Game, Move, SeatRecord, View
from bezique.variants.quart.betting import Betting
from bezique.variants.quart.bots import HeuristicPolicy
from bezique.variants.quart.game import QuartGame
from bezique.variants.quart.variant import QuartBezique
from bezique.variants.search.chance import RolloutChance, ScriptedChance

CANDIDATES = 4
"""Hands drawn per sample, of which one is kept by its weight."""
SURPRISE = 0.1
"""The weight of an opponent action the heuristic would not have taken with the hand."""
WEIGHED = 4
"""Opponent actions a hand is weighed by: the first two and the last two of the deal (a long
raising war would make each sample cost as many heuristic calls as it has raises)."""
BETTING = frozenset({"fold", "bet", "show", "raise", "allin"})


def current_deal(events: Sequence[Event]) -> Sequence[Event]:
    """The events of the deal being played: from its last ``deal_start`` event on."""
    for index in range(len(events) - 1, -1, -1):
        if events[index].kind == "deal_start":
            return events[index:]
    return events


def raise_levels(level: int, min_bet: int, pot: int, low: int, high: int) -> list[int]:
    """The raise levels the search weighs: the minimum, three bets above the level, and the
    pot, in range. Never the whole stack into a small pot: a few dozen samples rarely hold
    the one strong hand that calls it, so its estimate would be all upside."""
    wanted = (low, level + 3 * min_bet, level + max(pot, min_bet))
    return sorted({min(max(amount, low), high) for amount in wanted})


def root_moves(view: View, legal: Sequence[Move]) -> list[Move]:
    """The concrete moves searched: every move offered, a raise at a few levels."""
    detail = view.detail
    moves: list[Move] = []
    for move in legal:
        span = move.amount_range
        if span is None:
            if move not in moves:
                moves.append(move)
            continue
        for amount in raise_levels(int(detail.get("level", 0)), int(detail.get("min_bet", 1)),
                                   view.pot, span.minimum, span.maximum):
            concrete = move.with_amount(span.nearest(amount))
            if concrete not in moves:
                moves.append(concrete)
    return moves


class QuartKnowledge:
    """One seat's knowledge of the deal in play (built once per decision)."""

    def __init__(self, variant: QuartBezique, view: View, record: SeatRecord) -> None:
        if view.viewer is None or view.shoe is None:
            raise ValueError("a bot searches from a seat's view")
        self.seat = view.viewer
        self.variant = variant
        self.rules = variant.table_rules(record.options)
        self.shoe = view.shoe
        self.heuristic = HeuristicPolicy()
        detail = view.detail
        self.deal_no = int(detail["deal"])
        self.hand = list(view.hand)
        events = current_deal(record.events)
        start = events[0].detail if events and events[0].kind == "deal_start" else {}
        self.dealer = int(start.get("dealer", detail.get("dealer", 0)))
        self.order = [int(s) for s in start.get("seats", detail.get("in_deal", ()))]
        self.carried = int(start.get("carried", 0))
        seats = self.rules.seats
        self.stacks_before = list(view.stacks)
        self.trump_card: int | None = None
        self.actions: list[tuple[int, Move]] = []
        for event in events:
            kind, who = event.kind, event.seat
            if kind == "ante" and who is not None:
                self.stacks_before[who] = int(event.detail.get("stack", 0)) + event.amount
            elif kind == "sit_out" and who is not None:
                self.stacks_before[who] = int(event.detail.get("stack", 0))
            elif kind == "trump" and event.cards:
                self.trump_card = event.cards[0]
            elif kind in BETTING and who is not None:
                amount = int(event.detail.get("level", 0)) if kind == "raise" else 0
                self.actions.append((who, Move(kind, amount=amount)))
        seen = set(self.hand)
        if self.trump_card is not None:
            seen.add(self.trump_card)
        self.pool = [card for card in self.shoe.ids if card not in seen]
        self.root_stacks = list(view.stacks)
        contributions = detail.get("contributions") or [0] * seats
        self.root_wealth = [view.stacks[s] + int(contributions[s]) for s in range(seats)]
        self.scale = max(1.0, (sum(self.root_wealth[s] for s in self.order) + view.pot) / 2)
        self.template: QuartGame | None = None
        self.acted: list[tuple[int, View, tuple[Move, ...], str]] = []
        self.holding: list[int] = []

    # ------------------------------------------------------------------ samples

    def _template(self, rng: random.Random) -> None:
        """The deal replayed once to now, with placeholder hands for the others, and the
        view each opponent acted from (its hand is what a sample changes)."""
        count = len(self.order)
        others = self.pool[:4 * (count - 1)]
        drawn = [0] * (4 * count)
        taken = 0
        for index, seat in enumerate(self.order):
            for k in range(4):
                if seat == self.seat:
                    drawn[index + k * count] = self.hand[k]
                else:
                    drawn[index + k * count] = others[taken]
                    taken += 1
        if self.trump_card is not None:
            drawn.append(self.trump_card)
        game = QuartGame(self.shoe, self.rules, ScriptedChance(rng, drawn), self.dealer,
                         self.stacks_before)
        game.deal_no = self.deal_no - 1
        game.carried = self.carried
        game._begin_deal([], first=True)
        game._touch()
        acted: list[tuple[int, View, tuple[Move, ...], str]] = []
        for who, move in self.actions:
            legal = game.legal_moves(who)
            if who != self.seat:
                acted.append((who, game.view(who), legal, move.kind))
            game.apply(who, move)
        # the first two and the last two of them: what a hand would have done first and now
        self.acted = acted if len(acted) <= WEIGHED else acted[:2] + acted[-2:]
        self.template = game
        self.holding = [s for s in self.order if s != self.seat and game.hands[s]]

    def _weight(self, hands: dict[int, list[int]], rng: random.Random) -> float:
        """How well ``hands`` explain the opponents' actions, were they the heuristic."""
        weight = 1.0
        for who, view, legal, kind in self.acted:
            seen = replace(view, hand=tuple(hands[who]))
            if self.heuristic.choose(seen, legal, rng).kind != kind:
                weight *= SURPRISE
        return weight

    def sample(self, rng: random.Random) -> QuartGame:
        """A deal drawn in proportion to how well it explains the opponents' actions."""
        if self.template is None:
            self._template(rng)
        seats = [s for s in self.order if s != self.seat]
        drawn = []
        for _ in range(CANDIDATES):
            cards = rng.sample(self.pool, 4 * len(seats))
            hands = {seat: cards[4 * i:4 * i + 4] for i, seat in enumerate(seats)}
            drawn.append((hands, self._weight(hands, rng) if self.acted else 1.0))
        pick = rng.random() * sum(weight for _, weight in drawn)
        chosen = drawn[-1][0]
        for hands, weight in drawn:
            pick -= weight
            if pick <= 0:
                chosen = hands
                break
        assert self.template is not None
        game = self.clone(self.template)
        assert isinstance(game, QuartGame)
        game.chance = RolloutChance(rng)
        for seat in self.holding:
            game.hands[seat] = list(chosen[seat])
        return game

    def clone(self, game: Game) -> Game:
        """A copy of a deal in play: its own stacks, hands and betting, the rest shared."""
        assert isinstance(game, QuartGame) and game.betting is not None
        copy: QuartGame = QuartGame.__new__(QuartGame)
        copy.__dict__.update(game.__dict__)
        copy.stacks = list(game.stacks)
        copy.hands = [list(hand) for hand in game.hands]
        copy.muck_folded = list(game.muck_folded)
        copy.muck_shown = list(game.muck_shown)
        copy.betting = _copied(game.betting, copy.stacks)
        copy._legal = {}
        copy._public = None
        return copy

    # ------------------------------------------------------------------ the search's hooks

    def moves(self, game: Game, seat: int) -> Sequence[Move]:
        return root_moves(game.view(seat), game.legal_moves(seat))

    def rollout_move(self, game: Game, seat: int, rng: random.Random) -> Move:
        return self.heuristic.choose(game.view(seat), game.legal_moves(seat), rng)

    def done(self, game: Game) -> bool:
        assert isinstance(game, QuartGame)
        return bool(game.end_reason) or game.deal_no != self.deal_no

    def rewards(self, game: Game) -> list[float]:
        """Per seat: the chips it ends the deal with against what it had (stack and stake),
        linear (the search weighs chips, not a squash of them) and within [0, 1]."""
        assert isinstance(game, QuartGame)
        betting = game.betting
        rewards = []
        for s in range(self.rules.seats):
            wealth = game.stacks[s]
            if game.deal_no != self.deal_no:
                if betting is not None and s in betting.order:
                    wealth += self.rules.ante  # the next deal's ante, paid in the same move
            elif not game.settled and betting is not None:
                wealth += betting.contrib[s]
            delta = (wealth - self.root_wealth[s]) / self.scale
            rewards.append(0.5 + 0.5 * max(-1.0, min(1.0, delta)))
        return rewards


def _copied(betting: Betting, stacks: list[int]) -> Betting:
    """A copy of a deal's betting state over the copied table's ``stacks``."""
    copy: Betting = Betting.__new__(Betting)
    copy.order, copy.stacks = betting.order, stacks
    copy.min_bet, copy.max_bet, copy.multiway = betting.min_bet, betting.max_bet, betting.multiway
    copy.contrib, copy.folded = list(betting.contrib), list(betting.folded)
    copy.all_in, copy.acted = list(betting.all_in), list(betting.acted)
    copy.level, copy.status, copy.turn = betting.level, betting.status, betting.turn
    return copy
