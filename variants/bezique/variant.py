"""The facts of ``bezique-2p`` and ``bezique-3p``: ids, seats, shoe, and the option schema.

Every **[R]** of docs/rules/bezique.md is an option here, with the spec's default.
"""

from __future__ import annotations

from bezique.variants.api import BaseVariant, Event, Options, OptionSpec, OptionType
from bezique.variants.bezique.game import BeziqueGame
from bezique.variants.bezique.rules import LEGACY_DECLARE_PROMPT, BeziqueRules
from bezique.variants.bezique.words import vocabularies
from bezique.variants.cards import Shoe, piquet_shoe
from bezique.variants.chance import Chance
from bezique.variants.host import resolve_options


def option_specs(seats: int) -> tuple[OptionSpec, ...]:
    """The option schema of the ``seats``-player variant."""
    target = 1000 if seats == 2 else 1500
    return (
        OptionSpec("target", OptionType.INT, target,
                   "Points that win the match, reached at the end of a deal.",
                   minimum=10, maximum=100_000),
        OptionSpec("direction", OptionType.CHOICE, "counterclockwise",
                   "Play passes to the seat on the right (counterclockwise: the player on the "
                   "dealer's right leads, the one on his left cuts) or to the left (clockwise). "
                   "Irrelevant with 2 players.",
                   choices=("counterclockwise", "clockwise")),
        OptionSpec("deal_packets", OptionType.CHOICE, "2-2-2-2",
                   "Packets the 8 cards are dealt in: pairs (the rule text) or 3-2-3 "
                   "(English books).",
                   choices=("2-2-2-2", "3-2-3")),
        OptionSpec("last_trick", OptionType.CHOICE, "final",
                   "Which trick scores 10: the final one, or the last while the stock lasts.",
                   choices=("final", "last_of_stock")),
        OptionSpec("bezique_cards", OptionType.CHOICE, "QS+JD",
                   "The bezique: always Q♠+J♦ (the rule text), or Q♣+J♥ when ♠ or ♦ are trumps.",
                   choices=("QS+JD", "trump_dependent")),
        OptionSpec("seven_is_declaration", OptionType.BOOL, True,
                   "Showing or exchanging the seven of trumps is the trick's one declaration."),
        OptionSpec("seven_scores_when_played", OptionType.BOOL, False,
                   "A seven of trumps not yet scored scores 10 when played while the stock "
                   "lasts."),
        OptionSpec("show_stock_size", OptionType.BOOL, False,
                   "Show how many cards are left in the stock (the rule text forbids "
                   "counting it)."),
        OptionSpec("claims", OptionType.BOOL, True,
                   "Allow the 'claim' move once the stock is exhausted (a wrong claim loses)."),
        OptionSpec("target_tie", OptionType.CHOICE, "highest",
                   "Several reach the target and none of them took the last trick: the highest "
                   "score wins (equal: another deal), or always another deal.",
                   choices=("highest", "another_deal")),
        OptionSpec("declare_prompt", OptionType.CHOICE, "always",
                   "Who gets the declaration step after a trick while the stock lasts: every "
                   "winner, even with nothing to declare, so the phase tells nobody what he "
                   "holds (pass is then his one move), or only a winner who can declare "
                   "(faster, but everyone learns that he holds a declaration).",
                   choices=("always", "when_possible")),
    )


class BeziqueVariant(BaseVariant):
    """Multi-pack Bezique for ``seats`` players (2 packs for 2, 3 packs for 3)."""

    version = 2
    """2: the ``declare_prompt`` option (version 1 prompted ``when_possible``; its logs, stored
    without the option, replay exactly so, see :meth:`start`)."""
    description = ("Multi-pack Bezique: melds on the table, the seven of trumps, strict play "
                   "once the stock is gone, brisques at the end of each deal.")

    def __init__(self, seats: int) -> None:
        if seats not in (2, 3):
            raise ValueError(f"Bezique is implemented for 2 or 3 players, not {seats}")
        self.seats = seats
        self.id = f"bezique-{seats}p"
        self.title = f"Bezique, {seats} players ({seats} packs)"
        self.min_seats = self.max_seats = seats
        self.options = option_specs(seats)
        self.vocabulary, self.translations = vocabularies(self, seats)

    def seat_count(self, options: Options) -> int:
        return self.seats

    def shoe(self, options: Options) -> Shoe:
        return piquet_shoe(self.seats)

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None
              ) -> tuple[BeziqueGame, tuple[Event, ...]]:
        game = BeziqueGame(self.table_rules(options), chance)
        return game, game.begin(first_dealer)

    def table_rules(self, options: Options) -> BeziqueRules:
        """The table's options as the game's rules (the search bots build their sampled
        games with the same rules)."""
        resolved = resolve_options(self.options, options)
        if "declare_prompt" not in options:  # stored by version 1, which had no such option
            resolved["declare_prompt"] = LEGACY_DECLARE_PROMPT
        return BeziqueRules.from_options(self.seats, resolved)

    def accepts_log_version(self, version: int) -> bool:
        """Version 1 logs replay identically: their stored options lack ``declare_prompt``."""
        return version in (1, self.version)


BEZIQUE_2P = BeziqueVariant(2)
BEZIQUE_3P = BeziqueVariant(3)
