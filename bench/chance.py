"""The shuffle's MACs: is hashing the HMAC pads by hand worth its code?

``variants/chance.py`` derives every shuffle from HMAC-SHA256 blocks. Three ways to make them:

* ``pads``: the key's inner and outer pads hashed once (RFC 2104 by hand), one copy of each
  per block;
* ``hmac copy``: ``hmac.new(seed, digestmod=sha256)`` once per key, ``.copy()`` per block (the
  plain form of the same idea);
* ``hmac.digest``: the one-shot function per block (re-keyed every time; for reference).

Measured in one run: each form's cost for one deal's blocks (counted in random play), the
engine's cost per deal (:func:`bench.engine.time_variant`, the engine benchmark's harness), the
cost of the step that deals and of any other move (each timed alone), and the difference between
the first two forms as a share of a deal and of the step that deals (issue #18: a speed tweak
stays only where it saves 10 % of a decision's cost, and the step that deals is a decision).
"""

from __future__ import annotations

import hashlib
import hmac
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bench.common import Section, fmt_us, median, options_for
from bench.engine import time_variant
from bezique.variants._hmac_pads import HmacPads
from bezique.variants.api import Variant, resolve_options
from bezique.variants.chance import CountingChance, SeededChance, _HmacKey
from bezique.variants.conformance import seed_bytes

VARIANTS = ("quart-bezique", "trump-quart-bezique", "bezique-2p", "bezique-3p")
SHARE_LIMIT = 0.10
"""Issue #18: keep a speed tweak only where it saves at least this share of the cost."""

PadsKey = HmacPads
"""The tweak under test: the key's pads hashed once, by hand (variants/_hmac_pads.py)."""


class CopyKey:
    """The plain form: the standard library's keyed HMAC, copied for every block."""

    __slots__ = ("_keyed",)

    def __init__(self, key: bytes) -> None:
        self._keyed = hmac.new(key, digestmod=hashlib.sha256)

    def macs(self, prefix: bytes, start: int, count: int) -> bytes:
        blocks = []
        for counter in range(start, start + count):
            mac = self._keyed.copy()
            mac.update(prefix + b"%d" % counter)
            blocks.append(mac.digest())
        return b"".join(blocks)


class DigestKey:
    """``hmac.digest`` per block: the key is hashed into its pads again every time."""

    __slots__ = ("_key",)

    def __init__(self, key: bytes) -> None:
        self._key = key

    def macs(self, prefix: bytes, start: int, count: int) -> bytes:
        key = self._key
        return b"".join([hmac.digest(key, prefix + b"%d" % counter, "sha256")
                         for counter in range(start, start + count)])


Key = PadsKey | CopyKey | DigestKey
FORMS: dict[str, Callable[[bytes], Key]] = {
    "pads": PadsKey, "hmac copy": CopyKey, "hmac.digest": DigestKey}


@dataclass(frozen=True)
class ChanceConfig:
    reps: int = 25
    rounds: int = 40
    """Timed calls of each form per repetition (the minimum over repetitions is kept)."""
    samples: int = 5
    budget: float = 0.4
    """``samples`` runs of random play of ``budget`` seconds each, for the cost of a deal."""
    games: int = 60
    """Games of random play whose moves are timed one by one."""
    variants: tuple[str, ...] = VARIANTS


class _CountingKey(PadsKey):
    """Counts the blocks read (the shuffle's MACs are the same bytes in every form)."""

    __slots__ = ("blocks",)

    def __init__(self, key: bytes) -> None:
        super().__init__(key)
        self.blocks = 0

    def macs(self, prefix: bytes, start: int, count: int) -> bytes:
        self.blocks += count
        return super().macs(prefix, start, count)


@dataclass(frozen=True)
class Play:
    """What random play of one variant showed: MAC blocks per deal, and the cost of a step
    that deals (``start``, or a move that settles a deal and shuffles the next) beside that of
    any other move."""

    blocks_per_deal: float
    deals: int
    dealing_move_s: float
    other_move_s: float


def random_play(variant: Variant, options: Mapping[str, object], games: int) -> Play:
    """``games`` games of random legal moves, ``start`` and every ``apply`` timed alone."""
    resolved = resolve_options(variant.options, options)
    rng = random.Random(0)
    blocks = deals = 0
    dealing: list[float] = []
    other: list[float] = []
    clock = time.perf_counter
    for game_no in range(games):
        seeded = SeededChance(seed_bytes(game_no))
        counter = seeded._key = _CountingKey(seeded.seed)  # type: ignore[assignment]
        chance = CountingChance(seeded)
        start = clock()
        game, _ = variant.start(resolved, chance)
        took = clock() - start
        (dealing if chance.deals else other).append(took)
        while game.to_move:
            seat = game.to_move[0]
            legal = game.legal_moves(seat)
            move = legal[rng.randrange(len(legal))]
            before = len(chance.deals)
            start = clock()
            game.apply(seat, move)
            took = clock() - start
            (dealing if len(chance.deals) > before else other).append(took)
        blocks += counter.blocks
        deals += len(chance.deals)
    return Play(blocks / max(deals, 1), deals, median(dealing), median(other))


def time_forms(blocks: int, reps: int, rounds: int) -> dict[str, float]:
    """Seconds per call of ``macs`` for ``blocks`` blocks, per form: the forms interleaved,
    the minimum over ``reps`` (the least disturbed run on a shared machine)."""
    seed = bytes(range(32))
    keys = {name: make(seed) for name, make in FORMS.items()}
    expected = keys["pads"].macs(b"deal/7:", 0, blocks)
    assert all(key.macs(b"deal/7:", 0, blocks) == expected for key in keys.values())
    best = {name: float("inf") for name in keys}
    for _ in range(reps):
        for name, key in keys.items():
            macs = key.macs
            start = time.perf_counter()
            for _ in range(rounds):
                macs(b"deal/7:", 0, blocks)
            best[name] = min(best[name], (time.perf_counter() - start) / rounds)
    return best


def _production() -> str:
    """Which form variants/chance.py uses: the hand-hashed pads, or the plain hmac copy."""
    return "pads" if _HmacKey is HmacPads else "hmac copy"


def run(config: ChanceConfig | None = None) -> Section:
    from bezique.variants.registry import load_registry

    config = config or ChanceConfig()
    started = time.perf_counter()
    registry = load_registry()
    section = Section(
        "Shuffle MACs: HMAC pads hashed by hand against the hmac module, per deal and move",
        ["subject", "blocks/deal", "pads", "hmac copy", "hmac.digest", "pads save",
         "engine µs/deal", "share of a deal", "dealing step", "share of it", "other move"])
    figures: dict[str, object] = {"production": _production()}
    shares: dict[str, float] = {}
    for vid in config.variants:
        variant = registry.variants.get(vid)
        if variant is None:
            continue
        options = options_for(vid)
        play = random_play(variant, options, config.games)
        forms = time_forms(max(1, round(play.blocks_per_deal)), config.reps, config.rounds)
        samples = [time_variant(variant, options, config.budget, "engine", seed=rep)
                   for rep in range(config.samples)]
        # the least disturbed sample: on a shared machine the median can be many times it,
        # and the smaller the cost, the larger (more favourable to the pads) their share
        deal_s = min([s.seconds / max(s.deals, 1) for s in samples])
        saving = forms["hmac copy"] - forms["pads"]
        deal_share, move_share = saving / deal_s, saving / play.dealing_move_s
        section.rows.append([
            vid, f"{play.blocks_per_deal:.1f}", fmt_us(forms["pads"]),
            fmt_us(forms["hmac copy"]), fmt_us(forms["hmac.digest"]), fmt_us(saving),
            fmt_us(deal_s), f"{deal_share:.1%}", fmt_us(play.dealing_move_s),
            f"{move_share:.1%}", fmt_us(play.other_move_s)])
        figures[vid] = {
            "blocks_per_deal": play.blocks_per_deal, "deals_counted": play.deals,
            "form_s": forms, "saving_s": saving, "deal_s": deal_s,
            "dealing_move_s": play.dealing_move_s, "other_move_s": play.other_move_s,
            "share_of_deal": deal_share, "share_of_dealing_move": move_share,
        }
        shares[vid] = max(deal_share, move_share)
    if shares:
        # issue #18: a tweak stays where it saves 10 % of a decision's or a move's cost; the
        # step that deals is a decision, and one form serves every variant
        worst = max(shares, key=shares.__getitem__)
        keep = shares[worst] >= SHARE_LIMIT
        section.targets[f"the production form is right (pads save up to {shares[worst]:.1%} "
                        f"of a dealing step, {worst}; keep them from {SHARE_LIMIT:.0%})"] = (
            keep == (figures["production"] == "pads"))
    section.figures = figures
    section.notes += [
        "pads / hmac copy / hmac.digest: one deal's MACs (blocks/deal, rounded, the lot "
        f"included) made by each form; the minimum of {config.reps} interleaved repetitions of "
        f"{config.rounds} calls. pads save = hmac copy - pads.",
        "engine µs/deal: random legal play, every move of a deal (bench.engine.time_variant, "
        f"{config.samples} x {config.budget:g} s, the fastest); dealing step: the median start() "
        "or apply() that shuffles a deal (the lot and the first deal, or the settlement of "
        f"one deal and the next one; {config.games} games of random play, each step timed "
        "alone); other move: any other apply().",
        f"production form in variants/chance.py: {figures['production']}; a target is missed "
        "when the figures call for the other form (issue #18: hand-hashed pads only where "
        "they save 10 % of a decision; the step that deals is one). Bezique's dealing step is "
        "start() (the lot's shuffle is half its blocks) or a match's deal-ending move.",
    ]
    section.seconds = time.perf_counter() - started
    return section
