"""The rate limiter port: Redis's and the in-memory twin pass one suite."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from eventstore import RedisEventStore
from eventstore.limits import InMemoryRateLimiter, RateLimiter, RedisRateLimiter

from ..redis_support import unique


@pytest.fixture(params=["memory", "redis"])
async def limiter(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[RateLimiter]:
    if request.param == "memory":
        yield InMemoryRateLimiter()
        return
    store = RedisEventStore.from_url(redis_url, prefix=unique())
    try:
        yield RedisRateLimiter(store, "test")
    finally:
        await store.close()


async def test_hits_past_the_limit_wait_for_the_window(limiter: RateLimiter) -> None:
    assert [await limiter.hit("a", 3, 60_000) for _ in range(3)] == [0, 0, 0]
    wait = await limiter.hit("a", 3, 60_000)
    assert 0 < wait <= 60_000
    assert await limiter.hit("b", 3, 60_000) == 0  # another bucket counts apart


async def test_a_new_window_counts_afresh(limiter: RateLimiter) -> None:
    assert await limiter.hit("a", 1, 200) == 0
    assert await limiter.hit("a", 1, 200) > 0
    await asyncio.sleep(0.3)
    assert await limiter.hit("a", 1, 200) == 0


async def test_a_zero_limit_refuses_all_and_bad_buckets_are_refused(limiter: RateLimiter) -> None:
    assert await limiter.hit("a", 0, 1000) > 0
    for bucket in ("", "x{y}"):
        with pytest.raises(ValueError):
            await limiter.hit(bucket, 1, 1000)
