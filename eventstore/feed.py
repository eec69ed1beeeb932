"""The global feed: catch-up over every stream for projections, and their checkpoints.

How nothing is skipped: every stream is put in the index before its first event is
written (in the append script on one server; just before it on a cluster). A subscription
notes the feed's last id, then sweeps the index: each stream whose version is past its
checkpoint is read from checkpoint + 1. Then it follows the feed, whose entries are only
hints ("stream s reached seq v"), written in the append script on one server and just after
the append on a cluster. A hint lost on a cluster (a crash between the two writes, the
feed's node down) or trimmed away is made up for by the next sweep: after any reconnection
and every ``sweep_every`` seconds. Events are always read from the streams themselves,
from the subscription's own position, so a hint can never cause a skip or a repeat.

How nothing is applied twice: see RedisCheckpoints.apply and eventstore/README.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .connection import unavailable_as
from .errors import CheckpointGap, EventStoreError, StoreUnavailable
from .model import Closed, StoredEvent
from .port import PROJECTION_OPS, Checkpoints, EventStore, Op
from .scripts import APPLY, COMMIT, PASS, RETIRE, WRITE
from .store import parse_head
from .subscription import Backoff, BlockingReader

if TYPE_CHECKING:
    from .store import RedisEventStore

SWEEP_PAGE = 500
PASS_EVERY = 5.0  # seconds between commits of the events projections passed without a write
PASS_PAGE = 500  # streams a commit of passed events moves in one script


def check_ops(ops: Sequence[Op], owns: str) -> None:
    """Refuse (ValueError) an op outside ``PROJECTION_OPS`` or a key not of the
    projection's own (``owns``: what every one of its keys holds), before any is written."""
    for op in ops:
        if len(op) < 2 or not isinstance(op[1], str) or owns not in op[1]:
            raise ValueError(f"op {op!r}: its key must be made with the projection's key()")
        if op[0] not in PROJECTION_OPS:
            raise ValueError(f"op {op!r}: not one of {sorted(PROJECTION_OPS)}")


class RedisCheckpoints:
    """A projection's checkpoints in a Redis hash, plus atomic apply-and-advance.

    Keys of the projection's own state made with :meth:`key` share the checkpoints' hash
    slot, so :meth:`apply` can change them and the checkpoint in one script, on a cluster too.
    """

    def __init__(self, store: RedisEventStore, name: str, pass_every: float = PASS_EVERY) -> None:
        """``pass_every``: seconds between commits of the events passed without a write."""
        self.store = store
        self.name = name
        self.positions_key = store.keys.checkpoints(name)
        self.watermark_key = store.keys.watermark(name)
        # stream: (first, last) seq passed without a write since its checkpoint
        self._deferred: dict[str, tuple[int, int]] = {}
        self.pass_every = pass_every
        self._pass_at = time.monotonic() + pass_every

    def key(self, suffix: str) -> str:
        """A key for the projection's own state, in the checkpoints' slot."""
        return self.store.keys.projection(self.name, suffix)

    async def positions(self) -> Mapping[str, int]:
        with unavailable_as(f"checkpoints {self.name!r}", self.store.url):
            flat = await self.store.connector.execute("HGETALL", self.positions_key)
        return {flat[i].decode(): int(flat[i + 1]) for i in range(0, len(flat), 2)}

    async def position(self, stream: str) -> int:
        with unavailable_as(f"checkpoint {self.name!r}", self.store.url):
            raw = await self.store.connector.execute("HGET", self.positions_key, stream)
        return -1 if raw is None else int(raw)

    async def watermark(self) -> int:
        with unavailable_as(f"watermark {self.name!r}", self.store.url):
            raw = await self.store.connector.execute("GET", self.watermark_key)
        return 0 if raw is None else int(raw)

    async def retire(
        self, closed: Sequence[Closed], ops_of: Callable[[Closed], Sequence[Op]] | None = None
    ) -> int:
        """Drop the positions of closed streams applied through their seals, run their
        ``ops_of`` and move the watermark over them, in one script
        (``ProjectionStore.retire``)."""
        if not closed:
            return 0
        await self.commit_passed()  # a seal passed without a write counts as applied
        keys = [self.positions_key, self.watermark_key]
        args: list[str | bytes | int | float] = []
        for item in closed:
            ops = ops_of(item) if ops_of is not None else ()
            check_ops(ops, f"{{cp:{self.name}}}")
            args += [item.stream, item.number, item.last_seq, len(ops)]
            for op in ops:
                keys.append(str(op[1]))
                args += [len(op) - 2, op[0], *op[2:]]
        with unavailable_as(f"retire {self.name!r}", self.store.url):
            client = await self.store.connector.runner()
            retired, _mark = await RETIRE.run(client, keys, args)
        return int(retired)

    async def commit(self, stream: str, seq: int) -> bool:
        """Move the checkpoint forward to ``seq`` (never back); True if it moved.

        For a projection that keeps its state elsewhere. Committing after applying gives
        at-least-once application across a crash between the two; :meth:`apply` is exact.
        """
        with unavailable_as(f"commit {self.name!r}", self.store.url):
            client = await self.store.connector.runner()
            moved = await COMMIT.run(client, [self.positions_key], [stream, seq])
        return bool(moved)

    async def apply(self, event: StoredEvent, ops: Sequence[Op]) -> bool:
        """Run ``ops`` and advance the checkpoint to ``event.seq`` in one script, only if
        ``event.seq`` is the checkpoint + 1. Returns False when it was already applied
        (nothing done); raises CheckpointGap if an earlier event was not applied.

        Every op's key must come from :meth:`key`. An op Redis refuses (a wrong type, say)
        raises after the ops before it ran: Lua scripts do not roll back.
        """
        return await self._apply(event, ops, event.seq)

    async def apply_or_defer(self, event: StoredEvent, ops: Sequence[Op]) -> bool:
        """Like :meth:`apply`, but an event with no ops costs no round trip: the checkpoint
        passes it with the next event that has ops, or with :meth:`commit_passed`. Events
        must come in seq order per stream, as a subscription gives them; after a restart
        the ones not committed yet come again (and again need nothing). Returns False
        when the event was already applied."""
        first = self._deferred.get(event.stream, (event.seq, event.seq))[0]
        if first > event.seq:  # delivered again from earlier (a restart): start over
            first = event.seq
        if not ops:
            self._deferred[event.stream] = (first, event.seq)
            if time.monotonic() >= self._pass_at:
                with contextlib.suppress(EventStoreError):  # it saves reads only: next time
                    await self.commit_passed()
            return True
        applied = await self._apply(event, ops, first)
        self._deferred.pop(event.stream, None)  # kept while it fails: the retry needs it
        return applied

    async def commit_passed(self) -> None:
        """Move the checkpoints over the events passed without a write (as the stream's
        next write would). ``apply_or_defer`` does it every ``pass_every`` seconds: a
        stream that ends with such events (every finished match, for most projections) is
        then neither read again after a restart nor remembered here."""
        self._pass_at = time.monotonic() + self.pass_every
        passed = list(self._deferred.items())
        for start in range(0, len(passed), PASS_PAGE):
            page = passed[start : start + PASS_PAGE]
            args = [value for stream, (first, last) in page for value in (stream, first, last)]
            with unavailable_as(f"commit {self.name!r}", self.store.url):
                client = await self.store.connector.runner()
                await PASS.run(client, [self.positions_key], args)
            for stream, seqs in page:
                # one passed meanwhile stays, from the same first (which APPLY allows)
                if self._deferred.get(stream) == seqs:
                    del self._deferred[stream]

    async def _apply(self, event: StoredEvent, ops: Sequence[Op], first: int) -> bool:
        keys, args = self._script_ops(ops, [event.stream, event.seq, first])
        with unavailable_as(f"apply to {self.name!r}", self.store.url):
            client = await self.store.connector.runner()
            code, position = await APPLY.run(client, keys, args)
        if code == 2:
            raise CheckpointGap(event.stream, int(position), event.seq)
        return bool(code == 1)

    async def write(self, ops: Sequence[Op]) -> None:
        """Run ``ops`` at once, with no checkpoint (``ProjectionStore.write``)."""
        keys, args = self._script_ops(ops, [])
        with unavailable_as(f"write to {self.name!r}", self.store.url):
            client = await self.store.connector.runner()
            await WRITE.run(client, keys, args)

    def _script_ops(
        self, ops: Sequence[Op], args: list[str | bytes | int | float]
    ) -> tuple[list[str], list[str | bytes | int | float]]:
        """The keys and arguments of APPLY or WRITE for ``ops``, after ``args``."""
        check_ops(ops, f"{{cp:{self.name}}}")
        keys = [self.positions_key]
        for op in ops:
            keys.append(str(op[1]))
            args += [len(op) - 2, op[0], *op[2:]]
        return keys, args

    async def forget(self, streams: Sequence[str], keys: Sequence[str] = ()) -> None:
        """Drop the positions of streams that left the store, and the projection's keys
        kept for them (``ProjectionStore.forget``)."""
        own = self.key("")
        if any(not key.startswith(own) for key in keys):
            raise ValueError(f"only keys made with the projection's key() ({own}…) go")
        # the keys first: a crash before the positions go leaves them to forget again
        for start in range(0, len(keys), PASS_PAGE):  # one slot: a DEL of many is one call
            with unavailable_as(f"forget keys of {self.name!r}", self.store.url):
                await self.store.connector.execute("DEL", *keys[start : start + PASS_PAGE])
        for stream in streams:
            self._deferred.pop(stream, None)  # else a commit of passed events puts it back
        for start in range(0, len(streams), PASS_PAGE):
            page = streams[start : start + PASS_PAGE]
            with unavailable_as(f"forget positions of {self.name!r}", self.store.url):
                await self.store.connector.execute("HDEL", self.positions_key, *page)

    async def reset(self) -> None:
        """Forget every position (the projection's own keys are the caller's to delete)."""
        self._deferred.clear()
        with unavailable_as(f"reset {self.name!r}", self.store.url):
            await self.store.connector.execute("DEL", self.positions_key, self.watermark_key)


class GlobalSubscription:
    """Async iterator over every event of every stream past the checkpoints.

    Each stream's events come in seq order, each exactly once per run (``positions`` holds
    the last seq handed out per stream); there is no order between streams. Restarted, it
    starts again from the checkpoints, so a projection must commit (ideally with apply).
    """

    def __init__(
        self,
        store: RedisEventStore,
        checkpoints: Checkpoints,
        *,
        live: bool = True,
        batch: int = 500,
        block_ms: int = 5000,
        sweep_every: float = 60.0,
        reconnect_for: float = 30.0,
        pace: float = 0.0,
    ) -> None:
        self.store = store
        self.checkpoints = checkpoints
        self.live = live
        self.pace = pace
        self.batch = batch
        self.sweep_every = sweep_every
        self.positions: dict[str, int] = {}
        self.watermark = 0  # the close log up to it is done: its streams are never read
        self.sweeps = 0
        self._closed = False
        self._backoff = Backoff(reconnect_for)
        self.reader = BlockingReader(
            store, store.keys.feed, block_ms, f"es-feed-{uuid.uuid4().hex[:12]}"
        )
        self._gen = self._run()

    def __aiter__(self) -> GlobalSubscription:
        return self

    async def __anext__(self) -> StoredEvent:
        if self._closed:
            raise StopAsyncIteration
        return await self._gen.__anext__()

    async def _run(self) -> AsyncGenerator[StoredEvent, None]:
        try:
            async for event in self._follow():
                yield event
        finally:  # also when asyncio finalizes a dropped, unclosed subscription
            await self.reader.drop()

    async def _follow(self) -> AsyncIterator[StoredEvent]:
        loaded = False
        cursor = "0-0"
        need_sweep = True
        last_sweep = 0.0
        while not self._closed:
            try:
                if not loaded:
                    for stream, seq in (await self.checkpoints.positions()).items():
                        if seq > self.positions.get(stream, -1):
                            self.positions[stream] = seq
                    self.watermark = await self.checkpoints.watermark()
                    # Note the feed's end before sweeping: anything appended after the
                    # sweep read a stream has a hint past this cursor.
                    cursor = await feed_top(self.store)
                    loaded = True
                if need_sweep or time.monotonic() - last_sweep >= self.sweep_every:
                    last_sweep = time.monotonic()
                    self.sweeps += 1
                    async for event in self._sweep():
                        yield event
                    need_sweep = False
                    if not self.live:
                        return
                if self._closed:  # closed while sweeping: no blocking read to cut short
                    return
                entries = await self.reader.xread(cursor, self.batch)
                self._backoff.reset()
                if not entries:
                    continue
                cursor = _text(entries[-1][0])
                hinted = hinted_streams(entries)
                behind = [s for s, last in hinted.items() if last > self.positions.get(s, -1)]
                async for event in self._catch_up_all(await self._not_done(behind)):
                    yield event
                if self.pace:
                    await asyncio.sleep(self.pace)
            except StoreUnavailable as exc:
                if self._closed:
                    return
                need_sweep = True  # hints may have been lost meanwhile (cluster)
                await self._backoff.wait("global subscription", exc)

    async def _not_done(self, streams: Sequence[str]) -> list[str]:
        """``streams`` but those this subscription must never read: closed within the
        watermark, or archived (each had a position once; a late hint can name them)."""
        unknown = [stream for stream in streams if stream not in self.positions]
        done = await done_with(self.store, unknown, self.watermark)
        return [stream for stream in streams if stream not in done]

    async def _sweep(self) -> AsyncIterator[StoredEvent]:
        """The open streams, then the close log past the watermark: each stream past
        its position is read from there. A stream the index holds though sealed (a crash
        between a cluster's seal and its close) is moved to the close log on the way."""
        store = self.store
        offset = 0
        while True:
            streams = await store.streams(offset, SWEEP_PAGE)
            with unavailable_as("sweep", store.url):
                heads = await store.connector.pipeline(
                    [("HMGET", store.keys.meta(s), "head", "closed") for s in streams]
                )
            sealed = []
            for stream, head in zip(streams, heads, strict=True):
                # a head that could not be read: look at the stream itself (reading is safe)
                unknown = isinstance(head, BaseException)
                if not unknown and head[1] is not None:
                    sealed.append(stream)
                if unknown or parse_head(head[0])[0] > self.positions.get(stream, -1):
                    async for event in self._catch_up(stream):
                        yield event
            await store.close_sealed(sealed)
            offset += len(streams) - len(sealed)
            if len(streams) < SWEEP_PAGE:
                break
        after = self.watermark
        while closed := await store.closed_since(after, SWEEP_PAGE):
            for item in closed:
                if item.last_seq > self.positions.get(item.stream, -1):
                    async for event in self._catch_up(item.stream):
                        yield event
            after = closed[-1].number

    async def _catch_up_all(self, streams: Sequence[str]) -> AsyncIterator[StoredEvent]:
        """``_catch_up`` of each stream, their first pages read in one pipeline: a paced
        read of the feed hints every match played meanwhile, and a round trip per match
        would cost more than reading them."""
        if len(streams) <= 1:
            for stream in streams:
                async for event in self._catch_up(stream):
                    yield event
            return
        store = self.store
        starts = [self.positions.get(stream, -1) + 1 for stream in streams]
        reads = [
            ("XRANGE", store.keys.events(stream), f"{start}-0", "+", "COUNT", self.batch)
            for stream, start in zip(streams, starts, strict=True)
        ]
        with unavailable_as("read the hinted streams", store.url):
            replies = await store.connector.pipeline(reads)
            for reply in replies:
                if isinstance(reply, BaseException):
                    raise reply
        for stream, start, reply in zip(streams, starts, replies, strict=True):
            page = store.decode(stream, reply, start)
            for event in page:
                self.positions[stream] = event.seq
                yield event
            if len(page) >= self.batch:  # more than a page came meanwhile: read on
                async for event in self._catch_up(stream):
                    yield event

    async def _catch_up(self, stream: str) -> AsyncIterator[StoredEvent]:
        while True:
            start = self.positions.get(stream, -1) + 1
            # the store alone, never its archive: what left it every follower retired
            page = await self.store._read_page(stream, start, self.batch)
            for event in page:
                self.positions[stream] = event.seq
                yield event
            if len(page) < self.batch:
                return

    async def aclose(self) -> None:
        self._closed = True
        await self.reader.close()
        if not getattr(self._gen, "ag_running", False):  # else its own loop sees _closed
            await self._gen.aclose()

    async def __aenter__(self) -> GlobalSubscription:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


async def done_with(store: EventStore, streams: Sequence[str], watermark: int) -> set[str]:
    """Those of ``streams`` a follower with ``watermark`` is done with: closed within it,
    or gone from the store (the archiver moves only what every follower retired)."""
    if not streams:
        return set()
    held = await store.holds(streams)
    numbers = await store.close_numbers(streams)
    return {
        stream
        for stream, here, number in zip(streams, held, numbers, strict=True)
        if not here or (number is not None and number <= watermark)
    }


class FeedHints:
    """Which streams have new events, from the global feed: see ``port.Hints``."""

    def __init__(self, store: RedisEventStore, block_ms: int) -> None:
        self.store = store
        self.reader = BlockingReader(
            store, store.keys.feed, block_ms, f"es-hints-{uuid.uuid4().hex[:12]}"
        )
        self._cursor = ""
        self._closed = False

    async def start(self) -> None:
        self._cursor = await feed_top(self.store)

    async def next(self) -> dict[str, int] | None:
        if self._closed:
            raise EventStoreError("the hints are closed")
        try:
            entries = await self.reader.xread(self._cursor, HINTS_PAGE)
        except StoreUnavailable:
            await asyncio.sleep(HINTS_RETRY)  # it reconnects at the next read, from the cursor
            return None
        if not entries:
            return {}
        self._cursor = _text(entries[-1][0])
        return hinted_streams(entries)

    async def aclose(self) -> None:
        self._closed = True
        await self.reader.close()


HINTS_PAGE = 1000
HINTS_RETRY = 0.2  # seconds


async def feed_top(store: RedisEventStore) -> str:
    """The id of the feed's last entry: reads from there on see only what comes after."""
    with unavailable_as("read the feed", store.url):
        top = await store.connector.execute("XREVRANGE", store.keys.feed, "+", "-", "COUNT", 1)
    return _text(top[0][0]) if top else "0-0"


def hinted_streams(entries: Sequence[Any]) -> dict[str, int]:
    """Each stream the feed's ``entries`` hint at, with the highest seq hinted."""
    hinted: dict[str, int] = {}
    for _id, fields in entries:
        pairs = dict(zip(fields[::2], fields[1::2], strict=False))
        raw_stream, last = pairs.get(b"s"), pairs.get(b"v")
        if raw_stream is not None:
            stream = raw_stream.decode()
            seq = int(last) if last is not None else 1 << 62
            hinted[stream] = max(seq, hinted.get(stream, -1))
    return hinted


def _text(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)
