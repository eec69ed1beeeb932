"""Failures: Redis crashing and restarting, Redis unreachable, replies lost on the wire."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import redis

from eventstore import (
    AppendResult,
    ConcurrencyConflict,
    NewEvent,
    RedisEventStore,
    StoreUnavailable,
)
from eventstore.connection import with_host

from .conftest import Backend, Outage, unique


async def append_until_acknowledged(
    store: RedisEventStore, stream: str, i: int, version: int, deadline: float
) -> AppendResult:
    """Append event ``i`` as command ``c<i>``, retrying the same command until Redis says
    yes: each retry carries the same request_id, so it lands at most once."""
    while True:
        try:
            return await store.append(stream, [NewEvent("Step", {"i": i})], version, f"c{i}")
        except StoreUnavailable:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def test_acknowledged_events_survive_a_redis_crash(backend: Backend, outage: Outage) -> None:
    store = backend.store(url=outage.url)
    stream = "durable"
    key = store.keys.events(stream)
    outage.fsync_always(key)  # every acknowledged write is on disk
    acknowledged: list[AppendResult] = []
    try:
        version = -1
        deadline = time.monotonic() + 60
        for i in range(45):
            if i in (10, 25, 40):
                outage.crash_and_restart(key)  # kill -9, then start on the same data
            result = await append_until_acknowledged(store, stream, i, version, deadline)
            acknowledged.append(result)
            version = result.last_seq
        events = await store.read(stream)
        assert [e.seq for e in events] == list(range(45))
        assert [e.data["i"] for e in events] == list(range(45))
        assert [e.request_id for e in events] == [f"c{i}" for i in range(45)]
        assert all(r.last_seq < len(events) for r in acknowledged)
        verification = await store.verify(stream)
        assert verification.ok, verification
    finally:
        await store.close()


async def test_crash_while_a_writer_is_busy_loses_no_acknowledged_event(
    backend: Backend, outage: Outage
) -> None:
    store = backend.store(url=outage.url)
    stream = "busy-crash"
    key = store.keys.events(stream)
    outage.fsync_always(key)  # every acknowledged write is on disk
    acknowledged: list[int] = []

    async def writer() -> None:
        version = -1
        deadline = time.monotonic() + 60
        for i in range(120):
            result = await append_until_acknowledged(store, stream, i, version, deadline)
            acknowledged.append(i)
            version = result.last_seq
            await asyncio.sleep(0)

    try:
        task = asyncio.create_task(writer())
        while len(acknowledged) < 40:
            await asyncio.sleep(0.005)
        outage.crash_and_restart(key)
        await asyncio.wait_for(task, 60)
        events = await store.read(stream)
        assert [e.data["i"] for e in events] == list(range(120))
        assert (await store.verify(stream)).ok
    finally:
        await store.close()


async def test_unreachable_redis_fails_fast_writes_nothing_and_recovers(
    backend: Backend, outage: Outage
) -> None:
    store = backend.store(url=outage.url)
    stream = "down"
    key = store.keys.events(stream)
    # every acknowledged write is on disk: under everysec a busy disk can postpone the
    # AOF write past the reply, and the kill -9 below would then lose A and B
    outage.fsync_always(key)
    try:
        await store.append(stream, [NewEvent("A", {}), NewEvent("B", {})], -1)
        outage.stop(key)
        for _ in range(3):
            started = time.monotonic()
            with pytest.raises(StoreUnavailable) as info:
                await store.append(stream, [NewEvent("Lost", {})], 1, "while-down")
            assert time.monotonic() - started < 1.0
            assert "unavailable" in str(info.value) and "append" in str(info.value)
        with pytest.raises(StoreUnavailable):
            await store.read(stream)
        with pytest.raises(StoreUnavailable):
            await store.version(stream)
        outage.start(key)
        assert await store.version(stream) == 1  # nothing was written while it was down
        result = await store.append(stream, [NewEvent("C", {})], 1, "after")
        assert result == AppendResult(2, 2, False)
        assert [e.type for e in await store.read(stream)] == ["A", "B", "C"]
        assert (await store.verify(stream)).ok
    finally:
        await store.close()


async def test_a_store_made_while_redis_is_down_fails_fast_then_works(
    backend: Backend, outage: Outage
) -> None:
    key_probe = backend.store()  # only for the key name of the stream
    key = key_probe.keys.events("late")
    await key_probe.close()
    outage.stop(key)
    # on a cluster the other nodes still answer: the store connects, the stream's node not
    store = backend.store(url=outage.url, prefix=key_probe.keys.prefix)
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await store.append("late", [NewEvent("A", {})], -1)
        assert time.monotonic() - started < 2.0
        outage.start(key)
        assert (await store.append("late", [NewEvent("A", {})], -1)).last_seq == 0
    finally:
        await store.close()


class DroppingProxy:
    """A TCP proxy to Redis that can drop the reply to the next EVALSHA (the command is
    executed by Redis; the client only sees its connection die)."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.armed = 0
        self.dropped = 0
        self.server: asyncio.Server | None = None
        self.port = 0
        self._tasks: set[asyncio.Task[Any]] = set()

    async def start(self) -> DroppingProxy:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def _handle(self, creader: asyncio.StreamReader, cwriter: asyncio.StreamWriter) -> None:
        ureader, uwriter = await asyncio.open_connection("127.0.0.1", self.target)
        drop = asyncio.Event()

        async def upstream() -> None:
            while data := await creader.read(65536):
                if self.armed and b"EVALSHA" in data:
                    self.armed -= 1
                    drop.set()
                uwriter.write(data)
                await uwriter.drain()

        async def downstream() -> None:
            while data := await ureader.read(65536):
                if drop.is_set():
                    self.dropped += 1
                    break
                cwriter.write(data)
                await cwriter.drain()

        tasks = [asyncio.ensure_future(upstream()), asyncio.ensure_future(downstream())]
        self._tasks.update(tasks)
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
            for w in (cwriter, uwriter):
                w.close()

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
        for t in list(self._tasks):
            t.cancel()
        if self.server is not None:
            await self.server.wait_closed()


@pytest.mark.parametrize("retries", [0, 1])
async def test_reply_lost_on_the_wire_is_written_once(redis_url: str, retries: int) -> None:
    port = redis.Redis.from_url(redis_url).connection_pool.connection_kwargs["port"]
    proxy = await DroppingProxy(int(port)).start()
    store = RedisEventStore.from_url(
        with_host(redis_url, "127.0.0.1", proxy.port),  # the same database, through the proxy
        prefix=unique(),
        retries=retries,
        cluster=False,
    )
    direct = RedisEventStore.from_url(redis_url, prefix=store.keys.prefix)
    try:
        await store.append("wire", [NewEvent("A", {})], -1)
        proxy.armed = 1
        events = [NewEvent("B", {}), NewEvent("C", {})]
        if retries == 0:
            with pytest.raises(StoreUnavailable):
                await store.append("wire", events, 0, "cmd-7")
            result = await store.append("wire", events, 0, "cmd-7")  # the caller retries
        else:
            result = await store.append("wire", events, 0, "cmd-7")  # the store retried
        assert proxy.dropped == 1
        assert result == AppendResult(1, 2, True)
        assert [e.type for e in await direct.read("wire")] == ["A", "B", "C"]
        with pytest.raises(ConcurrencyConflict):
            await store.append("wire", events, 0, "cmd-8")
        assert (await direct.verify("wire")).ok
    finally:
        await store.close()
        keys = [direct.keys.events("wire"), direct.keys.meta("wire")]
        client = await direct.raw_client()
        await client.delete(*keys)
        await direct.close()
        await proxy.stop()
