"""One replica at a time runs the projections and the turn timers, under a lease in
Redis; when it stops (or dies and its lease lapses), another takes over. (The lease's
own contract: tests/eventstore/test_ports.py.)"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

import redis

from eventstore import RedisServer
from service.app.background import RENEW_EVERY
from service.runtime import running_service

from ..redis_support import unique


async def test_a_second_replica_runs_the_background_work_once_the_first_stops(
    redis_url: str,
) -> None:
    prefix = unique("test-")
    try:
        async with contextlib.AsyncExitStack() as stack:
            first = await stack.enter_async_context(
                running_service(redis_url, grpc_port=0, prefix=prefix)
            )
            await wait_until(lambda: first.background.leading)
            async with running_service(redis_url, grpc_port=0, prefix=prefix) as second:
                await asyncio.sleep(1.5)  # a renewal or so: still the first one's
                assert first.background.leading and not second.background.leading
                await stack.aclose()  # the first replica stops and gives the lease up
                await wait_until(lambda: second.background.leading)
    finally:
        client = redis.Redis.from_url(redis_url)
        for key in list(client.scan_iter(match=f"{prefix}:*", count=1000)):
            client.delete(key)
        client.close()


async def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.05)


async def test_the_background_work_outlives_a_redis_outage(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "redis").start()
    try:
        async with running_service(server.url, grpc_port=0, prefix="outage") as running:
            background = running.background
            await wait_until(lambda: background.leading)
            server.kill()
            await asyncio.sleep(2 * RENEW_EVERY)  # claims fail meanwhile
            await asyncio.to_thread(server.start)
            await asyncio.sleep(2 * RENEW_EVERY)
            assert background.leading
            assert await background.lease.claim()  # renewing again
    finally:
        server.stop()
