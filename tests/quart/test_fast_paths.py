"""The shortcuts of the hot path give what the plain code gives: ``Betting.choices`` answers
like the four separate questions."""

from __future__ import annotations

import pickle
import random

from tests.quart.helpers import QUART, TRUMP
from variants.api import resolve_options
from variants.chance import SeededChance
from variants.quart.game import QuartGame


def test_choices_answer_like_the_four_questions_in_random_play() -> None:
    for variant, raw in ((QUART, {"players": "3"}), (TRUMP, {}), (QUART, {"players": "5"})):
        options = resolve_options(variant.options, raw)
        for game_no in range(12):
            game, _ = variant.start(options, SeededChance(bytes([game_no + 1]) * 32))
            assert isinstance(game, QuartGame)
            rng = random.Random(game_no)
            for _ in range(300):
                if not game.to_move:
                    break
                seat = game.to_move[0]
                betting = game.betting
                assert betting is not None
                assert betting.choices(seat) == (
                    betting.can_bet(seat), betting.can_show(seat), betting.raise_range(seat),
                    betting.can_allin(seat))
                legal = game.legal_moves(seat)
                game.apply(seat, legal[rng.randrange(len(legal))])
            copy = pickle.loads(pickle.dumps(game))
            assert copy.stacks == game.stacks and copy.to_move == game.to_move
