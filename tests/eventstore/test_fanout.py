"""Fanout: many listeners of a stream on one subscription, each with the guarantee of
``subscribe``: every event from its seq on, in order, exactly once."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from eventstore import RedisEventStore, StoredEvent
from eventstore import fanout as fanout_module
from eventstore.fanout import Fanout, ListenerTooSlow

from .test_contract import collect, ev, fill, seqs


async def flat(batches: AsyncIterator[list[StoredEvent]]) -> AsyncIterator[StoredEvent]:
    async for batch in batches:
        assert batch
        for event in batch:
            yield event


async def test_listeners_joining_at_any_time_get_every_event_once(
    store: RedisEventStore,
) -> None:
    fanout = Fanout(store, page=7, block_ms=100, linger=0.1)
    total = 120
    await fill(store, "m", 10)

    async def writer() -> None:
        for _ in range(10, total, 2):
            await asyncio.sleep(random.uniform(0, 0.004))
            version = await store.version("m")
            await store.append("m", [ev(), ev()], version)

    async def listener(from_seq: int, delay: float) -> list[StoredEvent]:
        await asyncio.sleep(delay)
        async with fanout.listen("m", from_seq) as events:
            return await collect(flat(events), total - 1)

    rng = random.Random(7)
    starts = [(rng.randrange(0, 40), rng.uniform(0, 0.15)) for _ in range(12)]
    results = await asyncio.gather(writer(), *(listener(s, d) for s, d in starts))
    for (from_seq, _), got in zip(starts, results[1:], strict=True):
        assert seqs(got) == list(range(from_seq, total))
    for _ in range(100):  # the follower leaves once no listener has come for a while
        if not fanout._streams:
            break
        await asyncio.sleep(0.05)
    assert not fanout._streams
    await fanout.close()


async def test_listeners_of_a_stream_share_one_subscription(store: RedisEventStore) -> None:
    fanout = Fanout(store)
    await fill(store, "shared", 3)
    async with fanout.listen("shared", 0) as first, fanout.listen("shared", 1) as second:
        assert len(fanout._streams) == 1
        await store.append("shared", [ev()], 2)
        assert seqs(await collect(flat(first), 3)) == [0, 1, 2, 3]
        assert seqs(await collect(flat(second), 3)) == [1, 2, 3]
    await fanout.close()
    assert not fanout._tasks


async def test_a_listener_too_far_behind_is_dropped(
    store: RedisEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fanout_module, "QUEUE_LIMIT", 3)
    fanout = Fanout(store)
    await fill(store, "slow", 1)
    async with fanout.listen("slow", 1) as slow, fanout.listen("slow", 1) as keen:
        keen_got = asyncio.create_task(collect(flat(keen), 8))
        for version in range(0, 8):
            await store.append("slow", [ev()], version)
            await asyncio.sleep(0.05)  # the keen one reads each before the next
        assert seqs(await keen_got) == list(range(1, 9))
        with pytest.raises(ListenerTooSlow):
            await collect(flat(slow), 99)  # what is stored, then the error
    await fanout.close()
