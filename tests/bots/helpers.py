"""Games played in process with the search bots, the way every host asks them (``bot_choice``
with the seat's record), for the tests of ``tests/bots``."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from bezique.variants.api import BotPolicy, Event, Game, Move, SeatRecord, Variant
from bezique.variants.chance import SeededChance
from bezique.variants.host import bot_choice, resolve_options, start_game
from bezique.variants.registry import load_registry


def policy(variant_id: str, name: str) -> BotPolicy:
    """An installed bot policy of an installed variant."""
    return load_registry().bot_policies(variant_id)[name]


def variant(variant_id: str) -> Variant:
    return load_registry().variant(variant_id)


class Table:
    """A game with its events, as a host keeps them (every event, unredacted)."""

    def __init__(self, variant_id: str, options: Mapping[str, Any], seed: int) -> None:
        self.variant = variant(variant_id)
        self.options = resolve_options(self.variant.options, options)
        self.game: Game
        self.game, opening = start_game(self.variant, self.options,
                                        SeededChance(bytes([seed]) * 32), None)
        self.events: list[Event] = list(opening)

    def record(self, seat: int) -> SeatRecord:
        return SeatRecord.of(seat, self.options, self.events)

    def decide(self, bot: BotPolicy, seat: int, seed: int) -> Move:
        return bot_choice(bot, self.game.view(seat), self.game.legal_moves(seat),
                          random.Random(seed), self.record(seat))

    def play(self, seat: int, move: Move) -> None:
        self.events.extend(self.game.apply(seat, move))

    def advance(self, moves: int, rng: random.Random) -> None:
        """``moves`` uniformly random legal moves (a position in mid-game)."""
        for _ in range(moves):
            if self.game.outcome() is not None:
                return
            seat = self.game.to_move[0]
            legal: Sequence[Move] = self.game.legal_moves(seat)
            move = legal[rng.randrange(len(legal))]
            span = move.amount_range
            self.play(seat, move if span is None else move.with_amount(span.minimum))
