"""Following one stream: catch up, then live with XREAD BLOCK on a connection of its own."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import deque
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

from redis.asyncio import Redis
from redis.exceptions import MovedError, RedisError

from .connection import UNAVAILABLE_ERRORS, SharedConnection, store_error, with_host
from .errors import StoreUnavailable
from .model import StoredEvent

if TYPE_CHECKING:
    from .store import RedisEventStore


class Backoff:
    """Waits between reconnection attempts; gives up ``limit`` seconds after the first."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self._since: float | None = None
        self._delay = 0.02

    def reset(self) -> None:
        self._since = None
        self._delay = 0.02

    async def wait(self, what: str, exc: BaseException) -> None:
        now = time.monotonic()
        if self._since is None:
            self._since = now
        if now - self._since >= self.limit:
            raise StoreUnavailable(f"{what}: no Redis for {self.limit:g}s: {exc}") from exc
        await asyncio.sleep(self._delay)
        self._delay = min(self._delay * 2, 0.5)


_closing: set[asyncio.Task[None]] = set()


class BlockingReader:
    """A dedicated connection for XREAD BLOCK on one key, re-opened after failures."""

    def __init__(self, store: RedisEventStore, key: str, block_ms: int, name: str) -> None:
        self.store = store
        self.key = key
        self.block_ms = block_ms
        self.client_name = name
        self._conn: Redis | SharedConnection | None = None
        self._url: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    def drop_soon(self) -> None:
        """Close the connection from a finalizer (no await there): on its event loop."""
        loop = self._loop
        if self._conn is None or loop is None or loop.is_closed():
            return

        def schedule() -> None:
            task = loop.create_task(self.drop())
            _closing.add(task)
            task.add_done_callback(_closing.discard)

        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(schedule)

    async def xread(self, after: str, count: int) -> list[Any] | None:
        """Entries after id ``after`` (waiting up to block_ms); None when none came.

        Raises StoreUnavailable (the connection is then dropped) when Redis fails. A read
        whose connection was dropped under it (``drop`` from another task) gives None,
        however redis-py broke off.
        """
        conn: Any = None
        try:
            conn = await self._connection()
            if conn is None:
                return None  # closed (or dropped) while the connection was opening
            reply = await conn.execute_command(
                "XREAD", "COUNT", count, "BLOCK", self.block_ms, "STREAMS", self.key, after
            )
        except MovedError as exc:  # the slot moved to another node: follow it
            await self.drop()
            self._url = with_host(self.store.url, exc.host, int(exc.port))
            return None
        except Exception as exc:
            if self._closed or (conn is not None and self._conn is not conn):
                return None  # dropped under the read (closing)
            await self.drop()
            if isinstance(exc, UNAVAILABLE_ERRORS):
                self._url = None
                raise StoreUnavailable(f"read {self.key!r}: {exc}") from exc
            if isinstance(exc, RedisError):
                raise store_error(exc, f"read {self.key!r}", self.store.url) from exc
            raise
        except BaseException:
            await self.drop()  # cancelled mid-read: the connection holds a pending reply
            raise
        if not reply:
            return None
        entries: list[Any] = reply[0][1]
        return entries

    async def _connection(self) -> Redis | SharedConnection | None:
        if self._conn is None and not self._closed:
            self._loop = asyncio.get_running_loop()
            connector = self.store.connector
            timeout = self.block_ms / 1000 + connector.command_timeout
            if self._url is None:
                conn = await connector.blocking_connection(self.key, timeout)
            else:
                conn = connector.single(self._url, timeout)
            self._conn = conn
            await cast(Any, conn).execute_command("CLIENT", "SETNAME", self.client_name)
            if self._closed:  # closed while it opened, maybe before there was one to drop
                await self.drop()
        return self._conn

    async def close(self) -> None:
        """For good: a read under way or starting gives None, and none reconnects."""
        self._closed = True
        await self.drop()

    async def drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # closing a broken connection may fail
                await conn.aclose()


class StreamSubscription:
    """Async iterator over one stream from a seq: stored events, then live ones, forever.

    ``last_seq`` is the seq of the last event handed out (from_seq - 1 before any): a new
    subscription from ``last_seq + 1`` continues without a miss or a repeat.
    """

    def __init__(
        self,
        store: RedisEventStore,
        stream: str,
        from_seq: int = 0,
        *,
        batch: int = 500,
        block_ms: int = 5000,
        reconnect_for: float = 30.0,
    ) -> None:
        self.store = store
        self.stream = stream
        self.batch = batch
        self.block_ms = block_ms
        self._next = max(from_seq, 0)  # next seq to read from Redis
        self.last_seq = self._next - 1
        self._buffer: deque[StoredEvent] = deque()
        self._closed = False
        self._backoff = Backoff(reconnect_for)
        self.reader = BlockingReader(
            store, store.keys.events(stream), block_ms, f"es-sub-{uuid.uuid4().hex[:12]}"
        )

    @property
    def client_name(self) -> str:
        """The CLIENT SETNAME of its blocking connection (to find it in CLIENT LIST)."""
        return self.reader.client_name

    def __aiter__(self) -> StreamSubscription:
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
        """The next events (at most ``batch``), waiting up to ``block_ms`` for some; empty
        when none came in that time, or once closed."""
        if not self._buffer and not self._closed:
            await self._fetch()
        batch = [self._buffer.popleft() for _ in range(min(self.batch, len(self._buffer)))]
        if batch:
            self.last_seq = batch[-1].seq
        return batch

    async def _fetch(self) -> None:
        try:
            entries = await self.reader.xread(f"{self._next}-0", self.batch)
        except StoreUnavailable as exc:
            if self._closed:
                return
            await self._backoff.wait(f"subscription to {self.stream!r}", exc)
            return
        self._backoff.reset()
        if entries:
            events = self.store.decode(self.stream, entries, self._next)
            self._next = events[-1].seq + 1
            self._buffer.extend(events)

    async def aclose(self) -> None:
        self._closed = True
        self._buffer.clear()
        await self.reader.close()

    def __del__(self) -> None:
        # Dropped without aclose() (a consumer that just stopped iterating): close the
        # blocking connection anyway rather than wait for the socket to be collected.
        if not self._closed:
            self.reader.drop_soon()

    async def __aenter__(self) -> StreamSubscription:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
