"""The facts of the two Quart-Bezique variants and their option schema.

Every **[R]** resolution of docs/rules/quart-bezique.md is an option here, with its default and
allowed range; the two variants differ only in the trump turn-up and its one extra option.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bezique.variants.api import BaseVariant, Event, OptionError, Options, OptionSpec, OptionType
from bezique.variants.cards import Shoe
from bezique.variants.chance import Chance
from bezique.variants.quart.evaluator import BEZIQUE_CHOICES, BEZIQUE_QS_JD, QUART_SHOE
from bezique.variants.quart.game import CARRY_OVER, NO_COMBINATION_CHOICES, QuartGame, QuartRules
from bezique.variants.quart.words import vocabularies

MAX_CHIPS = 10_000_000

COMMON_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("players", OptionType.INT, 4, "Number of seats (the rule text plays with 4).",
               minimum=2, maximum=6),
    OptionSpec("starting_stack", OptionType.INT, 1000, "Chips each seat starts with.",
               minimum=1, maximum=MAX_CHIPS),
    OptionSpec("ante", OptionType.INT, 10,
               "Chips each seat puts into the pot before every deal; a seat that cannot pay "
               "it sits the deal out.", minimum=1, maximum=MAX_CHIPS),
    OptionSpec("min_bet", OptionType.INT, None,
               "The agreed minimum: the opening bet and every raise are at least this much "
               "(none: the same as the ante).", minimum=1, maximum=MAX_CHIPS, nullable=True),
    OptionSpec("max_bet", OptionType.INT, None,
               "Table limit: a raise lifts the level by at most this much (none: no limit).",
               minimum=1, maximum=MAX_CHIPS, nullable=True),
    OptionSpec("multiway_showdown", OptionType.BOOL, True,
               "With three or more players in, when all have matched the level and acted, "
               "they all show (false: the next must raise or fold until two are left)."),
    OptionSpec("no_combination", OptionType.CHOICE, CARRY_OVER,
               "When nobody at the showdown holds a combination: carry the pot to the next "
               "deal, or split it among them.", choices=NO_COMBINATION_CHOICES),
    OptionSpec("bezique_cards", OptionType.CHOICE, BEZIQUE_QS_JD,
               "Which pair is a bezique: the queen of spades with the jack of diamonds, or any "
               "queen with any jack.", choices=BEZIQUE_CHOICES),
    OptionSpec("deals", OptionType.INT, None,
               "Deals after which the table ends (none: until fewer than two seats can pay "
               "the ante).", minimum=1, maximum=1_000_000, nullable=True),
    OptionSpec("min_buy_in", OptionType.INT, None,
               "The smallest starting stack a platform may give a seat when it joins (none: "
               "the ante).", minimum=1, maximum=MAX_CHIPS, nullable=True),
    OptionSpec("max_buy_in", OptionType.INT, None,
               "The largest starting stack a platform may give a seat when it joins (none: "
               "the starting_stack).", minimum=1, maximum=MAX_CHIPS, nullable=True),
)

TRUMP_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("trump_doubles_combinations", OptionType.BOOL, False,
               "Whether a combination made only of trump cards also scores double (card "
               "points of trumps always do)."),
)


class QuartBezique(BaseVariant):
    """Quart-Bezique: four cards each from six 24-card packs, then betting and a showdown."""

    id = "quart-bezique"
    version = 2
    """2: one raise with an amount range (any level). Version 1 offered a ladder of raise
    levels; its tables play on with that ladder (see :meth:`start`), so their bots choose, and
    ``verify`` recomputes them, as they did."""
    start_takes_log_version = True
    title = "Quart-Bezique"
    description = ("A betting game of the Seka family: four cards each from 144, bet, and the "
                   "most points with a combination takes the pot.")
    min_seats = 2
    max_seats = 6
    options: tuple[OptionSpec, ...] = COMMON_OPTIONS
    trump = False

    def seat_count(self, options: Options) -> int:
        return int(options["players"])

    def shoe(self, options: Options) -> Shoe:
        return QUART_SHOE

    def table_rules(self, options: Options, log_version: int | None = None) -> QuartRules:
        """The resolved options as the game's rules, checking the ones that depend on others;
        a table whose log ``log_version`` 1 wrote raises by version 1's ladder."""
        ante = int(options["ante"])
        stack = int(options["starting_stack"])
        min_bet = ante if options["min_bet"] is None else int(options["min_bet"])
        max_bet: Any = options["max_bet"]
        if ante > stack:
            raise OptionError("ante", f"{ante} is more than the starting_stack {stack}")
        if max_bet is not None and int(max_bet) < min_bet:
            raise OptionError("max_bet", f"{max_bet} is below the minimum bet {min_bet}")
        deals = options["deals"]
        return QuartRules(
            seats=self.seat_count(options), starting_stack=stack, ante=ante, min_bet=min_bet,
            max_bet=None if max_bet is None else int(max_bet),
            multiway_showdown=bool(options["multiway_showdown"]),
            no_combination=str(options["no_combination"]),
            bezique_cards=str(options["bezique_cards"]),
            deals=None if deals is None else int(deals),
            trump=self.trump,
            trump_doubles_combinations=bool(options.get("trump_doubles_combinations", False)),
            raise_ladder=log_version == 1,
        )

    def check_options(self, options: Options) -> None:
        """The options that depend on each other (ante, stack, bets, buy-ins), checked at
        creation."""
        self.table_rules(options)
        self.buy_in_range(options)

    def buy_in_range(self, options: Options) -> tuple[int, int]:
        """The buy-ins a seat may start with: ``min_buy_in`` (none: the ante) to
        ``max_buy_in`` (none: the starting stack). At least the ante, so every seat that
        bought in can pay the first deal. Tables from before these options read as none."""
        ante = int(options["ante"])
        low_given, high_given = options.get("min_buy_in"), options.get("max_buy_in")
        low = ante if low_given is None else int(low_given)
        high = int(options["starting_stack"]) if high_given is None else int(high_given)
        if low < ante:
            raise OptionError("min_buy_in", f"{low} is below the ante {ante}")
        if high < low:
            raise OptionError("max_buy_in", f"{high} is below the smallest buy-in {low}")
        return low, high

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None, *,
              buy_ins: Mapping[int, int] | None = None, log_version: int | None = None
              ) -> tuple[QuartGame, tuple[Event, ...]]:
        """A new table; ``buy_ins`` (seat -> chips) gives seats their own starting stacks,
        the others start with ``starting_stack``. ``log_version``: the version that wrote the
        table's log (none: this one), whose legal moves the game offers."""
        if log_version is not None and not self.accepts_log_version(log_version):
            raise ValueError(f"{self.id} cannot play as version {log_version}")
        rules = self.table_rules(options, log_version)
        if first_dealer is not None and not 0 <= first_dealer < rules.seats:
            raise ValueError(f"first_dealer {first_dealer} is not a seat of {rules.seats}")
        stacks = None
        if buy_ins:
            if any(not 0 <= seat < rules.seats for seat in buy_ins):
                raise ValueError(f"buy-ins for seats {sorted(buy_ins)} of {rules.seats}")
            stacks = [int(buy_ins.get(seat, rules.starting_stack))
                      for seat in range(rules.seats)]
        return QuartGame.begin(self.shoe(options), rules, chance, first_dealer, stacks)

    def accepts_log_version(self, version: int) -> bool:
        """Version 1 logs replay exactly: their tables are started with its raise ladder."""
        return version in (1, self.version)


class TrumpQuartBezique(QuartBezique):
    """Trump Quart-Bezique: the top card of the stock is turned up; its suit's card points
    count double."""

    id = "trump-quart-bezique"
    title = "Trump Quart-Bezique"
    description = ("Quart-Bezique with a turned-up trump suit whose cards score double "
                   "card points.")
    options = COMMON_OPTIONS + TRUMP_OPTIONS
    trump = True


QuartBezique.vocabulary, QuartBezique.translations = vocabularies(QuartBezique())
TrumpQuartBezique.vocabulary, TrumpQuartBezique.translations = vocabularies(TrumpQuartBezique())
