"""What every projection of this service does the same way: follow the global
feed, apply each event with its checkpoint in one Redis script, stop on a flag,
catch up on demand. A projection says only which writes an event makes.

Their state lives in Redis beside the events (``RedisCheckpoints``), so they take
the Redis store, not any ``EventStore``."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from eventstore import EventStoreError, RedisCheckpoints, RedisEventStore, StoredEvent
from eventstore.feed import Op

log = logging.getLogger("daifugo.projections")
PACE = 0.25  # seconds between reads of the feed: a match's appends meanwhile are read at once


class FeedProjection:
    name = ""  # the checkpoints' name, and its keys' prefix

    def __init__(self, store: RedisEventStore) -> None:
        self.store = store
        self.checkpoints = RedisCheckpoints(store, self.name)
        self._stopping = False

    def _key(self, suffix: str) -> str:
        return self.checkpoints.key(suffix)

    async def _ops(self, event: StoredEvent) -> list[Op]:
        """The writes ``event`` makes (none for most)."""
        raise NotImplementedError

    async def run(self) -> None:
        """Follow every stream until ``stop`` (resumes where its checkpoints say)."""
        while not self._stopping:
            try:
                async for event in self.store.subscribe_all(self.checkpoints, pace=PACE):
                    if self._stopping:
                        return
                    await self.apply(event)
            except Exception as error:
                if self._stopping:  # a read the stop cut short, however the client broke off
                    return
                if isinstance(error, EventStoreError):
                    log.warning("%s projection lost the feed (%s); resuming", self.name, error)
                else:  # a projection that dies silently is worse than one that retries
                    log.exception("%s projection failed; resuming", self.name)
                await asyncio.sleep(1.0)

    def stop(self) -> None:
        """Ask ``run`` to return. (A flag, not only cancellation: a cancellation
        that lands inside a Redis client call may not come out.)"""
        self._stopping = True

    async def catch_up(self) -> None:
        """Apply everything stored now, then return."""
        async for event in self.store.subscribe_all(self.checkpoints, live=False):
            await self.apply(event)

    async def apply(self, event: StoredEvent) -> bool:
        return await self.checkpoints.apply_or_defer(event, await self._ops(event))


def pairs(reply: Any) -> list[tuple[bytes, bytes]]:
    """HGETALL's reply as pairs: the store's client leaves it a flat list."""
    if isinstance(reply, dict):
        return list(reply.items())
    return list(zip(reply[::2], reply[1::2], strict=True))
