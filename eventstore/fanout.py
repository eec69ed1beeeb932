"""One subscription per stream for all of a process's listeners.

A listener per stream subscription costs a blocking Redis connection and a read
per event per listener; a match watched by four seats and a few spectators on one
replica needs only one. ``Fanout.listen`` gives each listener the same guarantee as
``EventStore.subscribe``: every event from its ``from_seq`` on, in order,
exactly once (stored ones first, then live ones). It works over any store.

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
from .port import EventStore, Subscription

log = logging.getLogger("eventstore.fanout")

QUEUE_LIMIT = 10_000  # live events a listener may fall behind before it is dropped


class ListenerTooSlow(EventStoreError):
    """A listener fell too far behind the live events; listen again from its last seq."""


@dataclass
class _Shared:
    started: asyncio.Future[None]  # the follower knows where it starts
    listeners: set[asyncio.Queue[StoredEvent | BaseException]] = field(default_factory=set)
    subscription: Subscription | None = None
    closed: bool = False
    next_seq: int | None = None  # the seq the follower delivers next, once started


class Fanout:
    def __init__(
        self,
        store: EventStore,
        *,
        page: int = 500,
        block_ms: int = 1000,
        linger: float = 2.0,
    ) -> None:
        self.store = store
        self.page = page
        self.block_ms = block_ms
        self.linger = linger  # a follower with no listeners waits this long for new ones
        self._streams: dict[str, _Shared] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @contextlib.asynccontextmanager
    async def listen(
        self, stream: str, from_seq: int = 0
    ) -> AsyncIterator[AsyncIterator[list[StoredEvent]]]:
        """``async with fanout.listen(stream, seq) as batches: async for batch in batches``:
        each batch the events that came together (never empty)."""
        queue: asyncio.Queue[StoredEvent | BaseException] = asyncio.Queue()
        shared = self._streams.get(stream)
        if shared is None:
            shared = self._streams[stream] = _Shared(asyncio.get_running_loop().create_future())
            task = asyncio.create_task(self._follow(stream, shared))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        shared.listeners.add(queue)
        # a listener from where the follower is already needs no read of what is stored:
        # everything from there on reaches its queue (no await since it was added)
        live_only = shared.next_seq is not None and from_seq >= shared.next_seq
        try:
            yield self._events(stream, max(0, from_seq), shared, queue, live_only)
        finally:
            shared.listeners.discard(queue)

    async def close(self) -> None:
        """Stop every follower (their blocked reads end with their connections)."""
        for shared in list(self._streams.values()):
            shared.closed = True
            if shared.subscription is not None:
                await shared.subscription.aclose()
        self._streams.clear()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=self.block_ms / 1000 + 1)

    async def _events(
        self,
        stream: str,
        next_seq: int,
        shared: _Shared,
        queue: asyncio.Queue[StoredEvent | BaseException],
        live_only: bool,
    ) -> AsyncIterator[list[StoredEvent]]:
        if not live_only:
            # read only once the follower has fixed its start: what it misses, this reads
            await asyncio.shield(shared.started)
            async for page in self.store.read_pages(stream, next_seq, self.page):
                yield page
                next_seq = page[-1].seq + 1
        while True:
            items = [await queue.get()]
            while not queue.empty() and len(items) < self.page:
                items.append(queue.get_nowait())
            batch: list[StoredEvent] = []
            for item in items:
                if isinstance(item, BaseException):
                    if batch:
                        yield batch
                    raise item
                if item.seq >= next_seq:
                    next_seq = item.seq + 1
                    batch.append(item)
            if batch:
                yield batch

    async def _follow(self, stream: str, shared: _Shared) -> None:
        """Read the stream for its listeners; return once none has come for ``linger``
        seconds. (It ends by itself, never by cancellation: a cancellation landing inside
        a blocked Redis read may not come out.)"""
        loop = asyncio.get_running_loop()
        subscription: Subscription | None = None
        idle_since: float | None = None
        try:
            start = shared.next_seq = await self.store.version(stream) + 1
            # fail at once when the store does: its listeners' callers retry, not it
            subscription = shared.subscription = self.store.subscribe(
                stream, start, batch=self.page, block_ms=self.block_ms, reconnect_for=0.0
            )
            shared.started.set_result(None)
            while not shared.closed:
                if shared.listeners:
                    idle_since = None
                elif idle_since is None:
                    idle_since = loop.time()
                elif loop.time() - idle_since >= self.linger:
                    # no await between this check and leaving: no listener can slip in
                    if self._streams.get(stream) is shared:
                        del self._streams[stream]
                    return
                events = await subscription.next_batch()
                if not events:
                    continue
                shared.next_seq = events[-1].seq + 1
                for event in events:
                    self._deliver(stream, shared, event)
        except Exception as error:
            if shared.closed:
                return  # a read cut short by close() may fail any way it likes
            failure = error if isinstance(error, EventStoreError) else EventStoreError(str(error))
            if not shared.started.done():
                shared.started.set_exception(failure)
            if self._streams.get(stream) is shared:
                del self._streams[stream]
            for queue in shared.listeners:
                queue.put_nowait(failure)
        finally:
            if subscription is not None:
                await subscription.aclose()

    @staticmethod
    def _deliver(stream: str, shared: _Shared, event: StoredEvent) -> None:
        for queue in list(shared.listeners):
            if queue.qsize() >= QUEUE_LIMIT:
                shared.listeners.discard(queue)
                queue.put_nowait(ListenerTooSlow(f"{stream}: listener too slow"))
            else:
                queue.put_nowait(event)
