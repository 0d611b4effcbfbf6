"""HMAC-SHA256 with the key's pads hashed once: the shuffle's MACs (variants/chance.py).

RFC 2104 by hand: the key's inner and outer pads are hashed once per key, and every block
copies the two hashes, where ``hmac.new(key, ...).copy()`` also builds an ``hmac.HMAC`` object
per block. The same bytes as :func:`hmac.digest` (tests/core and tests/quart hold them to it).
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
