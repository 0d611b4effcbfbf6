"""Engine speed: random legal play on every registered variant, beside the baselines.

Two measurements per variant, each a median over repetitions interleaved with pokerkit's:

* ``engine``: a decision is ``legal_moves`` + a uniform choice + ``apply``;
* ``+view``: the same plus ``view(seat)`` per decision: what the server adds to every move of
  the game itself (it answers each SubmitMove with the mover's view; :mod:`bench.layers`
  measures the rest of the server's path).

Deals are counted generically: a deal is a distinct ``deal/N`` shuffle the game asked of its
chance source (a Quart deal is one hand; a Bezique match counts every deal it played).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from bench.baselines import Sample, time_poker, time_trick_loop
from bench.common import Section, fmt_rate, fmt_ratio, fmt_us, median, options_for
from bezique.variants.api import Game, Variant
from bezique.variants.chance import CountingChance, SeededChance
from bezique.variants.conformance import seed_bytes
from bezique.variants.host import resolve_options

T = TypeVar("T")

MODES = ("engine", "view")
DECISION_TARGET = 5.0
DEAL_TARGET = 5.0


@dataclass(frozen=True)
class EngineConfig:
    reps: int = 5
    budget: float = 0.4
    variants: tuple[str, ...] = ()  # empty: every registered variant


Step = Callable[[Game, int, random.Random], None]


def engine_step(game: Game, seat: int, rng: random.Random) -> None:
    legal = game.legal_moves(seat)
    game.apply(seat, legal[rng.randrange(len(legal))])


def view_step(game: Game, seat: int, rng: random.Random) -> None:
    game.view(seat)
    legal = game.legal_moves(seat)
    game.apply(seat, legal[rng.randrange(len(legal))])


def time_variant(variant: Variant, options: Mapping[str, object], budget: float, mode: str,
                 seed: int = 0) -> Sample:
    """Random games of ``variant`` for about ``budget`` seconds, every decision made by
    ``mode``'s step."""
    resolved = resolve_options(variant.options, options)
    rng = random.Random(seed)
    step = view_step if mode == "view" else engine_step
    game_no = seed * 1_000_003
    decisions = deals = 0
    start = time.perf_counter()
    while True:
        chance = CountingChance(SeededChance(seed_bytes(game_no)))
        game_no += 1
        game, _ = variant.start(resolved, chance)
        while True:
            to_move = game.to_move
            if not to_move:
                break
            step(game, to_move[0], rng)
            decisions += 1
        deals += len(chance.deals)
        elapsed = time.perf_counter() - start
        if elapsed >= budget:
            return Sample(decisions, deals, elapsed)


@dataclass
class Series:
    """Per-repetition rates of one subject, and its ratios to pokerkit's rates of the same
    repetition (a ratio per repetition, then the median: drift cancels out)."""

    decisions: list[float]
    deals: list[float]
    dec_ratio: list[float]
    deal_ratio: list[float]


def _series() -> Series:
    return Series([], [], [], [])


def run(config: EngineConfig | None = None) -> Section:
    from bezique.variants.registry import load_registry

    config = config or EngineConfig()
    started = time.perf_counter()
    registry = load_registry()
    variants = {vid: v for vid, v in registry.variants.items()
                if not config.variants or vid in config.variants}
    poker = _series()
    trick = _series()
    series: dict[tuple[str, str], Series] = {(vid, m): _series() for vid in variants
                                             for m in MODES}
    for rep in range(config.reps):
        ref = time_poker(config.budget, seed=rep)
        base = ref.decisions_per_second, ref.deals_per_second

        def record(target: Series, sample: Sample, base: tuple[float, float] = base) -> None:
            target.decisions.append(sample.decisions_per_second)
            target.deals.append(sample.deals_per_second)
            target.dec_ratio.append(sample.decisions_per_second / base[0])
            target.deal_ratio.append(sample.deals_per_second / base[1])

        record(poker, ref)
        record(trick, time_trick_loop(config.budget, seed=rep))
        for vid, variant in variants.items():
            for mode in MODES:
                record(series[(vid, mode)],
                       time_variant(variant, options_for(vid), config.budget, mode, seed=rep))
    return _report(config, poker, trick, series, variants, time.perf_counter() - started)


def _report(config: EngineConfig, poker: Series, trick: Series,
            series: dict[tuple[str, str], Series], variants: Mapping[str, Variant],
            seconds: float) -> Section:
    section = Section(
        "Engine: random legal play (decisions/s, deals/s; ratios to pokerkit NLHE-4)",
        ["subject", "dec/s", "µs/dec", "x PK dec", "deals/s", "x PK hands", "+view dec/s",
         "view µs"])
    pk_dec, pk_hands = median(poker.decisions), median(poker.deals)
    section.rows.append(["pokerkit NLHE 4p (baseline)", fmt_rate(pk_dec), fmt_us(1 / pk_dec),
                         "1.00x", fmt_rate(pk_hands), "1.00x", "", ""])
    tr_dec = median(trick.decisions)
    section.rows.append(["bare trick loop 2p/64 (floor)", fmt_rate(tr_dec), fmt_us(1 / tr_dec),
                         fmt_ratio(median(trick.dec_ratio)), fmt_rate(median(trick.deals)),
                         fmt_ratio(median(trick.deal_ratio)), "", ""])
    figures: dict[str, object] = {
        "pokerkit": {"decisions_per_s": pk_dec, "hands_per_s": pk_hands},
        "trick_loop": {"decisions_per_s": tr_dec, "games_per_s": median(trick.deals),
                       "ratio_decisions": median(trick.dec_ratio)},
        "variants": {},
    }
    for vid in variants:
        eng, view = (series[(vid, m)] for m in MODES)
        dec = median(eng.decisions)
        view_dec = median(view.decisions)
        dec_ratio = median(eng.dec_ratio)
        deal_ratio = median(eng.deal_ratio)
        section.rows.append([
            vid, fmt_rate(dec), fmt_us(1 / dec), fmt_ratio(dec_ratio),
            fmt_rate(median(eng.deals)), fmt_ratio(deal_ratio), fmt_rate(view_dec),
            fmt_us(1 / view_dec - 1 / dec)])
        figures["variants"][vid] = {  # type: ignore[index]
            "decisions_per_s": dec, "deals_per_s": median(eng.deals),
            "ratio_decisions": dec_ratio, "ratio_deals": deal_ratio,
            "view_decisions_per_s": view_dec, "engine_us": 1e6 / dec,
            "view_us": 1e6 * (1 / view_dec - 1 / dec),
            "overhead_vs_trick_loop": tr_dec / dec,
        }
        section.targets[f"{vid} decisions >= {DECISION_TARGET:g}x pokerkit"] = (
            dec_ratio >= DECISION_TARGET)
        if "quart" in vid:
            section.targets[f"{vid} deals >= {DEAL_TARGET:g}x pokerkit hands"] = (
                deal_ratio >= DEAL_TARGET)
    section.figures = figures
    section.notes += [
        f"{config.reps} repetitions of {config.budget:g} s per subject, interleaved; medians; "
        "each ratio is the median of per-repetition ratios to pokerkit.",
        "dec = legal_moves + uniform choice + apply (what a decision costs in the engine); "
        "view µs = the extra cost of view(seat) per decision (what the server adds to the "
        "game for every move; the server's own path is in the next section).",
        "deals = distinct deal/N shuffles (Quart: one per hand; highcard: one per game).",
        "options: " + ", ".join(f"{vid} {options_for(vid) or 'defaults'}" for vid in variants),
    ]
    section.seconds = seconds
    return section
