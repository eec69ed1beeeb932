"""Rate limits shared by every replica: a counter per bucket and fixed window.

``RateLimiter`` is the port; ``RedisRateLimiter`` keeps the counters in the store's
Redis (one script: count, and start the window's expiry with the first hit), and
``InMemoryRateLimiter`` is its twin for one process. Both pass one contract suite
(tests/eventstore/test_limits.py).

A fixed window lets up to twice the limit through around a window's edge; for
refusing floods of sign-ups that is enough, and it costs one key per bucket.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

from .connection import unavailable_as
from .scripts import Script

if TYPE_CHECKING:
    from .store import RedisEventStore

# KEYS[1] the bucket's counter; ARGV[1] the limit, ARGV[2] the window in ms.
# Returns 0 when the hit counts, else the ms until the window ends.
_HIT = Script(
    """
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if count > tonumber(ARGV[1]) then
  local left = redis.call('PTTL', KEYS[1])
  if left < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]); left = tonumber(ARGV[2]) end
  return left
end
return 0
"""
)


class RateLimiter(Protocol):
    """At most ``limit`` hits per bucket per window of ``window_ms``."""

    async def hit(self, bucket: str, limit: int, window_ms: int) -> int:
        """Count a hit: 0 when it is within the limit, else the ms until the bucket's
        window ends (the hit is refused; it changes no later answer)."""
        ...


def _check(bucket: str, limit: int, window_ms: int) -> None:
    if not bucket or "{" in bucket or "}" in bucket:
        raise ValueError(f"a bucket is non-empty without braces: {bucket!r}")
    if limit < 0 or window_ms <= 0:
        raise ValueError("a limit is ≥ 0 and a window > 0 ms")


class RedisRateLimiter:
    """Counters in the store's Redis, each key in a slot of its own (any node)."""

    def __init__(self, store: RedisEventStore, name: str) -> None:
        self.store = store
        self.name = name

    async def hit(self, bucket: str, limit: int, window_ms: int) -> int:
        _check(bucket, limit, window_ms)
        key = f"{self.store.keys.prefix}:{{rl:{self.name}:{bucket}}}"
        with unavailable_as(f"rate limit {self.name!r}", self.store.url):
            client = await self.store.connector.runner()
            left = await _HIT.run(client, [key], [limit, window_ms])
        return max(int(left), 1) if int(left) else 0


class InMemoryRateLimiter:
    """The same counters in one process."""

    def __init__(self) -> None:
        self._windows: dict[str, tuple[int, float]] = {}  # bucket: (hits, window's end)
        self._clock = time.monotonic

    async def hit(self, bucket: str, limit: int, window_ms: int) -> int:
        _check(bucket, limit, window_ms)
        now = self._clock()
        hits, end = self._windows.get(bucket, (0, 0.0))
        if now >= end:
            hits, end = 0, now + window_ms / 1000
            self._drop_ended(now)
        if hits >= limit:
            return max(round((end - now) * 1000), 1)
        self._windows[bucket] = (hits + 1, end)
        return 0

    def _drop_ended(self, now: float) -> None:
        if len(self._windows) > 4096:  # ended windows count nothing: forget them
            self._windows = {b: w for b, w in self._windows.items() if w[1] > now}
