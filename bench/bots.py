"""How strong the bots are: duplicate matches between every pair of policies, and how long a
search decision takes.

Each deal is played twice with the seats swapped (the same seed, so the same cards and the
same lot: each policy gets the other's cards the second time), which takes most of the luck
of the cards out of a comparison. Every move is asked as the server asks it (``bot_choice``,
with the seat's record, from a random source per decision like ``bot_random``).

* **Bezique for two**: a *game* is a one-deal match by default (``target=10``, no claims: the
  higher score after the deal wins, brisques and the last trick counted), so a duplicate game
  takes seconds; ``--target 1000`` plays whole matches. Win rates come with a 95 % interval
  over the duplicate pairs (each pair scores 0, ½ or 1 for the first policy).
* **Quart-Bezique heads-up**: tables of ``--deals`` deals; the chips the first policy wins per
  deal, with a 95 % interval over the pairs.
* **Decision time**: p50 and p99 of each policy's decisions that had a choice, in CPU time
  of the deciding thread (one core's time, whatever else the machine runs).

``python -m bench --only bots`` runs the default matches; ``--quick`` a few games each.
``python -m bench.bots --help`` sets the sizes (the full run the issue asks for is printed in
the section's notes).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from bench.common import Section, percentile
from bezique.variants.api import BotPolicy, Event, SeatRecord
from bezique.variants.chance import SeededChance
from bezique.variants.host import bot_choice, resolve_options, start_game
from bezique.variants.registry import Registry, load_registry

LEVELS = ("random", "heuristic", "search-easy", "search", "search-hard")
FULL_COMMAND = ("python -m bench.bots --bezique-games 400 --quart-deals 2000 "
                "--pairs heuristic:search")


@dataclass(frozen=True)
class BotsConfig:
    bezique_games: int = 40
    """Bezique-2p games per pairing (half as many duplicate pairs)."""
    quart_deals: int = 400
    """Quart-Bezique deals per pairing (tables of ``deals_per_table``, seats swapped)."""
    deals_per_table: int = 20
    target: int = 10
    pairs: tuple[tuple[str, str], ...] = tuple(combinations(LEVELS, 2))
    bezique_pairs: tuple[tuple[str, str], ...] | None = None
    """Pairings for Bezique (None: ``pairs``)."""
    seed: int = 1
    first_pair: int = 0
    """The first duplicate pair played (runs of disjoint pairs add up to one longer run)."""


QUICK = BotsConfig(bezique_games=4, quart_deals=40, deals_per_table=10,
                   pairs=(("heuristic", "search"), ("search-easy", "search"),
                          ("random", "heuristic")))
DEFAULT = BotsConfig(bezique_games=20,
                     bezique_pairs=(("random", "heuristic"), ("heuristic", "search-easy"),
                                    ("heuristic", "search"), ("search-easy", "search")))


@dataclass
class Timings:
    """Seconds per decision with a choice, per policy."""

    seconds: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, seconds: float) -> None:
        self.seconds.setdefault(name, []).append(seconds)

    def percentile(self, name: str, q: float) -> float:
        values = self.seconds.get(name, ())
        return percentile(values, q) if values else math.nan


def seed_of(base: int, n: int) -> bytes:
    return hashlib.sha256(f"bench-bots-{base}-{n}".encode()).digest()


def play(registry: Registry, variant_id: str, options: Mapping[str, Any],
         seats: Sequence[str], seed: bytes, timings: Timings) -> tuple[tuple[int, ...],
                                                                        tuple[int, ...], int]:
    """One game: its winners, final scores (or stacks), and deals played."""
    variant = registry.variant(variant_id)
    resolved = resolve_options(variant.options, options)
    policies: list[BotPolicy] = [registry.bot_policies(variant_id)[name] for name in seats]
    game, opening = start_game(variant, resolved, SeededChance(seed), None)
    events: list[Event] = list(opening)
    decision = 0
    while game.outcome() is None:
        seat = game.to_move[0]
        legal = game.legal_moves(seat)
        record = SeatRecord.of(seat, resolved, events)
        rng = random.Random(seed + b"/%d/%d" % (decision, seat))
        decision += 1
        started = time.thread_time()
        move = bot_choice(policies[seat], game.view(seat), legal, rng, record)
        if len(legal) > 1 or legal[0].amount_range is not None:
            timings.add(f"{variant_id} {seats[seat]}", time.thread_time() - started)
        events.extend(game.apply(seat, move))
    outcome = game.outcome()
    assert outcome is not None
    return outcome.winners, outcome.scores, int(outcome.detail.get("deals", 1))


def interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean and its 95 % interval (normal approximation)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan, math.nan
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def bezique_pairing(registry: Registry, first: str, second: str, config: BotsConfig,
                    timings: Timings) -> dict[str, Any]:
    """Duplicate Bezique-2p games: ``first``'s score per pair (0, ½, 1) and win rate."""
    options = {"target": config.target, "claims": False}
    pairs: list[float] = []
    start = config.first_pair
    for n in range(start, start + max(1, config.bezique_games // 2)):
        seed = seed_of(config.seed, n)
        won = 0.0
        for seats, me in (((first, second), 0), ((second, first), 1)):
            winners, _, _ = play(registry, "bezique-2p", options, seats, seed, timings)
            won += 1.0 / len(winners) if me in winners else 0.0
        pairs.append(won / 2)
    mean, low, high = interval(pairs)
    return {"games": 2 * len(pairs), "win_rate": mean, "low": max(0.0, low),
            "high": min(1.0, high), "pairs": pairs}


def quart_pairing(registry: Registry, first: str, second: str, config: BotsConfig,
                  timings: Timings) -> dict[str, Any]:
    """Duplicate heads-up Quart-Bezique tables: the chips ``first`` wins per deal."""
    per_table = config.deals_per_table
    options = {"players": 2, "deals": per_table}
    pairs: list[float] = []
    deals = 0
    start = config.first_pair
    for n in range(start, start + max(1, config.quart_deals // (2 * per_table))):
        seed = seed_of(config.seed + 1, n)
        won = 0
        played = 0
        for seats, me in (((first, second), 0), ((second, first), 1)):
            _, stacks, count = play(registry, "quart-bezique", options, seats, seed, timings)
            won += stacks[me] - stacks[1 - me]
            played += count
        pairs.append(won / 2 / max(1, played))
        deals += played
    mean, low, high = interval(pairs)
    return {"deals": deals, "chips_per_deal": mean, "low": low, "high": high, "pairs": pairs}


def run(config: BotsConfig, registry: Registry | None = None) -> Section:
    registry = registry or load_registry()
    started = time.perf_counter()
    timings = Timings()
    section = Section("Bots: duplicate matches and decision time",
                      ["game", "first", "second", "played", "first's result (95 % interval)"])
    figures: dict[str, Any] = {"bezique-2p": {}, "quart-bezique": {}}
    for first, second in (config.bezique_pairs or config.pairs) if config.bezique_games else ():
        found = bezique_pairing(registry, first, second, config, timings)
        figures["bezique-2p"][f"{first}:{second}"] = found
        section.rows.append(["bezique-2p", first, second, f"{found['games']:.0f} games",
                             f"wins {found['win_rate']:.1%} ({found['low']:.1%} .. "
                             f"{found['high']:.1%})"])
    for first, second in config.pairs if config.quart_deals else ():
        found = quart_pairing(registry, first, second, config, timings)
        figures["quart-bezique"][f"{first}:{second}"] = found
        section.rows.append(["quart-bezique 2p", first, second, f"{found['deals']:.0f} deals",
                             f"{found['chips_per_deal']:+.2f} chips/deal ({found['low']:+.2f} "
                             f".. {found['high']:+.2f})"])
    figures["decision_ms"] = {}
    for name in sorted(timings.seconds):
        p50, p99 = timings.percentile(name, 50), timings.percentile(name, 99)
        figures["decision_ms"][name] = {"p50": p50 * 1e3, "p99": p99 * 1e3,
                                        "decisions": len(timings.seconds[name])}
        section.notes.append(f"decision CPU time of {name}: p50 {p50 * 1e3:.1f} ms, p99 "
                             f"{p99 * 1e3:.1f} ms over {len(timings.seconds[name])} "
                             "decisions with a choice")
    against = figures["bezique-2p"].get("heuristic:search")
    if against is not None and against["games"] >= 400:
        section.targets["search beats heuristic in >= 60 % of Bezique-2p games"] = \
            1 - against["win_rate"] >= 0.6 and 1 - against["high"] > 0.5
    chips = figures["quart-bezique"].get("heuristic:search")
    if chips is not None and chips["deals"] >= 2000:
        section.targets["search wins chips from heuristic in Quart"] = \
            chips["chips_per_deal"] < 0
    for game in ("bezique-2p", "quart-bezique"):
        search_time = figures["decision_ms"].get(f"{game} search")
        if search_time is not None:
            section.targets[f"search decides within 100 ms at p99 ({game})"] = \
                search_time["p99"] <= 100
    games = ("one-deal matches (target 10, no claims)" if config.target <= 10
             else f"matches to {config.target}")
    section.notes.append(f"Bezique games are {games}; Quart tables are heads-up. "
                         f"The full run: {FULL_COMMAND}")
    section.figures = figures
    section.seconds = time.perf_counter() - started
    return section


def _pairs(text: str) -> tuple[tuple[str, str], ...]:
    found = []
    for item in text.split(","):
        first, _, second = item.partition(":")
        if first not in LEVELS or second not in LEVELS:
            raise argparse.ArgumentTypeError(f"{item!r}: pairs are LEVEL:LEVEL of {LEVELS}")
        found.append((first, second))
    return tuple(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bots", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bezique-games", type=int, default=DEFAULT.bezique_games)
    parser.add_argument("--quart-deals", type=int, default=DEFAULT.quart_deals)
    parser.add_argument("--deals-per-table", type=int, default=DEFAULT.deals_per_table)
    parser.add_argument("--target", type=int, default=DEFAULT.target,
                        help="Bezique's target (10: one-deal games; 1000: whole matches)")
    parser.add_argument("--pairs", type=_pairs, default=None,
                        help="comma-separated FIRST:SECOND pairings (default: every pair)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first-pair", type=int, default=0,
                        help="start at this duplicate pair (split a long run into parts)")
    parser.add_argument("--json", type=Path, help="write the figures (every pair's score)")
    args = parser.parse_args(argv)
    config = BotsConfig(args.bezique_games, args.quart_deals, args.deals_per_table,
                        args.target, args.pairs or DEFAULT.pairs,
                        args.pairs or None, args.seed, args.first_pair)
    section = run(config)
    print(section.render())
    if args.json:
        args.json.write_text(json.dumps(section.figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
