"""What a search bot knows: every sample it draws is the position its seat sees (the same
view, the same legal moves), and the bounds it infers (the voids shown once the stock is gone)
never exclude a card the opponent really holds."""

from __future__ import annotations

import random

import pytest

from bezique.variants.bezique.game import BeziqueGame
from bezique.variants.bezique.variant import BeziqueVariant
from bezique.variants.quart.variant import QuartBezique
from bezique.variants.search.bezique import BeziqueKnowledge
from bezique.variants.search.quart import QuartKnowledge
from tests.bots.helpers import Table


@pytest.mark.parametrize(("variant_id", "options"), [
    ("bezique-2p", {"target": 400, "claims": False}),
    ("bezique-3p", {"target": 400, "claims": False, "deal_packets": "3-2-3"}),
])
def test_bezique_samples_are_the_position_the_seat_sees(
        variant_id: str, options: dict[str, object]) -> None:
    """With two players the last tricks hide nothing (every other card is the opponent's);
    with three, the voids bound how the unseen cards split between the two opponents."""
    table = Table(variant_id, options, 3)
    rng = random.Random(3)
    voids = 0
    while table.game.outcome() is None:
        game = table.game
        assert isinstance(game, BeziqueGame) and isinstance(table.variant, BeziqueVariant)
        seat = game.to_move[0]
        view = game.view(seat)
        known = BeziqueKnowledge(table.variant, view, table.record(seat))
        sample = known.sample(rng)
        assert sample.view(seat) == view
        assert set(sample.legal_moves(seat)) == set(game.legal_moves(seat))
        assert len(sample.stock) == len(game.stock)
        for other in range(known.rules.seats):
            if other != seat:
                seen = known.known[other]  # the turn-up drawn, the melds taken back
                assert seen <= set(game.hands[other])
                hidden = [c for c in game.hands[other] if c not in seen]
                assert len(sample.hands[other]) == len(game.hands[other])
                assert not set(hidden) & known.forbidden[other]
                assert set(hidden) <= set(known.pool)
                voids += bool(known.forbidden[other])
        table.advance(1, rng)
    if variant_id == "bezique-3p":
        assert voids  # the endgame showed voids, and none was wrong


@pytest.mark.parametrize(("variant_id", "players"), [("quart-bezique", 4),
                                                     ("trump-quart-bezique", 3)])
def test_quart_samples_are_the_position_the_seat_sees(variant_id: str, players: int) -> None:
    table = Table(variant_id, {"players": players, "deals": 6, "starting_stack": 100}, 5)
    rng = random.Random(5)
    decisions = 0
    while table.game.outcome() is None:
        game = table.game
        seat = game.to_move[0]
        view = game.view(seat)
        assert isinstance(table.variant, QuartBezique)
        sample = QuartKnowledge(table.variant, view, table.record(seat)).sample(rng)
        assert sample.view(seat) == view
        assert sample.legal_moves(seat) == game.legal_moves(seat)
        decisions += 1
        table.advance(1, rng)
    assert decisions > 6
