"""The shuffle's MACs: what the standard library's HMAC costs against hand-hashed pads.

``variants/chance.py`` derives every shuffle from HMAC-SHA256 blocks. Three ways to make them:

* ``hmac copy``: ``hmac.new(seed, digestmod=sha256)`` once per key, ``.copy()`` per block: what
  ``variants/chance.py`` does (issue #27: the construction every outside verifier reproduces
  is the standard library's);
* ``pads``: the key's inner and outer pads hashed once by hand (RFC 2104), one copy of each
  per block: the form main used until #27, kept here only to price the plain one;
* ``hmac.digest``: the one-shot function per block (re-keyed every time; for reference).

Measured in one run: each form's cost for one deal's blocks (counted in random play), the
engine's cost per deal (:func:`bench.engine.time_variant`, the engine benchmark's harness), the
cost of the step that deals and of any other move (each timed alone), and the difference between
the first two forms as a share of a deal and of the step that deals: the price of the plain form.
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
from bezique.variants.api import Variant
from bezique.variants.chance import CountingChance, SeededChance
from bezique.variants.conformance import seed_bytes
from bezique.variants.host import resolve_options

VARIANTS = ("quart-bezique", "trump-quart-bezique", "bezique-2p", "bezique-3p")

_XOR_36 = bytes(b ^ 0x36 for b in range(256))
_XOR_5C = bytes(b ^ 0x5C for b in range(256))
_BLOCK = 64  # SHA-256's block size, the length of a pad


class PadsKey:
    """HMAC-SHA256 under one key, its pads hashed once by hand (the form main used until #27;
    the same bytes as :mod:`hmac`, checked in :func:`time_forms`)."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > _BLOCK:
            key = hashlib.sha256(key).digest()
        key = key.ljust(_BLOCK, b"\0")
        self._inner = hashlib.sha256(key.translate(_XOR_36))
        self._outer = hashlib.sha256(key.translate(_XOR_5C))

    def macs(self, prefix: bytes, start: int, count: int) -> bytes:
        inner_copy, outer_copy = self._inner.copy, self._outer.copy
        blocks = []
        for counter in range(start, start + count):
            inner = inner_copy()
            inner.update(prefix + b"%d" % counter)
            outer = outer_copy()
            outer.update(inner.digest())
            blocks.append(outer.digest())
        return b"".join(blocks)


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


class _CountingKey:
    """A keyed HMAC as variants/chance.py uses it (one ``copy`` a block), counting the blocks
    made."""

    __slots__ = ("_keyed", "blocks")

    def __init__(self, key: bytes) -> None:
        self._keyed = hmac.new(key, digestmod=hashlib.sha256)
        self.blocks = 0

    def copy(self) -> hmac.HMAC:
        self.blocks += 1
        return self._keyed.copy()


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
    expected = keys["hmac copy"].macs(b"deal/7:", 0, blocks)
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


def run(config: ChanceConfig | None = None) -> Section:
    from bezique.variants.registry import load_registry

    config = config or ChanceConfig()
    started = time.perf_counter()
    registry = load_registry()
    section = Section(
        "Shuffle MACs: the hmac module against HMAC pads hashed by hand, per deal and move",
        ["subject", "blocks/deal", "pads", "hmac copy", "hmac.digest", "pads save",
         "engine µs/deal", "share of a deal", "dealing step", "share of it", "other move"])
    figures: dict[str, object] = {"production": "hmac copy"}
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
        # and the smaller the cost, the larger (the less favourable to hmac) the share
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
        worst = max(shares, key=shares.__getitem__)
        figures["price"] = {"variant": worst, "share": shares[worst]}
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
        "production form in variants/chance.py: hmac copy (issue #27: the standard library's "
        "HMAC, whatever it costs; pads save is its price, the share of a dealing step the "
        "largest of the two shares). Bezique's dealing step is start() (the lot's shuffle is "
        "half its blocks) or a match's deal-ending move.",
    ]
    section.seconds = time.perf_counter() - started
    return section
