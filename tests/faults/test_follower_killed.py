"""The background followers killed (kill -9, a real process) between applying the
sealed matches through their seals and retiring them (their positions dropped and the
watermark moved over the close log, in one script). The next start retires them and
applies nothing again: the ranking and the catalog are as the killed process left them,
no position of a sealed match is kept, and every watermark is past them."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from eventstore import RedisEventStore, RedisServer, RedisStorage
from service.app import following
from service.app.archiver import FOLLOWERS
from service.app.catalog import CatalogProjection
from service.app.projections import ResultsProjection
from service.app.ratings import RatingsRecorder

from ..sealed import sealed_match

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0  # seconds a child or a restart may take (a loaded machine)


async def follower_killed_at_applied(url: str) -> None:
    command = [sys.executable, "-m", "tests.faults.retiring_follower", url]
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(child.stdout.readline), WAIT)
        assert line == "at applied\n"
    finally:
        child.kill()  # SIGKILL
        child.wait()
    assert child.returncode == -9


async def made(storage: RedisStorage) -> tuple[object, ...]:
    """What the projections made for all: the ranking and the catalog's listings."""
    ranking = await ResultsProjection(storage).ranking(0, 1000)
    return ranking, await CatalogProjection(storage).page(limit=1000)


async def test_followers_killed_before_retiring_apply_nothing_twice_at_the_next_start(
    redis_server: RedisServer, store: RedisEventStore
) -> None:
    matches = [await sealed_match(store) for _ in range(3)]
    closed = await store.closed_since(0)
    assert len(closed) == len(matches)
    storage = RedisStorage(store)
    states = [storage.projection(name) for name in FOLLOWERS]

    await follower_killed_at_applied(redis_server.url)
    for state in states:  # every seal applied, and the kill before any retirement
        positions = await state.positions()
        assert all(positions.get(item.stream) == item.last_seq for item in closed)
        assert await state.watermark() == 0
    before = await made(storage)
    ranking = before[0]
    assert isinstance(ranking, list)
    assert sum(standing.games for standing in ranking) == len(matches) * 4

    followers = [ResultsProjection(storage), CatalogProjection(storage), RatingsRecorder(storage)]
    feed = following.SharedFeed(store, followers)
    running = asyncio.create_task(feed.run())
    try:
        async with asyncio.timeout(WAIT):  # a guard against a hang, not a time limit
            while [await state.watermark() for state in states] != [closed[-1].number] * 3:
                await asyncio.sleep(0.05)
    finally:
        feed.stop()
        await asyncio.wait_for(running, WAIT)
    for state in states:
        assert not set(await state.positions()) & {item.stream for item in closed}
    assert await made(storage) == before  # nothing applied twice
