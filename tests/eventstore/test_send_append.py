"""Appends sent one after another without waiting (``send_append``, a group commit): they
land in order and chain; when one cannot land, none sent after it does. On Redis and in
memory alike."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis

from eventstore import (
    CLOSING_TYPE,
    ConcurrencyConflict,
    EventStore,
    EventStoreError,
    InMemoryEventStore,
    NewEvent,
    RedisEventStore,
    SentAppend,
    StreamClosed,
)

from ..redis_support import unique


@pytest.fixture(params=["redis", "memory"])
async def stores(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[list[EventStore]]:
    """Two writers of one store: two connections to one Redis, or one memory."""
    if request.param == "memory":
        memory = InMemoryEventStore()
        yield [memory, memory]
        return
    prefix = unique()
    pair = [RedisEventStore.from_url(redis_url, prefix=prefix) for _ in range(2)]
    try:
        yield list(pair)
    finally:
        for store in pair:
            await store.close()
        client = redis.Redis.from_url(redis_url)
        for key in list(client.scan_iter(match=f"{prefix}:*")):
            client.delete(key)
        client.close()


def send(store: EventStore, after: int, count: int, ids: str = "r") -> list[SentAppend]:
    """``count`` appends of two events each, sent one after another from version ``after``."""
    sent = []
    for n in range(count):
        expected = after + 2 * n
        one = store.send_append(
            "s", [NewEvent("E", {"n": n}), NewEvent("F")], expected, f"{ids}{n}"
        )
        assert one is not None
        sent.append(one)
    return sent


async def test_appends_sent_without_waiting_land_in_order_and_chain(
    stores: list[EventStore],
) -> None:
    store = stores[0]
    await store.append("s", [NewEvent("Start")], -1)  # the stream's head is known here now
    sent = send(store, 0, 20)
    results = [await one.result for one in sent]
    assert [(r.first_seq, r.last_seq) for r in results] == [
        (1 + 2 * n, 2 + 2 * n) for n in range(20)
    ]
    stored = await store.read("s")
    assert [e.seq for e in stored] == list(range(41))
    assert tuple(stored[1:]) == tuple(e for one in sent for e in one.events)
    assert (await store.verify("s")).ok


async def test_when_one_does_not_land_none_sent_after_it_does(stores: list[EventStore]) -> None:
    ours, theirs = stores
    await ours.append("s", [NewEvent("Start")], -1)
    sent = send(ours, 0, 2)
    await asyncio.gather(*(one.result for one in sent))
    await theirs.append("s", [NewEvent("Theirs")], 4)  # another writer takes version 5
    late = send(ours, 4, 5, "late")  # chained on each other, the first expecting 4
    outcomes = await asyncio.gather(*(one.result for one in late), return_exceptions=True)
    assert all(isinstance(outcome, ConcurrencyConflict) for outcome in outcomes)
    stored = await ours.read("s")
    assert [e.type for e in stored] == ["Start", "E", "F", "E", "F", "Theirs"]
    assert (await ours.verify("s")).ok


async def test_appends_sent_after_the_seal_do_not_land(stores: list[EventStore]) -> None:
    ours, theirs = stores
    await ours.append("s", [NewEvent("Start")], -1)
    seal = ours.send_append("s", [NewEvent("E"), NewEvent(CLOSING_TYPE)], 0, "seal")
    after = ours.send_append("s", [NewEvent("Late")], 2, "late")  # chained on the seal
    assert seal is not None and after is not None
    assert (await seal.result).last_seq == 2
    with pytest.raises(StreamClosed):
        await after.result
    with pytest.raises(StreamClosed):  # nor from another writer, sent or appended
        await theirs.append("s", [NewEvent("Late")], 2, "late-2")
    resent = theirs.send_append("s", [NewEvent("Late")], 2, "late-3")
    if resent is not None:  # a writer that does not know the head appends instead
        with pytest.raises(StreamClosed):
            await resent.result
    stored = await ours.read("s")
    assert [e.type for e in stored] == ["Start", "E", CLOSING_TYPE]
    assert (await ours.verify("s")).ok


async def test_a_script_redis_forgot_is_sent_again_in_order(redis_url: str) -> None:
    store = RedisEventStore.from_url(redis_url, prefix=unique())
    try:
        await store.append("s", [NewEvent("Start")], -1)
        client = redis.Redis.from_url(redis_url)
        client.script_flush()
        client.close()
        sent = send(store, 0, 5)
        results = await asyncio.gather(*(one.result for one in sent))
        assert [r.last_seq for r in results] == [2, 4, 6, 8, 10]
        assert (await store.verify("s")).ok
    finally:
        await store.close()


async def test_a_lost_connection_fails_every_append_still_waiting(redis_url: str) -> None:
    store = RedisEventStore.from_url(redis_url, prefix=unique())
    try:
        await store.append("s", [NewEvent("Start")], -1)
        sent = send(store, 0, 3)
        shared = store.connector.shared_connection
        assert shared is not None and shared._wire is not None
        shared._wire.abort(redis.ConnectionError("cut"))  # before the write left
        outcomes = await asyncio.gather(*(one.result for one in sent), return_exceptions=True)
        assert all(isinstance(outcome, EventStoreError) for outcome in outcomes)
        assert [e.type for e in await store.read("s")] == ["Start"]
        # the read connected again and learnt the head: appends are sent again
        again = store.send_append("s", [NewEvent("E")], 0, "again")
        assert again is not None and (await again.result).last_seq == 1
    finally:
        await store.close()
