"""The files ``bezique new-variant`` writes, as :class:`string.Template` texts.

Placeholders: ``$dist`` (distribution), ``$module`` (import package), ``$variant_id``,
``$class_name``, ``$title`` and ``$engine`` (the engine requirement). A literal dollar is
``$$``. Kept apart from :mod:`bezique.clients.scaffold` so the logic stays short; the texts are
checked by a test that generates a package and runs its tests and ``mypy --strict``.
"""

from __future__ import annotations

PYPROJECT = '''\
[build-system]
# hatchling builds outside the source folder: no egg-info or build/ lands next to the code.
requires = ["hatchling>=1.24"]
build-backend = "hatchling.build"

[project]
name = "$dist"
version = "0.1.0"
description = "$title: a variant plugin for the bezique card-table engine"
readme = "README.md"
requires-python = ">=3.11"
# The engine's plugin API (bezique.variants.*) keeps its promise within this range; see the
# engine's CHANGELOG.
dependencies = ["$engine"]

[project.optional-dependencies]
test = ["pytest>=8", "mypy>=1.10"]

# The server finds the plugin through this entry point (group "bezique").
[project.entry-points.bezique]
$variant_id = "$module.plugin"

[tool.hatch.build.targets.wheel]
packages = ["$module"]

[tool.mypy]
strict = true

[tool.pytest.ini_options]
testpaths = ["tests"]
'''

README = '''\
# $dist

$title: a variant plugin for the bezique card-table engine (`bezique-engine`).
The server finds it through the entry point `$variant_id` in the group `bezique`.

The game in `$module/game.py` is a working skeleton (each seat plays one card a round, the
highest card takes the round): replace its rules with yours, keeping every random step on the
`Chance` object the engine hands you.

## Develop

```sh
python -m venv .venv && . .venv/bin/activate
pip install /path/to/bezique-engine   # the engine (a clone, or its wheel): not on an index yet
pip install -e '.[test]'
pytest                      # the engine's conformance kit, over random games
mypy --strict $module tests
```

## Serve

```sh
pip install .               # into the server's environment, next to bezique-engine
bezique-server              # logs variant_loaded variant=$variant_id
bezique variants            # lists $variant_id over the wire
bezique play $variant_id
```
'''

GITIGNORE = '''\
*.egg-info/
build/
dist/
__pycache__/
.venv/
.mypy_cache/
.pytest_cache/
'''

INIT = '''\
"""$title: a variant plugin for the bezique card-table engine."""
'''

PLUGIN = '''\
"""The module the ``bezique`` entry point names: it only registers hooks."""

from __future__ import annotations

from collections.abc import Sequence

from bezique.variants.api import BotPolicy, Variant
from bezique.variants.hookspecs import hookimpl

from $module import game


@hookimpl
def bezique_variants() -> Sequence[Variant]:
    return [game.$class_name()]


@hookimpl
def bezique_bot_policies(variant_id: str) -> Sequence[BotPolicy]:
    return [game.HighestCardPolicy()] if variant_id == game.$class_name.id else []
'''

GAME = '''\
"""$title. Each seat is dealt ``hand_size`` cards from one 32-card pack. Every round each
seat in turn, from the round's leader, plays one card face up; the highest rank takes the round
(of equal ranks the first played) and leads the next. Most rounds taken wins; a tie shares.

A skeleton to replace with your rules. What the engine relies on (the conformance kit checks
it): every random step comes from ``chance`` with a purpose label; ``apply`` accepts exactly
``legal_moves`` and changes nothing when it refuses (``BaseGame`` does that, around your
``apply_legal``); each ``Event`` says who may see its cards; ``census`` says where every card
is and who may see it (``BaseGame`` derives each seat's view from it).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bezique.variants.api import (
    BaseGame,
    BaseVariant,
    Census,
    Event,
    Move,
    Options,
    OptionSpec,
    OptionType,
    Outcome,
    Pile,
    View,
    Vocabulary,
)
from bezique.variants.cards import Shoe, piquet_shoe
from bezique.variants.chance import Chance


class $class_name(BaseVariant):
    """The variant's facts: what the server lists and how a table starts.

    ``BaseVariant`` declares the optional abilities with their defaults; override those your
    game has: ``check_options`` (refuse option values that clash), ``buy_in_range`` (seats
    buy in), ``accepts_log_version`` and ``start_takes_log_version`` (tables of older
    versions). The conformance kit checks each one.
    """

    id = "$variant_id"
    version = 1  # bump it whenever an old table's log would replay differently
    title = "$title"
    description = "Play one card a round; the highest card takes the round."
    min_seats = 2
    max_seats = 4
    vocabulary = Vocabulary(
        events={"deal": "is dealt", "play": "plays", "round_taken": "takes the round"},
        moves={"play": "play this card; the highest card on the table takes the round"},
    )
    """Words for generic clients (``bezique play`` shows them instead of raw keys)."""
    options: tuple[OptionSpec, ...] = (
        OptionSpec("players", OptionType.INT, 2, "Number of seats.", minimum=2, maximum=4),
        OptionSpec("hand_size", OptionType.INT, 4, "Cards dealt to each seat.",
                   minimum=1, maximum=8),
    )

    def seat_count(self, options: Options) -> int:
        return int(options["players"])

    def shoe(self, options: Options) -> Shoe:
        return piquet_shoe(1)

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None
              ) -> tuple[${class_name}Game, tuple[Event, ...]]:
        seats = self.seat_count(options)
        size = int(options["hand_size"])
        shoe = self.shoe(options)
        order = chance.shuffled("deal/1", list(shoe.ids))
        leader = 0 if first_dealer is None else (first_dealer + 1) % seats
        game = ${class_name}Game(shoe, seats, size, leader)
        events = []
        for seat in range(seats):
            hand = order[seat * size:(seat + 1) * size]
            game.hands[seat] = sorted(hand)
            events.append(Event("deal", seat, tuple(hand), visible_to=frozenset({seat})))
        game.stock = order[seats * size:]
        return game, tuple(events)


class ${class_name}Game(BaseGame):
    """One table's state; the server pickles it for snapshots, so keep it plain data.
    BaseGame guards ``apply`` (game over, whose turn, legal) and derives every view from
    ``census``."""

    def __init__(self, shoe: Shoe, seats: int, hand_size: int, leader: int) -> None:
        self._shoe = shoe
        self.seats = seats
        self.rounds_left = hand_size
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.stock: list[int] = []
        self.table: list[tuple[int, int]] = []  # (seat, card) of the round being played
        self.taken: list[list[int]] = [[] for _ in range(seats)]
        self.rounds_taken = [0] * seats
        self.turn = leader

    @property
    def shoe(self) -> Shoe:
        return self._shoe

    @property
    def phase(self) -> str:
        return "over" if self.rounds_left == 0 else "play"

    @property
    def to_move(self) -> tuple[int, ...]:
        return () if self.rounds_left == 0 else (self.turn,)

    def legal_moves(self, seat: int) -> tuple[Move, ...]:
        if seat not in self.to_move:
            return ()
        return tuple(Move("play", (card,)) for card in self.hands[seat])

    def why_illegal(self, seat: int, move: Move) -> str:
        """The reason given for a move that is none of the legal ones (the seat's turn)."""
        return "play one card of your hand"

    def apply_legal(self, seat: int, move: Move) -> tuple[Event, ...]:
        """Make a legal move (BaseGame.apply checked it) and say what happened."""
        card = move.cards[0]
        self.hands[seat].remove(card)
        self.table.append((seat, card))
        events = [Event("play", seat, (card,))]
        if len(self.table) < self.seats:
            self.turn = (seat + 1) % self.seats
            return tuple(events)
        best = max(self._shoe[played].rank for _, played in self.table)
        winner = next(who for who, played in self.table if self._shoe[played].rank == best)
        cards = tuple(played for _, played in self.table)
        self.taken[winner].extend(cards)
        self.rounds_taken[winner] += 1
        self.table = []
        self.rounds_left -= 1
        self.turn = winner
        events.append(Event("round_taken", winner, cards, amount=1))
        return tuple(events)

    def outcome(self) -> Outcome | None:
        if self.rounds_left:
            return None
        best = max(self.rounds_taken)
        winners = tuple(s for s in range(self.seats) if self.rounds_taken[s] == best)
        return Outcome(winners, tuple(self.rounds_taken), "most rounds taken")

    def default_move(self, seat: int) -> Move:
        """What the server plays for a seat whose clock ran out: its lowest card."""
        return min(self.legal_moves(seat), key=lambda m: (self._shoe[m.cards[0]].rank, m.cards))

    def census(self) -> Census:
        """The whole state, with who may see each card: every view is this, seen by one."""
        piles = [Pile("table", tuple(card for _, card in self.table))]
        piles += [Pile.hand(seat, self.hands[seat]) for seat in range(self.seats)]
        piles += [Pile("taken", tuple(self.taken[seat]), owner=seat)
                  for seat in range(self.seats)]
        piles.append(Pile("stock", tuple(self.stock), visible_to=frozenset()))
        return Census(tuple(piles), scores=tuple(self.rounds_taken))


class HighestCardPolicy:
    """A bot that plays its highest card; it sees only its own seat's view."""

    name = "highest"
    description = "Always plays the highest card in hand."

    def choose(self, view: View, legal: Sequence[Move], rng: random.Random) -> Move:
        shoe = view.shoe
        if shoe is None:  # this game's views always carry it (see ${class_name}Game.view)
            raise ValueError("the view has no shoe to rank the cards by")
        return max(legal, key=lambda move: shoe[move.cards[0]].rank)
'''

TEST = '''\
"""The engine's conformance kit over random games, and the plugin as the server loads it."""

from __future__ import annotations

from importlib import metadata

from bezique.variants.conformance import check_variant
from bezique.variants.registry import load_registry, quick_check

from $module import plugin
from $module.game import $class_name


def test_the_variant_passes_the_conformance_kit() -> None:
    check_variant($class_name(), options=({}, {"players": 4, "hand_size": 8}), games=3)


def test_the_server_loads_the_plugin_and_its_bot() -> None:
    registry = load_registry(entry_points=False, plugins=[plugin])
    variant = registry.variants["$variant_id"]
    quick_check(variant)
    assert "highest" in registry.bot_policies("$variant_id")


def test_the_entry_point_is_installed() -> None:
    """Fails until the package is installed (``pip install -e '.[test]'``)."""
    names = [entry.value for entry in metadata.entry_points(group="bezique")]
    assert "$module.plugin" in names
'''

FILES: dict[str, str] = {
    "pyproject.toml": PYPROJECT,
    "README.md": README,
    ".gitignore": GITIGNORE,
    "$module/__init__.py": INIT,
    "$module/py.typed": "",
    "$module/plugin.py": PLUGIN,
    "$module/game.py": GAME,
    "tests/test_conformance.py": TEST,
}
