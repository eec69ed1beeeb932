"""RedisEventStore: append with an expected version, read, verify, list and subscribe."""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import AsyncIterator, Callable, Sequence
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any

from redis.exceptions import NoScriptError, ResponseError

from .archive import Archive, ArchivedStreams
from .cache import BoundedCache
from .chain import ChainCheck, auto_request_id, check_append_args, closes, encode_batch
from .codec import Upcasters, decode_entries, parse_entry_id
from .connection import (
    REDIS_FAILURES,
    Client,
    Connector,
    SharedConnection,
    store_error,
    unavailable_as,
)
from .errors import (
    ConcurrencyConflict,
    CorruptEvent,
    EventStoreError,
    RequestIdReused,
    StreamClosed,
)
from .keys import Keys, check_stream_id
from .model import (
    GENESIS_HASH,
    AppendResult,
    Closed,
    NewEvent,
    SentAppend,
    StoredEvent,
    Verification,
)
from .scripts import APPEND, CLOSE, DROP_SEALED, INDEX, Script

if TYPE_CHECKING:
    from .feed import FeedHints, GlobalSubscription
    from .port import Checkpoints, EventStore
    from .subscription import StreamSubscription

log = logging.getLogger(__name__)

READ_PAGE = 10_000
"""Entries per XRANGE when a read has no limit."""


HOLDS_PAGE = 1000  # streams looked up in the index by one command


class RedisEventStore:
    """An append-only, hash-chained event store on Redis Streams (one server or a cluster).

    Every method that talks to Redis raises StoreUnavailable when Redis cannot be reached.
    """

    def __init__(
        self,
        connector: Connector,
        *,
        prefix: str = "es",
        upcasters: Upcasters | None = None,
        feed_maxlen: int = 100_000,
        head_cache_size: int = 10_000,
    ) -> None:
        self.connector = connector
        self.keys = Keys(prefix)
        self.upcasters = upcasters or Upcasters()
        self.feed_maxlen = feed_maxlen
        self._heads = BoundedCache[str, tuple[int, str]](head_cache_size)
        # streams known to be in the index, and ids known to be valid: a check saved
        self._indexed = BoundedCache[str, None](100_000)
        self._valid_streams = BoundedCache[str, None](100_000)
        self._subscriptions: weakref.WeakSet[
            StreamSubscription | GlobalSubscription | FeedHints
        ] = weakref.WeakSet()
        self._append_script: Script = APPEND
        self.archived: ArchivedStreams | None = None  # where sealed streams went (use_archive)

    def use_archive(self, archive: Archive) -> None:
        """Read the streams moved to ``archive`` as if they were still here, and refuse
        to start a stream again there (a create retried after its match left)."""
        self.archived = ArchivedStreams(archive)

    async def _archived(
        self, stream: str, first: int = 0, end: int | None = None
    ) -> list[StoredEvent] | None:
        """The stream's events ``first`` to ``end``, upcast, when it left for the archive;
        None when it is here or nowhere."""
        if self.archived is None:
            return None
        with unavailable_as(f"whereabouts of {stream!r}", self.url):
            here = await self.connector.execute("EXISTS", self.keys.meta(stream))
        if here:
            return None
        events = await self.archived.events(stream)
        if events is None:
            return None
        upcast = self.upcasters.upcast  # only what is read: a block of a long stream
        return [upcast(event) for event in events[first:end]]

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        prefix: str = "es",
        upcasters: Upcasters | None = None,
        cluster: bool | None = None,
        connect_timeout: float = 2.0,
        command_timeout: float = 5.0,
        retries: int = 1,
        feed_maxlen: int = 100_000,
    ) -> RedisEventStore:
        """A store on the Redis at ``url``; nothing connects until the first call.

        ``cluster=None`` asks the server whether it is a cluster. ``retries``: how many times
        a command whose connection failed is sent again at once (safe: appends carry a
        request_id). ``feed_maxlen``: approximate length the global feed is trimmed to
        (0: never); match streams are never trimmed.
        """
        connector = Connector(
            url,
            cluster=cluster,
            connect_timeout=connect_timeout,
            command_timeout=command_timeout,
            retries=retries,
        )
        return cls(connector, prefix=prefix, upcasters=upcasters, feed_maxlen=feed_maxlen)

    @property
    def url(self) -> str:
        return self.connector.url

    async def __aenter__(self) -> RedisEventStore:
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
        """Append ``events`` at once if the stream's version is ``expected_version``.

        ``expected_version`` is the seq of the stream's last event, -1 for a new stream.
        A request_id seen before on this stream returns that first append's result with
        ``duplicate=True`` and writes nothing, whatever the version is now, if it came with
        the same ``fingerprint``; with another it raises RequestIdReused (nothing written).
        Raises ConcurrencyConflict (nothing written), StoreUnavailable, InvalidEvent.
        """
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
        """``append``, running ``meanwhile`` on the events as they would be stored while
        the script's round trip is awaited, when the shared connection is quiet (else
        once the reply is in): eventstore/overlap.py."""
        if stream not in self._valid_streams:
            check_stream_id(stream)
            self._valid_streams.put(stream, None)
        check_append_args(events, expected_version, request_id, fingerprint)
        if request_id is None:
            request_id = auto_request_id()
        at = time.time_ns() // 1_000_000
        if expected_version == -1 and self.archived is not None:
            archived = await self._archived(stream)
            if archived is not None:  # it was sealed, and left: nothing starts it again
                raise StreamClosed(stream, archived[-1].seq)
        try:
            return await self._append(
                stream, events, expected_version, request_id, fingerprint, at, meanwhile
            )
        except REDIS_FAILURES as exc:
            raise store_error(exc, f"append to {stream!r}", self.url) from exc

    async def _append(
        self,
        stream: str,
        events: Sequence[NewEvent],
        expected_version: int,
        request_id: str,
        fingerprint: str,
        at: int,
        meanwhile: Callable[[tuple[StoredEvent, ...]], None] | None,
    ) -> AppendResult:
        connector = self.connector
        client = connector.executor or await connector.runner()
        cluster = connector.cluster
        keys = self.keys
        unindexed = False
        if cluster:
            script_keys = [keys.events(stream), keys.meta(stream)]
            unindexed = expected_version == -1 and stream not in self._indexed
        else:
            script_keys = [
                keys.events(stream),
                keys.meta(stream),
                keys.feed,
                keys.index,
                keys.index_counter,
                keys.close_log,
                keys.close_counter,
            ]
        closing = "1" if closes(events) else "0"
        head = self._head(stream, expected_version)
        if head is None:  # the head is learnt first: refuse unstorable data before that too
            encode_batch([], [], stream, events, expected_version, request_id, at, GENESIS_HASH)
        for _ in range(3):
            args: list[str | bytes | int] = [
                expected_version,
                request_id,
                head or "",
                stream,
                self.feed_maxlen,
                fingerprint,
                closing,
            ]
            stored: list[StoredEvent] = []
            if head is not None:  # else no events: only learn the head (never writes)
                encode_batch(args, stored, stream, events, expected_version, request_id, at, head)
            written = tuple(stored)
            sent = partial(meanwhile, written) if meanwhile is not None and written else None
            if unindexed:
                # Index first, once the events are known to be storable: a stream with
                # events is always in the index (which lives in another slot on a
                # cluster, so it cannot share the script).
                await INDEX.run(client, [keys.index, keys.index_counter], [stream])
                self._indexed.put(stream, None)
                unindexed = False
            try:
                reply = await self._append_script.run(client, script_keys, args, sent)
            except ResponseError as exc:
                if str(exc).startswith("ESCORRUPT"):
                    raise CorruptEvent(stream, expected_version, str(exc)) from exc
                raise
            code = reply[0]
            if code == 0:
                result = AppendResult(reply[1], reply[2], False, written, fingerprint)
                self._remember(stream, reply[2], written[-1].hash)
                if cluster:
                    await self._hint(client, stream, reply[2])
                    if closing == "1":  # a crash before it: the sweep finds it sealed
                        await self._close(client, stream)
                return result
            if code == 1:
                return AppendResult(reply[1], reply[2], True, (), fingerprint)
            if code == 2:
                raise ConcurrencyConflict(stream, expected_version, reply[1])
            if code == 4:
                raise RequestIdReused(stream, request_id)
            if code == 5:
                raise StreamClosed(stream, reply[1])
            head = reply[2].decode() if isinstance(reply[2], bytes) else str(reply[2])
            self._remember(stream, reply[1], head)
        raise EventStoreError(f"append to {stream!r}: the stream's head kept changing")

    def send_append(
        self,
        stream: str,
        events: Sequence[NewEvent],
        expected_version: int,
        request_id: str | None = None,
        fingerprint: str = "",
    ) -> SentAppend | None:
        """Send the append at once, after those sent before it, without waiting for it;
        None when it cannot be sent so (a cluster, no shared connection up, the stream's
        head not known here): then ``append`` it. The next append may chain from this
        one's events at once, each still checked against the version it expects, so the
        appends of a stream sent one after another land all, or up to the first that
        fails. Raises InvalidEvent (nothing sent)."""
        shared = self.connector.shared_connection
        head = self._head(stream, expected_version)
        if shared is None or self.connector.cluster or head is None:
            return None
        check_append_args(events, expected_version, request_id, fingerprint)
        if request_id is None:
            request_id = auto_request_id()
        at = time.time_ns() // 1_000_000
        keys = self.keys
        args: list[str | bytes | int] = [
            7,
            keys.events(stream),
            keys.meta(stream),
            keys.feed,
            keys.index,
            keys.index_counter,
            keys.close_log,
            keys.close_counter,
            expected_version,
            request_id,
            head,
            stream,
            self.feed_maxlen,
            fingerprint,
            "1" if closes(events) else "0",
        ]
        stored: list[StoredEvent] = []
        encode_batch(args, stored, stream, events, expected_version, request_id, at, head)
        reply = shared.send_in_order("EVALSHA", APPEND.sha, *args)
        if reply is None:
            return None
        written = tuple(stored)
        self._remember(stream, written[-1].seq, written[-1].hash)  # the next one chains on
        answer: asyncio.Future[AppendResult] = reply.get_loop().create_future()
        sent = _Sent(self, shared, args, written, fingerprint, answer)
        reply.add_done_callback(sent.answered)
        return SentAppend(written, answer)

    async def _hint(self, client: Any, stream: str, last_seq: int) -> None:
        """Tell the global feed (cluster only; a hint, so a failure here loses nothing)."""
        trim: list[str | int] = ["MAXLEN", "~", self.feed_maxlen] if self.feed_maxlen else []
        try:
            await client.execute_command(
                "XADD", self.keys.feed, *trim, "*", "s", stream, "v", last_seq
            )
        except REDIS_FAILURES as exc:  # the events are stored: never fail the append here
            log.warning(
                "feed hint for %r seq %d not written (%s); sweeps will find it",
                stream,
                last_seq,
                exc,
            )

    async def _close(self, client: Any, stream: str) -> int:
        """Move a sealed stream from the index to the close log (idempotent)."""
        keys = self.keys
        close_keys = [keys.index, keys.close_log, keys.close_counter]
        return int(await CLOSE.run(client, close_keys, [stream]))

    def _head(self, stream: str, expected_version: int) -> str | None:
        if expected_version == -1:
            return GENESIS_HASH
        known = self._heads.get(stream)
        if known is not None and known[0] == expected_version:
            return known[1]
        return None

    def forget_head(self, stream: str) -> None:
        """Forget what the stream's head was taken to be (the next append asks)."""
        self._heads.pop(stream, None)

    def _remember(self, stream: str, seq: int, hash_: str) -> None:
        """Record that event ``seq`` of ``stream`` has hash ``hash_`` (immutable fact)."""
        if not hash_ and seq >= 0:
            return
        heads = self._heads
        known = heads.get(stream)
        if known is not None and known[0] > seq:
            return
        heads.put(stream, (seq, hash_))

    # --- reading ---------------------------------------------------------------------

    async def version(self, stream: str) -> int:
        """The seq of the stream's last event; -1 when it has none."""
        check_stream_id(stream)
        with unavailable_as(f"version of {stream!r}", self.url):
            head = await self.connector.execute("HGET", self.keys.meta(stream), "head")
        if head is None and self.archived is not None:
            archived = await self._archived(stream)
            if archived is not None:
                return archived[-1].seq
        return parse_head(head)[0]

    async def last_events(self, streams: Sequence[str]) -> list[StoredEvent | None]:
        """Each stream's last event (None for none), every stream's in one pipeline."""
        for stream in streams:
            check_stream_id(stream)
        keys = self.keys
        reads = [("XREVRANGE", keys.events(stream), "+", "-", "COUNT", 1) for stream in streams]
        with unavailable_as(f"last events of {len(streams)} streams", self.url):
            replies = await self.connector.pipeline(reads)
        last: list[StoredEvent | None] = []
        for stream, reply in zip(streams, replies, strict=True):
            if isinstance(reply, BaseException):
                raise store_error(reply, f"last event of {stream!r}", self.url) from reply
            if not reply:
                archived = await self._archived(stream) if self.archived is not None else None
                last.append(archived[-1] if archived else None)
                continue
            seq = parse_entry_id(stream, reply[0][0])
            last.append(self.decode(stream, reply, seq)[0])
        return last

    async def request_result(self, stream: str, request_id: str) -> AppendResult | None:
        """What an append with ``request_id`` on ``stream`` did (``duplicate=True``, with its
        fingerprint), or None if none did: lets a service answer a retried command before
        deciding again."""
        check_stream_id(stream)
        with unavailable_as(f"request {request_id!r} of {stream!r}", self.url):
            raw = await self.connector.execute("HGET", self.keys.meta(stream), f"r:{request_id}")
        if raw is None:
            return None
        first, last, fingerprint = parse_request(raw)
        return AppendResult(first, last, True, (), fingerprint)

    async def read(
        self, stream: str, from_seq: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events ``from_seq`` onward (at most ``limit``), in order, upcast.

        With no limit this reads to the end in pages of 10,000; it is the fast way to load
        a whole stream. CorruptEvent names the stream and seq of an entry it cannot decode.
        """
        check_stream_id(stream)
        from_seq = max(from_seq, 0)
        if limit is not None and limit <= 0:
            return []
        out: list[StoredEvent] = []
        while True:
            page = await self._read_page(stream, from_seq, limit or READ_PAGE)
            out.extend(page)
            if limit is not None or len(page) < READ_PAGE:
                break
            from_seq = page[-1].seq + 1
        if not out and self.archived is not None:
            end = None if limit is None else from_seq + limit
            archived = await self._archived(stream, from_seq, end)
            if archived is not None:
                return archived
        return out

    async def read_pages(
        self, stream: str, from_seq: int = 0, page_size: int = 1000
    ) -> AsyncIterator[list[StoredEvent]]:
        """The stream from ``from_seq`` to its current end, one page at a time."""
        check_stream_id(stream)
        from_seq = max(from_seq, 0)
        first = True
        while True:
            page = await self._read_page(stream, from_seq, page_size)
            if first and not page and self.archived is not None:
                archived = await self._archived(stream)
                for at in range(from_seq, len(archived or ()), page_size):
                    yield (archived or [])[at : at + page_size]
                return
            first = False
            if page:
                yield page
            if len(page) < page_size:
                return
            from_seq = page[-1].seq + 1

    async def read_as_stored(self, stream: str) -> list[StoredEvent]:
        """The whole stream as stored (not upcast): what an archive keeps."""
        check_stream_id(stream)
        out: list[StoredEvent] = []
        while True:
            entries = await self._xrange(stream, len(out), READ_PAGE)
            out.extend(decode_entries(stream, entries, len(out), None))
            if len(entries) < READ_PAGE:
                return out

    async def used_memory(self) -> int:
        """The bytes Redis uses (``INFO memory``'s ``used_memory``; on a cluster, the
        node the connection reaches)."""
        with unavailable_as("INFO memory", self.url):
            info = await self.connector.execute("INFO", "memory")
        if isinstance(info, dict):
            return int(info["used_memory"])
        text = info.decode() if isinstance(info, bytes) else str(info)
        for line in text.splitlines():
            if line.startswith("used_memory:"):
                return int(line.partition(":")[2])
        raise EventStoreError("INFO memory has no used_memory")

    async def drop_sealed(self, stream: str) -> bool:
        """Delete a sealed stream (its entries, head, request ids, snapshots) and its place
        in the index, once it is archived: False, and nothing deleted, when it is not sealed.
        Dropping a stream already gone clears what is left of it (its index entry)."""
        check_stream_id(stream)
        keys = self.keys
        with unavailable_as(f"drop {stream!r}", self.url):
            client = self.connector.executor or await self.connector.runner()
            stream_keys = [keys.events(stream), keys.meta(stream), *keys.snapshots(stream)]
            done = await DROP_SEALED.run(client, stream_keys, [])
            if done == 0:
                return False
            # the index and the close log live in another slot on a cluster: after the
            # stream, so that a crash between leaves an entry the next drop clears
            await self.connector.pipeline(
                [("ZREM", keys.close_log, stream), ("ZREM", keys.index, stream)]
            )
        self._heads.pop(stream, None)
        self._indexed.pop(stream, None)
        return True

    async def _read_page(self, stream: str, from_seq: int, count: int) -> list[StoredEvent]:
        entries = await self._xrange(stream, from_seq, count)
        events = self.decode(stream, entries, from_seq)
        if events:
            last = events[-1]
            self._remember(stream, last.seq, last.hash)
        return events

    async def _xrange(self, stream: str, from_seq: int, count: int) -> list[Any]:
        with unavailable_as(f"read {stream!r}", self.url):
            entries: list[Any] = await self.connector.execute(
                "XRANGE", self.keys.events(stream), f"{from_seq}-0", "+", "COUNT", count
            )
        return entries

    def decode(self, stream: str, entries: Sequence[Any], from_seq: int) -> list[StoredEvent]:
        """Raw entries as events, upcast; CorruptEvent on a bad entry or a gap in seqs."""
        return decode_entries(stream, entries, from_seq, self.upcasters)

    async def verify(self, stream: str, page_size: int = 5000) -> Verification:
        """Check the hash chain from seq 0: contiguous seqs, each prev_hash linking to the
        previous hash, each hash matching the contents, the last event matching the head
        record the append script keeps. Reports the first bad seq."""
        check_stream_id(stream)
        if self.archived is not None:
            archived = await self._archived(stream)
            if archived is not None:
                return self.archived.verification(archived)
        check = ChainCheck(stream)
        while True:
            entries = await self._xrange(stream, check.checked, page_size)
            bad = check.check(entries)
            if bad is not None:
                return bad
            if len(entries) < page_size:
                break
        with unavailable_as(f"verify {stream!r}", self.url):
            raw_head = await self.connector.execute("HGET", self.keys.meta(stream), "head")
        head_seq, head_hash = parse_head(raw_head)
        return check.against_head(head_seq, head_hash, has_head=raw_head is not None)

    # --- the index -------------------------------------------------------------------

    async def streams(self, offset: int = 0, limit: int = 50) -> list[str]:
        """The open streams' ids in the order they were first appended to (oldest first):
        a sealed stream is in the close log (``closed_since``) until it is archived.

        On a cluster a stream is indexed just before its first append, so a stream whose
        first append failed may be listed with no events (version -1).
        """
        if limit <= 0:
            return []
        with unavailable_as("list streams", self.url):
            raw = await self.connector.execute(
                "ZRANGE", self.keys.index, max(offset, 0), max(offset, 0) + limit - 1
            )
        return [s.decode() for s in raw]

    async def stream_count(self) -> int:
        """How many open streams the index holds."""
        with unavailable_as("count streams", self.url):
            return int(await self.connector.execute("ZCARD", self.keys.index))

    async def holds(self, streams: Sequence[str]) -> list[bool]:
        """Whether the store holds each of ``streams`` (open, or closed and not archived)."""
        open_, closed = await self._scores(streams)
        return [a is not None or b is not None for a, b in zip(open_, closed, strict=True)]

    async def close_numbers(self, streams: Sequence[str]) -> list[int | None]:
        """Each stream's number in the close log (None: open, or archived)."""
        return [
            None if number is None else int(number) for number in (await self._scores(streams))[1]
        ]

    async def _scores(self, streams: Sequence[str]) -> tuple[list[Any], list[Any]]:
        """Each stream's score in the index and in the close log."""
        in_index: list[Any] = []
        in_log: list[Any] = []
        keys = self.keys
        for start in range(0, len(streams), HOLDS_PAGE):
            page = streams[start : start + HOLDS_PAGE]
            with unavailable_as("look streams up in the index", self.url):
                index, log_ = await self.connector.pipeline(
                    [("ZMSCORE", keys.index, *page), ("ZMSCORE", keys.close_log, *page)]
                )
            in_index += index
            in_log += log_
        return in_index, in_log

    async def closed_since(self, after: int, limit: int = 500) -> list[Closed]:
        """The close log past number ``after``, in close order, ``limit`` at most."""
        with unavailable_as("read the close log", self.url):
            raw = await self.connector.execute(
                "ZRANGEBYSCORE",
                self.keys.close_log,
                f"({after}",
                "+inf",
                "WITHSCORES",
                "LIMIT",
                0,
                limit,
            )
            pairs = [(raw[i].decode(), int(float(raw[i + 1]))) for i in range(0, len(raw), 2)]
            seals = (
                await self.connector.pipeline(
                    [("HGET", self.keys.meta(stream), "closed") for stream, _ in pairs]
                )
                if pairs
                else []
            )
        return [
            Closed(stream, number, -1 if seal is None else int(seal))
            for (stream, number), seal in zip(pairs, seals, strict=True)
        ]

    async def close_count(self) -> int:
        """The last close number given: every stream closed so far has one up to it."""
        with unavailable_as("read the close counter", self.url):
            raw = await self.connector.execute("GET", self.keys.close_counter)
        return 0 if raw is None else int(raw)

    async def close_log_size(self) -> int:
        with unavailable_as("read the close log", self.url):
            return int(await self.connector.execute("ZCARD", self.keys.close_log))

    async def close_sealed(self, streams: Sequence[str]) -> None:
        """Move ``streams``, sealed but found in the index, to the close log: what a
        crash between a cluster's seal and its close left (a sweep finds them)."""
        with unavailable_as("close sealed streams", self.url):
            client = self.connector.executor or await self.connector.runner()
            for stream in streams:
                await self._close(client, stream)

    # --- subscriptions ---------------------------------------------------------------

    def subscribe(
        self,
        stream: str,
        from_seq: int = 0,
        *,
        batch: int = 500,
        block_ms: int = 5000,
        reconnect_for: float = 30.0,
    ) -> StreamSubscription:
        """Every event of ``stream`` from ``from_seq`` on, in order, exactly once: the ones
        stored now, then new ones as they are appended (by any process), forever.

        A dropped connection is re-opened and reading resumes after the last seq seen;
        after ``reconnect_for`` seconds without Redis it raises StoreUnavailable. Use it as
        ``async with store.subscribe(...) as sub: async for event in sub: ...``.
        """
        from .subscription import StreamSubscription

        check_stream_id(stream)
        sub = StreamSubscription(
            self,
            stream,
            from_seq,
            batch=batch,
            block_ms=block_ms,
            reconnect_for=reconnect_for,
        )
        self._subscriptions.add(sub)
        return sub

    def hints(self, *, block_ms: int = 5000) -> FeedHints:
        """Which streams have new events, from the global feed (``port.Hints``)."""
        from .feed import FeedHints

        hints = FeedHints(self, block_ms)
        self._subscriptions.add(hints)
        return hints

    def subscribe_all(
        self,
        checkpoints: Checkpoints,
        *,
        live: bool = True,
        batch: int = 500,
        block_ms: int = 5000,
        sweep_every: float = 60.0,
        reconnect_for: float = 30.0,
        pace: float = 0.0,
    ) -> GlobalSubscription:
        """Every event of every stream past ``checkpoints``, each stream in order.

        Catches up by sweeping the index, then follows the global feed live (``live=False``
        stops after the catch-up). ``pace`` seconds between reads of the feed trade
        latency for fewer reads: a stream appended to several times meanwhile is read
        once. See eventstore/README.md for how a projection applies each event exactly once.
        """
        from .feed import GlobalSubscription

        sub = GlobalSubscription(
            self,
            checkpoints,
            live=live,
            batch=batch,
            block_ms=block_ms,
            sweep_every=sweep_every,
            reconnect_for=reconnect_for,
            pace=pace,
        )
        self._subscriptions.add(sub)
        return sub

    async def close(self) -> None:
        """Close every open subscription and the connections."""
        for sub in list(self._subscriptions):
            await sub.aclose()
        await self.connector.close()

    @property
    def is_cluster(self) -> bool | None:
        """Whether the store talks to a cluster (None until it has connected)."""
        return self.connector.cluster

    async def raw_client(self) -> Client:
        """The shared redis-py client, connecting on first use (for what keeps its own
        state in the same Redis: projections, the lease, the server key; and for tests)."""
        return await self.connector.client()


class _Sent:
    """What an append sent by ``send_append`` came to, as ``append`` says it, from its
    reply (a callback: no task an append)."""

    def __init__(
        self,
        store: RedisEventStore,
        shared: SharedConnection,
        args: list[str | bytes | int],
        written: tuple[StoredEvent, ...],
        fingerprint: str,
        answer: asyncio.Future[AppendResult],
    ) -> None:
        self.store, self.shared, self.args = store, shared, args
        self.written, self.fingerprint, self.answer = written, fingerprint, answer
        self.again = True  # one EVAL after a NOSCRIPT

    def answered(self, reply: asyncio.Future[Any]) -> None:
        if self.answer.done():
            return
        try:
            if reply.cancelled():
                raise ConnectionError("the connection to Redis was closed")
            error = reply.exception()
            if isinstance(error, NoScriptError) and self.again:
                # Redis forgot the script: the ones sent after fail alike and ask again
                # in the same order (their callbacks run in turn)
                self.again = False
                retry = self.shared.send_in_order("EVAL", APPEND.source, *self.args)
                if retry is None:
                    raise ConnectionError("the connection to Redis was lost")
                retry.add_done_callback(self.answered)
                return
            if error is not None:
                raise error
            self.answer.set_result(self._result(reply.result()))
        except Exception as error:
            self._fail(error)

    def _result(self, answer: Any) -> AppendResult:
        stream, expected_version = self.written[0].stream, self.written[0].seq - 1
        code = answer[0]
        if code == 0:
            return AppendResult(answer[1], answer[2], False, self.written, self.fingerprint)
        if code == 1:
            return AppendResult(answer[1], answer[2], True, (), self.fingerprint)
        if code == 4:
            raise RequestIdReused(stream, self.written[0].request_id)
        if code == 5:
            raise StreamClosed(stream, answer[1])
        # 2, or 3: chained from a head that is not the stream's (one sent before failed)
        raise ConcurrencyConflict(stream, expected_version, answer[1])

    def _fail(self, error: Exception) -> None:
        stream, expected_version = self.written[0].stream, self.written[0].seq - 1
        self.store.forget_head(stream)  # it chained the next ones on events not stored
        if isinstance(error, EventStoreError):
            failure: Exception = error
        elif isinstance(error, ResponseError) and str(error).startswith("ESCORRUPT"):
            failure = CorruptEvent(stream, expected_version, str(error))
        elif isinstance(error, REDIS_FAILURES):
            failure = store_error(error, f"append to {stream!r}", self.store.url)
        else:
            failure = error
        self.answer.set_exception(failure)


def parse_request(raw: bytes | str) -> tuple[int, int, str]:
    """The (first seq, last seq, fingerprint) of a meta ``r:<request id>`` field (a record
    written before fingerprints existed has none: "")."""
    text = raw.decode() if isinstance(raw, bytes) else raw
    first, _, rest = text.partition(" ")
    last, _, fingerprint = rest.partition(" ")
    return int(first), int(last), fingerprint


def parse_head(raw: bytes | str | None) -> tuple[int, str]:
    """The (seq, hash) of a meta ``head`` field; (-1, genesis) when there is none."""
    if raw is None:
        return -1, GENESIS_HASH
    text = raw.decode() if isinstance(raw, bytes) else raw
    seq, _, hash_ = text.partition(" ")
    return int(seq), hash_


if TYPE_CHECKING:

    def _conforms(store: RedisEventStore) -> EventStore:
        return store  # mypy checks that the Redis store implements the protocol
