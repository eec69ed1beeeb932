"""The event store contract: one abstract test case per capability of ``EventStore``,
run against every store by one subclass per store (test_contract.py), in the manner of
pyeventsourcing's recorder test cases.

A case asks its subclass for a ``recorder``: what makes stores of one kind, each kept
apart from every other test's data, and "another client" of a store's data (a second
process on the same Redis; a second store sharing the same memory).
"""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from collections.abc import AsyncIterator
from typing import Any

import pytest

from eventstore import (
    CLOSING_TYPE,
    GENESIS_HASH,
    AppendResult,
    Closed,
    ConcurrencyConflict,
    EventStore,
    EventStoreError,
    InMemoryCheckpoints,
    InMemoryEventStore,
    InvalidEvent,
    NewEvent,
    RedisEventStore,
    RequestIdReused,
    StoredEvent,
    StreamClosed,
    Upcasters,
    recompute_hash,
)
from eventstore import fanout as fanout_module
from eventstore.fanout import Fanout, ListenerTooSlow
from eventstore.overlap import appender

from .conftest import Backend

# --- helpers -------------------------------------------------------------------------------


def ev(type_: str = "Tick", **data: Any) -> NewEvent:
    return NewEvent(type_, data)


async def fill(store: EventStore, stream: str, n: int, batch: int = 1) -> None:
    version = await store.version(stream)
    i = version + 1
    while i < n:
        events = [ev(i=j) for j in range(i, min(n, i + batch))]
        version = (await store.append(stream, events, version)).last_seq
        i = version + 1


def seqs(events: list[StoredEvent]) -> list[int]:
    return [e.seq for e in events]


async def collect(sub: Any, until_seq: int, timeout: float = 20.0) -> list[StoredEvent]:
    out: list[StoredEvent] = []

    async def run() -> None:
        async for event in sub:
            out.append(event)
            if event.seq >= until_seq:
                return

    await asyncio.wait_for(run(), timeout)
    return out


async def flat(batches: AsyncIterator[list[StoredEvent]]) -> AsyncIterator[StoredEvent]:
    async for batch in batches:
        assert batch
        for event in batch:
            yield event


def by_stream(events: list[StoredEvent]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for e in events:
        out[e.stream].append(e.seq)
    return dict(out)


async def append_n(store: EventStore, stream: str, n: int) -> None:
    version = await store.version(stream)
    for _ in range(n):
        version = (
            await store.append(stream, [NewEvent("E", {"v": version + 1})], version)
        ).last_seq


# --- the stores ----------------------------------------------------------------------------


class Recorder:
    """Makes the stores of one kind for one test, and closes them after it."""

    def __init__(self) -> None:
        self.made: list[EventStore] = []

    def store(self, upcasters: Upcasters | None = None) -> EventStore:
        """A store of its own data."""
        raise NotImplementedError

    def sharing(self, store: EventStore, upcasters: Upcasters | None = None) -> EventStore:
        """Another store over ``store``'s data (as another process would see it)."""
        raise NotImplementedError

    def _made(self, store: EventStore) -> EventStore:
        self.made.append(store)
        return store

    async def close(self) -> None:
        for store in self.made:
            await store.close()


class MemoryRecorder(Recorder):
    def store(self, upcasters: Upcasters | None = None) -> EventStore:
        return self._made(InMemoryEventStore(upcasters=upcasters))

    def sharing(self, store: EventStore, upcasters: Upcasters | None = None) -> EventStore:
        assert isinstance(store, InMemoryEventStore)
        return self._made(store.sharing(upcasters=upcasters))


class RedisRecorder(Recorder):
    def __init__(self, backend: Backend) -> None:
        super().__init__()
        self.backend = backend

    def store(self, upcasters: Upcasters | None = None) -> EventStore:
        return self._made(self.backend.store(upcasters=upcasters))

    def sharing(self, store: EventStore, upcasters: Upcasters | None = None) -> EventStore:
        assert isinstance(store, RedisEventStore)
        return self._made(self.backend.store(prefix=store.keys.prefix, upcasters=upcasters))


class InMemory:
    @pytest.fixture
    async def recorder(self) -> AsyncIterator[Recorder]:
        recorder = MemoryRecorder()
        yield recorder
        await recorder.close()


class SingleRedis:
    @pytest.fixture
    async def recorder(self, redis_url: str) -> AsyncIterator[Recorder]:
        backend = Backend("single", redis_url, False)
        recorder = RedisRecorder(backend)
        yield recorder
        await recorder.close()
        backend.cleanup()


class ClusterRedis:
    @pytest.fixture
    async def recorder(self, cluster_url: str) -> AsyncIterator[Recorder]:
        backend = Backend("cluster", cluster_url, True)
        recorder = RedisRecorder(backend)
        yield recorder
        await recorder.close()
        backend.cleanup()


class StoreCase:
    """What every case has: a ``store`` of the subclass's kind."""

    @pytest.fixture
    def store(self, recorder: Recorder) -> EventStore:
        return recorder.store()


# --- the cases -----------------------------------------------------------------------------


class AppendCase(StoreCase):
    async def test_append_read_roundtrip(self, store: EventStore) -> None:
        first = await store.append(
            "m:1",
            [
                NewEvent("Started", {"players": 4, "name": "テスト"}),
                NewEvent("Dealt", {"h": [[1, 2]]}),
            ],
            -1,
            "req-1",
        )
        assert first == AppendResult(0, 1, False)
        assert await store.version("m:1") == 1
        second = await store.append("m:1", [NewEvent("Played", {"x": None, "ok": True}, 2)], 1)
        assert second == AppendResult(2, 2, False)
        events = await store.read("m:1")
        assert seqs(events) == [0, 1, 2]
        e0, e1, e2 = events
        assert (e0.stream, e0.type, e0.schema, e0.data) == (
            "m:1",
            "Started",
            1,
            {"players": 4, "name": "テスト"},
        )
        assert e1.data == {"h": [[1, 2]]} and e0.request_id == e1.request_id == "req-1"
        assert e2.schema == 2 and e2.request_id and e2.request_id != "req-1"
        assert e0.prev_hash == GENESIS_HASH
        assert e1.prev_hash == e0.hash and e2.prev_hash == e1.hash
        assert all(recompute_hash(e) == e.hash for e in events)
        assert e0.at == e1.at and e0.at > 1_600_000_000_000

    async def test_an_append_returns_the_events_as_stored(self, store: EventStore) -> None:
        result = await store.append("as", [ev(n=1), NewEvent("T", {"t": (1, 2)})], -1)
        stored = await store.read("as")
        assert [(e.seq, e.type, e.hash, e.prev_hash, e.at) for e in result.events] == [
            (e.seq, e.type, e.hash, e.prev_hash, e.at) for e in stored
        ]
        assert stored[1].data == {"t": [1, 2]}  # tuples are stored (and read) as lists

    async def test_what_a_reader_changes_is_not_stored(self, store: EventStore) -> None:
        await store.append("copy", [ev(cards=[1, 2])], -1)
        (first,) = await store.read("copy")
        first.data["cards"].append(99)
        (again,) = await store.read("copy")
        assert again.data == {"cards": [1, 2]}
        assert (await store.verify("copy")).ok

    async def test_empty_stream_and_bad_input(self, store: EventStore) -> None:
        assert await store.version("nothing") == -1
        assert await store.read("nothing") == []
        bad: list[tuple[Any, ...]] = [
            ("s", [], -1),
            ("s", [ev()], -2),
            ("s", [ev()], "0"),
            ("bad{id}", [ev()], -1),
            ("", [ev()], -1),
            ("s", [NewEvent("T", {1: "int key"})], -1),  # type: ignore[dict-item]
            ("s", [NewEvent("T", {"x": float("nan")})], -1),
            ("s", [NewEvent("T", {"x": {1, 2}})], -1),
            ("s", [NewEvent("T", {"x": 2**70})], -1),
            ("s", [NewEvent("", {})], -1),
            ("s", [NewEvent("T", {}, 0)], -1),
            ("s", [{"type": "T"}], -1),
            ("s", [ev()], -1, ""),
            ("s", [ev()], -1, 5),
            ("s", [ev()], -1, "r", None),
        ]
        for args in bad:
            with pytest.raises(InvalidEvent):
                await store.append(*args)
        with pytest.raises(InvalidEvent):
            await store.read("bad{id}")
        with pytest.raises(InvalidEvent):
            await store.version("bad}")
        assert await store.version("s") == -1
        assert await store.streams() == []

    async def test_read_pages(self, store: EventStore) -> None:
        await fill(store, "p", 25, batch=7)
        assert seqs(await store.read("p", 10, 5)) == [10, 11, 12, 13, 14]
        assert seqs(await store.read("p", 20)) == [20, 21, 22, 23, 24]
        assert seqs(await store.read("p", -3, 2)) == [0, 1]
        assert await store.read("p", 25) == []
        assert await store.read("p", 0, 0) == []
        pages = [seqs(page) async for page in store.read_pages("p", 3, page_size=10)]
        assert pages == [list(range(3, 13)), list(range(13, 23)), [23, 24]]
        assert [page async for page in store.read_pages("p", 25)] == []

    async def test_conflict_carries_actual_version_and_writes_nothing(
        self, store: EventStore
    ) -> None:
        await store.append("c", [ev(), ev()], -1)
        for expected in (-1, 0, 2, 7):
            with pytest.raises(ConcurrencyConflict) as info:
                await store.append("c", [ev(bad=True)], expected)
            assert info.value.actual_version == 1
            assert info.value.expected_version == expected
            assert info.value.stream == "c"
        assert await store.version("c") == 1
        assert all("bad" not in e.data for e in await store.read("c"))

    async def test_twenty_writers_race_exactly_one_wins_each_version(
        self, recorder: Recorder
    ) -> None:
        first = recorder.store()
        writers = [first] + [recorder.sharing(first) for _ in range(19)]
        for version in range(-1, 6):

            async def attempt(i: int, v: int = version) -> AppendResult | int:
                try:
                    return await writers[i].append("race", [ev(writer=i, v=v)], v)
                except ConcurrencyConflict as exc:
                    return exc.actual_version

            outcomes = await asyncio.gather(*(attempt(i) for i in range(20)))
            wins = [o for o in outcomes if isinstance(o, AppendResult)]
            assert len(wins) == 1, outcomes
            assert wins[0] == AppendResult(version + 1, version + 1, False)
            assert [o for o in outcomes if not isinstance(o, AppendResult)] == [version + 1] * 19
        events = await first.read("race")
        assert seqs(events) == list(range(7))
        assert (await first.verify("race")).ok

    async def test_twenty_writers_retrying_land_every_event_once(self, recorder: Recorder) -> None:
        first = recorder.store()
        writers = [first] + [recorder.sharing(first) for _ in range(19)]
        per_writer = 4

        async def writer(i: int) -> None:
            store = writers[i]
            version = await store.version("busy")
            for k in range(per_writer):
                while True:
                    try:
                        result = await store.append(
                            "busy", [ev(writer=i, k=k)], version, request_id=f"w{i}-{k}"
                        )
                        version = result.last_seq
                        break
                    except ConcurrencyConflict as exc:
                        version = exc.actual_version
                await asyncio.sleep(0)

        await asyncio.gather(*(writer(i) for i in range(20)))
        events = await first.read("busy")
        assert seqs(events) == list(range(20 * per_writer))
        assert sorted((e.data["writer"], e.data["k"]) for e in events) == [
            (i, k) for i in range(20) for k in range(per_writer)
        ]
        assert (await first.verify("busy")).ok


class OverlapCase(StoreCase):
    """The append with work on its events (eventstore/overlap.py): overlapped with the
    round trip where the store can, else after it; the same to its caller either way."""

    async def test_meanwhile_is_given_the_events_as_they_will_be_stored(
        self, store: EventStore
    ) -> None:
        given: list[tuple[StoredEvent, ...]] = []
        append = appender(store)
        result = await append("mean", [ev(n=1), ev(n=2)], -1, "r-1", "", given.append)
        assert given == [result.events]
        stored = await store.read("mean")
        assert [(e.seq, e.hash, e.at) for e in given[0]] == [(e.seq, e.hash, e.at) for e in stored]
        # what is not written is given too: only the result says what was stored
        with pytest.raises(ConcurrencyConflict):
            await append("mean", [ev(n=3)], 0, None, "", given.append)
        again = await append("mean", [ev(n=1), ev(n=2)], -1, "r-1", "", given.append)
        assert again == AppendResult(0, 1, True) and again.events == ()
        assert len(given) <= 3 and all(batch != again.events for batch in given)
        assert seqs(await store.read("mean")) == [0, 1]

    async def test_a_store_that_cannot_overlap_does_the_work_after_its_append(
        self, store: EventStore
    ) -> None:
        given: list[tuple[StoredEvent, ...]] = []
        append = appender(PortOnly(store))
        result = await append("after", [ev(n=1)], -1, "r-1", "", given.append)
        assert given == [result.events] and seqs(await store.read("after")) == [0]
        with pytest.raises(ConcurrencyConflict):
            await append("after", [ev(n=2)], -1, None, "", given.append)
        again = await append("after", [ev(n=1)], -1, "r-1", "", given.append)
        assert again.duplicate and given == [result.events]  # only what was stored


class PortOnly:
    """A store as the port alone has it: its append, without an overlapped one."""

    def __init__(self, store: EventStore) -> None:
        self.append = store.append


class RequestIdCase(StoreCase):
    async def test_same_request_id_returns_first_result_and_writes_nothing(
        self, store: EventStore
    ) -> None:
        first = await store.append("r", [ev(n=1), ev(n=2)], -1, "cmd-1")
        await store.append("r", [ev(n=3)], 1, "cmd-2")
        again = await store.append("r", [ev(n=1), ev(n=2)], -1, "cmd-1")
        assert again == AppendResult(0, 1, True) and again.events == ()
        # whatever the expected version or the events: the first outcome, nothing written
        assert await store.append("r", [ev(other=True)], 2, "cmd-1") == AppendResult(0, 1, True)
        assert await store.append("r", [ev()], 99, "cmd-2") == AppendResult(2, 2, True)
        assert first == AppendResult(0, 1, False)
        assert await store.version("r") == 2
        assert await store.request_result("r", "cmd-1") == AppendResult(0, 1, True)
        assert await store.request_result("r", "cmd-2") == AppendResult(2, 2, True)
        assert await store.request_result("r", "never") is None
        assert await store.request_result("no-such-stream", "cmd-1") is None
        # request ids are per stream
        assert await store.append("other", [ev()], -1, "cmd-1") == AppendResult(0, 0, False)

    async def test_a_retry_with_the_same_fingerprint_is_the_first_append(
        self, store: EventStore
    ) -> None:
        first = await store.append("f", [ev(n=1)], -1, "cmd", fingerprint="seat 1: pass")
        assert first == AppendResult(0, 0, False, fingerprint="seat 1: pass")
        await store.append("f", [ev(n=2)], 0)
        again = await store.append("f", [ev(n=1)], 0, "cmd", fingerprint="seat 1: pass")
        assert again == AppendResult(0, 0, True, fingerprint="seat 1: pass")
        assert await store.version("f") == 1
        assert await store.request_result("f", "cmd") == AppendResult(
            0, 0, True, fingerprint="seat 1: pass"
        )

    async def test_a_request_id_reused_for_another_request_is_refused(
        self, store: EventStore
    ) -> None:
        await store.append("f", [ev(n=1)], -1, "cmd", fingerprint="seat 1: pass")
        await store.append("f", [ev(n=2)], 0, "plain")  # no fingerprint: ""
        for request_id, other in [("cmd", "seat 2: pass"), ("cmd", ""), ("plain", "x")]:
            for expected in (0, 1, 5):  # refused whatever the version is
                with pytest.raises(RequestIdReused) as info:
                    await store.append("f", [ev(bad=True)], expected, request_id, other)
                assert (info.value.stream, info.value.request_id) == ("f", request_id)
                assert isinstance(info.value, EventStoreError)
        assert await store.version("f") == 1
        assert all("bad" not in e.data for e in await store.read("f"))
        assert await store.request_result("f", "cmd") == AppendResult(
            0, 0, True, fingerprint="seat 1: pass"
        )
        assert await store.request_result("f", "plain") == AppendResult(1, 1, True)
        # fingerprints are per request id and stream, like the ids
        assert (await store.append("g", [ev()], -1, "cmd", "seat 2: pass")).last_seq == 0

    async def test_unstorable_events_are_refused_under_a_used_request_id(
        self, recorder: Recorder
    ) -> None:
        store = recorder.store()
        await store.append("u", [ev()], -1, "cmd")
        for writer in (store, recorder.sharing(store)):  # knowing the head, and not
            with pytest.raises(InvalidEvent):
                await writer.append("u", [NewEvent("T", {"x": float("nan")})], 0, "cmd")
        assert await store.version("u") == 0

    async def test_a_fingerprint_may_hold_any_text(self, store: EventStore) -> None:
        odd = "play 3S 4S  jokers: 大富豪 \n tab\t"
        await store.append("t", [ev()], -1, "r", odd)
        assert (await store.request_result("t", "r")) == AppendResult(0, 0, True, fingerprint=odd)
        assert (await store.append("t", [ev()], 0, "r", odd)).duplicate
        with pytest.raises(RequestIdReused):
            await store.append("t", [ev()], 0, "r", odd.strip())


class SealCase(StoreCase):
    """The seal (CLOSING_TYPE) is a stream's final append: the store refuses any after it."""

    async def test_nothing_is_appended_after_the_seal(self, recorder: Recorder) -> None:
        store = recorder.store()
        await store.append("m", [ev(n=0), ev(n=1)], -1, "play")
        sealed = await store.append("m", [ev(n=2), ev(CLOSING_TYPE)], 1, "seal", "fp")
        assert sealed.last_seq == 3
        # refused from this writer, from another that does not know the head, whatever
        # version it expects, under a request id never used
        for writer in (store, recorder.sharing(store)):
            for expected in (3, 2, -1, 9):
                with pytest.raises(StreamClosed) as info:
                    await writer.append("m", [ev(late=True)], expected, f"late-{expected}")
                assert (info.value.stream, info.value.version) == ("m", 3)
                assert isinstance(info.value, EventStoreError)
            with pytest.raises(StreamClosed):  # a second seal is an append after the seal
                await writer.append("m", [ev(CLOSING_TYPE)], 3, "seal-again")
        # a retry of the seal itself is that first append, as every retry is
        again = await store.append("m", [ev(n=2), ev(CLOSING_TYPE)], 1, "seal", "fp")
        assert again == AppendResult(2, 3, True, fingerprint="fp")
        with pytest.raises(RequestIdReused):
            await store.append("m", [ev(CLOSING_TYPE)], 3, "seal", "other")
        assert await store.version("m") == 3
        assert [e.type for e in await store.read("m")][-1] == CLOSING_TYPE
        assert all("late" not in e.data for e in await store.read("m"))
        assert await store.request_result("m", "late-3") is None
        assert (await store.verify("m")).ok
        # other streams are not closed by it
        assert (await store.append("n", [ev()], -1, "play")).last_seq == 0

    async def test_a_stream_whose_first_append_is_its_seal_is_closed(
        self, store: EventStore
    ) -> None:
        await store.append("s", [ev(CLOSING_TYPE)], -1)
        with pytest.raises(StreamClosed):
            await store.append("s", [ev()], 0)

    async def test_the_seal_ends_its_append(self, store: EventStore) -> None:
        with pytest.raises(InvalidEvent):
            await store.append("x", [ev(CLOSING_TYPE), ev(n=1)], -1)
        assert await store.version("x") == -1
        await store.append("x", [ev(n=0)], -1)  # the stream stays open
        assert (await store.append("x", [ev(n=1)], 0)).last_seq == 1


class SubscriptionCase(StoreCase):
    async def test_subscribe_catches_up_then_follows_live(self, store: EventStore) -> None:
        await fill(store, "live", 30, batch=4)

        async def writer() -> None:
            for _ in range(30):
                await asyncio.sleep(0.002)
                v = await store.version("live")
                await store.append("live", [ev(), ev()], v)

        task = asyncio.create_task(writer())
        async with store.subscribe("live", 5, block_ms=200) as sub:
            got = await collect(sub, 89)
        await task
        assert seqs(got) == list(range(5, 90))
        assert got[0].prev_hash == (await store.read("live", 4, 1))[0].hash
        assert sub.last_seq == 89

    async def test_subscriber_killed_and_restarted_misses_nothing(self, store: EventStore) -> None:
        total = 200
        seen: list[int] = []

        async def writer() -> None:
            version = -1
            for i in range(0, total, 4):
                version = (
                    await store.append("k", [ev(i=j) for j in range(i, i + 4)], version)
                ).last_seq
                await asyncio.sleep(0.001)

        async def subscriber(from_seq: int, stop_after: int | None) -> None:
            async with store.subscribe("k", from_seq, block_ms=200, batch=7) as sub:
                async for event in sub:
                    seen.append(event.seq)
                    if stop_after is not None and len(seen) >= stop_after:
                        await asyncio.sleep(3600)  # stuck mid-stream until killed
                    if event.seq == total - 1:
                        return

        writing = asyncio.create_task(writer())
        first = asyncio.create_task(subscriber(0, stop_after=57))
        while len(seen) < 57:
            await asyncio.sleep(0.005)
        first.cancel()  # killed
        with pytest.raises(asyncio.CancelledError):
            await first
        await asyncio.wait_for(subscriber(seen[-1] + 1, None), 20)
        await writing
        assert seen == list(range(total))

    async def test_next_batch_waits_then_gives_what_came(self, store: EventStore) -> None:
        await fill(store, "nb", 3)
        sub = store.subscribe("nb", 1, batch=10, block_ms=50)
        assert seqs(await sub.next_batch()) == [1, 2]
        assert await sub.next_batch() == []  # nothing came within block_ms
        waiting = asyncio.create_task(sub.next_batch())
        await asyncio.sleep(0.01)
        await store.append("nb", [ev(), ev()], 2)
        deadline = asyncio.get_running_loop().time() + 20
        got: list[StoredEvent] = await waiting
        while len(got) < 2:
            assert asyncio.get_running_loop().time() < deadline
            got += await sub.next_batch()
        assert seqs(got) == [3, 4] and sub.last_seq == 4
        await sub.aclose()
        assert await sub.next_batch() == []

    async def test_closing_ends_a_waiting_subscription(self, store: EventStore) -> None:
        sub = store.subscribe("quiet", 0, block_ms=60_000)

        async def consume() -> list[StoredEvent]:
            return [event async for event in sub]

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.1)
        await sub.aclose()
        assert await asyncio.wait_for(task, 20) == []

    async def test_closing_while_the_connection_opens_ends_the_subscription(
        self, store: EventStore
    ) -> None:
        # closed at each step of opening its blocking connection: never left waiting
        for steps in range(12):
            sub = store.subscribe("quiet", 0, block_ms=60_000)
            task = asyncio.create_task(sub.next_batch())
            for _ in range(steps):
                await asyncio.sleep(0)
            await sub.aclose()
            assert await asyncio.wait_for(task, 20) == []

    async def test_a_subscriber_sees_another_writer(self, recorder: Recorder) -> None:
        reader = recorder.store()
        writer = recorder.sharing(reader)
        sub = reader.subscribe("x", 0, block_ms=200)

        async def write() -> None:
            for i in range(20):
                await writer.append("x", [ev(i=i)], i - 1)
                await asyncio.sleep(0.002)

        task = asyncio.create_task(write())
        try:
            got = await collect(sub, 19)
        finally:
            await sub.aclose()
        await task
        assert [e.data["i"] for e in got] == list(range(20))


class FanoutCase(StoreCase):
    async def test_listeners_joining_at_any_time_get_every_event_once(
        self, store: EventStore
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

    async def test_listeners_of_a_stream_share_one_subscription(self, store: EventStore) -> None:
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
        self, store: EventStore, monkeypatch: pytest.MonkeyPatch
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

    async def test_its_own_appends_are_handed_over_with_no_read(
        self, store: EventStore, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        fanout = Fanout(store, check_every=600.0)  # no look every so often meanwhile
        await fill(store, "own", 2)
        reads: list[int] = []
        real_read = store.read

        async def counted(stream: str, from_seq: int = 0, limit: int | None = None) -> Any:
            reads.append(from_seq)
            return await real_read(stream, from_seq, limit)

        async with fanout.listen("own", 2) as batches:
            await fanout._streams["own"].started  # a follower still starting looks once
            monkeypatch.setattr(store, "read", counted)
            events = flat(batches)
            for version in range(1, 6):
                with fanout.appending("own"):
                    appended = await store.append("own", [ev(), ev()], version * 2 - 1)
                    fanout.appended("own", appended.events)
                got = await collect(events, version * 2 + 1)
                assert seqs(got) == [version * 2, version * 2 + 1]
                await asyncio.sleep(0.02)  # its hint comes too: it reads nothing for it
        monkeypatch.undo()
        await fanout.close()
        assert reads == [], reads

    async def test_a_missing_hint_is_made_up_by_a_look_every_so_often(
        self, store: EventStore, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """No hint ever comes (on a cluster one can be lost): a look at each followed
        stream every ``check_every`` seconds still finds its new events."""

        class Silent:
            async def start(self) -> None:
                pass

            async def next(self) -> dict[str, int] | None:
                await asyncio.sleep(0.05)
                return {}

            async def aclose(self) -> None:
                pass

        monkeypatch.setattr(store, "hints", lambda block_ms: Silent())
        fanout = Fanout(store, block_ms=50, check_every=0.2)
        await fill(store, "quiet", 1)
        async with fanout.listen("quiet", 0) as batches:
            await store.append("quiet", [ev(), ev()], 0)
            assert seqs(await collect(flat(batches), 2, timeout=5)) == [0, 1, 2]
        await fanout.close()


class FeedCase(StoreCase):
    async def test_catch_up_delivers_every_stream_in_order(self, store: EventStore) -> None:
        sizes = {"m:1": 5, "m:2": 1, "m:3": 12, "m:4": 3}
        for stream, n in sizes.items():
            await append_n(store, stream, n)
        got = [e async for e in store.subscribe_all(InMemoryCheckpoints(), live=False, batch=4)]
        assert by_stream(got) == {s: list(range(n)) for s, n in sizes.items()}
        # from checkpoints: only what lies past them
        checkpoints = InMemoryCheckpoints({"m:1": 4, "m:3": 9})
        got = [e async for e in store.subscribe_all(checkpoints, live=False)]
        assert by_stream(got) == {"m:2": [0], "m:3": [10, 11], "m:4": [0, 1, 2]}

    async def test_live_subscription_sees_new_and_old_streams(self, store: EventStore) -> None:
        await append_n(store, "old", 3)
        sub = store.subscribe_all(InMemoryCheckpoints(), block_ms=200)
        got: list[StoredEvent] = []

        async def consume() -> None:
            async for event in sub:
                got.append(event)
                if len(got) == 3 + 4 + 5:
                    return

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.1)
        await append_n(store, "old", 4)
        await append_n(store, "new", 5)
        await asyncio.wait_for(task, 20)
        await sub.aclose()
        assert by_stream(got) == {"old": list(range(7)), "new": list(range(5))}

    async def test_a_projection_restarted_from_its_checkpoints_misses_nothing(
        self, recorder: Recorder
    ) -> None:
        store = recorder.store()
        writer = recorder.sharing(store)
        checkpoints = InMemoryCheckpoints()
        applied: list[tuple[str, int]] = []
        streams = [f"g:{i}" for i in range(3)]

        async def write() -> None:
            for round_ in range(20):
                for stream in streams:
                    await writer.append(stream, [ev(r=round_)], round_ - 1)
                await asyncio.sleep(0.002)

        async def project(stop_after: int | None) -> None:
            async with store.subscribe_all(checkpoints, block_ms=100, batch=5) as sub:
                async for event in sub:
                    if checkpoints.commit(event.stream, event.seq):  # apply + checkpoint
                        applied.append((event.stream, event.seq))
                    if stop_after is not None and len(applied) >= stop_after:
                        return
                    if len(applied) == 60:
                        return

        writing = asyncio.create_task(write())
        await asyncio.wait_for(project(stop_after=17), 20)
        await asyncio.wait_for(project(None), 30)
        await writing
        assert sorted(applied) == sorted((s, q) for s in streams for q in range(20))

    async def test_a_closed_feed_subscription_ends(self, store: EventStore) -> None:
        sub = store.subscribe_all(InMemoryCheckpoints(), block_ms=60_000)

        async def consume() -> list[StoredEvent]:
            return [event async for event in sub]

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.1)
        await sub.aclose()
        assert await asyncio.wait_for(task, 20) == []


class IndexCase(StoreCase):
    async def test_stream_index_lists_oldest_first(self, store: EventStore) -> None:
        for name in ("m:b", "m:a", "m:c"):
            await store.append(name, [ev()], -1)
        await store.append("m:a", [ev()], 0)
        with pytest.raises(ConcurrencyConflict):
            await store.append("m:d", [ev()], 0)  # refused: not listed
        assert await store.streams() == ["m:b", "m:a", "m:c"]
        assert await store.streams(1, 1) == ["m:a"]
        assert await store.streams(3) == []
        assert await store.streams(0, 0) == []
        assert await store.stream_count() == 3

    async def test_holds_says_which_streams_are_here_until_they_leave(
        self, store: EventStore
    ) -> None:
        for name in ("m:a", "m:b"):
            await store.append(name, [ev(), ev(CLOSING_TYPE)], -1)
        assert await store.holds(["m:b", "m:none", "m:a"]) == [True, False, True]
        assert await store.holds([]) == []
        assert await store.drop_sealed("m:a")
        assert await store.holds(["m:a", "m:b"]) == [False, True]
        many = [f"m:{index}" for index in range(2500)]  # more than one page of lookups
        assert await store.holds([*many, "m:b"]) == [False] * 2500 + [True]

    async def test_the_seal_moves_a_stream_from_the_index_to_the_close_log(
        self, store: EventStore
    ) -> None:
        for name in ("m:a", "m:b", "m:c"):
            await store.append(name, [ev()], -1)
        assert await store.close_count() == 0 and await store.close_log_size() == 0
        assert await store.closed_since(0) == []
        await store.append("m:b", [ev(CLOSING_TYPE)], 0, "seal-b")
        await store.append("m:a", [ev(), ev(CLOSING_TYPE)], 0)
        assert await store.append("m:b", [ev(CLOSING_TYPE)], 0, "seal-b")  # a retry: once
        assert await store.streams() == ["m:c"] and await store.stream_count() == 1
        assert await store.closed_since(0) == [Closed("m:b", 1, 1), Closed("m:a", 2, 2)]
        assert await store.closed_since(1) == [Closed("m:a", 2, 2)]
        assert await store.closed_since(0, 1) == [Closed("m:b", 1, 1)]
        assert await store.closed_since(2) == []
        assert await store.close_numbers(["m:a", "m:c", "m:none", "m:b"]) == [2, None, None, 1]
        assert await store.close_count() == 2 and await store.close_log_size() == 2
        assert await store.holds(["m:a", "m:b", "m:c"]) == [True, True, True]
        assert await store.drop_sealed("m:b")  # archived: out of the log, its number kept
        assert await store.closed_since(0) == [Closed("m:a", 2, 2)]
        assert await store.close_numbers(["m:b"]) == [None]
        assert await store.close_log_size() == 1
        await store.append("m:c", [ev(CLOSING_TYPE)], 0)
        assert await store.closed_since(0) == [Closed("m:a", 2, 2), Closed("m:c", 3, 1)]
        assert await store.close_count() == 3 and await store.close_log_size() == 2
        assert await store.streams() == [] and await store.stream_count() == 0

    async def test_last_events_are_each_streams_last_in_the_order_asked(
        self, store: EventStore
    ) -> None:
        await store.append("m:a", [ev("A0"), ev("A1")], -1)
        await store.append("m:b", [ev("B0")], -1)
        await store.append("m:a", [ev("A2")], 1)
        last = await store.last_events(["m:b", "m:none", "m:a"])
        assert [(e.stream, e.seq, e.type) if e else None for e in last] == [
            ("m:b", 0, "B0"),
            None,
            ("m:a", 2, "A2"),
        ]
        assert last[2] == (await store.read("m:a", 2))[0]
        assert await store.last_events([]) == []
        with pytest.raises(InvalidEvent):
            await store.last_events(["m:a", "m:{a}"])


class UpcastCase(StoreCase):
    async def test_upcasters_lift_old_schemas_on_read(self, recorder: Recorder) -> None:
        writer = recorder.store()
        await writer.append("u", [NewEvent("Played", {"card": 5}, 1), NewEvent("Other", {})], -1)
        up = Upcasters()

        @up.register("Played", 1)
        def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
            return {"cards": [data["card"]]}

        up.add("Played", 2, lambda d: {**d, "jokers": []}, rename_to="CardsPlayed")
        reader = recorder.sharing(writer, upcasters=up)
        played, other = await reader.read("u")
        assert (played.type, played.schema, played.data) == (
            "CardsPlayed",
            3,
            {"cards": [5], "jokers": []},
        )
        assert other.type == "Other" and other.schema == 1
        assert (await reader.verify("u")).ok  # the hash is over the stored event
        assert (await writer.read("u"))[0].type == "Played"
        await writer.append("u", [NewEvent("Played", {"card": 7}, 1)], 1)
        (last,) = await reader.last_events(["u"])
        assert last is not None and (last.seq, last.type) == (2, "CardsPlayed")
        assert last.data == {"cards": [7], "jokers": []}


class VerifyCase(StoreCase):
    async def test_verify_ok(self, store: EventStore) -> None:
        await fill(store, "v", 12, batch=5)
        result = await store.verify("v")
        assert result.ok and result.checked == 12 and result.first_bad_seq is None
        assert result.head_hash == (await store.read("v", 11))[0].hash
        empty = await store.verify("none")
        assert empty.ok and empty.checked == 0 and empty.head_hash == GENESIS_HASH
