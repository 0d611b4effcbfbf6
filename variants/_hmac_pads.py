"""HMAC-SHA256 with the key's pads hashed once: the shuffle's MACs (variants/chance.py).

RFC 2104 by hand: the key's inner and outer pads are hashed once per key, and every block
copies the two hashes, where ``hmac.new(key, ...).copy()`` also builds an ``hmac.HMAC`` object
per block. The same bytes as :func:`hmac.digest` (tests/core and tests/quart hold them to it).

Why it is kept (issue #18: a speed tweak stays where it saves 10 % of a decision's cost): a
Bezique deal needs 35-55 blocks, and the step that deals (``start``, or the move that ends a
deal and shuffles the next; a decision like any other) costs 14.5-16.6 % less with the pads
than with the plain copy (12.5-18.6 µs of 82-117 µs; Quart saves 0.6-0.9 µs, 3-5 % of its
dealing move). It also keeps 240 B less per table than a keyed ``hmac.HMAC`` (RSS of 50,000
keys). ``bench/chance.py`` measures both forms in one run (``python -m bench --only engine``);
the figures are in bench/results.md (2026-11-30, "Quart betting, the shuffle MAC, Quart idle
memory").
"""

from __future__ import annotations

import hashlib

# every byte XOR the inner and the outer pad byte of HMAC, for bytes.translate
_XOR_36 = bytes(b ^ 0x36 for b in range(256))
_XOR_5C = bytes(b ^ 0x5C for b in range(256))
_BLOCK = 64  # SHA-256's block size, the length of a pad


class HmacPads:
    """HMAC-SHA256 under one key, its pads hashed once."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > _BLOCK:
            key = hashlib.sha256(key).digest()
        key = key.ljust(_BLOCK, b"\0")
        self._inner = hashlib.sha256(key.translate(_XOR_36))
        self._outer = hashlib.sha256(key.translate(_XOR_5C))

    def macs(self, prefix: bytes, start: int, count: int) -> bytes:
        """The MACs of ``prefix + b"N"`` for ``N`` from ``start``, ``count`` of them,
        concatenated (in one loop: a deal needs several blocks, and a call per block costs
        about as much as its hashing)."""
        inner_copy, outer_copy = self._inner.copy, self._outer.copy
        blocks = []
        for counter in range(start, start + count):
            inner = inner_copy()
            inner.update(prefix + b"%d" % counter)
            outer = outer_copy()
            outer.update(inner.digest())
            blocks.append(outer.digest())
        return b"".join(blocks)
