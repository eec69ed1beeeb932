"""The archiver worker over the memory store, its clock given (``move_due(now_ms)``):
a sealed match leaves ``keep_live`` after its seal, not before; one whose move failed
(the archive away) is moved on a later try, never lost; a live match never leaves."""

from __future__ import annotations

from eventstore import (
    CLOSING_TYPE,
    InMemoryArchive,
    InMemoryEventStore,
    InMemorySnapshots,
    InMemoryStorage,
    NewEvent,
    ProjectionStore,
    Snapshot,
)
from service.app.archiver import (
    RETRY_MS,
    UNSETTLED_RETRY_MS,
    Archiver,
    archive_now,
    followers_of,
)
from service.app.following import retire_closed
from service.app.match import stream_of

KEEP_MS = 60_000


async def seal(store: InMemoryEventStore, match_id: str) -> int:
    stream = stream_of(match_id)
    await store.append(stream, [NewEvent("MatchCreated")], -1)
    sealed = await store.append(stream, [NewEvent(CLOSING_TYPE)], 0)
    return sealed.events[-1].at


class Away(InMemoryArchive):
    def __init__(self) -> None:
        super().__init__()
        self.away = True

    async def put(self, stream: str, blob: bytes) -> None:
        if self.away:
            raise OSError("the archive cannot be reached")
        await super().put(stream, blob)


async def test_a_sealed_match_leaves_after_keep_live_and_a_failed_move_is_tried_again() -> None:
    store, archive, snapshots = InMemoryEventStore(), Away(), InMemorySnapshots()
    store.use_archive(archive)
    old_at = await seal(store, "old")
    await store.append(stream_of("live"), [NewEvent("MatchCreated")], -1)
    await snapshots.save(stream_of("old"), Snapshot(0, old_at, b"fold"))
    archiver = Archiver(store, archive, snapshots, KEEP_MS)
    await archiver.start()  # the sealed match in the store is due
    new_at = await seal(store, "new")
    for event in await store.read(stream_of("new")):
        await archiver.take(event)  # as the feed brings it
    assert archiver.due == {"old": old_at + KEEP_MS, "new": new_at + KEEP_MS}

    await archiver.move_due(old_at + KEEP_MS - 1)  # not yet
    assert archive.objects == {} and archiver.moved.matches == 0
    await archiver.move_due(new_at + KEEP_MS)  # due, but the archive is away
    assert archive.objects == {} and await store.version(stream_of("old")) == 1
    assert archiver.due["old"] == new_at + KEEP_MS + RETRY_MS
    archive.away = False
    await archiver.move_due(new_at + KEEP_MS + 1)  # not retried before its time
    assert archive.objects == {}
    await archiver.move_due(new_at + KEEP_MS + RETRY_MS)
    assert sorted(archive.objects) == [stream_of("new"), stream_of("old")]
    assert archiver.due == {} and archiver.moved.matches == 2
    assert await store.read_as_stored(stream_of("old")) == []
    assert await snapshots.at_or_before(stream_of("old"), 10) is None  # left with it
    await snapshots.save(stream_of("old"), Snapshot(0, old_at, b"fold"))  # a late read's
    assert await snapshots.at_or_before(stream_of("old"), 10) is None
    assert await store.version(stream_of("old")) == 1  # read from the archive
    assert await store.streams() == [stream_of("live")]


async def test_a_match_leaves_only_once_every_projection_applied_it_through_its_seal() -> None:
    storage = InMemoryStorage()
    store, archive, followers = storage.events, InMemoryArchive(), followers_of(storage)
    archiver = Archiver(store, archive, InMemorySnapshots(), KEEP_MS, followers=followers)
    sealed_at = await seal(store, "m")
    await archiver.start()
    due = sealed_at + KEEP_MS
    results, catalog, ratings = followers

    async def applied(follower: ProjectionStore, seq: int) -> int:
        await follower.commit(stream_of("m"), seq)
        return await retire_closed(store, follower)

    assert await applied(results, 1) == 1
    assert await applied(catalog, 0) == 0  # behind: its seal not applied, not retired
    await archiver.move_due(due)
    assert archive.objects == {} and await store.version(stream_of("m")) == 1
    assert archiver.due["m"] == due + UNSETTLED_RETRY_MS  # due again a moment later
    assert await applied(catalog, 1) == 1
    await archiver.move_due(due + UNSETTLED_RETRY_MS)
    assert archive.objects == {}  # the ratings recorder has not passed it either
    assert await applied(ratings, 1) == 1
    await archiver.move_due(due + 2 * UNSETTLED_RETRY_MS)
    assert list(archive.objects) == [stream_of("m")] and archiver.due == {}
    # and archive_now, the operator's run, leaves one the projections have not applied
    await seal(store, "n")
    left = await archive_now(
        store, archive, InMemorySnapshots(), 0, followers=followers_of(storage)
    )
    assert left.unsettled == 1 and left.moved.matches == 0
