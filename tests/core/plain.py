"""Variants written as plugins were before the optional abilities were declared: plain classes,
no ``BaseVariant``, with none of the abilities (:class:`PlainCard`) or with them as plain
attributes (:class:`OldQuart`), for the tests that such plugins keep working."""

from __future__ import annotations

from collections.abc import Mapping

from bezique.variants.api import (
    Census,
    Event,
    Game,
    Move,
    Options,
    OptionSpec,
    Outcome,
    View,
    Vocabulary,
)
from bezique.variants.cards import Shoe
from bezique.variants.chance import Chance
from bezique.variants.quart.variant import QuartBezique
from bezique_highcard.game import HighCard


class PlainGame:
    """A game that is no ``BaseGame`` and has no ``abort``: high card behind the protocol."""

    def __init__(self, game: Game) -> None:
        self.game = game

    @property
    def phase(self) -> str:
        return self.game.phase

    @property
    def to_move(self) -> tuple[int, ...]:
        return self.game.to_move

    @property
    def shoe(self) -> Shoe:
        return self.game.shoe

    def legal_moves(self, seat: int) -> tuple[Move, ...]:
        return self.game.legal_moves(seat)

    def apply(self, seat: int, move: Move) -> tuple[Event, ...]:
        return self.game.apply(seat, move)

    def view(self, viewer: int | None) -> View:
        return self.game.view(viewer)

    def outcome(self) -> Outcome | None:
        return self.game.outcome()

    def default_move(self, seat: int) -> Move:
        return self.game.default_move(seat)

    def census(self) -> Census:
        return self.game.census()


class PlainCard:
    """High card with the facts and a start only: no optional ability."""

    id = "plaincard"
    version = 1
    title = "Plain card"
    description = "High card, declaring nothing optional."
    min_seats = 2
    max_seats = 4
    options: tuple[OptionSpec, ...] = HighCard.options

    def seat_count(self, options: Options) -> int:
        return int(options["players"])

    def shoe(self, options: Options) -> Shoe:
        return HighCard().shoe(options)

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None
              ) -> tuple[Game, tuple[Event, ...]]:
        game, events = HighCard().start(options, chance, first_dealer)
        return PlainGame(game), events

    def accepts_log_version(self, version: int) -> bool:
        return version == self.version


class OldQuart:
    """Quart-Bezique as a plain class with every ability as a plain attribute: a vocabulary,
    ``check_options``, ``buy_in_range`` with ``start(buy_ins=)``, ``start(log_version=)`` for
    version 1's logs, and its game's own ``abort``."""

    def __init__(self) -> None:
        self.quart = QuartBezique()
        self.id = "old-quart"
        self.version = self.quart.version
        self.title = self.description = "Quart-Bezique, written before the declarations"
        self.min_seats, self.max_seats = self.quart.min_seats, self.quart.max_seats
        self.options = self.quart.options
        self.vocabulary: Vocabulary = self.quart.vocabulary

    def seat_count(self, options: Options) -> int:
        return self.quart.seat_count(options)

    def shoe(self, options: Options) -> Shoe:
        return self.quart.shoe(options)

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None, *,
              buy_ins: Mapping[int, int] | None = None, log_version: int | None = None
              ) -> tuple[Game, tuple[Event, ...]]:
        return self.quart.start(options, chance, first_dealer, buy_ins=buy_ins,
                                log_version=log_version)

    def accepts_log_version(self, version: int) -> bool:
        return self.quart.accepts_log_version(version)

    def check_options(self, options: Options) -> None:
        self.quart.check_options(options)

    def buy_in_range(self, options: Options) -> tuple[int, int]:
        bounds = self.quart.buy_in_range(options)
        assert bounds is not None
        return bounds


