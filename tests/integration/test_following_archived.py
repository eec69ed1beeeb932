"""Followers pay only for what the store holds: once matches leave for the archive, the
shared read and each projection's store forget their positions, and what the
projections made of them stays as it was. A crash between the move and the forgetting
(positions left behind) is made up for at the next start, with nothing applied twice."""

from __future__ import annotations

import asyncio
import functools
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from eventstore import (
    InMemoryArchive,
    InMemoryStorage,
    RedisStorage,
    Storage,
    move_to_archive,
)
from service.app.catalog import CatalogProjection
from service.app.following import SharedFeed
from service.app.keyring import Keyring
from service.app.match import stream_of
from service.app.projections import ResultsProjection
from service.app.ratings import RatingsRecorder
from service.app.service import GameService, MatchOptions
from service.rules.commands import SeatCommand
from service.rules.legal import legal_actions


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


def given(command: SeatCommand, seat: int) -> SeatCommand:
    return command


async def sealed_match(service: GameService) -> str:
    made = await service.create(MatchOptions("federation", 4, {}, games_per_set=1))
    await service.start(made.match_id, made.host_token)
    while not (match := await service.load(made.match_id)).over:
        seat = match.game.turn
        assert seat is not None
        first_legal = functools.partial(given, legal_actions(match.game)[0])
        await service.act(made.match_id, made.seat_tokens[seat], first_legal)
    await service.seal(made.match_id)
    return made.match_id


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

    async def caught_up(self, streams: list[str]) -> None:
        async def done() -> bool:
            for projection in (self.results, self.catalog):
                positions = await projection.state.positions()
                for stream in streams:
                    if positions.get(stream, -1) < await projection.store.version(stream):
                        return False
            return True

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


async def played_and_archived(storage: Storage) -> tuple[list[str], list[str], InMemoryArchive]:
    service = GameService(storage.events, Keyring(secrets.token_bytes(32)))
    try:
        matches = [await sealed_match(service) for _ in range(3)]
    finally:
        await service.snapshots.close()
        await service.fanout.close()
    archive = InMemoryArchive()
    storage.events.use_archive(archive)
    return [stream_of(m) for m in matches], matches, archive


async def test_the_positions_of_archived_matches_are_forgotten(storage: Storage) -> None:
    streams, matches, archive = await played_and_archived(storage)
    following = Following(storage)
    try:
        await following.caught_up(streams)
        made = await following.made()
        kept = await following.kept_for(matches)
        assert all(games for games, _ in kept)
        for stream in streams[:2]:
            await move_to_archive(storage.events, archive, stream)  # type: ignore[arg-type]
        assert await following.feed.forget_gone() == sorted(streams[:2])
        for projection in (following.results, following.catalog):
            assert set(await projection.state.positions()) & set(streams) == {streams[2]}
        # (the recorder commits what it passed every few seconds: none of the gone here)
        assert not set(await following.ratings.checkpoints.positions()) & set(streams[:2])
        for taken in following.feed.taken:
            assert set(taken) & set(streams) == {streams[2]}
        assert set(following.feed.read) & set(streams) == {streams[2]}
        assert await following.made() == made  # what they made of them for all stays
        # what the results kept for one match alone goes with it (the live one's stays)
        assert await following.kept_for(matches) == [([], {}), ([], {}), kept[2]]
        assert await following.feed.forget_gone() == []
    finally:
        await following.stop()


async def test_a_crash_before_the_forgetting_is_made_up_for_at_start(storage: Storage) -> None:
    streams, matches, archive = await played_and_archived(storage)
    following = Following(storage)
    await following.caught_up(streams)
    made = await following.made()
    kept = await following.kept_for(matches)
    await following.ratings.checkpoints.commit_passed()  # its few seconds went by
    assert set(streams) <= set(await following.ratings.checkpoints.positions())
    await following.stop()
    for stream in streams[:2]:  # moved, and the process died before it forgot them
        await move_to_archive(storage.events, archive, stream)  # type: ignore[arg-type]
    assert set(streams) <= set(await following.results.state.positions())

    again = Following(storage)  # the next start
    try:
        await again.caught_up(streams[2:])

        async def forgotten() -> bool:
            states = (again.results.state, again.catalog.state, again.ratings.checkpoints)
            for state in states:
                if set(await state.positions()) & set(streams[:2]):
                    return False
            return True

        await until(forgotten)
        assert await again.made() == made  # nothing applied twice
        assert await again.kept_for(matches) == [([], {}), ([], {}), kept[2]]
        for taken in again.feed.taken:
            assert not set(taken) & set(streams[:2])
    finally:
        await again.stop()
