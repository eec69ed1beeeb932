"""The in-memory store answers as Redis does: any sequence of appends (right and wrong
versions, repeated request ids, same and other fingerprints, refused input) gives the same
outcome on both, leaves the same events, the same index and chains that verify."""

from __future__ import annotations

import asyncio
from typing import Any

import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore import (
    AppendResult,
    ConcurrencyConflict,
    EventStore,
    InMemoryEventStore,
    InvalidEvent,
    NewEvent,
    RedisEventStore,
    RequestIdReused,
)

from ..redis_support import unique

appends = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c{bad}"]),
        st.lists(
            st.sampled_from([{"n": 1}, {"cards": [3, 4]}, {"x": None}, {"bad": float("nan")}]),
            min_size=0,
            max_size=3,
        ),
        st.one_of(st.just("current"), st.integers(-1, 4)),
        st.one_of(st.none(), st.sampled_from(["r0", "r1", "r2"])),
        st.sampled_from(["", "fp-a", "fp b"]),
    ),
    max_size=12,
)


async def outcome(store: EventStore, op: tuple[Any, ...]) -> tuple[Any, ...]:
    stream, datas, expected, request_id, fingerprint = op
    events = [NewEvent("E", data) for data in datas]
    try:
        if expected == "current":
            expected = await store.version(stream)
        result: AppendResult = await store.append(stream, events, expected, request_id, fingerprint)
    except ConcurrencyConflict as exc:
        return ("conflict", exc.actual_version)
    except RequestIdReused:
        return ("reused",)
    except InvalidEvent:
        return ("invalid",)
    return ("ok", result.first_seq, result.last_seq, result.duplicate, result.fingerprint)


async def stored(store: EventStore) -> list[tuple[Any, ...]]:
    out = []
    for stream in await store.streams(0, 100):
        for e in await store.read(stream):
            auto = e.request_id.startswith("auto-")
            out.append((e.stream, e.seq, e.type, e.data, None if auto else e.request_id))
        assert (await store.verify(stream)).ok
    return out


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=appends)
def test_any_appends_give_the_same_outcomes_as_on_redis(
    redis_url: str, ops: list[tuple[Any, ...]]
) -> None:
    prefix = unique()

    async def run() -> None:
        memory = InMemoryEventStore()
        on_redis = RedisEventStore.from_url(redis_url, prefix=prefix)
        try:
            for op in ops:
                assert await outcome(memory, op) == await outcome(on_redis, op), op
            assert await stored(memory) == await stored(on_redis)
            assert await memory.stream_count() == await on_redis.stream_count()
            for stream in ("a", "b"):
                for request_id in ("r0", "r1", "r2"):
                    assert await memory.request_result(stream, request_id) == (
                        await on_redis.request_result(stream, request_id)
                    )
        finally:
            await on_redis.close()
            await memory.close()

    try:
        asyncio.run(run())
    finally:
        client = redis.Redis.from_url(redis_url)
        for key in list(client.scan_iter(match=f"{prefix}:*")):
            client.delete(key)
        client.close()
