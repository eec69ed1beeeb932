"""One shared reader of the global feed for the background workers: each follower gets
every event past where it started, in seq order per stream, once; a follower that fails
is held on that stream alone and given the event again, then what it missed."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import pytest

from eventstore import InMemoryEventStore, NewEvent, StoredEvent, StoreUnavailable
from service.app import following
from service.app.following import Follower, Resume, SharedFeed
from service.app.keyring import Keyring
from service.app.match import stream_of
from service.app.service import GameService, MatchOptions
from service.app.timers import TurnTimers


class Recorder:
    """A follower that notes what it takes; ``failing`` events raise until allowed."""

    pace = 0.01

    def __init__(self, name: str, start: Mapping[str, int] | None = None) -> None:
        self.name = name
        self.positions = dict(start or {})
        self.took: list[tuple[str, int]] = []
        self.failing: set[tuple[str, int]] = set()
        self.starts_failing = 0

    async def start(self) -> Resume:
        if self.starts_failing:
            self.starts_failing -= 1
            raise StoreUnavailable("not yet")
        return Resume(self.positions)

    async def take(self, event: StoredEvent) -> None:
        if (event.stream, event.seq) in self.failing:
            raise StoreUnavailable("down for a moment")
        self.took.append((event.stream, event.seq))

    def seqs(self, stream: str) -> list[int]:
        return [seq for name, seq in self.took if name == stream]


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(following, "RETRY_PAUSE", 0.05)


@pytest.fixture
async def store() -> AsyncIterator[InMemoryEventStore]:
    store = InMemoryEventStore()
    yield store
    await store.close()


async def append(store: InMemoryEventStore, stream: str, count: int) -> None:
    version = await store.version(stream)
    for n in range(count):
        await store.append(stream, [NewEvent("E", {})], version + n)


async def until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(10):  # a guard against a hang, not a time limit
        while not condition():
            await asyncio.sleep(0.01)


async def stopped(feed: SharedFeed, task: asyncio.Task[None]) -> None:
    feed.stop()
    await asyncio.wait_for(task, 5)


async def test_each_follower_gets_every_event_past_its_start_once_in_order(
    store: InMemoryEventStore,
) -> None:
    await append(store, "a", 4)
    await append(store, "b", 2)
    fresh = Recorder("fresh")  # from every stream's first event
    live = Recorder("live", {"a": 3, "b": 1})  # from where the streams are now
    midway = Recorder("midway", {"a": 1})  # b from its first event
    feed = SharedFeed(store, [fresh, live, midway])
    task = asyncio.create_task(feed.run())
    try:
        await append(store, "a", 2)
        await append(store, "c", 3)  # a stream none of them knew
        await append(store, "b", 1)
        await until(lambda: len(fresh.took) == 6 + 6)
        await until(lambda: len(live.took) == 6 and len(midway.took) == 10)
    finally:
        await stopped(feed, task)
    assert fresh.seqs("a") == [0, 1, 2, 3, 4, 5] and fresh.seqs("c") == [0, 1, 2]
    assert fresh.seqs("b") == [0, 1, 2]
    assert live.seqs("a") == [4, 5] and live.seqs("b") == [2] and live.seqs("c") == [0, 1, 2]
    assert midway.seqs("a") == [2, 3, 4, 5] and midway.seqs("b") == [0, 1, 2]
    assert feed.pace == 0.01


async def test_a_failing_follower_is_held_on_that_stream_alone_then_given_all_it_missed(
    store: InMemoryEventStore,
) -> None:
    await append(store, "a", 1)
    await append(store, "b", 1)
    flaky, steady = Recorder("flaky", {"a": 0, "b": 0}), Recorder("steady", {"a": 0, "b": 0})
    flaky.failing = {("a", 1)}
    feed = SharedFeed(store, [flaky, steady])
    task = asyncio.create_task(feed.run())
    try:
        await append(store, "a", 3)
        await append(store, "b", 2)
        # the other follower, and the failing one's other stream, go on meanwhile
        await until(lambda: len(steady.took) == 5 and flaky.seqs("b") == [1, 2])
        assert flaky.seqs("a") == []
        assert feed.held == {(0, "a")}
        flaky.failing.clear()  # it works again: the same event, then what it missed
        await until(lambda: not feed.held)
        await append(store, "a", 1)
        await until(lambda: flaky.seqs("a") == [1, 2, 3, 4])
    finally:
        await stopped(feed, task)
    assert steady.seqs("a") == [1, 2, 3, 4] and steady.seqs("b") == [1, 2]
    assert flaky.seqs("a") == [1, 2, 3, 4] and flaky.seqs("b") == [1, 2]


async def test_a_follower_that_cannot_start_is_started_again(store: InMemoryEventStore) -> None:
    await append(store, "a", 2)
    late = Recorder("late")
    late.starts_failing = 2
    feed = SharedFeed(store, [late])
    task = asyncio.create_task(feed.run())
    try:
        await until(lambda: late.seqs("a") == [0, 1])
    finally:
        await stopped(feed, task)


async def test_a_feed_read_that_fails_with_any_error_is_resumed(
    store: InMemoryEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only the store's own errors: a bug met once while reading (an entry that
    does not decode, say) must not leave the lease holder following nothing."""
    subscribe_all, failures = store.subscribe_all, [ValueError("a bug in the read")]

    def failing_once(*args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return subscribe_all(*args, **kwargs)

    monkeypatch.setattr(store, "subscribe_all", failing_once)
    follower = Recorder("follower")
    feed = SharedFeed(store, [follower])
    task = asyncio.create_task(feed.run())
    try:
        await append(store, "a", 2)
        await until(lambda: follower.seqs("a") == [0, 1])
    finally:
        await stopped(feed, task)
    assert not failures


async def test_a_held_follower_catches_up_page_by_page(
    store: InMemoryEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A follower held for long on a long stream is given what it missed from reads of
    a page each, not from one read of all of it."""
    monkeypatch.setattr(following, "CATCH_UP_PAGE", 3, raising=False)
    read, counts = store.read, []

    async def counted(stream: str, from_seq: int = 0, limit: int | None = None) -> Any:
        counts.append(limit)
        return await read(stream, from_seq, limit)

    monkeypatch.setattr(store, "read", counted)
    flaky, steady = Recorder("flaky"), Recorder("steady")
    flaky.failing = {("a", 0)}
    feed = SharedFeed(store, [flaky, steady])
    task = asyncio.create_task(feed.run())
    try:
        await append(store, "a", 8)
        await until(lambda: len(steady.took) == 8)
        flaky.failing.clear()
        await until(lambda: flaky.seqs("a") == list(range(8)))
    finally:
        await stopped(feed, task)
    assert counts and all(limit is not None and limit <= 3 for limit in counts)


async def test_stop_ends_a_feed_that_waits_for_events(store: InMemoryEventStore) -> None:
    feed = SharedFeed(store, [Recorder("idle")])
    task = asyncio.create_task(feed.run())
    await asyncio.sleep(0.1)  # started, waiting on the store
    feed.stop()
    await asyncio.wait_for(task, 2)  # not the store's 5 s wait


@contextlib.asynccontextmanager
async def timed_match_beside(
    store: InMemoryEventStore, follower: Follower
) -> AsyncIterator[tuple[SharedFeed, str]]:
    """A started match with a turn time limit whose seats never act, the turn timers
    following the feed after ``follower``: the feed, and the match's stream."""
    service = GameService(store, Keyring(secrets.token_bytes(32)))
    made = await service.create(MatchOptions("classic", 2, {}, turn_seconds=1.0))
    await service.start(made.match_id, made.host_token)
    timers = TurnTimers(service, tick=0.05)
    feed = SharedFeed(store, [follower, timers])
    tasks = [asyncio.create_task(timers.run()), asyncio.create_task(feed.run())]
    try:
        yield feed, stream_of(made.match_id)
    finally:
        timers.stop()
        feed.stop()
        await asyncio.wait(tasks, timeout=5)
        await service.fanout.close()


async def timed_out(store: InMemoryEventStore, stream: str, times: int) -> None:
    """Until the timers have timed out ``times`` turns."""
    async with asyncio.timeout(30):  # a guard against a hang, not a time limit
        while sum(event.type == "TurnTimedOut" for event in await store.read(stream)) < times:
            await asyncio.sleep(0.05)


async def test_a_follower_failing_on_every_event_never_stalls_a_turn_timer(
    store: InMemoryEventStore,
) -> None:
    """A follower (a projection with a bug, say) that raises on each event is held on
    its streams; the turn timers beside it still time out a seat that never acts."""

    class Broken(Recorder):
        async def take(self, event: StoredEvent) -> None:
            raise ValueError("a bug")

    async with timed_match_beside(store, Broken("broken")) as (feed, stream):
        await timed_out(store, stream, 1)
        assert (0, stream) in feed.held


class Stuck(Recorder):
    """A follower whose start fails (``fails``) or hangs until ``free`` is set."""

    def __init__(self, fails: bool) -> None:
        super().__init__("stuck")
        self.fails = fails
        self.free = asyncio.Event()

    async def start(self) -> Resume:
        if self.fails and not self.free.is_set():
            raise StoreUnavailable("a projection's catch-up that fails, say")
        await self.free.wait()
        return Resume({})


@pytest.mark.parametrize("fails", [True, False], ids=["start-fails", "start-hangs"])
async def test_a_follower_that_cannot_start_never_stalls_a_turn_timer(
    store: InMemoryEventStore, fails: bool
) -> None:
    """A follower whose start fails or never ends (a projection's catch-up of a long
    backlog, or one that meets an event it cannot apply) holds up none of the others:
    the turn timers beside it start and follow the feed, timing out turn after turn of
    a match whose seats never act; once it starts, it is given everything past its
    start, each event once, in order."""
    stuck = Stuck(fails)
    async with timed_match_beside(store, stuck) as (_, stream):
        # the second timeout's deadline comes from the first's event: the feed runs
        await timed_out(store, stream, 2)
        assert stuck.took == []
        stuck.free.set()  # it starts now: from every stream's first event
        version = await store.version(stream)
        await until(lambda: stuck.seqs(stream)[: version + 1] == list(range(version + 1)))
        await append(store, "other", 2)
        await until(lambda: stuck.seqs("other") == [0, 1])
    assert stuck.seqs(stream) == list(range(len(stuck.seqs(stream))))  # each once, in order
