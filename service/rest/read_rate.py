"""Each caller's reads of a match (its view, events, state at a seq, record, audit,
analysis) are held to a sustained rate with a burst: a token bucket per caller's network
(as the quotas count callers), kept in this process, so a refusal costs a dictionary
lookup, not a Redis round trip. A read folds at most one block of events, but a few
loops of them from one address still kept the serving loop busy enough to slow every
honest action down (bench.attacks row B). Past the rate: 429 ``rate_limited`` with
``Retry-After``, the shape nginx gives in ``deploy/``. Each replica counts its own
callers: behind several replicas a caller gets each one's rate, nginx bounds the sum."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from eventstore.cache import BoundedCache

from .codes import RestCode

# callers whose buckets are kept: one evicted comes back with a full burst, as a caller
# with a new address would
CALLERS_KEPT = 65_536


@dataclass(frozen=True, slots=True)
class ReadRate:
    """``per_second`` reads sustained, ``burst`` at once; ``per_second`` 0: no bound."""

    per_second: float = 50.0
    burst: int = 100

    def __post_init__(self) -> None:
        if self.per_second < 0 or self.burst < 1:
            raise ValueError("a read rate is ≥ 0 a second with a burst of at least 1")


class ReadsTooFast(Exception):
    """A caller past its read rate: 429 with ``code`` and ``Retry-After``."""

    def __init__(self, retry_after: int) -> None:
        self.code = RestCode.RATE_LIMITED
        self.message = "too many reads from your address: slow down"
        super().__init__(self.message)
        self.retry_after = retry_after


class ReadBuckets:
    def __init__(self, rate: ReadRate, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self._clock = clock
        self._buckets = BoundedCache[str, tuple[float, float]](CALLERS_KEPT)  # tokens, when

    def take(self, caller: str) -> None:
        """Take one read of ``caller``'s; ReadsTooFast when it has none left."""
        per_second, burst = self.rate.per_second, self.rate.burst
        if not per_second:
            return
        now = self._clock()
        tokens, since = self._buckets.get(caller, (float(burst), now))
        tokens = min(float(burst), tokens + (now - since) * per_second)
        if tokens < 1:
            self._buckets.put(caller, (tokens, now))
            raise ReadsTooFast(math.ceil((1 - tokens) / per_second))
        self._buckets.put(caller, (tokens - 1, now))
