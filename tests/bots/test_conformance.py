"""Every search decision is legal: conformance games (``random_game``, which refuses a move
not among the legal moves and replays every game from its seed) with search seats, in every
built-in game, each seat given its record as the server gives it."""

from __future__ import annotations

import pytest

from bezique.variants.api import BotPolicy
from bezique.variants.conformance import random_game, replay
from bezique.variants.search.policy import SearchPolicy
from tests.bots.helpers import policy, variant


@pytest.mark.parametrize(("variant_id", "options", "seats"), [
    ("bezique-2p", {"target": 10, "claims": False}, ("search-easy", "heuristic")),
    ("bezique-2p", {"target": 10, "deal_packets": "3-2-3"}, ("search-easy", "random")),
    ("bezique-3p", {"target": 10, "declare_prompt": "when_possible"},
     ("heuristic", "search-easy", "random")),
    ("quart-bezique", {"players": 4, "deals": 6, "ante": 50, "starting_stack": 300},
     ("search-easy", "random", "search-easy", "heuristic")),
    ("trump-quart-bezique", {"players": 2, "deals": 8, "max_bet": 40},
     ("search-easy", "search")),
])
def test_search_seats_play_only_legal_moves(variant_id: str, options: dict[str, object],
                                            seats: tuple[str, ...]) -> None:
    policies: list[BotPolicy] = [policy(variant_id, name) for name in seats]
    assert any(isinstance(p, SearchPolicy) for p in policies)
    for game_no in (0, 1) if variant_id.startswith("quart") else (0,):
        played = random_game(variant(variant_id), options, game_no=game_no, policies=policies)
        assert played.game.outcome() is not None and played.moves
        game, _ = replay(played)
        assert game.outcome() == played.game.outcome()
