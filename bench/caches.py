"""The bounded cache (``eventstore.cache.BoundedCache``) beside the hand-rolled caches it
replaced, side by side in one run, on the hot paths' own patterns: a hit (the match cache
of every action, the store's chain head of every append, a shown record of every event
and viewer, an encoded SSE message), the put that marks a key in use (the match cache
after an action), and a miss that fills a full cache. Prints ns per operation (median of
the rounds); asserts nothing.

    .venv/bin/python -m bench.caches [--ops N] [--rounds R]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import OrderedDict
from collections.abc import Callable

from eventstore.cache import BoundedCache

CAPACITY = 4096


def ns_per_op(work: Callable[[int], object], ops: int, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter_ns()
        for number in range(ops):
            work(number)
        samples.append((time.perf_counter_ns() - started) / ops)
    return statistics.median(samples)


# -- the hand-rolled patterns, as they were written -------------------------------------


class OrderedLru:
    """service.app.service's match cache and eventstore.store's heads, before."""

    def __init__(self) -> None:
        self.entries: OrderedDict[int, int] = OrderedDict()

    def put(self, key: int, value: int) -> None:
        self.entries[key] = value
        self.entries.move_to_end(key)
        while len(self.entries) > CAPACITY:
            self.entries.popitem(last=False)


class ClearedWhenFull:
    """GameService._shown and rest.live's encoded messages, before."""

    def __init__(self) -> None:
        self.entries: dict[int, int] = {}

    def put(self, key: int, value: int) -> None:
        if len(self.entries) >= CAPACITY:
            self.entries.clear()
        self.entries[key] = value


def _full(put: Callable[[int, int], object]) -> None:
    for key in range(CAPACITY):
        put(key, key)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ops", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    ops, rounds = args.ops, args.rounds

    lru, cleared, bounded = OrderedLru(), ClearedWhenFull(), BoundedCache[int, int](CAPACITY)
    for put in (lru.put, cleared.put, bounded.put):
        _full(put)
    hot = CAPACITY // 2
    rows: list[tuple[str, Callable[[int], object]]] = [
        # the hits were written inline on the container: so here too
        ("hit: OrderedDict.get (before)", lambda n: lru.entries.get(hot)),
        ("hit: dict.get (before)", lambda n: cleared.entries.get(hot)),
        ("hit: BoundedCache.get", lambda n: bounded.get(hot)),
        ("re-put: OrderedDict move_to_end (before)", lambda n: lru.put(hot, n)),
        ("re-put: BoundedCache.put", lambda n: bounded.put(hot, n)),
        ("miss into a full cache: OrderedDict (before)", lambda n: lru.put(CAPACITY + n, n)),
        ("miss into a full cache: dict cleared (before)", lambda n: cleared.put(CAPACITY + n, n)),
        ("miss into a full cache: BoundedCache", lambda n: bounded.put(CAPACITY + n, n)),
    ]
    print(f"{ops} operations per round, median of {rounds} rounds, capacity {CAPACITY}")
    for name, work in rows:
        print(f"  {name:<48} {ns_per_op(work, ops, rounds):7.1f} ns/op")


if __name__ == "__main__":
    main()
