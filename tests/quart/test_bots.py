"""The heuristic policy beats random play by a clear margin over 500 seeded deals; bot sessions
end as the rules say for every seed."""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bezique.variants.api import BotPolicy, RandomPolicy, Variant
from bezique.variants.chance import SeededChance
from bezique.variants.host import resolve_options
from bezique.variants.quart.bots import HeuristicPolicy
from tests.quart.helpers import QUART, TRUMP, check_session_end


def heuristic_net(variant: Variant, tables: int = 50, deals: int = 10) -> tuple[int, int]:
    """Chips won by the heuristic seats (0 and 2) against random seats (1 and 3)."""
    net = played = 0
    for table in range(tables):
        options = resolve_options(variant.options, {"players": 4, "deals": deals})
        seed = hashlib.sha256(f"heuristic-{table}".encode()).digest()
        game, _ = variant.start(options, SeededChance(seed))
        policies: list[BotPolicy] = [HeuristicPolicy(), RandomPolicy()] * 2
        rng = random.Random(table)
        while game.outcome() is None:
            seat = game.to_move[0]
            move = policies[seat].choose(game.view(seat), game.legal_moves(seat), rng)
            game.apply(seat, move)
        outcome = game.outcome()
        assert outcome is not None
        net += sum(outcome.scores[s] - options["starting_stack"] for s in (0, 2))
        played += outcome.detail["deals"]
    return net, played


@pytest.mark.parametrize("variant", [QUART, TRUMP], ids=lambda v: v.id)
def test_heuristic_wins_chips_from_random(variant: Variant) -> None:
    net, played = heuristic_net(variant)
    print(f"{variant.id}: heuristic seats net {net:+d} chips over {played} deals "
          f"({net / played:+.1f} a deal, ante 10)")
    assert played == 500
    assert net > 20 * played  # more than two antes a deal


@settings(max_examples=40)
@given(seed=st.binary(min_size=16, max_size=32), choices=st.integers(0, 2**32))
def test_bot_sessions_end_as_the_rules_say_for_every_seed(seed: bytes, choices: int) -> None:
    """The server test's table (three seats, heuristic against random, 25 deals) at engine
    level, where the seed fixes everything: some seeds end the session after a few moves."""
    options = resolve_options(TRUMP.options, {"players": 3, "deals": 25})
    game, _ = TRUMP.start(options, SeededChance(seed))
    policies: list[BotPolicy] = [HeuristicPolicy(), RandomPolicy(), RandomPolicy()]
    rng = random.Random(choices)
    for _ in range(20_000):
        if game.outcome() is not None:
            break
        seat = game.to_move[0]
        game.apply(seat, policies[seat].choose(game.view(seat), game.legal_moves(seat), rng))
    outcome = game.outcome()
    assert outcome is not None, "the session did not end"
    check_session_end(outcome.reason, outcome.scores, options, outcome.detail["deals"])
