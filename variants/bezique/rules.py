"""The resolved options of one table as plain typed fields, read in the hot paths."""

from __future__ import annotations

from dataclasses import dataclass

from bezique.variants.api import Options

PHASE_ONE_TRICKS = 24
"""Tricks played while the stock lasts, for both 2 and 3 players (48 / 72 cards drawn)."""

LEGACY_DECLARE_PROMPT = "when_possible"
"""How a table stored without ``declare_prompt`` (created by variant version 1, before the option
existed) prompts: so its log replays exactly as it was played."""


@dataclass(frozen=True, slots=True)
class BeziqueRules:
    seats: int
    packs: int
    target: int
    step: int
    """+1 when play passes to seat + 1 (clockwise), -1 when it passes to seat - 1."""
    packets: tuple[int, ...]
    last_trick_final: bool
    trump_dependent_bezique: bool
    seven_is_declaration: bool
    seven_scores_when_played: bool
    show_stock_size: bool
    claims: bool
    tie_highest: bool
    declare_always: bool
    """Every phase-1 trick winner gets the declaration step (spec §5), so the phase tells
    nothing; False: only when he has something to declare (``when_possible``)."""

    @classmethod
    def from_options(cls, seats: int, options: Options) -> BeziqueRules:
        return cls(
            seats=seats,
            packs=seats,
            target=int(options["target"]),
            step=-1 if options["direction"] == "counterclockwise" else 1,
            packets=tuple(int(p) for p in str(options["deal_packets"]).split("-")),
            last_trick_final=options["last_trick"] == "final",
            trump_dependent_bezique=options["bezique_cards"] == "trump_dependent",
            seven_is_declaration=bool(options["seven_is_declaration"]),
            seven_scores_when_played=bool(options["seven_scores_when_played"]),
            show_stock_size=bool(options["show_stock_size"]),
            claims=bool(options["claims"]),
            tie_highest=options["target_tie"] == "highest",
            declare_always=options["declare_prompt"] == "always",
        )

    def next_seat(self, seat: int) -> int:
        """The player after ``seat`` in play order."""
        return (seat + self.step) % self.seats

    def previous_seat(self, seat: int) -> int:
        return (seat - self.step) % self.seats
