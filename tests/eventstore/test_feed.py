"""The Redis global feed: hints lost and made up by sweeps, and ``RedisCheckpoints`` (a
projection's writes and its checkpoint in one script). The feed's contract for every store
is in contract.py."""

from __future__ import annotations

import asyncio

import pytest

from eventstore import (
    CLOSING_TYPE,
    CheckpointGap,
    Closed,
    InMemoryArchive,
    InMemoryCheckpoints,
    NewEvent,
    RedisCheckpoints,
    RedisEventStore,
    StoredEvent,
    move_to_archive,
)

from .conftest import Backend
from .contract import append_n, by_stream


async def test_lost_hints_are_made_up_by_sweeps(store: RedisEventStore, backend: Backend) -> None:
    """Feed entries are only hints: with every hint lost, sweeps still find the events."""
    writer = backend.store(prefix=store.keys.prefix)
    writer.keys.feed = f"{store.keys.prefix}:{{__global__}}:elsewhere"  # hints go astray
    sub = store.subscribe_all(InMemoryCheckpoints(), block_ms=100, sweep_every=0.3)
    got: list[StoredEvent] = []

    async def consume() -> None:
        async for event in sub:
            got.append(event)
            if len(got) == 6:
                return

    task = asyncio.create_task(consume())
    try:
        await asyncio.sleep(0.1)
        for stream in ("h:1", "h:2"):
            for i in range(3):
                await writer.append(stream, [NewEvent("E", {})], i - 1)
        await asyncio.wait_for(task, 20)
    finally:
        await sub.aclose()
        await writer.close()
    assert by_stream(got) == {"h:1": [0, 1, 2], "h:2": [0, 1, 2]}
    assert sub.sweeps >= 2


async def test_a_paced_feed_reads_every_hinted_stream_in_order(store: RedisEventStore) -> None:
    """Between two paced reads of the feed many streams move, some by more than a page
    in one append (one hint): their pages come in one pipeline, and every event comes
    once, in order."""
    sub = store.subscribe_all(InMemoryCheckpoints(), block_ms=100, batch=4, pace=0.3)
    want = {f"p:{n}": 3 if n % 2 else 11 for n in range(6)}  # 11: past two pages of 4
    got: list[StoredEvent] = []

    async def consume() -> None:
        async for event in sub:
            got.append(event)
            if len(got) == sum(want.values()):
                return

    task = asyncio.create_task(consume())
    try:
        await asyncio.sleep(0.2)  # the sweep has run: what follows comes from the feed
        for stream, count in want.items():  # one append each: one hint each
            await store.append(stream, [NewEvent("E", {"n": n}) for n in range(count)], -1)
        await asyncio.wait_for(task, 20)
    finally:
        await sub.aclose()
    assert by_stream(got) == {stream: list(range(count)) for stream, count in want.items()}


async def project(
    store: RedisEventStore,
    checkpoints: RedisCheckpoints,
    until: dict[str, int],
    stop_after: int | None = None,
) -> int:
    """A projection counting events per stream and logging each (stream, seq) it applied,
    in one atomic step with its checkpoint. Returns how many it applied."""
    applied = 0
    done: set[str] = set()
    async with store.subscribe_all(checkpoints, block_ms=100, batch=5) as sub:
        async for event in sub:
            ok = await checkpoints.apply(
                event,
                [
                    ("HINCRBY", checkpoints.key("counts"), event.stream, 1),
                    ("RPUSH", checkpoints.key("log"), f"{event.stream}#{event.seq}"),
                ],
            )
            applied += ok
            if stop_after is not None and applied >= stop_after:
                await asyncio.sleep(3600)  # "crashes" here: the task gets cancelled
            if event.seq >= until.get(event.stream, 1 << 60):
                done.add(event.stream)
            if done == set(until):
                return applied
    return applied


async def test_restarted_projection_neither_skips_nor_double_applies(
    store: RedisEventStore, backend: Backend
) -> None:
    streams = {f"g:{i}": 30 for i in range(4)}
    checkpoints = RedisCheckpoints(store, "counter")

    async def writer() -> None:
        for round_ in range(30):
            for stream in streams:
                await store.append(stream, [NewEvent("E", {"r": round_})], round_ - 1)
            await asyncio.sleep(0.002)

    writing = asyncio.create_task(writer())
    until = {s: n - 1 for s, n in streams.items()}
    first = asyncio.create_task(project(store, checkpoints, until, stop_after=37))
    await asyncio.sleep(0.05)
    deadline = asyncio.get_running_loop().time() + 20
    while sum(v + 1 for v in (await checkpoints.positions()).values()) < 37:
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.01)
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    # a second instance, restarted from the checkpoints, while the writer goes on
    await asyncio.wait_for(project(store, checkpoints, until), 30)
    await writing

    client = backend.client_for(checkpoints.key("log"))
    try:
        log = [x.decode() for x in client.lrange(checkpoints.key("log"), 0, -1)]
        counts = {k.decode(): int(v) for k, v in client.hgetall(checkpoints.key("counts")).items()}
    finally:
        client.close()
    assert sorted(log) == sorted(f"{s}#{q}" for s, n in streams.items() for q in range(n))
    assert counts == streams
    assert await checkpoints.positions() == until


async def test_apply_is_guarded_by_the_checkpoint(store: RedisEventStore) -> None:
    await append_n(store, "a", 3)
    events = await store.read("a")
    cp = RedisCheckpoints(store, "guard")
    key = cp.key("n")
    assert await cp.apply(events[0], [("INCR", key)])
    assert not await cp.apply(events[0], [("INCR", key)])  # again: nothing done
    with pytest.raises(CheckpointGap):
        await cp.apply(events[2], [("INCR", key)])  # would skip seq 1
    assert await cp.apply(events[1], [])
    assert await cp.position("a") == 1
    with pytest.raises(ValueError):
        await cp.apply(events[2], [("INCR", "elsewhere")])  # not in the projection's slot
    client = await store.raw_client()
    assert int(await client.execute_command("GET", key)) == 1
    # commit only moves forward
    assert await cp.commit("a", 2)
    assert not await cp.commit("a", 0)
    assert await cp.positions() == {"a": 2}
    await cp.reset()
    assert await cp.positions() == {}


async def test_two_projection_instances_apply_each_event_once(store: RedisEventStore) -> None:
    for s in ("d:1", "d:2"):
        await append_n(store, s, 20)
    cp = RedisCheckpoints(store, "twins")
    until = {"d:1": 19, "d:2": 19}
    a, b = await asyncio.gather(project(store, cp, until), project(store, cp, until))
    assert a + b == 40
    client = await store.raw_client()
    log = await client.execute_command("LRANGE", cp.key("log"), 0, -1)
    assert sorted(log) == sorted(f"{s}#{q}".encode() for s in until for q in range(20))


async def test_in_memory_checkpoints() -> None:
    cp = InMemoryCheckpoints()
    assert cp.position("x") == -1
    assert cp.commit("x", 3)
    assert not cp.commit("x", 2)
    assert await cp.positions() == {"x": 3}


async def test_apply_or_defer_writes_only_events_with_ops_and_keeps_exactly_once(
    store: RedisEventStore,
) -> None:
    await append_n(store, "d", 6)
    events = await store.read("d")
    ops_of = {2: 1, 5: 1}  # only seqs 2 and 5 change the projection
    first = RedisCheckpoints(store, "defer")
    key = first.key("n")
    for event in events[:4]:
        await first.apply_or_defer(event, [("INCR", key)] if event.seq in ops_of else [])
    assert await first.position("d") == 2  # seq 3 needed nothing: not written yet
    # a second replica (or a restart) going over every event again applies only seq 5
    second = RedisCheckpoints(store, "defer")
    applied = [
        await second.apply_or_defer(event, [("INCR", key)] if event.seq in ops_of else [])
        for event in events
    ]
    assert applied == [True, True, False, True, True, True]
    assert await second.position("d") == 5
    # the first one, delivered everything again from seq 0 (a restart), applies nothing twice
    for event in events:
        await first.apply_or_defer(event, [("INCR", key)] if event.seq in ops_of else [])
    client = await store.raw_client()
    assert int(await client.execute_command("GET", key)) == 2
    # an event with ops after a gap the caller never saw is refused
    third = RedisCheckpoints(store, "defer-gap")
    with pytest.raises(CheckpointGap):
        await third.apply_or_defer(events[1], [("INCR", third.key("n"))])


async def test_apply_or_defer_that_fails_keeps_what_it_deferred_for_the_retry(
    store: RedisEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seqs 0 and 1 deferred, seq 2's write fails (Redis away for a moment): the same
    event again moves the checkpoint over all three, with no gap refused."""
    from eventstore import StoreUnavailable, feed

    await append_n(store, "r", 3)
    events = await store.read("r")
    checkpoints = RedisCheckpoints(store, "retry")
    key = checkpoints.key("n")
    for event in events[:2]:
        await checkpoints.apply_or_defer(event, [])
    real_apply = feed.APPLY

    class Down:
        async def run(self, *args: object) -> object:
            raise StoreUnavailable("down for a moment")

    monkeypatch.setattr(feed, "APPLY", Down())
    with pytest.raises(StoreUnavailable):
        await checkpoints.apply_or_defer(events[2], [("INCR", key)])
    monkeypatch.setattr(feed, "APPLY", real_apply)
    assert await checkpoints.apply_or_defer(events[2], [("INCR", key)])
    assert await checkpoints.position("r") == 2
    client = await store.raw_client()
    assert int(await client.execute_command("GET", key)) == 1


async def test_events_passed_without_a_write_are_committed_and_not_read_again(
    store: RedisEventStore,
) -> None:
    """A stream that ends with events its projection passed (a finished match, for the
    results) is committed to its end: a restart's catch-up reads none of it again, and
    nothing of it is remembered."""
    await append_n(store, "p", 4)
    events = await store.read("p")
    checkpoints = RedisCheckpoints(store, "passed")
    key = checkpoints.key("n")
    for event in events:
        await checkpoints.apply_or_defer(event, [("INCR", key)] if event.seq == 1 else [])
    assert await checkpoints.position("p") == 1
    await checkpoints.commit_passed()
    assert await checkpoints.position("p") == 3
    assert checkpoints._deferred == {}
    restarted = RedisCheckpoints(store, "passed")
    async with store.subscribe_all(restarted, live=False) as feed:
        assert [event async for event in feed] == []


async def test_a_commit_of_passed_events_never_skips_one_not_applied(
    store: RedisEventStore,
) -> None:
    await append_n(store, "g", 4)
    events = await store.read("g")
    checkpoints = RedisCheckpoints(store, "gap")
    key = checkpoints.key("n")
    await checkpoints.apply(events[0], [("INCR", key)])
    for event in events[2:]:  # seq 1 never given: 2 and 3 passed
        await checkpoints.apply_or_defer(event, [])
    await checkpoints.commit_passed()
    assert await checkpoints.position("g") == 0
    # nor moves one back, or over an event applied meanwhile by another replica
    other = RedisCheckpoints(store, "gap")
    for event in events[1:]:
        await other.apply_or_defer(event, [("INCR", key)])
    for event in events[1:3]:
        await checkpoints.apply_or_defer(event, [])
    await checkpoints.commit_passed()
    assert await checkpoints.position("g") == 3


async def test_passed_events_are_committed_as_they_come_every_while(
    store: RedisEventStore,
) -> None:
    await append_n(store, "w", 3)
    events = await store.read("w")
    checkpoints = RedisCheckpoints(store, "every", pass_every=0.0)
    for event in events:
        await checkpoints.apply_or_defer(event, [])
        assert await checkpoints.position("w") == event.seq


async def test_a_sealed_stream_a_crash_left_in_the_index_is_closed_by_a_sweep(
    store: RedisEventStore,
) -> None:
    """On a cluster the close (index to close log) follows the seal in another slot: a
    crash between leaves the sealed stream in the index, and a sweep closes it."""
    await store.append("c:1", [NewEvent("E", {})], -1)
    await store.append("c:2", [NewEvent("E", {}), NewEvent(CLOSING_TYPE, {})], -1)
    [number] = await store.close_numbers(["c:2"])
    keys = store.keys
    await store.connector.execute("ZREM", keys.close_log, "c:2")  # as the crash left it
    await store.connector.execute("ZADD", keys.index, 99, "c:2")
    assert await store.streams() == ["c:1", "c:2"] and await store.closed_since(0) == []
    async with store.subscribe_all(InMemoryCheckpoints(), live=False) as feed:
        got = [event async for event in feed]
    assert by_stream(got) == {"c:1": [0], "c:2": [0, 1]}  # each event once
    assert await store.streams() == ["c:1"]
    [closed] = await store.closed_since(0)
    assert (closed.stream, closed.last_seq) == ("c:2", 1) and closed.number > number


async def test_a_sweep_never_reads_a_stream_from_the_archive(
    store: RedisEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The close log read, then a stream in it archived before the sweep reached it (the
    archiver moves only what every follower retired, and forgetting it may drop its
    position meanwhile): the sweep reads only the store, so it is not given again."""
    await store.append("a:1", [NewEvent("E", {}), NewEvent(CLOSING_TYPE, {})], -1)
    stale = await store.closed_since(0)
    archive = InMemoryArchive()
    store.use_archive(archive)
    await move_to_archive(store, archive, "a:1")
    assert [event.seq for event in await store.read("a:1")] == [0, 1]  # readers see it

    async def as_read_before(after: int, limit: int = 500) -> list[Closed]:
        return stale if after == 0 else []

    monkeypatch.setattr(store, "closed_since", as_read_before)
    async with store.subscribe_all(InMemoryCheckpoints(), live=False) as feed:
        assert [event async for event in feed] == []
