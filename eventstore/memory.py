"""InMemoryEventStore: the event store contract in one process's memory, without Redis.

The same contract as ``RedisEventStore``, checked by the same suite: events chained and
encoded as Redis stores them (the same hashes, the same MessagePack bodies, decoded on
every read, so a reader never shares a mutable object with the store), the same
expected-version conflicts, request-id idempotency with fingerprints, errors, catch-up
then live subscriptions and the global feed over checkpoints. Waiting is asyncio's: a
subscription sleeps until an append wakes it or its ``block_ms`` pass.

It keeps everything for the life of the object and is for one event loop. It never
raises StoreUnavailable.
"""

from __future__ import annotations

import asyncio
import itertools
import time
import weakref
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING

from .archive import Archive, ArchivedStreams
from .chain import ChainCheck, auto_request_id, check_append_args, closes, encode_batch
from .codec import BODY_FIELD, HASH_FIELD, Upcasters, decode_entries
from .errors import ConcurrencyConflict, EventStoreError, RequestIdReused, StreamClosed
from .keys import check_stream_id
from .model import (
    GENESIS_HASH,
    NO_STREAM,
    AppendResult,
    Closed,
    NewEvent,
    SentAppend,
    StoredEvent,
    Verification,
)
from .port import Checkpoints

Entry = tuple[bytes, list[bytes]]
"""An event as stored: ``(b"<seq>-1", [b"h", hash, b"e", body])``, the layout of a Redis
stream entry, read back with the same decoder."""


class InMemoryCheckpoints:
    """Checkpoints of a projection that lives in memory and is rebuilt from scratch."""

    def __init__(self, positions: Mapping[str, int] | None = None, watermark: int = 0) -> None:
        self._positions: dict[str, int] = dict(positions or {})
        self._watermark = watermark

    async def positions(self) -> Mapping[str, int]:
        return dict(self._positions)

    async def watermark(self) -> int:
        return self._watermark

    def position(self, stream: str) -> int:
        return self._positions.get(stream, -1)

    def commit(self, stream: str, seq: int) -> bool:
        """Move forward to ``seq``; False (and no change) when already there or past."""
        if seq <= self._positions.get(stream, -1):
            return False
        self._positions[stream] = seq
        return True


@dataclass(eq=False)
class _Stream:
    entries: list[Entry] = field(default_factory=list)
    head: str = GENESIS_HASH
    requests: dict[str, tuple[int, int, str]] = field(default_factory=dict)  # first, last, fp
    closed: bool = False  # its last append ended with the seal: nothing comes after

    @property
    def version(self) -> int:
        return len(self.entries) - 1


@dataclass(eq=False)
class _Data:
    """What stores sharing one memory see (as processes sharing one Redis)."""

    streams: dict[str, _Stream] = field(default_factory=dict)  # in order of first append
    closed: dict[str, int] = field(default_factory=dict)  # the close log: stream -> number
    close_count: int = 0
    waiters: dict[str, set[asyncio.Future[None]]] = field(default_factory=dict)  # by stream
    feeds: weakref.WeakSet[InMemoryHints] = field(default_factory=weakref.WeakSet)


async def _turn() -> None:
    """Let other tasks run, as a store across a network would at every call: a caller
    looping on the store never starves the rest of the loop. (What follows, up to the next
    await, is one atomic step: an append's version check and its write are.)"""
    await asyncio.sleep(0)


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)


class InMemoryEventStore:
    """The event store in memory: see the module's docstring and eventstore/port.py."""

    def __init__(self, *, upcasters: Upcasters | None = None) -> None:
        self.upcasters = upcasters or Upcasters()
        self._data = _Data()
        self.archived: ArchivedStreams | None = None  # where sealed streams went
        self._subscriptions: weakref.WeakSet[
            InMemorySubscription | InMemoryFeedSubscription | InMemoryHints
        ] = weakref.WeakSet()

    def sharing(self, *, upcasters: Upcasters | None = None) -> InMemoryEventStore:
        """Another store over the same events (as another process on the same Redis),
        with its own upcasters and subscriptions."""
        other = InMemoryEventStore(upcasters=upcasters)
        other._data = self._data
        other.archived = self.archived
        return other

    def use_archive(self, archive: Archive) -> None:
        """Read the streams moved to ``archive`` as if still here; see ``RedisEventStore``."""
        self.archived = ArchivedStreams(archive)

    async def _archived(
        self, stream: str, first: int = 0, end: int | None = None
    ) -> list[StoredEvent] | None:
        if self.archived is None or stream in self._data.streams:
            return None
        events = await self.archived.events(stream)
        if events is None:
            return None
        upcast = self.upcasters.upcast  # only what is read: a block of a long stream
        return [upcast(event) for event in events[first:end]]

    async def __aenter__(self) -> InMemoryEventStore:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # --- writing ---------------------------------------------------------------------

    async def append(
        self,
        stream: str,
        events: Sequence[NewEvent],
        expected_version: int,
        request_id: str | None = None,
        fingerprint: str = "",
    ) -> AppendResult:
        """Append ``events`` at once if the stream's version is ``expected_version``;
        see ``EventStore.append``."""
        return await self.append_overlapped(
            stream, events, expected_version, request_id, fingerprint, None
        )

    async def append_overlapped(
        self,
        stream: str,
        events: Sequence[NewEvent],
        expected_version: int,
        request_id: str | None,
        fingerprint: str,
        meanwhile: Callable[[tuple[StoredEvent, ...]], None] | None,
    ) -> AppendResult:
        """``append``, running ``meanwhile`` on the events as they would be stored before
        its checks, as the Redis store's round trip may (eventstore/overlap.py): what runs
        on memory meets work done for events that are then not stored."""
        check_stream_id(stream)
        check_append_args(events, expected_version, request_id, fingerprint)
        await _turn()
        if expected_version == NO_STREAM and (archived := await self._archived(stream)):
            raise StreamClosed(stream, archived[-1].seq)  # sealed, and left: never again
        return self._append_now(
            stream, events, expected_version, request_id, fingerprint, meanwhile
        )

    def send_append(
        self,
        stream: str,
        events: Sequence[NewEvent],
        expected_version: int,
        request_id: str | None = None,
        fingerprint: str = "",
    ) -> SentAppend | None:
        """Appended at once (in memory nothing is awaited); see ``EventStore.send_append``."""
        check_stream_id(stream)
        check_append_args(events, expected_version, request_id, fingerprint)
        answer: asyncio.Future[AppendResult] = asyncio.get_running_loop().create_future()
        written: list[StoredEvent] = []  # as they would be stored, stored or not
        try:
            result = self._append_now(
                stream, events, expected_version, request_id, fingerprint, written.extend
            )
        except EventStoreError as error:
            answer.set_exception(error)
        else:
            answer.set_result(result)
        return SentAppend(tuple(written), answer)

    def _append_now(
        self,
        stream: str,
        events: Sequence[NewEvent],
        expected_version: int,
        request_id: str | None,
        fingerprint: str,
        meanwhile: Callable[[tuple[StoredEvent, ...]], None] | None = None,
    ) -> AppendResult:
        if request_id is None:
            request_id = auto_request_id()
        at = time.time_ns() // 1_000_000
        known = self._data.streams.get(stream)
        head = known.head if known is not None else GENESIS_HASH
        args: list[str | bytes | int] = []
        stored: list[StoredEvent] = []
        # encoded first, as the Redis store does: unstorable data is refused whatever is stored
        encode_batch(args, stored, stream, events, expected_version, request_id, at, head)
        written = tuple(stored)
        if meanwhile is not None:  # before the checks, as the Redis store's round trip
            meanwhile(written)
        if known is not None:
            done = known.requests.get(request_id)
            if done is not None:
                first, last, first_fingerprint = done
                if first_fingerprint != fingerprint:
                    raise RequestIdReused(stream, request_id)
                return AppendResult(first, last, True, (), first_fingerprint)
            if known.closed:
                raise StreamClosed(stream, known.version)
        version = known.version if known is not None else NO_STREAM
        if version != expected_version:
            raise ConcurrencyConflict(stream, expected_version, version)
        # nothing awaited since the version was read: the check and the write are one step
        target = known if known is not None else self._data.streams.setdefault(stream, _Stream())
        for event, body in zip(stored, args[1::2], strict=True):
            assert isinstance(body, bytes)
            fields = [HASH_FIELD, event.hash.encode(), BODY_FIELD, body]
            target.entries.append((f"{event.seq}-1".encode(), fields))
        first, last = expected_version + 1, stored[-1].seq
        target.head = stored[-1].hash
        target.requests[request_id] = (first, last, fingerprint)
        target.closed = closes(events)
        if target.closed:
            self._data.close_count += 1
            self._data.closed[stream] = self._data.close_count
        for waiter in self._data.waiters.pop(stream, ()):
            _wake(waiter)
        for feed in self._data.feeds:
            feed.hint(stream, last)
        return AppendResult(first, last, False, written, fingerprint)

    # --- reading ---------------------------------------------------------------------

    async def version(self, stream: str) -> int:
        check_stream_id(stream)
        await _turn()
        known = self._data.streams.get(stream)
        if known is None and (archived := await self._archived(stream)):
            return archived[-1].seq
        return known.version if known is not None else NO_STREAM

    async def last_events(self, streams: Sequence[str]) -> list[StoredEvent | None]:
        for stream in streams:
            check_stream_id(stream)
        await _turn()
        last: list[StoredEvent | None] = []
        for stream in streams:
            known = self._data.streams.get(stream)
            version = known.version if known is not None else NO_STREAM
            if version >= 0:
                last.append(self._slice(stream, version, 1)[0])
            else:
                archived = await self._archived(stream)
                last.append(archived[-1] if archived else None)
        return last

    async def request_result(self, stream: str, request_id: str) -> AppendResult | None:
        check_stream_id(stream)
        await _turn()
        known = self._data.streams.get(stream)
        done = known.requests.get(request_id) if known is not None else None
        if done is None:
            return None
        first, last, fingerprint = done
        return AppendResult(first, last, True, (), fingerprint)

    async def read(
        self, stream: str, from_seq: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        check_stream_id(stream)
        from_seq = max(from_seq, 0)
        if limit is not None and limit <= 0:
            return []
        await _turn()
        end = None if limit is None else from_seq + limit
        if stream not in self._data.streams and self.archived is not None:
            archived = await self._archived(stream, from_seq, end)
            if archived is not None:
                return archived
        return self._slice(stream, from_seq, limit)

    async def read_pages(
        self, stream: str, from_seq: int = 0, page_size: int = 1000
    ) -> AsyncIterator[list[StoredEvent]]:
        check_stream_id(stream)
        from_seq = max(from_seq, 0)
        if stream not in self._data.streams and (archived := await self._archived(stream)):
            for at in range(from_seq, len(archived), page_size):
                yield archived[at : at + page_size]
            return
        while True:
            page = self._slice(stream, from_seq, page_size)
            if page:
                yield page
            if len(page) < page_size:
                return
            from_seq = page[-1].seq + 1

    async def read_as_stored(self, stream: str) -> list[StoredEvent]:
        """The whole stream as stored (not upcast); see ``RedisEventStore``."""
        check_stream_id(stream)
        await _turn()
        known = self._data.streams.get(stream)
        return decode_entries(stream, known.entries, 0, None) if known is not None else []

    async def drop_sealed(self, stream: str) -> bool:
        """Forget a sealed stream once archived; see ``RedisEventStore.drop_sealed``."""
        check_stream_id(stream)
        await _turn()
        known = self._data.streams.get(stream)
        if known is not None and not known.closed:
            return False
        self._data.streams.pop(stream, None)
        self._data.closed.pop(stream, None)
        return True

    def _slice(self, stream: str, from_seq: int, limit: int | None) -> list[StoredEvent]:
        known = self._data.streams.get(stream)
        if known is None:
            return []
        end = None if limit is None else from_seq + limit
        return decode_entries(stream, known.entries[from_seq:end], from_seq, self.upcasters)

    async def verify(self, stream: str) -> Verification:
        check_stream_id(stream)
        check = ChainCheck(stream)
        known = self._data.streams.get(stream)
        if known is None and self.archived and (archived := await self._archived(stream)):
            return self.archived.verification(archived)
        if known is None:
            return check.against_head(NO_STREAM, GENESIS_HASH, has_head=False)
        bad = check.check(known.entries)
        if bad is not None:
            return bad
        return check.against_head(known.version, known.head, has_head=True)

    # --- the index -------------------------------------------------------------------

    async def streams(self, offset: int = 0, limit: int = 50) -> list[str]:
        if limit <= 0:
            return []
        start = max(offset, 0)
        return list(itertools.islice(self._open(), start, start + limit))

    def _open(self) -> Iterator[str]:
        closed = self._data.closed
        return (stream for stream in self._data.streams if stream not in closed)

    async def stream_count(self) -> int:
        return len(self._data.streams) - len(self._data.closed)

    async def holds(self, streams: Sequence[str]) -> list[bool]:
        await _turn()
        return [stream in self._data.streams for stream in streams]

    async def closed_since(self, after: int, limit: int = 500) -> list[Closed]:
        await _turn()
        data = self._data
        past = sorted((n, s) for s, n in data.closed.items() if n > after)[: max(limit, 0)]
        return [Closed(stream, number, data.streams[stream].version) for number, stream in past]

    async def close_numbers(self, streams: Sequence[str]) -> list[int | None]:
        await _turn()
        return [self._data.closed.get(stream) for stream in streams]

    async def close_count(self) -> int:
        return self._data.close_count

    async def close_log_size(self) -> int:
        return len(self._data.closed)

    # --- subscriptions ---------------------------------------------------------------

    def subscribe(
        self,
        stream: str,
        from_seq: int = 0,
        *,
        batch: int = 500,
        block_ms: int = 5000,
        reconnect_for: float = 30.0,
    ) -> InMemorySubscription:
        """``stream`` from ``from_seq``: stored events, then new ones. (``reconnect_for``
        is there for the protocol: memory is never out of reach.)"""
        check_stream_id(stream)
        sub = InMemorySubscription(self, stream, from_seq, batch=batch, block_ms=block_ms)
        self._subscriptions.add(sub)
        return sub

    def subscribe_all(
        self,
        checkpoints: Checkpoints,
        *,
        live: bool = True,
        batch: int = 500,
        block_ms: int = 5000,
        reconnect_for: float = 30.0,
        pace: float = 0.0,
    ) -> InMemoryFeedSubscription:
        """Every event of every stream past ``checkpoints``; see ``EventStore``."""
        sub = InMemoryFeedSubscription(
            self, checkpoints, live=live, batch=batch, block_ms=block_ms, pace=pace
        )
        self._subscriptions.add(sub)
        return sub

    def hints(self, *, block_ms: int = 5000) -> InMemoryHints:
        """Which streams have new events; see ``port.Hints``."""
        hints = InMemoryHints(self, block_ms)
        self._subscriptions.add(hints)
        return hints

    async def _wait_for_append(self, stream: str, waiter: asyncio.Future[None], ms: int) -> None:
        """Until the next append to ``stream`` (or ``waiter`` is woken otherwise), at most
        ``ms`` milliseconds."""
        waiters = self._data.waiters.setdefault(stream, set())
        waiters.add(waiter)
        try:
            await asyncio.wait([waiter], timeout=ms / 1000)
        finally:
            waiters.discard(waiter)
            if not waiters and self._data.waiters.get(stream) is waiters:
                del self._data.waiters[stream]

    async def close(self) -> None:
        """Close every open subscription (the events stay)."""
        for sub in list(self._subscriptions):
            await sub.aclose()


class InMemorySubscription:
    """One stream from a seq; see ``port.Subscription``."""

    def __init__(
        self, store: InMemoryEventStore, stream: str, from_seq: int, *, batch: int, block_ms: int
    ) -> None:
        self.store = store
        self.stream = stream
        self.batch = batch
        self.block_ms = block_ms
        self.last_seq = max(from_seq, 0) - 1
        self._buffer: deque[StoredEvent] = deque()
        self._closed = False
        self._waiter: asyncio.Future[None] | None = None

    def __aiter__(self) -> InMemorySubscription:
        return self

    async def __anext__(self) -> StoredEvent:
        while not self._buffer:
            if self._closed:
                raise StopAsyncIteration
            await self._fetch()
        event = self._buffer.popleft()
        self.last_seq = event.seq
        return event

    async def next_batch(self) -> list[StoredEvent]:
        if not self._buffer and not self._closed:
            await self._fetch()
        batch = [self._buffer.popleft() for _ in range(min(self.batch, len(self._buffer)))]
        if batch:
            self.last_seq = batch[-1].seq
        return batch

    async def _fetch(self) -> None:
        next_seq = self.last_seq + 1 + len(self._buffer)
        events = self.store._slice(self.stream, next_seq, self.batch)
        if not events:  # nothing awaited since the read: no append slips in before the wait
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self.store._wait_for_append(self.stream, self._waiter, self.block_ms)
            finally:
                self._waiter = None
            if self._closed:
                return
            events = self.store._slice(self.stream, next_seq, self.batch)
        self._buffer.extend(events)

    async def aclose(self) -> None:
        self._closed = True
        self._buffer.clear()
        _wake(self._waiter)

    async def __aenter__(self) -> InMemorySubscription:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class InMemoryFeedSubscription:
    """Every event of every stream past the checkpoints; see ``port.FeedSubscription``.

    It goes over every stream once (the catch-up), then over the streams appended to since
    it started, as the store tells it. It is told from before the catch-up begins, so an
    append during it is read then or after; ``positions`` (the last seq handed out per
    stream) keeps anything from coming twice.
    """

    def __init__(
        self,
        store: InMemoryEventStore,
        checkpoints: Checkpoints,
        *,
        live: bool,
        batch: int,
        block_ms: int,
        pace: float,
    ) -> None:
        self.store = store
        self.checkpoints = checkpoints
        self.live = live
        self.batch = batch
        self.block_ms = block_ms
        self.pace = pace
        self.positions: dict[str, int] = {}
        self._hints = InMemoryHints(store, block_ms)  # the streams appended to, in order
        self._closed = False
        self._gen = self._run()

    def __aiter__(self) -> InMemoryFeedSubscription:
        return self

    async def __anext__(self) -> StoredEvent:
        if self._closed:
            raise StopAsyncIteration
        return await self._gen.__anext__()

    async def _run(self) -> AsyncGenerator[StoredEvent, None]:
        data = self.store._data
        for stream, seq in (await self.checkpoints.positions()).items():
            if seq > self.positions.get(stream, -1):
                self.positions[stream] = seq
        watermark = await self.checkpoints.watermark()
        await self._hints.start()
        try:
            # the open streams and those closed past the watermark (the others are done)
            swept = [s for s in data.streams if data.closed.get(s, watermark + 1) > watermark]
            for stream in swept:
                async for event in self._catch_up(stream):
                    yield event
            while self.live and not self._closed:
                hinted = await self._hints.next()
                for stream in hinted or ():
                    async for event in self._catch_up(stream):
                        yield event
                if hinted and self.pace:
                    await asyncio.sleep(self.pace)
        finally:
            await self._hints.aclose()

    async def _catch_up(self, stream: str) -> AsyncIterator[StoredEvent]:
        while not self._closed:
            start = self.positions.get(stream, -1) + 1
            page = self.store._slice(stream, start, self.batch)
            for event in page:
                self.positions[stream] = event.seq
                yield event
            if len(page) < self.batch:
                return
            await asyncio.sleep(0)  # a long catch-up lets the rest of the loop run

    async def aclose(self) -> None:
        self._closed = True
        await self._hints.aclose()
        if not getattr(self._gen, "ag_running", False):  # else its own loop sees _closed
            await self._gen.aclose()

    async def __aenter__(self) -> InMemoryFeedSubscription:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class InMemoryHints:
    """Which streams have new events, as the store tells on every append; see
    ``port.Hints`` (none is ever lost here)."""

    def __init__(self, store: InMemoryEventStore, block_ms: int) -> None:
        self.store = store
        self.block_ms = block_ms
        self._hinted: dict[str, int] = {}
        self._waiter: asyncio.Future[None] | None = None
        self._closed = False

    def hint(self, stream: str, seq: int) -> None:
        self._hinted[stream] = seq
        _wake(self._waiter)

    async def start(self) -> None:
        self.store._data.feeds.add(self)

    async def next(self) -> dict[str, int] | None:
        if self._closed:
            raise EventStoreError("the hints are closed")
        if not self._hinted:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await asyncio.wait([self._waiter], timeout=self.block_ms / 1000)
            finally:
                self._waiter = None
        hinted, self._hinted = self._hinted, {}
        return hinted

    async def aclose(self) -> None:
        self._closed = True
        self.store._data.feeds.discard(self)
        _wake(self._waiter)


if TYPE_CHECKING:
    from .port import EventStore

    def _conforms(store: InMemoryEventStore) -> EventStore:
        return store  # mypy checks that the memory store implements the protocol
