"""Golden playthroughs: one whole 2-player deal and one whole 3-player deal from stacked shoes,
every move, event and score written as text under ``tests/bezique/golden/``.

The moves were chosen once by the heuristic bot; the test replays the moves read from each file
and checks that the engine writes the very same transcript. The two ``*-deal.txt`` files were
written by variant version 1: they are started, as a table stored then is, with options that
lack ``declare_prompt``, so they prove that an old log still replays identically. The
``*-always.txt`` files are version 2 logs with ``declare_prompt=always``. Regenerate (after a
deliberate rule change, which must also bump the variant's version) with::

    python -m tests.bezique.golden --regenerate
"""

from __future__ import annotations

import argparse
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bezique.variants.api import Event, Move
from bezique.variants.bezique.bots import HeuristicPolicy
from bezique.variants.bezique.game import BeziqueGame
from bezique.variants.chance import stacked_shoe
from bezique.variants.host import resolve_options
from tests.bezique.scenario import FALLBACK, variant_for

GOLDEN = Path(__file__).resolve().parent / "golden"
MOVE_LINE = re.compile(r"^--- move \d+: seat=(\d+) kind=(\w+) label=(\w*) cards=([\d,]*)")


@dataclass(frozen=True)
class Deal:
    """A stacked first deal: the shoe order (codes, top first), the dealer, the options."""

    name: str
    seats: int
    hands: tuple[tuple[str, ...], ...]
    turnup: str
    options: dict[str, object] = field(default_factory=dict)
    dealer: int = 0
    version: int = 2
    """The variant version that wrote the log: 1 stored no ``declare_prompt`` option."""


HANDS_2P = (
    ("KH", "QH", "QS", "JD", "AD", "TD", "9C", "8C"),
    ("KS", "QS", "JD", "7H", "AC", "TC", "9S", "8D"),
)
HANDS_3P = (*HANDS_2P, ("AS", "AS", "AC", "AH", "KD", "QD", "JH", "7S"))
ALWAYS: dict[str, object] = {"declare_prompt": "always"}

DEALS = (
    Deal("bezique-2p-deal", 2, HANDS_2P, "AH", version=1),
    Deal("bezique-3p-deal", 3, HANDS_3P, "9H", version=1),
    Deal("bezique-2p-always", 2, HANDS_2P, "AH", ALWAYS),
    Deal("bezique-3p-always", 3, HANDS_3P, "9H", ALWAYS),
)


def shoe_codes(deal: Deal) -> list[str]:
    """The full stacked order: the deal as given, the rest of the stock in a fixed mix."""
    from tests.bezique.scenario import stack_order

    variant = variant_for(deal.seats)
    order = stack_order(variant, deal.hands, deal.turnup, dealer=deal.dealer,
                        options=deal.options)
    fixed = 8 * deal.seats + 1
    rest = order[fixed:]
    random.Random(deal.name).shuffle(rest)  # test data only: the rules core never uses random
    shoe = variant.shoe(resolve_options(variant.options, dict(deal.options)))
    return [shoe.code(c) for c in order[:fixed] + rest]


def start(deal: Deal, codes: Sequence[str]) -> tuple[BeziqueGame, tuple[Event, ...]]:
    variant = variant_for(deal.seats)
    options = resolve_options(variant.options, {"claims": False, **deal.options})
    if deal.version == 1:  # as a table created before the option existed was stored
        del options["declare_prompt"]
    order = variant.shoe(options).order_from_codes(codes)
    return variant.start(options, stacked_shoe(FALLBACK, order), first_dealer=deal.dealer)


def render_event(game: BeziqueGame, event: Event) -> str:
    parts = [f"  {event.kind}"]
    if event.seat is not None:
        parts.append(f"seat={event.seat}")
    if event.label:
        parts.append(event.label)
    if event.cards:
        parts.append("[" + " ".join(game.lookup.code(c) for c in event.cards) + "]")
    if event.amount:
        parts.append(f"+{event.amount}")
    if event.visible_to is not None:
        parts.append("to=" + ",".join(map(str, sorted(event.visible_to))))
    parts += [f"{key}={value}" for key, value in sorted(event.detail.items())]
    return " ".join(parts)


def render_move(game: BeziqueGame, number: int, seat: int, move: Move) -> str:
    named = " ".join(game.lookup.code(c) for c in move.cards)
    return (f"--- move {number}: seat={seat} kind={move.kind} label={move.label} "
            f"cards={','.join(map(str, move.cards))}" + (f"  ({named})" if named else ""))


def transcript(deal: Deal, codes: Sequence[str], moves: Sequence[tuple[int, Move]] | None
               ) -> str:
    """Play the deal (the given moves, or the heuristic bot's) and write every step."""
    game, opening = start(deal, codes)
    lines = [f"# {game.rules.seats}-player Bezique, one whole deal from a stacked shoe",
             f"# dealer={deal.dealer} options={dict(sorted(deal.options.items()))} claims=off",
             "shoe (top first): " + " ".join(codes), "--- opening"]
    lines += [render_event(game, e) for e in opening]
    lines.append(f"scores: {' '.join(map(str, game.scores))}")
    bot, rng = HeuristicPolicy(), random.Random(deal.name)
    number = 0
    while game.deal_no == 1 and game.outcome() is None:
        seat = game.to_move[0]
        if moves is None:
            move = bot.choose(game.view(seat), game.legal_moves(seat), rng)
        else:
            move = moves[number][1]
            assert moves[number][0] == seat, f"move {number + 1}: seat {seat} is to move"
        number += 1
        lines.append(render_move(game, number, seat, move))
        lines += [render_event(game, e) for e in game.apply(seat, move)]
        lines.append(f"scores: {' '.join(map(str, game.scores))}")
    lines.append(f"--- end of deal 1: scores {' '.join(map(str, game.scores))}")
    return "\n".join(lines) + "\n"


def parse(text: str) -> tuple[list[str], list[tuple[int, Move]]]:
    """The shoe codes and the moves written in a transcript."""
    codes: list[str] = []
    moves: list[tuple[int, Move]] = []
    for line in text.splitlines():
        if line.startswith("shoe (top first): "):
            codes = line.split(": ", 1)[1].split()
        match = MOVE_LINE.match(line)
        if match:
            seat, kind, label, cards = match.groups()
            ids = tuple(int(c) for c in cards.split(",") if c)
            moves.append((int(seat), Move(kind, ids, 0, label)))
    return codes, moves


def path_of(deal: Deal) -> Path:
    return GOLDEN / f"{deal.name}.txt"


def regenerate() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for deal in DEALS:
        path_of(deal).write_text(transcript(deal, shoe_codes(deal), None))
        print(f"wrote {path_of(deal)}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--regenerate", action="store_true",
                        help="play the golden deals again with the heuristic bot")
    args = parser.parse_args(argv)
    if args.regenerate:
        regenerate()
    else:
        for deal in DEALS:
            codes, moves = parse(path_of(deal).read_text())
            same = transcript(deal, codes, moves) == path_of(deal).read_text()
            print(f"{path_of(deal).name}: {'replays identically' if same else 'DIFFERS'}")


if __name__ == "__main__":
    main()
