"""The attacker's tests: each runs against a real `daifugo serve` process on a real
Redis, with nothing but the service's public APIs (gRPC, REST), and each first shows
that the honest path works, so no test passes because of an unrelated refusal."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from clients.sdk import DaifugoClient
from eventstore import RedisEventStore, RedisServer
from service.app import STORE_PREFIX
from tests.serve_process import ServeProcess


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A Redis of the module's own: an attack must not touch anyone else's keys."""
    server = RedisServer(tmp_path_factory.mktemp("redis"), appendonly=False).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def served(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServeProcess]:
    """One `daifugo serve` on that Redis, shared by the module's tests."""
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    service = ServeProcess(redis_server.url, log).wait_ready()
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture
async def client(served: ServeProcess) -> AsyncIterator[DaifugoClient]:
    async with DaifugoClient(served.grpc_target, timeout=20) as connected:
        yield connected


@pytest.fixture
async def http(served: ServeProcess) -> AsyncIterator[httpx.AsyncClient]:
    base = f"http://127.0.0.1:{served.http_port}"
    async with httpx.AsyncClient(base_url=base, timeout=30) as session:
        yield session


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[RedisEventStore]:
    """The store as the service sees it, to check that an attack changed nothing."""
    opened = RedisEventStore.from_url(redis_server.url, prefix=STORE_PREFIX)
    try:
        yield opened
    finally:
        await opened.close()
