"""One follower per stream for all of a process's listeners, and one reader of the
store's hints for all of its followers.

``Fanout.listen`` gives each listener the same guarantee as ``EventStore.subscribe``:
every event from its ``from_seq`` on, in order, exactly once (stored ones first, then
live ones). It works over any store.

How live events come: the process's own appends are handed over as they are written
(``appended``), with no read; another process's are read from the stream once the
store hints that it moved (``EventStore.hints``, one reader for every stream followed
here). A hint that could be missing (the store was away; on a cluster, a hint lost) is
made up for by a look at each followed stream every ``check_every`` seconds. Whichever
way an event comes first, it is delivered once: a follower delivers by seq.

How a late listener joins without a gap: it is registered for live events first,
then reads what is stored from its ``from_seq``; live events it has already read
are skipped by seq. The follower delivers every event after the head it started from
(the hints are followed from before it read the head), and the read covers everything
up to the head when it ran, so nothing falls between the two.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field

from .errors import EventStoreError
from .model import StoredEvent
from .port import EventStore, Hints

log = logging.getLogger("eventstore.fanout")

QUEUE_LIMIT = 10_000  # live events a listener may fall behind before it is dropped
LOOK = 1 << 62  # a hint of every seq: hints may be missing, or the follower is starting


class ListenerTooSlow(EventStoreError):
    """A listener fell too far behind the live events; listen again from its last seq."""


@dataclass
class _Shared:
    started: asyncio.Future[None]  # the follower knows where it starts
    listeners: set[asyncio.Queue[StoredEvent | BaseException]] = field(default_factory=set)
    closed: bool = False
    next_seq: int | None = None  # the seq the follower delivers next, once started
    moved: asyncio.Event = field(default_factory=asyncio.Event)  # a hint came
    hinted: int = -1  # the highest seq hinted since the last read (LOOK: look anyway)
    appending: int = 0  # this process's appends under way: their hints wait for them


class Fanout:
    def __init__(
        self,
        store: EventStore,
        *,
        page: int = 500,
        block_ms: int = 1000,
        linger: float = 2.0,
        check_every: float = 5.0,
        hints_pace: float = 0.005,
    ) -> None:
        self.store = store
        self.page = page
        self.block_ms = block_ms
        self.linger = linger  # a follower with no listeners waits this long for new ones
        self.check_every = check_every
        # seconds between reads of the hints: this process's own appends need none, and
        # other processes' wait this much longer (less than a network round trip adds)
        self.hints_pace = hints_pace
        self._streams: dict[str, _Shared] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._hints: Hints | None = None
        self._hinting: asyncio.Future[None] | None = None  # the hints are followed

    @contextlib.asynccontextmanager
    async def listen(
        self, stream: str, from_seq: int = 0
    ) -> AsyncIterator[AsyncIterator[list[StoredEvent]]]:
        """``async with fanout.listen(stream, seq) as batches: async for batch in batches``:
        each batch the events that came together (never empty)."""
        queue: asyncio.Queue[StoredEvent | BaseException] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        if self._hinting is None:
            self._hinting = loop.create_future()
            self._spawn(self._follow_hints(self._hinting))
        shared = self._streams.get(stream)
        if shared is None:
            shared = self._streams[stream] = _Shared(loop.create_future())
            self._spawn(self._follow(stream, shared, self._hinting))
        shared.listeners.add(queue)
        # a listener from where the follower is already needs no read of what is stored:
        # everything from there on reaches its queue (no await since it was added)
        live_only = shared.next_seq is not None and from_seq >= shared.next_seq
        try:
            yield self._events(stream, max(0, from_seq), shared, queue, live_only)
        finally:
            shared.listeners.discard(queue)

    @contextlib.contextmanager
    def appending(self, stream: str) -> Iterator[None]:
        """Around this process's append to ``stream``, which ends with ``appended``: the
        hint of it, which may come first, waits for it rather than read the stream."""
        shared = self._streams.get(stream)
        if shared is not None:
            shared.appending += 1
        try:
            yield
        finally:
            if shared is not None:
                shared.appending -= 1
                if not shared.appending and shared.hinted >= 0:
                    shared.moved.set()  # a hint came meanwhile: see whether it was this one

    def appended(self, stream: str, events: Sequence[StoredEvent]) -> None:
        """This process appended ``events`` (as stored): the stream's listeners here get
        them now, with no read."""
        shared = self._streams.get(stream)
        if shared is None or shared.next_seq is None or not events:
            return
        if events[0].seq > shared.next_seq:  # others' events came between: read them all
            shared.hinted = LOOK
            shared.moved.set()
        else:
            self._deliver_new(stream, shared, events)

    async def close(self) -> None:
        """Stop every follower and the reader of the hints."""
        for shared in list(self._streams.values()):
            shared.closed = True
            shared.moved.set()
        self._streams.clear()
        self._hinting = None
        if self._hints is not None:
            await self._hints.aclose()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=self.block_ms / 1000 + 1)

    def _spawn(self, work: Coroutine[None, None, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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

    async def _follow_hints(self, hinting: asyncio.Future[None]) -> None:
        """Wake each followed stream the store hints moved past what it delivered; end
        once no stream has been followed for ``linger`` seconds. (It ends by itself,
        never by cancellation: a cancellation landing inside a blocked Redis read may
        not come out.)"""
        loop = asyncio.get_running_loop()
        hints = self._hints = self.store.hints(block_ms=self.block_ms)
        idle_since: float | None = None
        try:
            try:
                await hints.start()
            except Exception as error:  # its followers fail with it; callers try again
                hinting.set_exception(as_store_error(error))
                hinting.exception()  # retrieved here, raised in each follower
                return
            hinting.set_result(None)
            while self._hinting is hinting:  # until closed
                if self._streams:
                    idle_since = None
                elif idle_since is None:
                    idle_since = loop.time()
                elif loop.time() - idle_since >= self.linger:
                    return
                hinted = await hints.next()
                if self._hinting is not hinting:
                    return
                if hinted is None:  # maybe missed: every stream looks
                    for every in self._streams.values():
                        self._hint(every, LOOK)
                    continue
                for stream, seq in hinted.items():
                    shared = self._streams.get(stream)
                    if shared is not None:  # a follower still starting looks anyway
                        self._hint(shared, LOOK if shared.next_seq is None else seq)
                if hinted and self.hints_pace:
                    await asyncio.sleep(self.hints_pace)
        except Exception as error:  # the followers look every check_every meanwhile
            log.warning("the store's hints failed (%s): the next listener reads them anew", error)
        finally:
            # no await before this: a new listener starts a new reader
            if self._hinting is hinting:
                self._hinting = None
            self._hints = None
            await hints.aclose()

    @staticmethod
    def _hint(shared: _Shared, seq: int) -> None:
        if seq >= (shared.next_seq or 0) and seq > shared.hinted:
            shared.hinted = seq
            shared.moved.set()

    async def _follow(self, stream: str, shared: _Shared, hinting: asyncio.Future[None]) -> None:
        """Deliver the stream's new events to its listeners; return once none has come
        for ``linger`` seconds."""
        loop = asyncio.get_running_loop()
        idle_since: float | None = None
        try:
            await asyncio.shield(hinting)  # hints from before the head is read: none missed
            shared.next_seq = await self.store.version(stream) + 1
            shared.started.set_result(None)
            looked = loop.time()
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
                due = looked + self.check_every - loop.time()
                if not shared.moved.is_set() and due > 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(shared.moved.wait(), min(self.block_ms / 1000, due))
                    continue  # (and look at linger again)
                shared.moved.clear()
                if shared.appending and due > 0:
                    continue  # its end sets ``moved`` again: the hint may be of it
                behind = shared.hinted >= shared.next_seq  # else handed over already
                shared.hinted = -1
                if behind or due <= 0:
                    looked = loop.time()
                    await self._read(stream, shared)
        except Exception as error:
            if shared.closed:
                return  # a read cut short by close() may fail any way it likes
            failure = as_store_error(error)
            if not shared.started.done():
                shared.started.set_exception(failure)
            if self._streams.get(stream) is shared:
                del self._streams[stream]
            for queue in shared.listeners:
                queue.put_nowait(failure)

    async def _read(self, stream: str, shared: _Shared) -> None:
        """What the stream holds past what was delivered, delivered."""
        while shared.next_seq is not None:
            page = await self.store.read(stream, shared.next_seq, self.page)
            self._deliver_new(stream, shared, page)
            if len(page) < self.page:
                return

    def _deliver_new(self, stream: str, shared: _Shared, events: Sequence[StoredEvent]) -> None:
        """Deliver those of ``events`` (in seq order) the follower has not yet."""
        for event in events:
            if event.seq == shared.next_seq:
                shared.next_seq += 1
                self._deliver(stream, shared, event)

    @staticmethod
    def _deliver(stream: str, shared: _Shared, event: StoredEvent) -> None:
        for queue in list(shared.listeners):
            if queue.qsize() >= QUEUE_LIMIT:
                shared.listeners.discard(queue)
                queue.put_nowait(ListenerTooSlow(f"{stream}: listener too slow"))
            else:
                queue.put_nowait(event)


def as_store_error(error: Exception) -> EventStoreError:
    return error if isinstance(error, EventStoreError) else EventStoreError(str(error))
