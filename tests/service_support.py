"""The running service for tests, kept apart from every other test's data: in memory
(the application's, REST's, gRPC's and UECda's tests: no Redis round trip to wait on),
or on Redis where Redis is what is tested."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import redis

from eventstore import InMemoryStorage, Storage
from service.app.archiver import followers_of
from service.app.following import retire_closed
from service.runtime import Running, running_service

from .redis_support import unique


@contextlib.asynccontextmanager
async def isolated_service(redis_url: str | None, **options: Any) -> AsyncIterator[Running]:
    """``running_service`` with storage of its own: in memory (``redis_url`` None), or
    under a key prefix of its own, deleted afterwards: no other test's matches for its
    projections to catch up on, count or time."""
    if redis_url is None:
        async with running_service(storage=InMemoryStorage(), **options) as running:
            yield running
        return
    prefix = unique("test-")
    try:
        async with running_service(redis_url, prefix=prefix, **options) as running:
            yield running
    finally:
        client = redis.Redis.from_url(redis_url)
        try:
            for key in list(client.scan_iter(match=f"{prefix}:*", count=1000)):
                client.delete(key)
        finally:
            client.close()


async def applied_by_the_projections(storage: Storage, streams: list[str]) -> None:
    """As if the service's projections had followed ``streams`` to their last events,
    and retired those sealed (the archiver moves a match only then)."""
    for stream in streams:
        seq = await storage.events.version(stream)
        for follower in followers_of(storage):
            await follower.commit(stream, seq)
    for follower in followers_of(storage):
        await retire_closed(storage.events, follower)
