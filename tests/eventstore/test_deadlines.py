"""Deadlines a living process pushes back (eventstore/deadlines.py): on Redis and in
memory alike, a name is lapsed once its deadline passes, and no more once renewed or
forgotten."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis

from eventstore import RedisEventStore
from eventstore.deadlines import Deadlines, InMemoryDeadlines
from eventstore.redis_deadlines import RedisDeadlines

from ..redis_support import unique


@pytest.fixture(params=["redis", "memory"])
async def deadlines(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[Deadlines]:
    if request.param == "memory":
        yield InMemoryDeadlines()
        return
    prefix = unique()
    store = RedisEventStore.from_url(redis_url, prefix=prefix)
    try:
        yield RedisDeadlines(store, "tables")
    finally:
        await store.close()
        client = redis.Redis.from_url(redis_url)
        for key in list(client.scan_iter(match=f"{prefix}:*")):
            client.delete(key)
        client.close()


async def test_a_name_lapses_when_its_deadline_passes_unless_renewed(
    deadlines: Deadlines,
) -> None:
    await deadlines.renew(["a", "b"], 1_000)
    await deadlines.renew(["c"], 2_000)
    assert await deadlines.lapsed(999) == []
    assert await deadlines.lapsed(1_000) == ["a", "b"]
    await deadlines.renew(["a"], 3_000)
    assert await deadlines.lapsed(2_500) == ["b", "c"]
    assert await deadlines.lapsed(2_500, limit=1) == ["b"]
    await deadlines.forget("b")
    await deadlines.forget("nobody")
    assert await deadlines.lapsed(10_000) == ["c", "a"]
    await deadlines.renew([], 0)  # nothing to renew: nothing asked
