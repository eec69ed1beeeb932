"""The quota port's contract, for the Redis quotas and their in-memory twin alike:
windows slide, gauges hold until released (or their hold runs out), a take is all or
nothing, a token is taken once, and the clock is the caller's (no sleeping)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from eventstore import RedisEventStore
from eventstore.quotas import Full, Gauge, InMemoryQuotas, QuotaStore, RedisQuotas, Window

from ..redis_support import unique

CREATES = Window("creates:a", 2, 60_000)
BOTS = Gauge("bots", 5, 3)


@pytest.fixture(params=["memory", "redis"])
async def quotas(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[QuotaStore]:
    if request.param == "memory":
        yield InMemoryQuotas()
        return
    prefix = unique()
    store = RedisEventStore.from_url(redis_url, prefix=prefix)
    try:
        yield RedisQuotas(store)
    finally:
        client = await store.raw_client()
        keys = [key async for key in client.scan_iter(match=f"{prefix}:*")]
        if keys:
            await client.delete(*keys)
        await store.close()


async def test_a_window_slides(quotas: QuotaStore) -> None:
    assert await quotas.take("m1", "t1", [CREATES], [], 1_000) is None
    assert await quotas.take("m2", "t2", [CREATES], [], 21_000) is None
    # full until the first take is a window old: then one slot frees
    assert await quotas.take("m3", "t3", [CREATES], [], 30_000) == Full("creates:a", 31_000)
    assert await quotas.take("m3", "t3", [CREATES], [], 61_000) is None
    assert await quotas.take("m4", "t4", [CREATES], [], 61_000) == Full("creates:a", 20_000)
    # another key has its own window
    assert await quotas.take("m4", "t4", [Window("creates:b", 2, 60_000)], [], 61_000) is None


async def test_a_gauge_holds_until_released(quotas: QuotaStore) -> None:
    assert await quotas.take("m1", "t1", [], [BOTS], 0) is None
    assert await quotas.held("bots", 0) == 3
    assert await quotas.take("m2", "t2", [], [BOTS], 10**9) == Full("bots")
    assert await quotas.take("m2", "t2", [], [Gauge("bots", 5, 2)], 10**9) is None
    assert await quotas.held("bots", 10**9) == 5
    assert sorted(await quotas.holders()) == ["m1", "m2"]
    await quotas.release("m1")
    await quotas.release("m1")  # again: nothing
    assert await quotas.held("bots", 10**9) == 2
    assert await quotas.holders() == ["m2"]
    assert await quotas.take("m3", "t3", [], [BOTS], 10**9) is None


async def test_a_take_is_all_or_nothing(quotas: QuotaStore) -> None:
    assert await quotas.take("m1", "t1", [], [Gauge("bots", 5, 4)], 0) is None
    # the gauge is full: the window's slot is not taken either
    assert await quotas.take("m2", "t2", [CREATES], [BOTS], 0) == Full("bots")
    assert await quotas.take("m2", "t2", [CREATES], [], 0) is None
    assert await quotas.take("m3", "t3", [CREATES], [], 0) is None
    # the window is full: no unit of the gauge is held
    assert await quotas.take("m4", "t4", [CREATES], [Gauge("bots", 5, 1)], 0) == Full(
        "creates:a", 60_000
    )
    assert await quotas.held("bots", 0) == 4


async def test_a_token_is_taken_once_and_a_holder_adds_under_new_ones(
    quotas: QuotaStore,
) -> None:
    for _ in range(3):  # a retried request
        assert await quotas.take("m1", "create", [CREATES], [BOTS], 0) is None
    assert await quotas.held("bots", 0) == 3
    assert await quotas.take("m2", "t", [CREATES], [], 0) is None  # one slot was left
    # the match seats one more bot later: held under the same holder
    assert await quotas.take("m1", "bot 4", [], [Gauge("bots", 5, 1)], 0) is None
    assert await quotas.held("bots", 0) == 4
    await quotas.release("m1")
    assert await quotas.held("bots", 0) == 0


async def test_a_hold_runs_out_by_itself(quotas: QuotaStore) -> None:
    audits = Gauge("audits:a", 1, 1)
    assert await quotas.take("job1", "job1", [], [audits], 1_000, hold_ms=5_000) is None
    assert await quotas.take("job2", "job2", [], [audits], 5_999, hold_ms=5_000) == Full("audits:a")
    # the first job's process died without releasing: its unit lapses
    assert await quotas.take("job2", "job2", [], [audits], 6_000, hold_ms=5_000) is None
    assert await quotas.held("audits:a", 6_000) == 1
