"""Per-caller limits: a token bucket of requests, and a count of open watch streams.

A caller is the seat of a token this server knows (hashed), else its peer address: a client
cannot escape its bucket by leaving the token out or by making one up, since its address then
counts.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field


@dataclass
class _Bucket:
    tokens: float
    updated: float


@dataclass
class RateLimiter:
    """``rate`` requests a second per caller, with bursts up to ``burst``; rate 0 = no limit.

    At most ``max_callers`` buckets are kept, least recently used first out, in constant time
    (a forgotten caller starts again with a full bucket, as after a pause)."""

    rate: float
    burst: float
    max_callers: int = 100_000
    _buckets: OrderedDict[str, _Bucket] = field(default_factory=OrderedDict)

    def allow(self, caller: str, now: float | None = None) -> bool:
        if self.rate <= 0:
            return True
        now = time.monotonic() if now is None else now
        bucket = self._buckets.get(caller)
        if bucket is None:
            if len(self._buckets) >= self.max_callers:
                self._buckets.popitem(last=False)
            bucket = self._buckets[caller] = _Bucket(self.burst, now)
        else:
            self._buckets.move_to_end(caller)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.rate)
        bucket.updated = now
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        return True


@dataclass
class StreamCounter:
    """Open streams per caller, capped at ``limit`` (0 = no limit)."""

    limit: int
    _open: dict[str, int] = field(default_factory=dict)

    def acquire(self, caller: str) -> bool:
        count = self._open.get(caller, 0)
        if self.limit and count >= self.limit:
            return False
        self._open[caller] = count + 1
        return True

    def release(self, caller: str) -> None:
        count = self._open.get(caller, 0) - 1
        if count > 0:
            self._open[caller] = count
        else:
            self._open.pop(caller, None)
