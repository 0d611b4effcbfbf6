"""Per-caller limits: a token bucket of requests, a count of open watch streams, and a
budget of seats given up.

A seat's own calls are charged to the seat of a token this server knows (hashed) and to the
peer address; every other call to the peer address alone. So a client cannot escape its
address's bucket by leaving the token out, by making one up, or by minting tokens (joining
seats): one address has one budget whatever seats it holds. All of it is kept in memory, per
process: with several replicas each one counts for itself.
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
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
        buckets = [self.refilled(caller, now) for caller in callers]
        if any(bucket.tokens < 1 for bucket in buckets):
            return False
        for bucket in buckets:
            bucket.tokens -= 1
        return True

    def refilled(self, caller: str, now: float) -> _Bucket:
        """``caller``'s bucket as it is at ``now`` (a new one is full)."""
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


@dataclass
class SeatChurn:
    """Seats a caller may give up before their games start: ``limit`` at once, then one more
    every ``window / limit`` seconds (so ``limit`` a window on average); 0 = no limit. A caller
    that gave up its budget joins no seat until it refills: a join-leave loop uses up its own
    budget and never locks a table for anyone else. A caller is an address block (see
    :func:`address_block`) or a platform's player; in memory, per process."""

    limit: int
    window: float
    clock: Callable[[], float] = time.monotonic
    _buckets: RateLimiter = field(init=False)

    def __post_init__(self) -> None:
        limited = self.limit > 0 and self.window > 0
        self._buckets = RateLimiter(self.limit / self.window if limited else 0, self.limit)

    def spent(self, callers: Sequence[str]) -> str | None:
        """The first of ``callers`` whose budget is used up, else None."""
        if self._buckets.rate <= 0:
            return None
        now = self.clock()
        return next((caller for caller in callers
                     if self._buckets.refilled(caller, now).tokens < 1), None)

    def charge(self, callers: Sequence[str]) -> None:
        """One seat given up, for each of ``callers``. A leave is never refused, so a caller
        may go below zero: at most one budget into debt, which the window pays back."""
        if self._buckets.rate <= 0:
            return
        now = self.clock()
        for caller in callers:
            bucket = self._buckets.refilled(caller, now)
            bucket.tokens = max(-self.limit, bucket.tokens - 1)


def address_block(host: str) -> str:
    """The block of addresses one party is assumed to hold, for budgets that many addresses
    must not multiply: an IPv4 address itself (an IPv4-mapped IPv6 address as IPv4), an IPv6
    address's /64 (the smallest network one subscriber is given). ``host`` is as grpc names a
    peer without its port (``ipv4:1.2.3.4``, ``ipv6:[2001:db8::1]``); other forms are kept."""
    kind, _, text = host.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return host
    try:
        address = ipaddress.ip_address(text.strip("[]").split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return f"ipv4:{address.ipv4_mapped}"
        return "ipv6:" + str(ipaddress.IPv6Network((address, 64), strict=False))
    return f"ipv4:{address}"

