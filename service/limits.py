"""Per-caller limits: a token bucket of requests, a count of open watch streams, and a
budget of seats given up.

A seat's own calls are charged to the seat of a token this server knows (hashed) and to the
peer address; every other call to the peer address alone. So a client cannot escape its
address's bucket by leaving the token out, by making one up, or by minting tokens (joining
seats): one address has one budget whatever seats it holds. All of it is kept in memory, per
process: with several replicas each one counts for itself.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Sequence
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
        return self.allow_all((caller,), now)

    def allow_all(self, callers: Sequence[str], now: float | None = None) -> bool:
        """Whether every one of ``callers`` has a request left; if so one is taken from each,
        else none (a call refused for its address does not use up its seat's budget)."""
        if self.rate <= 0:
            return True
        now = time.monotonic() if now is None else now
        buckets = [self._refilled(caller, now) for caller in callers]
        if any(bucket.tokens < 1 for bucket in buckets):
            return False
        for bucket in buckets:
            bucket.tokens -= 1
        return True

    def _refilled(self, caller: str, now: float) -> _Bucket:
        bucket = self._buckets.get(caller)
        if bucket is None:
            if len(self._buckets) >= self.max_callers:
                self._buckets.popitem(last=False)
            bucket = self._buckets[caller] = _Bucket(self.burst, now)
        else:
            self._buckets.move_to_end(caller)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.rate)
        bucket.updated = now
        return bucket


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
