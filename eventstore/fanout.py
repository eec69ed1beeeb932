"""One subscription per stream for all of a process's listeners.

A listener per stream subscription costs a blocking Redis connection and a read
per event per listener; a match watched by four seats and a few spectators on one
replica needs only one. ``Fanout.listen`` gives each listener the same guarantee as
``RedisEventStore.subscribe``: every event from its ``from_seq`` on, in order,
exactly once (stored ones first, then live ones).

How a late listener joins without a gap: it is registered for live events first,
then reads what is stored from its ``from_seq``; live events it has already read
are skipped by seq. The shared subscription delivers every event after the head it
started from, and the read covers everything up to the head when it ran, so
nothing falls between the two.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from .errors import EventStoreError
from .model import StoredEvent
from .store import RedisEventStore

log = logging.getLogger("eventstore.fanout")

QUEUE_LIMIT = 10_000  # live events a listener may fall behind before it is dropped


class ListenerTooSlow(EventStoreError):
    """A listener fell too far behind the live events; listen again from its last seq."""


@dataclass
class _Shared:
    started: asyncio.Future[None]  # the subscription knows where it starts
    listeners: set[asyncio.Queue[StoredEvent | BaseException]] = field(default_factory=set)
    task: asyncio.Task[None] | None = None


class Fanout:
    def __init__(self, store: RedisEventStore, *, page: int = 500) -> None:
        self.store = store
        self.page = page
        self._streams: dict[str, _Shared] = {}

    @contextlib.asynccontextmanager
    async def listen(
        self, stream: str, from_seq: int = 0
    ) -> AsyncIterator[AsyncIterator[StoredEvent]]:
        """``async with fanout.listen(stream, seq) as events: async for event in events``."""
        queue: asyncio.Queue[StoredEvent | BaseException] = asyncio.Queue()
        shared = self._streams.get(stream)
        if shared is None:
            shared = self._streams[stream] = _Shared(asyncio.get_running_loop().create_future())
            shared.task = asyncio.create_task(self._follow(stream, shared))
        shared.listeners.add(queue)
        try:
            yield self._events(stream, max(0, from_seq), shared, queue)
        finally:
            shared.listeners.discard(queue)
            if not shared.listeners and self._streams.get(stream) is shared:
                del self._streams[stream]
                if shared.task is not None:
                    shared.task.cancel()

    async def _events(
        self,
        stream: str,
        next_seq: int,
        shared: _Shared,
        queue: asyncio.Queue[StoredEvent | BaseException],
    ) -> AsyncIterator[StoredEvent]:
        # read only once the subscription has fixed its start: what it misses, this reads
        await asyncio.shield(shared.started)
        async for page in self.store.read_pages(stream, next_seq, self.page):
            for event in page:
                yield event
            next_seq = page[-1].seq + 1
        while True:
            item = await queue.get()
            if isinstance(item, BaseException):
                raise item
            if item.seq >= next_seq:
                next_seq = item.seq + 1
                yield item

    async def _follow(self, stream: str, shared: _Shared) -> None:
        try:
            start = await self.store.version(stream) + 1
            shared.started.set_result(None)
            async with self.store.subscribe(stream, start) as events:
                async for event in events:
                    for queue in list(shared.listeners):
                        if queue.qsize() >= QUEUE_LIMIT:
                            shared.listeners.discard(queue)
                            queue.put_nowait(ListenerTooSlow(f"{stream}: listener too slow"))
                        else:
                            queue.put_nowait(event)
        except EventStoreError as error:
            if not shared.started.done():
                shared.started.set_exception(error)
            for queue in shared.listeners:
                queue.put_nowait(error)
            if self._streams.get(stream) is shared:
                del self._streams[stream]
