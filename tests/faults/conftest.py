"""Fixtures of the fault tests: each test module gets a redis-server of its own (AOF,
``appendfsync always``: every acknowledged write is on disk), which its tests may
crash, restart or pause without touching the shared Redis, and two real `daifugo
serve` processes on it (module-wide: starting them is most of a test's time)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from eventstore import RedisEventStore, RedisServer
from service.app import STORE_PREFIX
from tests.serve_process import ServeProcess, serve_processes

from .processes import resume


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"), appendfsync="always").start()
    try:
        yield server
    finally:
        resume(server)  # a failed test must not leave it stopped: it could not shut down
        server.stop()


@pytest.fixture(scope="module")
def services(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[ServeProcess]]:
    with serve_processes(redis_server.url, tmp_path_factory.mktemp("services"), 2) as started:
        yield started


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[RedisEventStore]:
    """The store as the services see it, for the checks."""
    opened = RedisEventStore.from_url(redis_server.url, prefix=STORE_PREFIX)
    try:
        yield opened
    finally:
        await opened.close()
