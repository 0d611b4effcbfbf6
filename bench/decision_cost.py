"""One variant's random play as the engine section plays it, for steadier measures than its
wall time on a busy machine: CPU time per decision, or a fixed workload to count under
``valgrind --tool=callgrind`` (instructions are the same in every run).

    python -m bench.decision_cost highcard 200 view          # CPU µs per decision
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python -m bench.decision_cost highcard 200 view      # then minus "... 0 none"
"""

from __future__ import annotations

import argparse
import random
import time

from bench.common import options_for
from bench.engine import engine_step, view_step
from bezique.variants.chance import CountingChance, SeededChance
from bezique.variants.conformance import seed_bytes
from bezique.variants.host import resolve_options
from bezique.variants.registry import load_registry


def play(variant_id: str, games: int, view: bool) -> int:
    """Random legal play of ``games`` games (a view of the mover each decision if ``view``);
    the number of decisions."""
    variant = load_registry().variants[variant_id]
    options = resolve_options(variant.options, options_for(variant_id))
    rng = random.Random(0)
    step = view_step if view else engine_step
    decisions = 0
    for number in range(games):
        game, _ = variant.start(options, CountingChance(SeededChance(seed_bytes(number))))
        while to_move := game.to_move:
            step(game, to_move[0], rng)
            decisions += 1
    return decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("variant")
    parser.add_argument("games", type=int)
    parser.add_argument("mode", choices=("none", "view"))
    args = parser.parse_args()
    started = time.process_time()
    decisions = play(args.variant, args.games, args.mode == "view")
    spent = time.process_time() - started
    print(f"{decisions} decisions, {1e6 * spent / max(decisions, 1):.2f} CPU µs each")


if __name__ == "__main__":
    main()
