"""Connections to Redis (one server or a cluster) and the translation of their failures."""

from __future__ import annotations

import asyncio
import inspect
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import hiredis
from redis._parsers import BaseParser, Encoder
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import Connection as AsyncConnection
from redis.asyncio.connection import parse_url
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import (
    ClusterDownError,
    InvalidResponse,
    MasterDownError,
    RedisClusterException,
    RedisError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .errors import EventStoreError, StoreUnavailable

Client = Redis | RedisCluster

# Replies the store parses itself (raw nested lists of bytes, as hiredis gives them).
RAW_COMMANDS = ("XRANGE", "XREVRANGE", "XREAD", "ZRANGE", "HGETALL")

UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    ClusterDownError,
    MasterDownError,
    TryAgainError,
    RedisClusterException,
    ConnectionError,
    TimeoutError,
    OSError,
)


def _raw(response: Any, **options: Any) -> Any:
    return response


REDIS_FAILURES: tuple[type[BaseException], ...] = (*UNAVAILABLE_ERRORS, RedisError)
"""Everything redis-py raises, or the network under it."""

# Replies that mean "this Redis cannot serve now" rather than "this request is wrong".
UNAVAILABLE_REPLIES = ("MISCONF", "READONLY", "LOADING", "MASTERDOWN", "NOREPLICAS", "BUSY")


def store_error(exc: BaseException, what: str, url: str) -> EventStoreError:
    """The event store's error for a failure of redis-py (or of the network under it)."""
    if isinstance(exc, UNAVAILABLE_ERRORS) or (
        isinstance(exc, ResponseError) and str(exc).startswith(UNAVAILABLE_REPLIES)
    ):
        return StoreUnavailable(f"{what}: Redis at {redact(url)} is unavailable: {exc}")
    return EventStoreError(f"{what}: Redis at {redact(url)} refused: {exc}")


@contextmanager
def unavailable_as(what: str, url: str) -> Iterator[None]:
    """Turn a Redis failure inside the block into StoreUnavailable (cannot be reached or
    cannot serve now) or EventStoreError (anything else Redis refused)."""
    try:
        yield
    except REDIS_FAILURES as exc:
        raise store_error(exc, what, url) from exc


def redact(url: str) -> str:
    """``url`` without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


def with_host(url: str, host: str, port: int) -> str:
    """``url`` pointing at another node (credentials and options kept)."""
    parts = urlsplit(url)
    userinfo = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    hostport = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return urlunsplit(parts._replace(netloc=userinfo + hostport))


# redis-py 7 looks its own version up in the package metadata for every new connection
# (and sends CLIENT SETINFO): costly for the blocking connections subscriptions open.
_NO_DRIVER_INFO: dict[str, Any] = (
    {"driver_info": None} if "driver_info" in inspect.signature(Redis.__init__).parameters else {}
)


class Connector:
    """Makes, on first use, and owns the shared client of one store.

    ``cluster=None`` asks the server (``INFO cluster``) once. Clients retry a failed command
    at most ``retries`` times at once, without back-off, so an unreachable Redis fails fast.
    """

    def __init__(
        self,
        url: str,
        *,
        cluster: bool | None = None,
        connect_timeout: float = 2.0,
        command_timeout: float = 5.0,
        retries: int = 1,
        max_connections: int = 64,
    ) -> None:
        self.url = url
        self.cluster = cluster
        self.connect_timeout = connect_timeout
        self.command_timeout = command_timeout
        self.retries = retries
        self.max_connections = max_connections
        self._client: Client | None = None
        self._shared_connection: SharedConnection | None = None
        self._lock = asyncio.Lock()
        self.executor: Any = None  # what runs commands: the shared connection or the cluster client

    def _options(self) -> dict[str, Any]:
        return {
            "protocol": 2,
            "socket_connect_timeout": self.connect_timeout,
            "socket_timeout": self.command_timeout,
            "retry": Retry(NoBackoff(), self.retries),
            **_NO_DRIVER_INFO,
        }

    async def client(self) -> Client:
        """The shared redis-py client; StoreUnavailable when Redis cannot be reached."""
        if self._client is not None:
            return self._client
        async with self._lock:
            if self._client is None:
                with unavailable_as("connect", self.url):
                    client = await self._connect()
                shared = None if self.cluster else self._shared_for_commands()
                self._client, self._shared_connection = client, shared
                self.executor = shared or client
            return self._client

    @property
    def shared_connection(self) -> SharedConnection | None:
        """The shared connection once connected (never on a cluster, TLS or a socket)."""
        return self._shared_connection

    async def runner(self) -> Any:
        """What runs commands and scripts: the shared connection, or the cluster client."""
        if self.executor is None:
            await self.client()
        return self.executor

    async def execute(self, *args: Any) -> Any:
        """Run one command; its reply raw (as hiredis parses it) for the commands the store
        reads (XRANGE, XREVRANGE, XREAD, ZRANGE, HGETALL)."""
        executor = self.executor
        if executor is None:
            await self.client()
            executor = self.executor
        return await executor.execute_command(*args)

    def _shared_for_commands(self) -> SharedConnection | None:
        timeout = cast(
            float | None, parse_url(self.url).get("socket_timeout", self.command_timeout)
        )
        return self._shared(self.url, timeout, retries=self.retries)

    def _shared(
        self, url: str, socket_timeout: float | None, *, retries: int
    ) -> SharedConnection | None:
        kwargs: dict[str, Any] = dict(parse_url(url))
        if "connection_class" in kwargs or "path" in kwargs:
            return None  # TLS or a unix socket: keep to redis-py's client
        kwargs.update(socket_connect_timeout=self.connect_timeout, socket_timeout=socket_timeout)
        return SharedConnection(kwargs, retries=retries)

    async def _connect(self) -> Client:
        if self.cluster is None:
            probe: Any = Redis.from_url(self.url, **self._options())
            try:
                info = await probe.execute_command("INFO", "cluster")
            finally:
                await probe.aclose()
            self.cluster = bool(info.get("cluster_enabled"))
        client: Client
        if self.cluster:
            cluster = RedisCluster.from_url(
                self.url, max_connections=self.max_connections, **self._options()
            )
            try:
                await cluster.initialize()
            except BaseException:
                await cluster.aclose()
                raise
            client = cluster
        else:
            # a burst past max_connections waits for a free connection (as long as a
            # command may take), instead of failing at once as "Too many connections"
            pool = BlockingConnectionPool.from_url(
                self.url,
                max_connections=self.max_connections,
                timeout=self.command_timeout,
                connection_class=FastConnection,
                **self._options(),
            )
            client = Redis.from_pool(pool)
        for name in RAW_COMMANDS:
            client.set_response_callback(name, _raw)
        return client

    async def blocking_connection(
        self, key: str, socket_timeout: float | None
    ) -> Redis | SharedConnection:
        """A new connection of its own to the node that holds ``key``, for XREAD BLOCK:
        on one server a ``SharedConnection`` that nobody else uses, on a cluster
        redis-py's client (which knows MOVED)."""
        url = self.url
        client = await self.client()
        if isinstance(client, RedisCluster):
            node = client.get_node_from_key(key)
            if node is None:  # pragma: no cover - only with replicas asked for
                raise StoreUnavailable(f"no node holds {key!r}")
            url = with_host(self.url, node.host, int(node.port))
        elif (own := self._shared(url, socket_timeout, retries=0)) is not None:
            return own
        return self.single(url, socket_timeout)

    def single(self, url: str, socket_timeout: float | None) -> Redis:
        options = self._options()
        options["socket_timeout"] = socket_timeout
        options["retry"] = Retry(NoBackoff(), 0)
        conn = Redis.from_url(
            url, single_connection_client=True, connection_class=FastConnection, **options
        )
        for name in RAW_COMMANDS:
            conn.set_response_callback(name, _raw)
        return conn

    async def pipeline(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """Run independent commands in one pipeline (per node on a cluster), in order."""
        client = await self.client()
        if self._shared_connection is not None:
            return await self._shared_connection.pipeline(commands)
        pipe: Any = client.pipeline(transaction=False)
        for command in commands:
            pipe.execute_command(*command)
        result: list[Any] = await pipe.execute()
        return result

    async def close(self) -> None:
        client, self._client = self._client, None
        shared, self._shared_connection = self._shared_connection, None
        self.executor = None
        if shared is not None:
            await shared.close()
        if client is not None:
            await client.aclose()


class FastConnection(AsyncConnection):
    """redis-py's asyncio connection, packing commands with hiredis (C) when it can."""

    def pack_command(self, *args: Any) -> list[bytes]:
        first = args[0]
        if isinstance(first, str) and " " not in first:
            try:
                return [hiredis.pack_command(args)]
            except TypeError:
                pass
        packed: list[bytes] = super().pack_command(*args)
        return packed

    async def send_packed_command(
        self, command: bytes | str | Iterable[bytes], check_health: bool = True
    ) -> None:
        """As redis-py's, but timed with ``asyncio.timeout`` rather than ``wait_for``,
        which costs a task per command (a write is buffered: only a full buffer waits)."""
        if not self.is_connected:
            await self.connect_check_health(check_health=False)
        if check_health:
            await self.check_health()  # type: ignore[no-untyped-call]  # untyped upstream
        if isinstance(command, str):
            command = command.encode()
        writer = cast(asyncio.StreamWriter, self._writer)
        try:
            writer.writelines([command] if isinstance(command, bytes) else command)
            async with asyncio.timeout(self.socket_timeout or None):
                await writer.drain()
        except TimeoutError:
            await self.disconnect(nowait=True)
            raise RedisTimeoutError("Timeout writing to socket") from None
        except OSError as error:
            await self.disconnect(nowait=True)
            raise RedisConnectionError(f"Error while writing to socket: {error}") from error
        except BaseException:
            await self.disconnect(nowait=True)  # a half-sent command: the connection is spoilt
            raise


def _closed_error() -> RedisConnectionError:
    return RedisConnectionError("the store's connection is closed")


class SharedConnection:
    """One connection to one server that every caller of the store shares.

    The hot paths (append, read) would otherwise each take a connection of a pool and
    await redis-py's reader. Here a command is packed, queued, and every command asked
    in one turn of the event loop leaves in one write; Redis answers in order, so each
    reply settles the oldest waiting future (``_Wire``). Under many matches at once that
    is one send and one receive per turn of the loop, not one per command.

    A command whose connection failed is sent once more on a new one (``retries``), which
    is safe for appends because they carry a request id. No reply for ``command_timeout``
    while some are awaited closes the connection: every waiting command fails with a
    timeout, as redis-py's socket timeout would. A blocking command (XREAD BLOCK) or a
    MULTI would hold up or mix with everyone's: those take a connection of their own.
    """

    def __init__(self, kwargs: dict[str, Any], *, retries: int) -> None:
        self.host: str = kwargs.get("host", "localhost")
        self.port: int = int(kwargs.get("port", 6379))
        self.db: int = int(kwargs.get("db", 0) or 0)
        self.username: str | None = kwargs.get("username")
        self.password: str | None = kwargs.get("password")
        self.connect_timeout: float | None = kwargs.get("socket_connect_timeout")
        self.command_timeout: float | None = kwargs.get("socket_timeout")
        self.retries = retries
        self._wire: _Wire | None = None
        self._connecting: asyncio.Task[_Wire] | None = None
        self._closed = False

    async def execute_command(self, *args: Any, sent: Callable[[], None] | None = None) -> Any:
        """The command's reply. ``sent``: called once before the reply is given. On a
        quiet connection (nothing awaited, one command at a time) the command is
        written at once and ``sent`` runs while the reply is awaited, overlapping the
        round trip; on a busy one the command leaves with the others of this turn (one
        write for all: a write of its own would cost more than the overlap saves) and
        ``sent`` runs once the reply is in."""
        attempts = self.retries
        packed = pack(args)
        while True:
            wire = self._wire
            if wire is None or wire.lost is not None:
                wire = await self._connected()
            try:
                if sent is None or wire.waiting or wire.last_write > 1:
                    reply = await wire.send(packed)
                else:
                    waiting = wire.send_now(packed)
                    overlapped, sent = sent, None  # once: a retry sends the same command
                    overlapped()
                    reply = await waiting
            except UNAVAILABLE_ERRORS:
                if attempts <= 0 or self._closed:
                    raise
                attempts -= 1
                continue
            if sent is not None:
                sent()
            return reply

    def send_in_order(self, *args: Any) -> asyncio.Future[Any] | None:
        """The command queued at once on the live connection, after every one queued
        before it, and its reply's future; None when no connection is up (an awaited
        command connects). Never sent again on a new connection: commands sent in order
        without waiting (appends that each expect the one before) fail together."""
        wire = self._wire
        if wire is None or wire.lost is not None or self._closed:
            return None
        return wire.send(pack(args))

    async def pipeline(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """Replies of ``commands`` sent at once (a ResponseError is returned, not raised)."""
        wire = self._wire
        if wire is None or wire.lost is not None:
            wire = await self._connected()
        waiting = wire.send_all(b"".join(pack(command) for command in commands), len(commands))
        replies: list[Any] = []
        for future in waiting:
            try:
                replies.append(await future)
            except ResponseError as exc:
                replies.append(exc)
        return replies

    async def _connected(self) -> _Wire:
        if self._closed:
            raise _closed_error()
        if self._connecting is None or self._connecting.done():
            self._connecting = asyncio.ensure_future(self._connect())
        connecting = self._connecting
        try:
            return await asyncio.shield(connecting)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if connecting.cancelled() and not (task and task.cancelling()):
                raise _closed_error() from None
            raise  # the caller itself was cancelled

    async def _connect(self) -> _Wire:
        loop = asyncio.get_running_loop()
        wire = _Wire(loop, self.command_timeout)
        where = f"{self.host}:{self.port}"
        hello: list[tuple[Any, ...]] = []
        if self.password:  # as redis-py: AUTH [username] password, when there is one
            hello.append(
                ("AUTH", self.username, self.password) if self.username else ("AUTH", self.password)
            )
        if self.db:
            hello.append(("SELECT", self.db))
        try:
            async with asyncio.timeout(self.connect_timeout):
                await loop.create_connection(lambda: wire, self.host, self.port)
                for reply in wire.send_all(b"".join(map(pack, hello)), len(hello)):
                    await reply
        except BaseException as error:
            failure: RedisError = (
                RedisTimeoutError(f"Timeout connecting to {where}")
                if isinstance(error, TimeoutError)
                else RedisConnectionError(f"Error connecting to {where}: {error}")
            )
            wire.abort(failure)
            if isinstance(error, (TimeoutError, OSError)):
                raise failure from error
            raise
        if self._closed:
            wire.abort(_closed_error())
            raise _closed_error()
        self._wire = wire
        return wire

    async def aclose(self) -> None:
        await self.close()

    async def close(self) -> None:
        self._closed = True
        wire, self._wire = self._wire, None
        if wire is not None:
            wire.abort(_closed_error())
        if self._connecting is not None:
            self._connecting.cancel()
            with suppress(BaseException):
                await self._connecting


class _Wire(asyncio.Protocol):
    """A connection's transport, its reply parser and the futures awaiting its replies."""

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float | None) -> None:
        self.loop = loop
        self.timeout = timeout
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader(
            protocolError=InvalidResponse, replyError=BaseParser.parse_error
        )
        self.waiting: deque[asyncio.Future[Any]] = deque()
        self.outgoing: list[bytes] = []
        self.lost: RedisError | None = None
        self.heard = 0.0  # loop time of the last reply, or of the first command after a silence
        self.last_write = 0  # commands in the last write: more than one under load
        self._watch: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def send(self, packed: bytes) -> asyncio.Future[Any]:
        return self.send_all(packed, 1)[0]

    def send_now(self, packed: bytes) -> asyncio.Future[Any]:
        """As ``send``, written at once with what this turn queued before it."""
        reply = self.send(packed)
        self._flush()
        return reply

    def send_all(self, packed: bytes, count: int) -> list[asyncio.Future[Any]]:
        """Queue ``count`` packed commands for this turn's write; their replies' futures."""
        if self.lost is not None:
            raise self.lost
        if not self.waiting:
            self.heard = self.loop.time()
            if self.timeout and self._watch is None:
                self._watch = self.loop.call_later(self.timeout, self._check)
        futures = [self.loop.create_future() for _ in range(count)]
        self.waiting.extend(futures)
        if not self.outgoing:
            self.loop.call_soon(self._flush)
        self.outgoing.append(packed)
        return futures

    def _flush(self) -> None:
        outgoing, self.outgoing = self.outgoing, []
        self.last_write = len(outgoing) or self.last_write
        if outgoing and self.lost is None and self.transport is not None:
            self.transport.write(b"".join(outgoing) if len(outgoing) > 1 else outgoing[0])

    def data_received(self, data: bytes) -> None:
        self.heard = self.loop.time()
        self.reader.feed(data)
        waiting = self.waiting
        while (reply := self.reader.gets()) is not False:
            if not waiting:
                self.abort(RedisConnectionError("Redis sent a reply nobody asked for"))
                return
            future = waiting.popleft()
            if future.done():
                continue  # its caller was cancelled; the reply is read all the same
            if isinstance(reply, InvalidResponse):
                self.abort(RedisConnectionError(f"Redis sent what is not RESP: {reply}"))
                return
            if isinstance(reply, RedisError):  # an error reply, as redis-py names it
                future.set_exception(reply)  # (LOADING, WRONGPASS... are ConnectionErrors)
            else:
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError(f"Connection to Redis lost: {exc or 'closed by Redis'}"))

    def abort(self, error: RedisError) -> None:
        self._fail(error)
        if self.transport is not None:
            self.transport.abort()

    def _fail(self, error: RedisError) -> None:
        if self.lost is None:
            self.lost = error
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        waiting, self.waiting = self.waiting, deque()
        for future in waiting:
            if not future.done():
                future.set_exception(self.lost)

    def _check(self) -> None:
        self._watch = None
        if not self.waiting or self.lost is not None or not self.timeout:
            return
        silent = self.loop.time() - self.heard
        if silent >= self.timeout:
            self.abort(RedisTimeoutError("Timeout reading from socket"))
        else:
            self._watch = self.loop.call_later(self.timeout - silent, self._check)


_ENCODER = Encoder(encoding="utf-8", encoding_errors="strict", decode_responses=False)  # type: ignore[no-untyped-call]


def pack(args: Sequence[Any]) -> bytes:
    """One command in RESP (hiredis packs str, bytes, int and float; the rest as redis-py
    would encode them, or its DataError)."""
    try:
        packed: bytes = hiredis.pack_command(tuple(args))
    except TypeError:
        packed = hiredis.pack_command(tuple(_ENCODER.encode(arg) for arg in args))  # type: ignore[no-untyped-call]
    return packed


async def _drop(conn: AsyncConnection) -> None:
    with suppress(Exception):
        await conn.disconnect(nowait=True)
