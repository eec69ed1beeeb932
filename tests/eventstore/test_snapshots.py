"""The snapshot store's contract (eventstore/snapshots.py), run in memory, on one Redis
server and on a Redis Cluster: the same answers from each."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from eventstore import (
    CLOSING_TYPE,
    InMemoryArchive,
    InMemoryEventStore,
    InMemorySnapshots,
    InvalidEvent,
    NewEvent,
    RedisEventStore,
    RedisSnapshots,
    Snapshot,
    Snapshots,
    move_to_archive,
)
from eventstore.archive import ArchivedStreams

from .conftest import Backend, same_slot

Beside = tuple[RedisEventStore | InMemoryEventStore, Snapshots]


class SnapshotsCase:
    @pytest.fixture
    async def beside(self) -> AsyncIterator[Beside]:
        """A store holding streams m:1 and m:2, and the snapshots beside it."""
        raise NotImplementedError
        yield

    @pytest.fixture
    def snapshots(self, beside: Beside) -> Snapshots:
        return beside[1]

    async def test_nothing_before_a_save(self, snapshots: Snapshots) -> None:
        assert await snapshots.at_or_before("m:1", 100) is None
        assert await snapshots.latest_by("m:1", 10**13) is None

    async def test_the_nearest_at_or_before_a_seq(self, snapshots: Snapshots) -> None:
        for seq in (63, 127, 191, 1_000_063):
            await snapshots.save("m:1", Snapshot(seq, 1000 + seq, f"body {seq}".encode()))
        assert await snapshots.at_or_before("m:1", 62) is None
        assert await snapshots.at_or_before("m:1", 63) == Snapshot(63, 1063, b"body 63")
        assert await snapshots.at_or_before("m:1", 190) == Snapshot(127, 1127, b"body 127")
        found = await snapshots.at_or_before("m:1", 10**12)
        assert found == Snapshot(1_000_063, 1_001_063, b"body 1000063")
        assert await snapshots.at_or_before("m:1", -1) is None
        assert await snapshots.at_or_before("m:2", 10**6) is None  # streams apart

    async def test_the_latest_by_a_time(self, snapshots: Snapshots) -> None:
        now = 1_700_000_000_000  # ms times keep their precision
        for seq, at in ((9, now), (19, now + 5), (29, now + 5), (39, now + 9)):
            await snapshots.save("m:1", Snapshot(seq, at, bytes([seq])))
        assert await snapshots.latest_by("m:1", now - 1) is None
        assert await snapshots.latest_by("m:1", now + 4) == Snapshot(9, now, bytes([9]))
        assert await snapshots.latest_by("m:1", now + 5) == Snapshot(29, now + 5, bytes([29]))
        assert await snapshots.latest_by("m:1", now + 10**6) == Snapshot(39, now + 9, bytes([39]))

    async def test_the_latest_time_wins_even_out_of_seq_order(self, snapshots: Snapshots) -> None:
        await snapshots.save("m:1", Snapshot(9, 50, b"a"))
        await snapshots.save("m:1", Snapshot(19, 40, b"b"))
        assert await snapshots.latest_by("m:1", 45) == Snapshot(19, 40, b"b")
        assert await snapshots.latest_by("m:1", 60) == Snapshot(9, 50, b"a")

    async def test_saving_a_seq_again_replaces_it(self, snapshots: Snapshots) -> None:
        await snapshots.save("m:1", Snapshot(9, 50, b"old"))
        await snapshots.save("m:1", Snapshot(9, 70, b"new\x00\xff"))
        assert await snapshots.at_or_before("m:1", 9) == Snapshot(9, 70, b"new\x00\xff")
        assert await snapshots.latest_by("m:1", 60) is None

    async def test_bad_input_is_refused(self, snapshots: Snapshots) -> None:
        for stream, snapshot in (
            ("{m:1}", Snapshot(9, 0, b"")),
            ("", Snapshot(9, 0, b"")),
            ("m:1", Snapshot(-1, 0, b"")),
            ("m:1", Snapshot(10**12, 0, b"")),
        ):
            with pytest.raises(InvalidEvent):
                await snapshots.save(stream, snapshot)
        assert await snapshots.at_or_before("m:1", 10**12) is None

    async def test_an_archived_stream_s_are_kept_while_it_is_unpacked(self, beside: Beside) -> None:
        store, snapshots = beside
        archive = InMemoryArchive()
        store.use_archive(archive)
        store.archived = ArchivedStreams(archive, cached=1)
        for stream in ("m:1", "m:2"):
            await snapshots.save(stream, Snapshot(0, 5, b"live"))
            await store.append(stream, [NewEvent(CLOSING_TYPE)], 0)
            await move_to_archive(store, archive, stream)
            await snapshots.drop(stream)
        assert await snapshots.at_or_before("m:1", 5) is None  # they left with it
        await snapshots.save("m:1", Snapshot(0, 7, b"a"))  # not unpacked: not kept
        assert await snapshots.at_or_before("m:1", 5) is None
        assert len(await store.read("m:1")) == 2  # unpacked from the archive now
        await snapshots.save("m:1", Snapshot(0, 7, b"a"))
        await snapshots.save("m:1", Snapshot(1, 9, b"b"))
        assert await snapshots.at_or_before("m:1", 0) == Snapshot(0, 7, b"a")
        assert await snapshots.at_or_before("m:1", 5) == Snapshot(1, 9, b"b")
        assert await snapshots.latest_by("m:1", 8) == Snapshot(0, 7, b"a")
        assert await snapshots.latest_by("m:1", 6) is None
        assert await snapshots.at_or_before("m:2", 5) is None  # streams apart
        await store.read("m:2")  # unpacking another forgets m:1, its snapshots with it
        assert await snapshots.at_or_before("m:1", 5) is None


class TestSnapshotsInMemory(SnapshotsCase):
    @pytest.fixture
    async def beside(self) -> AsyncIterator[Beside]:
        store = InMemoryEventStore()
        for stream in ("m:1", "m:2"):
            await store.append(stream, [NewEvent("Created")], -1)
        yield store, InMemorySnapshots(store)


class TestSnapshotsRedis(SnapshotsCase):
    @pytest.fixture(params=["single", "cluster"])
    async def beside(self, request: pytest.FixtureRequest) -> AsyncIterator[Beside]:
        single = request.param == "single"
        url = request.getfixturevalue("redis_url" if single else "cluster_url")
        backend = Backend(request.param, url, not single)
        store = backend.store()
        for stream in ("m:1", "m:2"):  # snapshots are kept beside a stream that is there
            await store.append(stream, [NewEvent("Created")], -1)
        try:
            yield store, RedisSnapshots(store)
        finally:
            await store.close()
            backend.cleanup()

    def test_a_stream_s_snapshots_share_its_slot(self) -> None:
        from eventstore.keys import Keys

        keys = Keys("daifugo")
        assert same_slot(keys.events("m:1"), *keys.snapshots("m:1"))
