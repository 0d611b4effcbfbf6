"""Discovery through entry points, hook checking, and the conformance kit itself."""

from __future__ import annotations

import pickle
import random
from collections.abc import Sequence

import pluggy
import pytest

from bezique.variants.api import Move, OptionSpec, OptionType, RandomPolicy, View
from bezique.variants.chance import SeededChance
from bezique.variants.conformance import ConformanceError, check_options_refused, check_variant
from bezique.variants.hookspecs import hookimpl
from bezique.variants.host import resolve_options
from bezique.variants.registry import Registry, load_registry, make_plugin_manager
from bezique_highcard.game import HighCard, HighCardGame


def test_entry_points_find_the_example_plugin() -> None:
    registry = load_registry()
    assert "highcard" in registry.variants
    assert list(registry.bot_policies("highcard")) == ["random", "highest"]


def test_a_misspelled_hook_is_an_error() -> None:
    class Misspelled:
        @hookimpl
        def bezique_variant(self) -> list[object]:
            return []

    with pytest.raises(pluggy.PluginValidationError):
        make_plugin_manager(entry_points=False, plugins=[Misspelled()])


def test_duplicate_variant_ids_are_refused() -> None:
    class Twice:
        @hookimpl
        def bezique_variants(self) -> Sequence[HighCard]:
            return [HighCard(), HighCard()]

    with pytest.raises(ValueError, match="highcard"):
        Registry(make_plugin_manager(entry_points=False, plugins=[Twice()]))


def test_the_example_variant_conforms() -> None:
    check_variant(HighCard(), options=({}, {"players": 4, "hand_size": 8}))


class LeakyGame(HighCardGame):
    def view(self, viewer: int | None) -> View:
        honest = super().view(viewer)
        return View(honest.viewer, honest.phase, honest.to_move,
                    tuple(card for hand in self.hands for card in hand), honest.zones,
                    honest.scores, shoe=honest.shoe)


class LeakyVariant(HighCard):
    def start(self, options, chance, first_dealer=None):  # type: ignore[no-untyped-def]
        game, events = super().start(options, chance, first_dealer)
        game.__class__ = LeakyGame
        return game, events


class LaxGame(HighCardGame):
    def apply(self, seat, move):  # type: ignore[no-untyped-def]
        if move.kind == "no-such-move":
            return ()
        return super().apply(seat, move)


class LaxVariant(HighCard):
    def start(self, options, chance, first_dealer=None):  # type: ignore[no-untyped-def]
        game, events = super().start(options, chance, first_dealer)
        game.__class__ = LaxGame
        return game, events


@pytest.mark.parametrize(("variant", "message"), [
    (LeakyVariant(), "shows hidden cards"),
    (LaxVariant(), "accepted the illegal"),
])
def test_the_kit_catches_broken_variants(variant: HighCard, message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_variant(variant, games=1)


def test_the_kit_catches_unchecked_options() -> None:
    class Unchecked(HighCard):
        options: tuple[OptionSpec, ...] = (OptionSpec("hand_size", OptionType.INT, 3, "no range"),)

    check_options_refused(Unchecked())  # no range declared: nothing to refuse but types
    with pytest.raises(Exception, match="hand_size"):
        resolve_options(Unchecked.options, {"hand_size": "x"})


def test_games_pickle_for_snapshots() -> None:
    game, _ = HighCard().start({"players": 2, "hand_size": 3}, SeededChance(b"k" * 32))
    copy = pickle.loads(pickle.dumps(game))
    move = RandomPolicy().choose(game.view(0), game.legal_moves(0), random.Random(1))
    assert isinstance(move, Move)
    assert copy.apply(0, move) == game.apply(0, move)


def test_events_are_frozen_records_with_the_declared_defaults() -> None:
    import dataclasses

    from bezique.variants.api import EMPTY, Event

    plain = Event("deal_end")
    assert (plain.seat, plain.cards, plain.amount, plain.label, plain.detail, plain.visible_to,
            plain.hidden) == (None, (), 0, "", EMPTY, None, 0)
    full = Event("deal", 2, (4, 9), 3, "x", {"a": 1}, frozenset({2}), 1)
    assert full == Event(kind="deal", seat=2, cards=(4, 9), amount=3, label="x",
                         detail={"a": 1}, visible_to=frozenset({2}), hidden=1)
    assert [f.name for f in dataclasses.fields(Event)] == [
        "kind", "seat", "cards", "amount", "label", "detail", "visible_to", "hidden"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        full.kind = "other"  # type: ignore[misc]
    assert full.redacted_for(1) == Event("deal", 2, (), 3, "x", {"a": 1}, frozenset({2}), 2)
