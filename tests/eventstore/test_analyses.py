"""The analyses' store (eventstore/analyses.py) on Redis and in memory alike: a result
is kept for its time; a job's record is claimed by one writer only, lives while refreshed
and lapses when its owner stops refreshing it (a replica that died)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis

from eventstore import RedisEventStore
from eventstore.analyses import MAX_KEY, AnalysisStore, InMemoryAnalyses
from eventstore.redis_analyses import RedisAnalyses

from ..redis_support import unique


@pytest.fixture(params=["redis", "memory"])
async def analyses(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[AnalysisStore]:
    if request.param == "memory":
        yield InMemoryAnalyses()
        return
    prefix = unique()
    store = RedisEventStore.from_url(redis_url, prefix=prefix)
    try:
        yield RedisAnalyses(store)
    finally:
        await store.close()
        client = redis.Redis.from_url(redis_url)
        for key in list(client.scan_iter(match=f"{prefix}:*")):
            client.delete(key)
        client.close()


async def test_a_result_is_kept_for_its_time(analyses: AnalysisStore) -> None:
    assert await analyses.result("m1.1.600.abc") is None
    await analyses.save_result("m1.1.600.abc", b'{"moves": []}', 60_000)
    assert await analyses.result("m1.1.600.abc") == b'{"moves": []}'
    assert await analyses.result("m1.1.601.abc") is None  # another budget: another key
    await analyses.save_result("m1.1.600.abc", b"again", 200)
    assert await analyses.result("m1.1.600.abc") == b"again"
    await asyncio.sleep(0.3)
    assert await analyses.result("m1.1.600.abc") is None


async def test_one_writer_claims_a_job_and_its_record_lapses_unless_refreshed(
    analyses: AnalysisStore,
) -> None:
    assert await analyses.job("k") is None
    assert await analyses.claim("k", b"queued", 300)
    assert not await analyses.claim("k", b"mine too", 300)  # a second writer: nothing changes
    assert await analyses.job("k") == b"queued"
    await analyses.save_job("k", b"running 1/9", 300)
    await asyncio.sleep(0.2)
    await analyses.save_job("k", b"running 2/9", 300)  # refreshed: 300 ms more
    await asyncio.sleep(0.2)
    assert await analyses.job("k") == b"running 2/9"
    await asyncio.sleep(0.25)
    assert await analyses.job("k") is None  # its owner stopped refreshing it
    assert await analyses.claim("k", b"queued again", 300)
    await analyses.drop_job("k")
    assert await analyses.job("k") is None
    await analyses.drop_job("nothing")


async def test_bad_keys_and_times_are_refused(analyses: AnalysisStore) -> None:
    for key, ttl in (("", 100), ("k" * (MAX_KEY + 1), 100), ("k", 0)):
        with pytest.raises(ValueError):
            await analyses.claim(key, b"x", ttl)
        with pytest.raises(ValueError):
            await analyses.save_job(key, b"x", ttl)
    with pytest.raises(ValueError):
        await analyses.save_result("", b"x", 100)
    with pytest.raises(ValueError):
        await analyses.save_result("k", b"x", 0)
