"""The host's side of the plugin API: what the server, ``verify``, the CLI and the conformance
kit do with a plugin's variants and games. Plugin authors read :mod:`bezique.variants.api`;
nothing here is theirs to call or write.

Every optional ability of a variant is declared, with its default, by
:class:`~bezique.variants.api.BaseVariant` (a game's ``abort`` by
:class:`~bezique.variants.api.BaseGame`): the functions here call it directly.
:func:`declared` completes a variant written before the declarations
(:mod:`bezique.variants.legacy`). Pure: no I/O, no grpc, no protobuf.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from bezique.variants import legacy
from bezique.variants.api import (
    ABORTED,
    AmountRange,
    BaseGame,
    BaseVariant,
    BotPolicy,
    Census,
    Event,
    Game,
    GameOverError,
    Move,
    OptionError,
    Options,
    OptionSpec,
    Outcome,
    RecordPolicy,
    SeatRecord,
    Variant,
    VariantError,
    View,
    Vocabulary,
    _matched_offer,
    _missed_range,
)
from bezique.variants.cards import Shoe
from bezique.variants.chance import Chance
from bezique.variants.words import HOST_WORDS

# --------------------------------------------------------------------------- variants


def declared(variant: Variant) -> BaseVariant:
    """``variant`` with every optional ability declared: itself when it derives from
    :class:`BaseVariant`, else completed by :class:`bezique.variants.legacy.Undeclared`
    (a plugin written before the declarations keeps working unchanged)."""
    if isinstance(variant, BaseVariant):
        return variant
    return legacy.Undeclared(variant)


def resolve_options(specs: Sequence[OptionSpec], given: Mapping[str, object]) -> dict[str, Any]:
    """Every declared option, typed: the given values checked, the rest at their defaults."""
    by_name = {spec.name: spec for spec in specs}
    for name in given:
        if name not in by_name:
            known = ", ".join(sorted(by_name)) or "none"
            raise OptionError(name, f"unknown option (this variant has: {known})")
    return {spec.name: spec.parse(given[spec.name]) if spec.name in given else spec.default
            for spec in specs}


def check_options(variant: Variant, options: Options) -> None:
    """Check resolved options as a whole by the variant's
    :meth:`~bezique.variants.api.BaseVariant.check_options` (raises :class:`OptionError`)."""
    declared(variant).check_options(options)


def buy_in_range(variant: Variant, options: Options) -> tuple[int, int] | None:
    """The smallest and largest buy-in at a table with these (resolved) options, or ``None``
    when the variant takes no buy-ins
    (:meth:`~bezique.variants.api.BaseVariant.buy_in_range`)."""
    bounds = declared(variant).buy_in_range(options)
    return None if bounds is None else (int(bounds[0]), int(bounds[1]))


def vocabulary_of(variant: Variant) -> Vocabulary:
    """The variant's words for people (:attr:`~bezique.variants.api.BaseVariant.vocabulary`;
    empty when it declares none)."""
    return declared(variant).vocabulary


def vocabularies_of(variant: Variant) -> dict[str, Vocabulary]:
    """The variant's words in every language it has, by language tag, its own language first
    (:attr:`~bezique.variants.api.BaseVariant.translations`), each completed with the host's
    outcome words in that language (:data:`bezique.variants.words.HOST_WORDS`)."""
    ready = declared(variant)
    own = ready.vocabulary
    found = {own.language or "en": own, **dict(ready.translations)}
    return {language: words.merged(HOST_WORDS[language]) if language in HOST_WORDS else words
            for language, words in found.items()}


def takes_log_version(variant: Variant) -> bool:
    """Whether ``start_game`` passes the variant's ``start`` an older ``log_version``
    (:attr:`~bezique.variants.api.BaseVariant.start_takes_log_version`)."""
    return declared(variant).start_takes_log_version


def start_game(variant: Variant, options: Options, chance: Chance, first_dealer: int | None,
               buy_ins: Mapping[int, int] | None = None, log_version: int | None = None
               ) -> tuple[Game, tuple[Event, ...]]:
    """Start a game, passing ``start`` a keyword only when it applies: a table without
    buy-ins, and every log from before buy-ins, starts exactly as before.

    ``buy_ins`` (seat -> chips) go to a variant that takes buy-ins
    (:meth:`~bezique.variants.api.BaseVariant.buy_in_range`); any other refuses them.
    ``log_version`` is the variant version that wrote the table's log (its ``created``
    record): when it is older than the installed one and the variant declares
    :attr:`~bezique.variants.api.BaseVariant.start_takes_log_version`, the game is started as
    that version played (its legal moves, and so its bots' choices, are the ones the log was
    written with: ``verify`` recomputes every bot move from them)."""
    complete = declared(variant)
    keywords: dict[str, Any] = {}
    if buy_ins:
        if complete.buy_in_range(options) is None:
            raise VariantError(f"{complete.id} takes no buy-ins")
        keywords["buy_ins"] = dict(buy_ins)
    if log_version is not None and log_version != complete.version \
            and complete.start_takes_log_version:
        keywords["log_version"] = log_version
    start: Callable[..., tuple[Game, tuple[Event, ...]]] = complete.start
    return start(options, chance, first_dealer, **keywords)


# --------------------------------------------------------------------------- moves


def match_move(move: Move, legal: Sequence[Move]) -> Move | None:
    """The offered move in ``legal`` that the submitted ``move`` is (see
    :meth:`Move.accepts`), or None: what the server checks before it calls ``apply``.

    >>> offer = Move("raise", amount=10, amount_range=AmountRange(10, 990))
    >>> legal = [Move("fold"), offer]
    >>> match_move(Move("raise", amount=37), legal) is offer
    True
    >>> too_much = Move("raise", amount=991)
    >>> match_move(too_much, legal), str(range_missed(too_much, legal))
    (None, '10..990')
    """
    return _matched_offer(move, legal)


def range_missed(move: Move, legal: Sequence[Move]) -> AmountRange | None:
    """The range of an offered move that ``move`` matches but for its amount, or None: why a
    move is refused when only its amount is wrong (the error then names the range)."""
    return _missed_range(move, legal)


# --------------------------------------------------------------------------- bots


def reads_record(policy: object) -> bool:
    """Whether ``policy`` reads its seat's record (:class:`RecordPolicy`): the host then
    builds one for it, and only for it (the others need no history)."""
    return isinstance(policy, RecordPolicy)


def bot_choice(policy: BotPolicy, view: View, legal: Sequence[Move], rng: random.Random,
               record: SeatRecord | Callable[[], SeatRecord] | None = None) -> Move:
    """The bot's move, as every host asks for it (the server, ``verify``, the conformance kit
    and the bench alike, so a bot decides the same everywhere): a :class:`RecordPolicy` gets
    its seat's record (``record``, or a function that builds it, called only then), any other
    policy the view and legal moves only."""
    if isinstance(policy, RecordPolicy):
        if record is None:
            raise ValueError(f"the {policy.name!r} bot reads its seat's record: none was given")
        seen = record if isinstance(record, SeatRecord) else record()
        return policy.choose_seen(view, legal, rng, seen)
    return policy.choose(view, legal, rng)


def game_events(entries: Iterable[Sequence[Event]]) -> list[Event]:
    """The events of a game's entries (its start, its moves), in order, as one list."""
    return [event for events in entries for event in events]


# --------------------------------------------------------------------------- aborting


def abort_game(game: Game) -> tuple[Game, tuple[Event, ...]]:
    """End ``game`` now, at an operator's request, settling as its variant says; return the
    game to use from now on and the events of the settlement.

    A game that settles (:meth:`~bezique.variants.api.BaseGame.abort` returns its events) is
    over from then on; one that does not (``None``, the default) ends with its current scores
    (or stacks) and no winner, by :class:`AbortedGame`."""
    settled = game.abort() if isinstance(game, BaseGame) else legacy.abort_settled(game)
    if settled is None:
        return AbortedGame(game), ()
    return game, tuple(settled)


class AbortedGame:
    """A game ended by an operator whose variant does not settle an abort itself: the game
    as it was, with no move left and an outcome of its current scores and no winner."""

    def __init__(self, game: Game) -> None:
        self.game = game
        spectator = game.view(None)
        self._outcome = Outcome((), tuple(spectator.scores or spectator.stacks), ABORTED,
                                MappingProxyType({"phase": game.phase}))

    @property
    def phase(self) -> str:
        return "over"

    @property
    def to_move(self) -> tuple[int, ...]:
        return ()

    @property
    def shoe(self) -> Shoe:
        return self.game.shoe

    def legal_moves(self, seat: int) -> tuple[Move, ...]:
        return ()

    def apply(self, seat: int, move: Move) -> tuple[Event, ...]:
        raise GameOverError(seat, move, "the table was aborted", "over")

    def view(self, viewer: int | None) -> View:
        return dataclasses.replace(self.game.view(viewer), phase="over", to_move=())

    def outcome(self) -> Outcome | None:
        return self._outcome

    def default_move(self, seat: int) -> Move:
        raise GameOverError(seat, Move("none"), "the table was aborted", "over")

    def census(self) -> Census:
        return self.game.census()
