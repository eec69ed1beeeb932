"""A process that follows the feed as the background lease holder does (one shared read
for the results, the catalog and the ratings recorder), takes every sealed match through
its seal and commits that, and stops dead before any follower retires them (drops their
positions and moves its watermark over the close log), for its parent to kill -9:

    python -m tests.faults.retiring_follower REDIS_URL

It prints ``at applied`` once every follower's checkpoint is at every seal, and waits
there forever."""

from __future__ import annotations

import asyncio
import sys
from unittest import mock

from eventstore import RedisStorage
from service.app import STORE_PREFIX, following, ratings
from service.app.archiver import FOLLOWERS
from service.app.catalog import CatalogProjection
from service.app.projections import ResultsProjection
from service.app.ratings import RatingsRecorder


async def never_retired(*_: object) -> int:
    return 0  # the kill comes first


async def main(url: str) -> None:
    for module in (following, ratings):
        mock.patch.object(module, "retire_closed", never_retired).start()
    storage = RedisStorage.from_url(url, prefix=STORE_PREFIX)
    followers = [ResultsProjection(storage), CatalogProjection(storage), RatingsRecorder(storage)]
    feed = following.SharedFeed(storage.events, followers)
    running = asyncio.create_task(feed.run())
    closed = await storage.events.closed_since(0)
    states = [storage.projection(name) for name in FOLLOWERS]
    while True:  # the seals are committed every PASS_EVERY seconds
        positions = [await state.positions() for state in states]
        if all(p.get(c.stream, -1) == c.last_seq for p in positions for c in closed):
            break
        await asyncio.sleep(0.1)
    print("at applied", flush=True)
    await running  # never ends: until killed


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
