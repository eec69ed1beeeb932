"""Followers pay only for the open streams: a sealed match goes to the close log, each
projection retires it once applied through its seal (its position and what it kept for
the match alone go, its watermark moves past it, in one write), and what the
projections made of it for all stays. A crash between applying the seal and moving the
watermark is made up for at the next start, with nothing applied twice."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from eventstore import (
    InMemoryArchive,
    InMemoryStorage,
    ProjectionStore,
    RedisStorage,
    Storage,
    move_to_archive,
)
from eventstore.archive import pack
from service.app import following as following_module
from service.app.catalog import CatalogProjection
from service.app.following import Resume, SharedFeed
from service.app.keyring import Keyring
from service.app.match import stream_of
from service.app.projections import ResultsProjection, Standing
from service.app.ratings import RatingsRecorder
from service.app.service import GameService

from ..sealed import played_to_its_seal


@pytest.fixture(params=["memory", "redis"])
async def storage(request: pytest.FixtureRequest) -> AsyncIterator[Storage]:
    if request.param == "memory":
        yield InMemoryStorage()
        return
    prefix = f"forget-{uuid.uuid4().hex[:8]}"
    redis_storage = RedisStorage.from_url(request.getfixturevalue("redis_url"), prefix=prefix)
    try:
        yield redis_storage
    finally:
        client = await redis_storage.events.raw_client()
        keys = [key async for key in client.scan_iter(match=f"{prefix}:*")]
        if keys:
            await client.delete(*keys)
        await redis_storage.close()


async def until(condition: Callable[[], Awaitable[bool]]) -> None:
    async with asyncio.timeout(20):  # a guard against a hang, not a time limit
        while not await condition():
            await asyncio.sleep(0.02)


class Following:
    """The projections, followed by a shared read of their own (a process's)."""

    def __init__(self, storage: Storage) -> None:
        self.results = ResultsProjection(storage)
        self.catalog = CatalogProjection(storage)
        # a follower of another kind (no projection: checkpoints of its own) beside them
        self.ratings = RatingsRecorder(storage)
        self.feed = SharedFeed(storage.events, [self.results, self.catalog, self.ratings])
        self.task = asyncio.create_task(self.feed.run())

    def states(self) -> tuple[ProjectionStore, ...]:
        return self.results.state, self.catalog.state, self.ratings.checkpoints

    async def applied(self, streams: list[str]) -> None:
        """Until every follower has taken ``streams`` through their seals."""

        async def done() -> bool:
            for taken in self.feed.taken:
                for stream in streams:
                    if taken.get(stream, -1) < await self.results.store.version(stream):
                        return False
            return True

        await until(done)

    async def retired(self, through: int) -> None:
        """Until every projection's watermark is at ``through``."""

        async def done() -> bool:
            return all([await state.watermark() >= through for state in self.states()])

        await until(done)

    async def made(self) -> tuple[object, ...]:
        """What the projections made for all (the ranking, the catalog's listings)."""
        return await self.results.ranking(0, 1000), await self.catalog.page(limit=1000)

    async def kept_for(self, matches: list[str]) -> list[object]:
        """What the results kept for each match alone (its games and points)."""
        results = self.results
        return [(await results.games(m), await results.points(m)) for m in matches]

    async def stop(self) -> None:
        self.feed.stop()
        await asyncio.wait_for(self.task, 10)


async def played(storage: Storage, count: int = 3) -> tuple[list[str], list[str]]:
    service = GameService(storage.events, Keyring(secrets.token_bytes(32)))
    try:
        matches = [await played_to_its_seal(service) for _ in range(count)]
    finally:
        await service.snapshots.close()
        await service.fanout.close()
    return [stream_of(m) for m in matches], matches


async def played_and_retired(storage: Storage) -> tuple[list[str], list[str], list[Standing]]:
    """Three matches played, applied and retired by every follower, which then stop; the
    ranking they made."""
    following = Following(storage)
    try:
        streams, matches = await played(storage)
        numbers = await storage.events.close_numbers(streams)
        await following.applied(streams)
        await following.retired(max(n for n in numbers if n is not None))
        return streams, matches, await following.results.ranking(0, 1000)
    finally:
        await following.stop()


async def test_sealed_matches_retire_and_archived_ones_are_forgotten(storage: Storage) -> None:
    following = Following(storage)
    try:
        streams, matches = await played(storage)
        numbers = await storage.events.close_numbers(streams)
        assert None not in numbers  # each sealed match is in the close log
        await following.applied(streams)
        made = await following.made()
        await following.retired(max(n for n in numbers if n is not None))
        for state in following.states():  # no position of a retired match is kept
            assert not set(await state.positions()) & set(streams)
        assert await following.kept_for(matches) == [([], {})] * 3  # nor what was its alone
        assert await following.made() == made  # what they made of them for all stays
        archive = InMemoryArchive()
        storage.events.use_archive(archive)
        for stream in streams[:2]:
            await move_to_archive(storage.events, archive, stream)  # type: ignore[arg-type]
        assert await following.feed.forget_gone() == sorted(streams[:2])
        for taken in following.feed.taken:
            assert set(taken) & set(streams) == {streams[2]}
        assert await following.made() == made
    finally:
        await following.stop()


async def test_a_crash_between_the_seal_applied_and_the_watermark_applies_nothing_twice(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the settling (commit what was passed, retire) never comes: the process dies first
    monkeypatch.setattr(following_module, "PASS_EVERY", 3600.0)
    following = Following(storage)
    streams, _ = await played(storage)
    await following.applied(streams)
    for state in following.states():
        await state.commit_passed()  # every seal applied, as a write would commit it
        positions = await state.positions()
        for stream in streams:
            assert positions[stream] == await storage.events.version(stream)
        assert await state.watermark() == 0  # and the watermark not moved: the crash
    made = await following.made()
    await following.stop()

    again = Following(storage)  # the next start retires them, applying nothing again
    try:
        numbers = await storage.events.close_numbers(streams)
        await again.retired(max(n for n in numbers if n is not None))
        for state in again.states():
            assert not set(await state.positions()) & set(streams)
        assert await again.made() == made  # nothing applied twice
        for taken in again.feed.taken:  # each follower is done with them
            for stream in streams:
                assert taken.get(stream) == await storage.events.version(stream)
    finally:
        await again.stop()


async def test_a_rebuilt_ranking_counts_the_archived_matches_once(storage: Storage) -> None:
    streams, matches, ranking = await played_and_retired(storage)
    archive = InMemoryArchive()
    storage.events.use_archive(archive)
    for stream in streams[:2]:
        await move_to_archive(storage.events, archive, stream)  # type: ignore[arg-type]
    # the third written to the archive and still in the store: a move cut short
    await archive.put(streams[2], pack(await storage.events.read_as_stored(streams[2])))

    rebuilt = ResultsProjection(storage)
    await rebuilt.rebuild(archive)
    assert await rebuilt.ranking(0, 1000) == ranking
    assert sum(standing.games for standing in ranking) == 3 * 4
    assert await rebuilt.state.positions() == {}  # the one in the store retired again
    for match_id in matches:  # nothing kept for a match alone
        assert await rebuilt.games(match_id) == [] and await rebuilt.points(match_id) == {}


class SlowToStart(ResultsProjection):
    """The results, starting only once let: the others start and read meanwhile."""

    def __init__(self, storage: Storage) -> None:
        super().__init__(storage)
        self.let = asyncio.Event()

    async def start(self) -> Resume:
        await self.let.wait()
        return await super().start()


async def test_a_follower_slow_to_start_is_never_given_a_match_archived_meanwhile(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    # another follower started and the shared read began from where it is (each retired
    # match through its seal); the archiver then moved them, every follower being done
    # with them; the slow one, started now, must not read them again from the archive
    monkeypatch.setattr(following_module, "RETRY_PAUSE", 0.05)
    streams, _, ranking = await played_and_retired(storage)

    slow = SlowToStart(storage)
    feed = SharedFeed(storage.events, [CatalogProjection(storage), slow])
    task = asyncio.create_task(feed.run())
    try:

        async def reading() -> bool:
            return all(stream in feed.read for stream in streams)

        await until(reading)
        archive = InMemoryArchive()
        storage.events.use_archive(archive)
        for stream in streams:
            await move_to_archive(storage.events, archive, stream)  # type: ignore[arg-type]
        slow.let.set()

        async def started() -> bool:
            return not feed.starting

        await until(started)
        await asyncio.sleep(0.3)  # several retries of what is held: none may apply
        assert feed.held == set()
        assert await slow.ranking(0, 1000) == ranking  # nothing applied twice
    finally:
        feed.stop()
        await asyncio.wait_for(task, 10)
