"""Optional abilities are declared with their defaults (``BaseVariant``, ``BaseGame.abort``) and
called directly by the host; a plugin written before the declarations is completed
(``bezique.variants.legacy``) and keeps working; the conformance kit checks each declared
ability."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from bezique.variants.api import (
    NO_VOCABULARY,
    Event,
    GameOverError,
    Move,
    OptionError,
    Options,
    OptionSpec,
    OptionType,
    Variant,
    VariantError,
)
from bezique.variants.chance import Chance, SeededChance
from bezique.variants.conformance import (
    ConformanceError,
    check_accepted_options_start,
    check_facts,
    check_log_versions,
    check_random_games,
    check_variant,
)
from bezique.variants.host import (
    AbortedGame,
    abort_game,
    buy_in_range,
    check_options,
    declared,
    resolve_options,
    start_game,
    takes_log_version,
    vocabulary_of,
)
from bezique.variants.legacy import Undeclared
from bezique.variants.quart.game import QuartGame
from bezique.variants.quart.variant import QuartBezique
from bezique_highcard.game import HighCard, HighCardGame
from tests.core.plain import OldQuart, PlainCard, PlainGame

ROOT = Path(__file__).resolve().parents[2]
QUART = QuartBezique()
SMALL_QUART = {"players": 2, "deals": 2}


def test_a_variant_derived_from_the_base_is_called_as_it_is() -> None:
    highcard = HighCard()
    assert declared(highcard) is highcard and declared(QUART) is QUART
    assert highcard.buy_in_range({}) is None and not highcard.start_takes_log_version
    assert QUART.start_takes_log_version and QUART.buy_in_range(
        resolve_options(QUART.options, {})) == (10, 1000)


def test_a_plugin_declaring_nothing_gets_every_default_and_conforms() -> None:
    plain = PlainCard()
    complete = declared(plain)
    assert isinstance(complete, Undeclared) and complete.plugin is plain
    options = resolve_options(plain.options, {})
    check_options(plain, options)  # nothing to check
    assert buy_in_range(plain, options) is None and vocabulary_of(plain) is NO_VOCABULARY
    assert not complete.start_takes_log_version and not takes_log_version(plain)
    with pytest.raises(VariantError, match="plaincard takes no buy-ins"):
        start_game(plain, options, SeededChance(bytes(32)), None, {0: 100})
    # an older log version is never passed to a start that does not declare it
    game, _ = start_game(plain, options, SeededChance(bytes(32)), None, None, 0)
    assert isinstance(game, PlainGame)
    ended, events = abort_game(game)  # no abort of its own: ended as it stands
    assert isinstance(ended, AbortedGame) and events == ()
    outcome = ended.outcome()
    assert outcome is not None and (outcome.reason, outcome.winners) == ("aborted", ())
    with pytest.raises(GameOverError):
        ended.apply(0, Move("play", (0,)))
    check_variant(plain, games=1)


def test_abilities_written_as_plain_attributes_are_found_and_used() -> None:
    old = OldQuart()
    complete = declared(old)
    assert complete.start_takes_log_version and complete.vocabulary is QUART.vocabulary
    assert takes_log_version(old) and takes_log_version(QUART)
    with pytest.raises(OptionError, match="ante"):
        check_options(old, resolve_options(old.options, {"ante": 50, "starting_stack": 40}))
    options = resolve_options(old.options, SMALL_QUART)
    assert buy_in_range(old, options) == (10, 1000)
    as_v1, _ = start_game(old, options, SeededChance(bytes(32)), 0, {0: 400}, 1)
    quart_v1, _ = start_game(QUART, options, SeededChance(bytes(32)), 0, {0: 400}, 1)
    seat = as_v1.to_move[0]
    assert as_v1.legal_moves(seat) == quart_v1.legal_moves(seat)  # version 1's ladder
    assert as_v1.census() == quart_v1.census()
    ended, events = abort_game(SettlingPlainGame(as_v1))  # no BaseGame, its own abort
    assert isinstance(ended, SettlingPlainGame) and ended.game is as_v1
    assert [e.kind for e in events] == ["stake_returned", "stake_returned", "table_end"]
    check_variant(old, options=(SMALL_QUART,), games=1)


class SettlingPlainGame(PlainGame):
    """A game that is no ``BaseGame`` with an ``abort`` of its own (the one it wraps)."""

    def abort(self) -> tuple[Event, ...]:
        assert isinstance(self.game, QuartGame)
        return self.game.abort()


class Clashing(HighCard):
    """Declares ``check_options`` and refuses ``hand_size`` 8 with four players."""

    def check_options(self, options: Options) -> None:
        if options["players"] == 4 and options["hand_size"] == 8:
            raise OptionError("hand_size", "32 cards are too few for four hands of 8")


def test_check_options_that_keeps_its_promise_passes() -> None:
    check_accepted_options_start(Clashing())
    with pytest.raises(OptionError, match="hand_size"):
        check_options(Clashing(), resolve_options(HighCard.options,
                                                  {"players": 4, "hand_size": 8}))


class RaisesValueError(HighCard):
    def check_options(self, options: Options) -> None:
        if options["hand_size"] > 6:
            raise ValueError("too many")


class BlamesAnUnknownOption(HighCard):
    def check_options(self, options: Options) -> None:
        if options["hand_size"] > 6:
            raise OptionError("cards", "too many")


class RefusesTheDefaults(HighCard):
    def check_options(self, options: Options) -> None:
        raise OptionError("players", "never")


class RaisingBuyIns(HighCard):
    def buy_in_range(self, options: Options) -> tuple[int, int] | None:
        raise KeyError("starting_stack")


class EmptyBuyIns(HighCard):
    def buy_in_range(self, options: Options) -> tuple[int, int] | None:
        return 100, 10


@pytest.mark.parametrize(("variant", "message"), [
    (RaisesValueError(), "check_options raised ValueError"),
    (BlamesAnUnknownOption(), "blames 'cards', which is no declared option"),
    (RefusesTheDefaults(), "refuses the default options"),
    (RaisingBuyIns(), "buy_in_range raised KeyError"),
    (EmptyBuyIns(), "empty buy-in range 100..10"),
])
def test_the_kit_holds_check_options_and_buy_in_range_to_the_declared_ranges(
        variant: Variant, message: str) -> None:
    with pytest.raises(ConformanceError, match=re.escape(message)):
        check_accepted_options_start(variant)


class ClaimsOldLogs(HighCard):
    """Accepts version 0's logs and says its start plays as them, but its start takes no
    ``log_version``."""

    start_takes_log_version = True

    def accepts_log_version(self, version: int) -> bool:
        return version in (0, self.version)


class PlaysOldLogs(ClaimsOldLogs):
    def start(self, options: Options, chance: Chance, first_dealer: int | None = None, *,
              log_version: int | None = None) -> tuple[HighCardGame, tuple[Event, ...]]:
        return super().start(options, chance, first_dealer)


def test_the_kit_plays_every_declared_log_version() -> None:
    check_log_versions(HighCard())  # its own version only: nothing to play
    check_log_versions(PlaysOldLogs())
    check_log_versions(QUART, SMALL_QUART)  # version 1's raise ladder
    with pytest.raises(ConformanceError, match="accepts logs of version 0 but cannot start "
                                               "a game as it"):
        check_log_versions(ClaimsOldLogs())


class ChipLosingGame(QuartGame):
    def abort(self) -> tuple[Event, ...]:
        events = super().abort()
        self.stacks[0] -= 1
        return events


class ChipLosingQuart(QuartBezique):
    def start(self, options: Options, chance: Chance, first_dealer: int | None = None, **
              keywords: object) -> tuple[QuartGame, tuple[Event, ...]]:
        game, events = super().start(options, chance, first_dealer)
        game.__class__ = ChipLosingGame
        return game, events


class StillPlayingGame(HighCardGame):
    def abort(self) -> tuple[Event, ...]:
        return ()  # says it settled, yet the game goes on


class StillPlaying(HighCard):
    def start(self, options: Options, chance: Chance, first_dealer: int | None = None
              ) -> tuple[HighCardGame, tuple[Event, ...]]:
        game, events = super().start(options, chance, first_dealer)
        game.__class__ = StillPlayingGame
        return game, events


def test_the_kit_holds_a_declared_abort_to_its_promise() -> None:
    with pytest.raises(ConformanceError, match=r"\(aborted\): chips \d+ became"):
        check_random_games(ChipLosingQuart(), SMALL_QUART, games=1)
    with pytest.raises(ConformanceError, match="an aborted game's outcome is None"):
        check_random_games(StillPlaying(), games=1)


def test_the_kit_checks_the_declared_vocabulary() -> None:
    class Unworded(HighCard):
        vocabulary = ("phases",)  # type: ignore[assignment]

    with pytest.raises(ConformanceError, match="no Vocabulary"):
        check_facts(Unworded())


def test_the_helpers_that_moved_to_the_host_still_import_from_the_api() -> None:
    from bezique.variants import api, host

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert api.start_game is host.start_game  # type: ignore[attr-defined]
        from bezique.variants.api import resolve_options as old  # type: ignore[attr-defined]
    assert old is host.resolve_options
    assert [str(w.message) for w in caught] == [
        "bezique.variants.api.start_game moved to bezique.variants.host",
        "bezique.variants.api.resolve_options moved to bezique.variants.host"]
    assert all(w.category is DeprecationWarning for w in caught)
    with pytest.raises(AttributeError, match="no attribute 'no_such_helper'"):
        api.no_such_helper  # type: ignore[attr-defined]  # noqa: B018


PROBES = re.compile(r"inspect\.signature|(getattr|hasattr)\([^)]*\"(abort|check_options|"
                    r"buy_in_range|vocabulary|start|log_version|accepts_log_version)\"")


def test_no_ability_is_probed_outside_the_legacy_module() -> None:
    """The host (the service, the table's log, the clients) calls declared abilities; only
    ``variants/legacy.py`` looks at what a plugin written before the declarations has."""
    found = [f"{path.relative_to(ROOT)}:{number}"
             for folder in ("variants", "service", "clients", "bezique/table")
             for path in sorted((ROOT / folder).rglob("*.py"))
             if path.name != "legacy.py"
             for number, line in enumerate(path.read_text().splitlines(), start=1)
             if PROBES.search(line)]
    assert found == []


class DefaultOutOfRange(HighCard):
    """A hand size whose default its own range refuses (a typo in a plugin's declaration)."""

    options = (HighCard.options[0],
               OptionSpec("hand_size", OptionType.INT, 10, "Cards dealt to each player.",
                          minimum=1, maximum=8))


def test_the_kit_refuses_a_default_outside_its_own_range() -> None:
    check_facts(HighCard())
    with pytest.raises(ConformanceError, match="'hand_size' has a default its own declaration"):
        check_facts(DefaultOutOfRange())
