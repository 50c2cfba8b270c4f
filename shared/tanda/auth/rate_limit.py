"""PG-1: playground requests are rate-limited per administrator.

An in-memory token bucket per admin subject. It is per process (per Lambda container), which bounds
each container; the API Gateway usage plan bounds the whole fleet. The clock is injected.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass

from tanda.errors import RateLimited

MAX_TRACKED_KEYS = 10_000


class AdminRateLimited(RateLimited):
    """429 with the number of seconds after which one more request will be accepted."""

    def __init__(self, retry_after_s: int) -> None:
        super().__init__()
        self.retry_after_s = retry_after_s


@dataclass
class _Bucket:
    tokens: float
    updated: float


class TokenBucket:
    """``burst`` requests at once, refilled at ``rate_per_minute`` — per key."""

    def __init__(self, *, rate_per_minute: float, burst: int, clock: Callable[[], float]) -> None:
        if rate_per_minute <= 0 or burst < 1:
            raise ValueError("rate_per_minute must be > 0 and burst >= 1")
        self._rate_per_s = rate_per_minute / 60.0
        self._burst = float(burst)
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> None:
        """Spend one token of ``key``'s bucket, or raise :class:`AdminRateLimited`."""
        with self._lock:
            now = self._clock()
            bucket = self._buckets.get(key)
            if bucket is None:
                self._forget_full_buckets(now)
                bucket = self._buckets[key] = _Bucket(self._burst, now)
            elapsed = max(0.0, now - bucket.updated)
            bucket.tokens = min(self._burst, bucket.tokens + elapsed * self._rate_per_s)
            bucket.updated = now
            if bucket.tokens < 1.0:
                wait = (1.0 - bucket.tokens) / self._rate_per_s
                raise AdminRateLimited(retry_after_s=max(1, math.ceil(wait)))
            bucket.tokens -= 1.0

    def _forget_full_buckets(self, now: float) -> None:
        # A bucket that has refilled completely is indistinguishable from a new one.
        if len(self._buckets) < MAX_TRACKED_KEYS:
            return
        refill_s = self._burst / self._rate_per_s
        for key in [k for k, b in self._buckets.items() if now - b.updated >= refill_s]:
            del self._buckets[key]
