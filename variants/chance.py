"""Chance as explicit, replayable steps: every shuffle, cut and draw for deal comes from here.

The construction (docs/fairness.md repeats it for re-implementers):

* A table has a secret 32-byte ``seed`` from the OS CSPRNG; ``sha256(seed)`` is published first.
* Each chance step has a *purpose*, an ASCII label such as ``deal/1`` or ``cut/1`` (one per step).
* The byte stream of a purpose is ``HMAC-SHA256(key=seed, msg=purpose || ":" || counter)`` for
  ``counter = 0, 1, 2, …`` (counter as decimal ASCII), concatenated.
* ``below(purpose, n)`` reads 8-byte big-endian integers from that stream and returns the first
  ``x`` with ``x < 2**64 - (2**64 % n)``, reduced ``x % n`` (rejection sampling: no modulo bias).
* ``shuffled(purpose, items)`` is a Fisher–Yates shuffle that fixes the front first: for ``i``
  from ``0`` to ``len-2``, ``j = i + below(len - i)`` drawn from the same stream (one stream for
  the whole shuffle), then swap ``items[i]`` and ``items[j]``.
* ``draw(purpose, items, count)`` is the first ``count`` items of that same shuffle, found by
  running only its first ``count`` steps: a game that deals 17 cards of a 144-card shoe need not
  shuffle the other 127, and the cards it deals are exactly those of the full shuffle.

Nothing here is derived from the published hash, so the commitment predicts nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Mapping, Sequence
from operator import mod as _mod
from struct import unpack as _unpack
from typing import Protocol, TypeVar

T = TypeVar("T")

_TWO_64 = 1 << 64


class Chance(Protocol):
    """The random source a variant is given. Variants never use the global ``random``."""

    def below(self, purpose: str, n: int) -> int:
        """A uniform integer in ``[0, n)`` for one named chance step."""
        ...

    def shuffled(self, purpose: str, items: Sequence[T]) -> list[T]:
        """A uniformly shuffled copy of ``items`` for one named chance step."""
        ...

    def draw(self, purpose: str, items: Sequence[T], count: int) -> list[T]:
        """``shuffled(purpose, items)[:count]``, computing only what it needs."""
        ...


def commitment(seed: bytes) -> str:
    """The published commitment of a seed: ``sha256(seed)`` in hex."""
    return hashlib.sha256(seed).hexdigest()


ENTROPY_LABEL = b"bezique/entropy/v1"


def mixed_seed(seed: bytes, contributions: Sequence[tuple[int, bytes]]) -> bytes:
    """The key every deal of a table derives from: the committed ``seed`` mixed with the
    entropy the seats contributed, ``(seat, bytes)`` in seat order.

    ``HMAC-SHA256(key=seed, msg=label || for each: seat (2 bytes) || length (2 bytes) ||
    entropy)``, big-endian. The operator commits to ``seed`` before any seat joins and the
    seats cannot see it, so neither can steer the result. With no contribution the seed
    itself is the key (tables from before entropy existed replay and verify unchanged).
    """
    if not contributions:
        return seed
    message = bytearray(ENTROPY_LABEL)
    for seat, entropy in contributions:
        message += seat.to_bytes(2, "big") + len(entropy).to_bytes(2, "big") + entropy
    return hmac.digest(seed, bytes(message), "sha256")


def bot_random(seed: bytes, version: int, seat: int) -> random.Random:
    """The random source of the bot that makes entry ``version`` for ``seat``: derived from the
    table's secret seed, so nobody can predict a bot during the game, and anyone can check
    its every move once the seed is revealed."""
    return random.Random(hmac.digest(seed, b"bot/%d/%d" % (version, seat), "sha256"))


def _macs(key: hmac.HMAC, prefix: bytes, start: int, count: int) -> bytes:
    """The MACs of ``prefix + b"N"`` under ``key`` for ``N`` from ``start``, ``count`` of
    them, concatenated: the standard library's HMAC, its keyed state copied per block (the
    key's pads are hashed once, in ``hmac.new``)."""
    copy = key.copy
    blocks = []
    for counter in range(start, start + count):
        mac = copy()
        mac.update(prefix + b"%d" % counter)
        blocks.append(mac.digest())
    return b"".join(blocks)


def _limit(n: int) -> int:
    """Values below this are kept by ``below(n)`` (rejection sampling, no modulo bias)."""
    return _TWO_64 - (_TWO_64 % n)


def _all_kept(values: Sequence[int], size: int) -> bool:
    """Whether a shuffle of ``size`` items keeps every one of ``values`` at its step: step
    ``i``'s limit (:func:`_limit` of ``size - i``) is above ``2**64 - size``, so values all
    below that are kept, whatever their step (checked at once, with no table of limits)."""
    return max(values) < _TWO_64 - size


class _Stream:
    """The HMAC byte stream of one purpose, read as 64-bit integers (4 per HMAC block)."""

    __slots__ = ("_counter", "_key", "_prefix", "values")

    def __init__(self, key: hmac.HMAC, purpose: str) -> None:
        self._key = key
        self._prefix = purpose.encode("ascii") + b":"
        self._counter = 0
        self.values: list[int] = []

    def _refill(self, blocks: int) -> None:
        data = _macs(self._key, self._prefix, self._counter, blocks)
        self._counter += blocks
        # reversed, so that pop() reads the stream in order
        fresh = list(_unpack(f">{len(data) // 8}Q", data))
        fresh.reverse()
        fresh.extend(self.values)
        self.values[:] = fresh

    def below(self, n: int) -> int:
        if n < 1:
            raise ValueError("below() needs n >= 1")
        limit = _limit(n)
        while True:
            if not self.values:
                self._refill(1)
            value = self.values.pop()
            if value < limit:
                return value % n

    def reserve(self, count: int) -> None:
        """Compute the blocks for ``count`` more integers at once (a speed-up only)."""
        missing = count - len(self.values)
        if missing > 0:
            self._refill((missing + 3) // 4)


class SeededChance:
    """The fair source: every step derived from the secret seed by HMAC-SHA256."""

    def __init__(self, seed: bytes) -> None:
        if len(seed) < 16:
            raise ValueError("a shuffle seed must have at least 16 bytes")
        self.seed = seed
        self._key = hmac.new(seed, digestmod=hashlib.sha256)

    def __reduce__(self) -> tuple[type[SeededChance], tuple[bytes]]:
        """Games keep their chance source and must pickle (snapshots): keep only the seed."""
        return (SeededChance, (self.seed,))

    def below(self, purpose: str, n: int) -> int:
        return _Stream(self._key, purpose).below(n)

    def shuffled(self, purpose: str, items: Sequence[T]) -> list[T]:
        return self._fisher_yates(purpose, items, len(items))

    def draw(self, purpose: str, items: Sequence[T], count: int) -> list[T]:
        return self._fisher_yates(purpose, items, count)[:count]

    def _fisher_yates(self, purpose: str, items: Sequence[T], count: int) -> list[T]:
        """Items with their first ``count`` positions final (all of them when count = len).

        The stream's first values are read at once and, when none of them can be rejected
        (all but about one shuffle in 10**15), the swaps are made straight from them;
        otherwise :meth:`_fisher_yates_stepwise` reads the stream value by value. Both are
        the same shuffle (the tests hold them to it)."""
        result = list(items)
        size = len(result)
        steps = min(count, size - 1)
        if steps < 1:
            return result
        blocks = (steps + 3) // 4  # 4 values per HMAC block
        data = _macs(self._key, purpose.encode("ascii") + b":", 0, blocks)
        values = _unpack(f">{4 * blocks}Q", data)[:steps]
        if not _all_kept(values, size):
            return self._fisher_yates_stepwise(purpose, result, steps)
        for i, j in enumerate(map(_mod, values, range(size, size - steps, -1))):
            j += i
            result[i], result[j] = result[j], result[i]
        return result

    def _fisher_yates_stepwise(self, purpose: str, items: list[T], steps: int) -> list[T]:
        """The first ``steps`` steps of the shuffle of ``items`` (in place), one ``below`` of
        the stream at a time: the plain form of the construction, rejections included."""
        stream = _Stream(self._key, purpose)
        size = len(items)
        stream.reserve(steps)
        values = stream.values
        for i in range(steps):
            limit = _limit(size - i)
            while True:  # stream.below(size - i), inlined
                if not values:
                    stream.reserve(1)
                value = values.pop()
                if value < limit:
                    break
            j = i + value % (size - i)
            items[i], items[j] = items[j], items[i]
        return items


class StackedChance:
    """Test mode: some purposes answer with prearranged results, the rest fall back to a seed.

    ``orders`` maps a shuffle purpose (e.g. ``deal/1``) to the exact order to return, top card
    first; ``picks`` maps a ``below`` purpose (e.g. ``cut/1``) to its answer. A stacked order must
    be a permutation of what the variant shuffles; a mismatch is a ValueError.
    """

    def __init__(
        self,
        fallback: Chance,
        orders: Mapping[str, Sequence[object]] | None = None,
        picks: Mapping[str, int] | None = None,
    ) -> None:
        self._fallback = fallback
        self._orders = dict(orders or {})
        self._picks = dict(picks or {})

    def below(self, purpose: str, n: int) -> int:
        if purpose in self._picks:
            pick = self._picks[purpose]
            if not 0 <= pick < n:
                raise ValueError(f"stacked pick {pick} for {purpose!r} is outside [0, {n})")
            return pick
        return self._fallback.below(purpose, n)

    def shuffled(self, purpose: str, items: Sequence[T]) -> list[T]:
        if purpose in self._orders:
            order = list(self._orders[purpose])
            if sorted(map(repr, order)) != sorted(map(repr, items)):
                raise ValueError(f"the stacked order for {purpose!r} is not a permutation")
            return order  # type: ignore[return-value]
        return self._fallback.shuffled(purpose, items)

    def draw(self, purpose: str, items: Sequence[T], count: int) -> list[T]:
        if purpose in self._orders:
            return self.shuffled(purpose, items)[:count]
        return self._fallback.draw(purpose, items, count)


class CountingChance:
    """Passes every step through to ``inner`` and remembers which deals (``deal/N``) were
    shuffled: how verifiers and benchmarks count deals without knowing a variant."""

    def __init__(self, inner: Chance) -> None:
        self.inner = inner
        self.deals: set[str] = set()

    def below(self, purpose: str, n: int) -> int:
        return self.inner.below(purpose, n)

    def shuffled(self, purpose: str, items: Sequence[T]) -> list[T]:
        self._count(purpose)
        return self.inner.shuffled(purpose, items)

    def draw(self, purpose: str, items: Sequence[T], count: int) -> list[T]:
        self._count(purpose)
        return self.inner.draw(purpose, items, count)

    def _count(self, purpose: str) -> None:
        if purpose.startswith("deal/"):
            self.deals.add(purpose)


FIRST_DEAL = "deal/1"
"""The purpose of the first deal's shuffle: the one a stacked shoe replaces."""


def stacked_shoe(fallback: Chance, order: Sequence[int]) -> StackedChance:
    """Test mode's stacked shoe: the first deal gets ``order`` exactly, and is cut at 0."""
    return StackedChance(fallback, orders={FIRST_DEAL: order}, picks={"cut/1": 0})
