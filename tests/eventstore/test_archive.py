"""The archive: a sealed stream packed into one object and unpacked to the very events
stored, checked against its packed head; the move (write, read back, drop) on memory, one
Redis and a Redis Cluster, each read answering alike before and after it; a crash at any
step of the move losing and duplicating nothing."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from eventstore import (
    CLOSING_TYPE,
    ConcurrencyConflict,
    CorruptEvent,
    EventStore,
    FolderArchive,
    InMemoryArchive,
    InvalidEvent,
    NewEvent,
    RedisEventStore,
    StoredEvent,
    StreamClosed,
    Upcasters,
    move_to_archive,
)
from eventstore.archive import Archive, columns, pack, unpack
from eventstore.hashing import event_hash
from eventstore.model import GENESIS_HASH

from .contract import ClusterRedis, InMemory, Recorder, SingleRedis


async def sealed_stream(store: EventStore, stream: str = "m") -> list[StoredEvent]:
    await store.append(stream, [NewEvent("Created", {"players": 4, "名": "大富豪"})], -1, "c")
    await store.append(stream, [NewEvent("Played", {"cards": ["3S", "3H"]})], 0, "p1")
    await store.append(stream, [NewEvent("Played", {"cards": []}), NewEvent("Ended")], 1, "p2")
    await store.append(stream, [NewEvent(CLOSING_TYPE, {"sig": "x" * 88})], 3, "seal")
    return await store.read_as_stored(stream)


async def reads(store: EventStore, stream: str) -> dict[str, Any]:
    """Every read a caller makes of a stream."""
    pages = [page async for page in store.read_pages(stream, 1, page_size=2)]
    return {
        "all": await store.read(stream),
        "from": await store.read(stream, 2),
        "limit": await store.read(stream, 1, 2),
        "past": await store.read(stream, 9),
        "pages": pages,
        "version": await store.version(stream),
        "last": await store.last_events([stream, "nothing"]),
        "verify": await store.verify(stream),
    }


class ArchiveCase:
    async def test_a_moved_stream_reads_as_it_did(self, recorder: Recorder) -> None:
        store = recorder.store()
        archive = InMemoryArchive()
        store.use_archive(archive)
        events = await sealed_stream(store)
        await store.append("open", [NewEvent("Created")], -1)
        before = await reads(store, "m")
        size = await move_to_archive(store, archive, "m")
        assert size == len(archive.objects["m"]) > 0
        assert await store.read_as_stored("m") == []  # it left the store
        assert await reads(store, "m") == before
        assert await store.streams() == ["open"]  # the index lists live streams only
        # another process on the same data, knowing the archive, reads it alike
        other = recorder.sharing(store)
        other.use_archive(archive)
        assert await reads(other, "m") == before
        assert unpack("m", archive.objects["m"]) == events

    async def test_upcasters_lift_archived_events_as_stored_ones(self, recorder: Recorder) -> None:
        store = recorder.store()
        archive = InMemoryArchive()
        await sealed_stream(store)
        await move_to_archive(store, archive, "m")
        lifting = Upcasters()
        lifting.add("Played", 1, lambda data: {**data, "lifted": True})
        reader = recorder.sharing(store, upcasters=lifting)
        reader.use_archive(archive)
        assert all(e.data.get("lifted") for e in await reader.read("m") if e.type == "Played")

    async def test_a_moved_stream_is_never_started_again(self, recorder: Recorder) -> None:
        store = recorder.store()
        archive = InMemoryArchive()
        store.use_archive(archive)
        await sealed_stream(store)
        await move_to_archive(store, archive, "m")
        with pytest.raises(StreamClosed):  # a create retried after its match left
            await store.append("m", [NewEvent("Created")], -1, "c")
        with pytest.raises(ConcurrencyConflict):  # a late writer: the match is read anew
            await store.append("m", [NewEvent("Late")], 4, "late")
        assert await store.version("m") == 4
        assert await store.read_as_stored("m") == []

    async def test_only_a_sealed_stream_is_moved(self, recorder: Recorder) -> None:
        store = recorder.store()
        archive = InMemoryArchive()
        await store.append("m", [NewEvent("Created"), NewEvent("Ended")], -1)
        with pytest.raises(InvalidEvent):
            await move_to_archive(store, archive, "m")
        assert not await store.drop_sealed("m")
        assert archive.objects == {} and await store.version("m") == 1
        with pytest.raises(InvalidEvent):
            await move_to_archive(store, archive, "nowhere")

    async def test_a_crash_at_any_step_of_the_move_loses_and_duplicates_nothing(
        self, recorder: Recorder
    ) -> None:
        store = recorder.store()
        archive = InMemoryArchive()
        store.use_archive(archive)
        events = await sealed_stream(store)
        before = await reads(store, "m")

        class Crash(Exception):
            pass

        class WrittenNotVerified(InMemoryArchive):
            async def get(self, stream: str) -> bytes | None:
                raise Crash  # the process died after the write, before reading it back

        half = WrittenNotVerified()
        half.objects = archive.objects
        with pytest.raises(Crash):
            await move_to_archive(store, half, "m")
        assert "m" in archive.objects and await store.read_as_stored("m") == events
        assert await reads(store, "m") == before  # read from the store, as before

        drop = store.drop_sealed

        async def verified_not_dropped(stream: str) -> bool:
            raise Crash  # died after the object was read back, before the drop

        store.drop_sealed = verified_not_dropped  # type: ignore[method-assign]
        with pytest.raises(Crash):
            await move_to_archive(store, archive, "m")
        store.drop_sealed = drop  # type: ignore[method-assign]
        assert await store.read_as_stored("m") == events
        assert await reads(store, "m") == before

        # the restart finishes the move: one object, the stream gone from the store
        assert await move_to_archive(store, archive, "m") > 0
        assert list(archive.objects) == ["m"] and unpack("m", archive.objects["m"]) == events
        assert await reads(store, "m") == before
        # and a move asked again finds it done
        assert await move_to_archive(store, archive, "m") == 0
        assert await reads(store, "m") == before

    async def test_an_object_the_archive_gives_back_altered_drops_nothing(
        self, recorder: Recorder
    ) -> None:
        store = recorder.store()
        events = await sealed_stream(store)

        class Altering(InMemoryArchive):
            async def get(self, stream: str) -> bytes | None:
                # the object read back is another stream's
                return pack(await sealed_stream(recorder.store(), stream="other"))

        with pytest.raises(CorruptEvent):
            await move_to_archive(store, Altering(), "m")
        assert await store.read_as_stored("m") == events


class TestArchiveInMemory(InMemory, ArchiveCase):
    pass


class TestArchiveRedis(SingleRedis, ArchiveCase):
    async def test_the_move_deletes_every_key_of_the_stream(self, recorder: Recorder) -> None:
        store = recorder.store()
        assert isinstance(store, RedisEventStore)
        await sealed_stream(store)
        await move_to_archive(store, InMemoryArchive(), "m")
        client = redis.Redis.from_url(store.url)
        try:
            assert client.exists(store.keys.events("m"), store.keys.meta("m")) == 0
            assert client.zscore(store.keys.index, "m") is None
        finally:
            client.close()


class TestArchiveCluster(ClusterRedis, ArchiveCase):
    pass


# --- the packed form -------------------------------------------------------------------------


async def test_packing_keeps_what_cannot_be_derived_and_checks_the_rest() -> None:
    store = InMemoryArchive()
    from eventstore import InMemoryEventStore

    events = await sealed_stream(InMemoryEventStore())
    blob = pack(events)
    assert unpack("m", blob) == events
    await store.put("m", blob)
    with pytest.raises(CorruptEvent):  # named for another stream
        unpack("n", blob)
    with pytest.raises(CorruptEvent):
        unpack("m", blob[:-3])
    with pytest.raises(CorruptEvent):
        unpack("m", b"not zstd at all")
    import zstandard

    raw = bytearray(columns(events))  # an object without the dictionary reads too
    at = raw.index(b"3S")
    raw[at : at + 2] = b"4S"  # a played card changed: the chain no longer ends at its head
    with pytest.raises(CorruptEvent, match="head"):
        unpack("m", zstandard.ZstdCompressor().compress(bytes(raw)))
    other = zstandard.ZstdCompressionDict(
        b"MatchCreated CardsPlayed" * 200, dict_type=zstandard.DICT_TYPE_RAWCONTENT
    )
    with pytest.raises(CorruptEvent):  # compressed with a dictionary this code does not have
        unpack("m", zstandard.ZstdCompressor(dict_data=other).compress(columns(events)))
    with pytest.raises(CorruptEvent):  # a bomb is refused before it fills the memory
        unpack("m", zstandard.ZstdCompressor().compress(b"\0" * (65 * 1024 * 1024)))


def test_request_ids_of_every_shape_unpack_as_they_were() -> None:
    shapes = ["auto-" + "ab" * 16, "auto-" + "AB" * 16, "auto-" + "ab" * 15, "auto-", "x"]
    events: list[StoredEvent] = []
    prev = GENESIS_HASH
    for seq, request_id in enumerate([*shapes, shapes[0], CLOSING_TYPE]):
        hash_ = event_hash("s", seq, "T", 1, 5, request_id, {}, prev)
        events.append(StoredEvent("s", seq, "T", 1, {}, request_id, 5, prev, hash_))
        prev = hash_
    assert unpack("s", pack(events)) == events


async def test_a_folder_archive_keeps_whole_objects_of_its_own(tmp_path: Path) -> None:
    archive: Archive = FolderArchive(tmp_path / "archive")
    assert await archive.get("m") is None and await archive.names() == []
    await archive.put("m", b"one")
    await archive.put("m", b"two")  # replaced whole
    await archive.put("../escape", b"x")  # an id never names a path outside the folder
    assert await archive.get("m") == b"two" and await archive.get("../escape") == b"x"
    assert await archive.names() == ["../escape", "m"]
    assert await archive.size() == (2, 4)
    folder = tmp_path / "archive"
    assert sorted(p.parent for p in folder.iterdir()) == [folder, folder]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in folder.iterdir())
    assert not [p for p in folder.iterdir() if p.name.startswith(".put-")]
    (folder / "stray.txt").write_text("not an object")
    assert await archive.names() == ["../escape", "m"]
    with pytest.raises(InvalidEvent):
        await archive.get("a{b}")  # not a stream id
    assert os.listdir(tmp_path) == ["archive"]


async def parts_are_apart(archive: Archive) -> None:
    """A part's objects are none of the archive's, nor the archive's the part's."""
    part = archive.part("listings")
    before = await archive.names(), await archive.size()
    await part.put("m", b"a part's")
    await part.put("segment-1", b"another")
    assert await archive.names() == before[0] and await archive.size() == before[1]
    assert await part.names() == ["m", "segment-1"] and await part.get("m") == b"a part's"
    assert await archive.part("listings").get("segment-1") == b"another"  # the same part
    for name in ("", "Listings", "../up", "a/b", "l1"):
        with pytest.raises(ValueError):
            archive.part(name)


@pytest.mark.parametrize("where", ["memory", "folder"])
async def test_an_archive_keeps_its_parts_apart(where: str, tmp_path: Path) -> None:
    archive: Archive = InMemoryArchive() if where == "memory" else FolderArchive(tmp_path / "a")
    await archive.put("m", b"a stream's")
    await parts_are_apart(archive)
    assert await archive.get("m") == b"a stream's"


async def test_a_write_cut_short_leaves_a_temporary_file_the_next_put_removes(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "archive"
    folder.mkdir()
    cut_short, in_progress = folder / ".put-cut-short", folder / ".put-in-progress"
    for path in (cut_short, in_progress):
        path.write_bytes(b"half an object")
    two_hours_ago = time.time() - 2 * 3600
    os.utime(cut_short, (two_hours_ago, two_hours_ago))
    archive = FolderArchive(folder)
    assert await archive.size() == (0, 0)  # never counted as an object
    await archive.put("m", b"whole")
    # another process's write may be going on: only an old one goes
    assert sorted(p.name for p in folder.iterdir()) == [".put-in-progress", "6d.zst"]
