"""The two engine baselines: pokerkit's No-Limit Hold'em and a bare trick-play loop.

* pokerkit: 4 players, every automation on, so only player actions remain; each decision is
  uniform among the legal ones of fold, check/call and complete/bet/raise to the minimum.
* The bare loop is the cost of a 2-player 64-card trick game itself (random legal cards,
  follow suit and head the trick in the last 8 tricks, trumps) with no declarations, no
  records, no views: the floor any trick-taking engine in Python pays.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from pokerkit import Automation, NoLimitTexasHoldem

POKER_PLAYERS = 4
_AUTOMATIONS = tuple(Automation)


@dataclass
class Sample:
    """Decisions and deals (hands, games) made in ``seconds``."""

    decisions: int
    deals: int
    seconds: float

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds

    @property
    def deals_per_second(self) -> float:
        return self.deals / self.seconds


def poker_hand(rng: random.Random) -> int:
    """One random hand of 4-player No-Limit Hold'em (blinds 1/2, stacks 200); its decisions."""
    state = NoLimitTexasHoldem.create_state(
        _AUTOMATIONS, True, 0, (1, 2), 2, 200, POKER_PLAYERS)
    decisions = 0
    while state.status:
        choices = []
        if state.can_fold():
            choices.append(0)
        if state.can_check_or_call():
            choices.append(1)
        if state.can_complete_bet_or_raise_to():
            choices.append(2)
        choice = choices[rng.randrange(len(choices))]
        if choice == 0:
            state.fold()
        elif choice == 1:
            state.check_or_call()
        else:
            state.complete_bet_or_raise_to(state.min_completion_betting_or_raising_to_amount)
        decisions += 1
    return decisions


def time_games(play: Callable[[random.Random], int], budget: float, seed: int = 0) -> Sample:
    """Play game after game (``play`` returns its decisions) until ``budget`` seconds pass."""
    rng = random.Random(seed)
    decisions = games = 0
    start = time.perf_counter()
    while True:
        decisions += play(rng)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= budget:
            return Sample(decisions, games, elapsed)


def time_poker(budget: float, seed: int = 0) -> Sample:
    return time_games(poker_hand, budget, seed)


# 64 cards: two piquet packs. Card id -> suit (0..3) and rank (0..7, higher beats lower).
_SUIT = tuple((card // 8) % 4 for card in range(64))
_RANK = tuple(card % 8 for card in range(64))


def _beats(card: int, other: int, trump: int) -> bool:
    """Whether ``card``, played second, beats ``other`` (equal cards: the first wins)."""
    if _SUIT[card] == _SUIT[other]:
        return _RANK[card] > _RANK[other]
    return _SUIT[card] == trump


def _endgame_legal(hand: list[int], led: int, trump: int) -> list[int]:
    """Follow suit and head the trick if possible; void: trump if possible; else anything."""
    suit = _SUIT[led]
    follow = [c for c in hand if _SUIT[c] == suit]
    if follow:
        higher = [c for c in follow if _RANK[c] > _RANK[led]]
        return higher or follow
    trumps = [c for c in hand if _SUIT[c] == trump]
    return trumps or list(hand)


def trick_game(rng: random.Random) -> int:
    """One random 2-player game of 32 tricks; its decisions (64)."""
    deck = list(range(64))
    rng.shuffle(deck)
    hands = [deck[0:8], deck[8:16]]
    stock = deck[16:]
    trump = _SUIT[stock[0]]
    leader = 0
    decisions = 0
    while hands[leader]:
        lead_hand = hands[leader]
        legal = list(lead_hand)
        led = legal[rng.randrange(len(legal))]
        lead_hand.remove(led)
        follower = 1 - leader
        follow_hand = hands[follower]
        legal = _endgame_legal(follow_hand, led, trump) if not stock else list(follow_hand)
        played = legal[rng.randrange(len(legal))]
        follow_hand.remove(played)
        decisions += 2
        if _beats(played, led, trump):
            leader = follower
        if stock:
            hands[leader].append(stock.pop())
            hands[1 - leader].append(stock.pop())
    return decisions


def time_trick_loop(budget: float, seed: int = 0) -> Sample:
    return time_games(trick_game, budget, seed)
