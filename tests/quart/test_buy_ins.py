"""Per-seat buy-ins through the plugin API: Quart declares its range and starts each seat with
its own stack; the conformance kit catches a variant that declares buy-ins and ignores them;
a table without buy-ins starts exactly as before."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from bezique.variants.api import Event, OptionError, Options
from bezique.variants.chance import Chance, SeededChance
from bezique.variants.conformance import ConformanceError, check_buy_ins, seed_bytes
from bezique.variants.host import buy_in_range, resolve_options, start_game
from bezique.variants.quart.game import QuartGame
from bezique.variants.quart.variant import QuartBezique
from tests.quart.helpers import QUART


def options(**given: object) -> dict[str, Any]:
    return resolve_options(QUART.options, given)


def test_the_range_defaults_to_ante_through_starting_stack() -> None:
    assert buy_in_range(QUART, options(ante=20, starting_stack=800)) == (20, 800)
    assert buy_in_range(QUART, options(min_buy_in=100, max_buy_in=9000)) == (100, 9000)
    old = {k: v for k, v in options().items() if "buy_in" not in k}  # a table from before
    assert buy_in_range(QUART, old) == (10, 1000)
    with pytest.raises(OptionError):
        QUART.check_options(options(ante=50, min_buy_in=40))


def test_each_seat_starts_with_its_buy_in() -> None:
    resolved = options(players=3, deals=2)
    game, _ = start_game(QUART, resolved, SeededChance(seed_bytes(1)), 0, {0: 400, 2: 90})
    assert isinstance(game, QuartGame)
    assert game.census().chips == 400 + 1000 + 90
    # every seat paid the ante of 10 from its own stack
    assert game.view(None).stacks == (390, 990, 80)


def test_no_buy_ins_start_the_game_as_before() -> None:
    resolved = options(players=2, deals=2)
    plain, opening = QUART.start(resolved, SeededChance(seed_bytes(2)))
    same, again = start_game(QUART, resolved, SeededChance(seed_bytes(2)), None, {})
    assert opening == again and plain.view(0) == same.view(0)


def test_the_kit_checks_quart_buy_ins() -> None:
    check_buy_ins(QUART, {"players": 4, "deals": 3, "max_buy_in": 5000}, games=3)


class IgnoresBuyIns(QuartBezique):
    """Declares buy-ins, but every seat starts with the table's stack."""

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None, *,
              buy_ins: Mapping[int, int] | None = None, log_version: int | None = None
              ) -> tuple[QuartGame, tuple[Event, ...]]:
        return super().start(options, chance, first_dealer, log_version=log_version)


def test_the_kit_catches_a_variant_that_ignores_buy_ins() -> None:
    with pytest.raises(ConformanceError, match="buy-ins"):
        check_buy_ins(IgnoresBuyIns(), {"players": 2, "deals": 2, "max_buy_in": 5000})
