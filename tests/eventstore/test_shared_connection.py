"""The one connection a store shares on a single server (``SharedConnection``): commands
asked together leave together, every reply reaches the command that asked for it, even
around a cancelled caller, a timeout or a connection Redis closed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from eventstore import RedisServer
from eventstore.connection import Connector, SharedConnection

from ..redis_support import unique


@pytest.fixture
async def shared(redis_url: str) -> AsyncIterator[SharedConnection]:
    connector = Connector(redis_url, cluster=False, command_timeout=0.5)
    runner = await connector.runner()
    assert isinstance(runner, SharedConnection)
    try:
        yield runner
    finally:
        await connector.close()


def _count_writes(shared: SharedConnection) -> list[bytes]:
    wire = shared._wire
    assert wire is not None and wire.transport is not None
    written: list[bytes] = []
    write = wire.transport.write

    def counted(data: Any) -> None:
        written.append(bytes(data))
        write(data)

    wire.transport.write = counted  # type: ignore[method-assign]
    return written


async def test_commands_asked_in_one_turn_leave_in_one_write(shared: SharedConnection) -> None:
    key = unique()
    await shared.execute_command("PING")
    written = _count_writes(shared)
    replies = await asyncio.gather(
        *(shared.execute_command("INCRBY", key, n) for n in range(1, 21)),
        shared.execute_command("GET", key),
    )
    assert len(written) == 1
    assert replies[:20] == [sum(range(1, n + 1)) for n in range(1, 21)]
    assert replies[20] == b"210"
    await shared.execute_command("DEL", key)


async def _watching_sent(
    shared: SharedConnection,
) -> tuple[list[tuple[int, int]], Callable[[], None]]:
    """A ``sent`` that notes, each time it runs, the writes so far (from a quiet
    connection on) and the replies awaited."""
    await shared.execute_command("PING")
    written = _count_writes(shared)
    seen: list[tuple[int, int]] = []

    def sent() -> None:
        wire = shared._wire
        assert wire is not None
        seen.append((len(written), len(wire.waiting)))

    return seen, sent


async def test_on_an_idle_connection_sent_runs_once_the_command_is_written(
    shared: SharedConnection,
) -> None:
    key = unique()
    seen, sent = await _watching_sent(shared)
    assert await shared.execute_command("INCR", key, sent=sent) == 1
    assert seen == [(1, 1)]  # written, its reply awaited
    await shared.execute_command("DEL", key)


async def test_on_a_busy_connection_sent_runs_once_the_reply_is_in(
    shared: SharedConnection,
) -> None:
    key = unique()
    seen, sent = await _watching_sent(shared)
    # the commands of one turn still leave in one write
    replies = await asyncio.gather(
        shared.execute_command("SET", key, "1"), shared.execute_command("INCR", key, sent=sent)
    )
    assert replies == [b"OK", 2] and seen == [(1, 0)]
    # nothing awaited, but the last write carried several: still busy
    assert await shared.execute_command("INCR", key, sent=sent) == 3
    assert seen[-1] == (2, 0)
    # the last write carried one: quiet again
    assert await shared.execute_command("INCR", key, sent=sent) == 4
    assert seen[-1] == (3, 1)
    await shared.execute_command("DEL", key)


async def test_a_cancelled_caller_leaves_the_replies_in_step(
    shared: SharedConnection, redis_url: str
) -> None:
    key, waited = unique(), unique()
    blocked = asyncio.ensure_future(shared.execute_command("BLPOP", waited, 0.3))
    await asyncio.sleep(0.05)
    blocked.cancel()
    with pytest.raises(asyncio.CancelledError):
        await blocked
    # the BLPOP's nil arrives first and belongs to nobody: the GET still gets its own
    assert await shared.execute_command("SET", key, "mine") == b"OK"
    assert await shared.execute_command("GET", key) == b"mine"
    await shared.execute_command("DEL", key)


async def test_an_error_reply_fails_its_own_command_only(shared: SharedConnection) -> None:
    key = unique()
    results = await asyncio.gather(
        shared.execute_command("SET", key, "text"),
        shared.execute_command("INCR", key),
        shared.execute_command("EVALSHA", "0" * 40, 0),
        shared.execute_command("GET", key),
        return_exceptions=True,
    )
    assert results[0] == b"OK"
    assert isinstance(results[1], ResponseError)
    assert isinstance(results[2], NoScriptError)
    assert results[3] == b"text"
    replies = await shared.pipeline([("INCR", key), ("GET", key)])
    assert isinstance(replies[0], ResponseError) and replies[1] == b"text"
    await shared.execute_command("DEL", key)


async def test_no_reply_in_time_fails_what_waits_and_the_next_command_reconnects(
    shared: SharedConnection, redis_url: str
) -> None:
    key = unique()
    await shared.execute_command("PING")
    control = redis.Redis.from_url(redis_url)
    try:
        control.execute_command("CLIENT", "PAUSE", 1500, "WRITE")
        started = asyncio.get_running_loop().time()
        with pytest.raises(RedisTimeoutError):
            # sent twice (the retry on a new connection), each time out after 0.5 s
            await shared.execute_command("SET", key, "late")
        assert asyncio.get_running_loop().time() - started < 1.4
    finally:
        control.execute_command("CLIENT", "UNPAUSE")
        control.close()
    assert await shared.execute_command("SET", key, "now") == b"OK"
    assert await shared.execute_command("GET", key) == b"now"
    await shared.execute_command("DEL", key)


async def test_a_connection_redis_closed_is_replaced_and_the_command_sent_again(
    shared: SharedConnection, redis_url: str
) -> None:
    key = unique()
    await shared.execute_command("CLIENT", "SETNAME", "shared-under-test")
    control = redis.Redis.from_url(redis_url)
    try:
        victims = [c["id"] for c in control.client_list() if c["name"] == "shared-under-test"]
        assert len(victims) == 1
        control.client_kill_filter(_id=victims[0])
    finally:
        control.close()
    await asyncio.sleep(0.05)  # the close reaches the connection
    assert await shared.execute_command("SET", key, "again") == b"OK"
    assert await shared.execute_command("GET", key) == b"again"
    await shared.execute_command("DEL", key)


async def test_a_closed_connection_refuses_commands(redis_url: str) -> None:
    connector = Connector(redis_url, cluster=False)
    runner = await connector.runner()
    await runner.execute_command("PING")
    await connector.close()
    with pytest.raises(redis.ConnectionError):
        await runner.execute_command("PING")


async def test_closing_while_it_connects_fails_the_waiting_commands(redis_url: str) -> None:
    connector = Connector(redis_url, cluster=False)
    runner = await connector.runner()
    waiting = asyncio.ensure_future(runner.execute_command("PING"))
    await asyncio.sleep(0)  # connecting, not connected
    await connector.close()
    with pytest.raises(redis.ConnectionError):  # not a CancelledError its caller never asked
        await waiting


async def test_it_logs_in_and_selects_the_url_s_database(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "redis", appendonly=False, password="a-long-secret").start()
    try:
        good = Connector(f"{server.url}/3", cluster=False)
        runner = await good.runner()
        assert isinstance(runner, SharedConnection)
        assert await runner.execute_command("SET", "where", "db3") == b"OK"
        await good.close()
        assert redis.Redis(port=server.port, password="a-long-secret", db=3).get("where") == b"db3"
        wrong = Connector(server.url.replace("a-long-secret", "guess"), cluster=False)
        with pytest.raises(redis.AuthenticationError):  # an error reply, raised, not returned
            await (await wrong.runner()).execute_command("PING")
        await wrong.close()
    finally:
        server.stop()


async def test_a_burst_past_the_pool_waits_for_a_connection_instead_of_failing(
    redis_url: str,
) -> None:
    """The client's pool (blocking reads, scripts of their own) holds max_connections:
    more callers at once wait for one to come free, never "Too many connections"."""
    connector = Connector(redis_url, cluster=False, max_connections=2)
    client = await connector.client()
    key = unique("burst")
    try:
        # BLPOP holds its connection for its timeout: 16 of them need 8 turns of 2
        replies = await asyncio.gather(
            *(client.execute_command("BLPOP", key, 0.05) for _ in range(16))
        )
        assert replies == [None] * 16
    finally:
        await connector.close()
