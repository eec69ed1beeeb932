"""Connections to Redis (one server or a cluster) and the translation of their failures."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import Connection as AsyncConnection
from redis.asyncio.connection import parse_url
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import (
    ClusterDownError,
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
        self._direct: DirectPool | None = None
        self._lock = asyncio.Lock()
        self.executor: Any = None  # what runs commands: the direct pool or the cluster client

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
                direct = None if self.cluster else self._direct_pool()
                self._client, self._direct = client, direct
                self.executor = direct or client
            return self._client

    async def runner(self) -> Any:
        """What runs commands and scripts: the direct pool, or the cluster client."""
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

    def _direct_pool(self) -> DirectPool | None:
        kwargs: dict[str, Any] = dict(parse_url(self.url))
        if "connection_class" in kwargs or "path" in kwargs:
            return None  # TLS or a unix socket: keep to redis-py's client
        kwargs.update(
            protocol=2,
            socket_connect_timeout=self.connect_timeout,
            socket_timeout=kwargs.get("socket_timeout", self.command_timeout),
            retry=Retry(NoBackoff(), 0),
            **_NO_DRIVER_INFO,
        )
        return DirectPool(kwargs, retries=self.retries, max_connections=self.max_connections)

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
            client = Redis.from_url(
                self.url,
                max_connections=self.max_connections,
                connection_class=FastConnection,
                **self._options(),
            )
        for name in RAW_COMMANDS:
            client.set_response_callback(name, _raw)
        return client

    async def blocking_connection(self, key: str, socket_timeout: float | None) -> Redis:
        """A new single-connection client to the node that holds ``key``, for XREAD BLOCK."""
        url = self.url
        client = await self.client()
        if isinstance(client, RedisCluster):
            node = client.get_node_from_key(key)
            if node is None:  # pragma: no cover - only with replicas asked for
                raise StoreUnavailable(f"no node holds {key!r}")
            url = with_host(self.url, node.host, int(node.port))
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
        if self._direct is not None:
            return await self._direct.pipeline(commands)
        pipe: Any = client.pipeline(transaction=False)
        for command in commands:
            pipe.execute_command(*command)
        result: list[Any] = await pipe.execute()
        return result

    async def close(self) -> None:
        client, self._client = self._client, None
        direct, self._direct = self._direct, None
        self.executor = None
        if direct is not None:
            await direct.close()
        if client is not None:
            await client.aclose()


try:
    import hiredis as _hiredis
except ImportError:  # pragma: no cover - hiredis is a dependency, but optional at run time
    _hiredis = None  # type: ignore[assignment]


class FastConnection(AsyncConnection):
    """redis-py's asyncio connection, packing commands with hiredis (C) when it can."""

    def pack_command(self, *args: Any) -> list[bytes]:
        if _hiredis is not None:
            first = args[0]
            if isinstance(first, str) and " " not in first:
                try:
                    return [_hiredis.pack_command(args)]
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


class DirectPool:
    """A few connections to one server, used without redis-py's client layer.

    The hot paths (append, read) send a command on an idle connection and read its raw
    reply: about 20 us less per call than ``Redis.execute_command``. A connection that
    fails is dropped; a command whose connection failed is sent once more on a new one
    (``retries``), which is safe for appends because they carry a request_id.
    """

    def __init__(self, kwargs: dict[str, Any], *, retries: int, max_connections: int) -> None:
        self.kwargs = kwargs
        self.retries = retries
        self._idle: list[FastConnection] = []
        self._slots = asyncio.Semaphore(max_connections)
        self._closed = False

    def _new(self) -> FastConnection:
        return FastConnection(**self.kwargs)

    async def execute_command(self, *args: Any) -> Any:
        attempts = self.retries
        async with self._slots:
            while True:
                conn = self._idle.pop() if self._idle else self._new()
                try:
                    await conn.send_command(*args)
                    reply = await conn.read_response()
                except ResponseError:
                    await self._release(conn)  # the reply was read whole: the connection is fine
                    raise
                except UNAVAILABLE_ERRORS:
                    await _drop(conn)
                    if attempts <= 0 or self._closed:
                        raise
                    attempts -= 1
                    continue
                except BaseException:
                    await _drop(conn)  # cancelled mid-reply: the connection is out of step
                    raise
                if self._closed or len(self._idle) >= 16:
                    await _drop(conn)
                else:
                    self._idle.append(conn)
                return reply

    async def pipeline(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """Replies of ``commands`` sent at once (a ResponseError is returned, not raised)."""
        async with self._slots:
            conn = self._idle.pop() if self._idle else self._new()
            try:
                await conn.send_packed_command(conn.pack_commands(commands))
                replies: list[Any] = []
                for _ in commands:
                    try:
                        replies.append(await conn.read_response())
                    except ResponseError as exc:
                        replies.append(exc)
            except BaseException:
                await _drop(conn)
                raise
            await self._release(conn)
            return replies

    async def _release(self, conn: FastConnection) -> None:
        if self._closed or len(self._idle) >= 16:
            await _drop(conn)
        else:
            self._idle.append(conn)

    async def close(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            await _drop(conn)


async def _drop(conn: AsyncConnection) -> None:
    with suppress(Exception):
        await conn.disconnect(nowait=True)
