"""Event store speed on one Redis, in one run. Prints figures; asserts nothing.

    .venv/bin/python -m bench.eventstore [--appends N] [--events N] [--url URL]

1. Append latency: a single-event append through the store (Lua compare-and-append with
   request-id dedupe and hash chain) against a raw redis-py XADD of the same entry (the
   floor), measured in alternating rounds on the same Redis; p50, p99 and their ratios.
   Target: store p50 within 1.5x the raw XADD p50.
2. Read throughput: a long stream read and decoded to StoredEvents by ``read_whole``
   (events/s), beside the raw XRANGE alone.
3. Read and fold: a whole 5-game match stream read and folded into the match's state
   (events/s). Target: at least 100,000 events/s per core.

Redis: ``--url``, else REDIS_URL, else an embedded redis-server started (and stopped) by
the benchmark: never whatever happens to answer on 6379. Keys use a fresh prefix, deleted after.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis

from eventstore import NewEvent, RedisEventStore, RedisServer, StoredEvent
from eventstore.codec import encode_body
from eventstore.hashing import event_hash
from eventstore.model import GENESIS_HASH

PAYLOAD: dict[str, Any] = {"seat": 2, "cards": [12, 25, 38], "jokers": {"0": 14}, "pass": False}


async def read_whole(store: RedisEventStore, stream: str) -> list[StoredEvent]:
    """A whole stream, decoded and upcast: what a fold starts from."""
    return await store.read(stream)


def percentile(samples: Sequence[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def append_latency(store: RedisEventStore, raw: Redis, appends: int, rounds: int) -> None:
    stream = "bench-append"
    raw_key = f"{store.keys.prefix}:{{bench-raw}}:events"
    at = time.time_ns() // 1_000_000
    hash_ = event_hash(stream, 0, "CardsPlayed", 1, at, "r", PAYLOAD, GENESIS_HASH)
    fields: dict[Any, Any] = {
        "h": hash_,
        "e": encode_body("CardsPlayed", 1, at, "r", GENESIS_HASH, PAYLOAD),
    }
    event = NewEvent("CardsPlayed", PAYLOAD)
    version = -1
    for _ in range(200):  # warm-up: connections, script cache, head cache
        version = (await store.append(stream, [event], version)).last_seq
        await raw.xadd(raw_key, fields)
    store_ns: list[float] = []
    raw_ns: list[float] = []
    per_round = max(1, appends // rounds)
    clock = time.perf_counter_ns
    for _ in range(rounds):
        for _ in range(per_round):
            t0 = clock()
            version = (await store.append(stream, [event], version)).last_seq
            store_ns.append(clock() - t0)
        for _ in range(per_round):
            t0 = clock()
            await raw.xadd(raw_key, fields)
            raw_ns.append(clock() - t0)
    s50, s99 = percentile(store_ns, 0.50) / 1000, percentile(store_ns, 0.99) / 1000
    r50, r99 = percentile(raw_ns, 0.50) / 1000, percentile(raw_ns, 0.99) / 1000
    print(f"append, 1 event, {len(store_ns)} samples each, {rounds} alternating rounds")
    print(f"  store append    p50 {s50:8.1f} us   p99 {s99:8.1f} us")
    print(f"  raw XADD        p50 {r50:8.1f} us   p99 {r99:8.1f} us")
    print(
        f"  ratio           p50 {s50 / r50:8.2f} x    p99 {s99 / r99:8.2f} x   (target p50 <= 1.5x)"
    )
    print(f"  store mean {statistics.fmean(store_ns) / 1000:.1f} us, raw mean "
          f"{statistics.fmean(raw_ns) / 1000:.1f} us")  # fmt: skip


async def read_throughput(store: RedisEventStore, raw: Redis, events: int) -> None:
    stream = "bench-read"
    version = -1
    batch = [NewEvent("CardsPlayed", {**PAYLOAD, "i": i}) for i in range(100)]
    while version + 1 < events:
        version = (await store.append(stream, batch, version)).last_seq
    n = version + 1
    key = store.keys.events(stream)
    best_raw = best_store = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        await raw.xrange(key)
        best_raw = min(best_raw, time.perf_counter() - t0)
        t0 = time.perf_counter()
        got = await read_whole(store, stream)
        best_store = min(best_store, time.perf_counter() - t0)
        assert len(got) == n
    t0 = time.perf_counter()
    verification = await store.verify(stream)
    verify_s = time.perf_counter() - t0
    print(f"read a stream of {n} events (best of 5)")
    rows = [
        ("read_whole (XRANGE + decode)", best_store, ""),
        ("redis-py xrange, not decoded", best_raw, ""),
        ("verify (decode + sha256)", verify_s, f"  ok={verification.ok}"),
    ]
    for label, seconds, extra in rows:
        print(f"  {label:30} {n / seconds:12,.0f} events/s  ({seconds * 1000:.1f} ms){extra}")


async def read_and_fold(store: RedisEventStore) -> None:
    """A whole 5-game federation match stream read back and folded into the
    match's state: what loading an uncached match costs."""
    import random

    from service.app.codec import encode
    from service.app.match import fold_match
    from service.app.selfplay import play_match, random_policy
    from service.match import MatchEvent
    from service.match.events import MatchCreated, MatchStarted, SeatJoined
    from service.rules import rule_set

    rules = rule_set("federation")
    played = play_match(rules, 4, b"bench", [random_policy(random.Random(1))] * 4)
    opening: list[MatchEvent] = [
        MatchCreated("bench", "federation", rules.options(), 4, False, 0),
        *(SeatJoined(seat, f"seat {seat}") for seat in range(4)),
        MatchStarted("0" * 64, "bench"),
    ]
    records = [encode(event) for event in [*opening, *played.events]]
    stream = "bench-match"
    version = -1
    for start in range(0, len(records), 50):
        version = (await store.append(stream, records[start : start + 50], version)).last_seq
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        match = fold_match(None, await store.read(stream))
        best = min(best, time.perf_counter() - t0)
    assert match.game == played.state
    n = version + 1
    print(f"read and fold a 5-game federation match ({n} events, best of 5)")
    print(f"  {'read + decode + fold':30} {n / best:12,.0f} events/s  ({best * 1000:.1f} ms)")


def pick_url(given: str | None) -> tuple[str, RedisServer | None]:
    url = given or os.environ.get("REDIS_URL")
    if url:
        return url, None
    server = RedisServer(tempfile.mkdtemp(prefix="bench-redis-"), appendonly=False)
    return server.start().url, server


async def run(url: str, appends: int, events: int, rounds: int) -> None:
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    store = RedisEventStore.from_url(url, prefix=prefix)
    raw = Redis.from_url(url, protocol=2)
    try:
        info = await raw.info("server")
        print(f"Redis {info.get('redis_version')} at {url}; prefix {prefix}")
        await append_latency(store, raw, appends, rounds)
        await read_throughput(store, raw, events)
        await read_and_fold(store)
    finally:
        keys = [k async for k in raw.scan_iter(match=f"{prefix}:*")]
        if keys:
            await raw.delete(*keys)
        await raw.aclose()
        await store.close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="Redis URL (default: REDIS_URL, else embedded)")
    parser.add_argument("--appends", type=int, default=10_000, help="appends of each kind")
    parser.add_argument("--rounds", type=int, default=20, help="alternating rounds")
    parser.add_argument("--events", type=int, default=100_000, help="length of the read stream")
    args = parser.parse_args(argv)
    url, server = pick_url(args.url)
    try:
        asyncio.run(run(url, args.appends, args.events, args.rounds))
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
