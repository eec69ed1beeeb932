"""Event store fixtures (the Redis ones, ``redis_url`` and ``cluster_url``, are in
tests/conftest.py).

- ``backend`` (parametrized: single, cluster): what the shared contract suite runs against.
- ``outage``: a Redis the test may crash, stop and start: its own server for ``single``,
  the node holding a given key for ``cluster`` (healed after the test).

Every test isolates itself with a unique key prefix, deleted after it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.crc import key_slot

from eventstore import RedisEventStore, RedisServer
from tests.localcluster import LocalCluster

from ..redis_support import unique


@dataclass
class Backend:
    """Where a test's stores live: one server or the local cluster."""

    name: str
    url: str
    cluster: bool
    prefixes: list[str] = field(default_factory=list)

    def store(
        self, url: str | None = None, prefix: str | None = None, **kw: Any
    ) -> RedisEventStore:
        prefix = prefix or unique()
        self.prefixes.append(prefix)
        return RedisEventStore.from_url(url or self.url, prefix=prefix, **kw)

    def sync_clients(self) -> list[redis.Redis]:
        if not self.cluster:
            return [redis.Redis.from_url(self.url)]
        return [
            redis.Redis(host=n.host, port=n.port)
            for n in redis.RedisCluster.from_url(self.url).get_primaries()
        ]

    def client_for(self, key: str) -> redis.Redis:
        """A plain client to the node holding ``key``."""
        if not self.cluster:
            return redis.Redis.from_url(self.url)
        rc = redis.RedisCluster.from_url(self.url)
        node = rc.get_node_from_key(key)
        rc.close()
        return redis.Redis(host=node.host, port=node.port)

    def cleanup(self) -> None:
        try:
            clients = self.sync_clients()
        except (redis.RedisError, OSError):
            return
        for client in clients:
            try:
                for prefix in self.prefixes:
                    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
                    for key in keys:
                        client.delete(key)
            except (redis.RedisError, OSError):
                pass
            finally:
                client.close()


@pytest.fixture(params=["single", "cluster"])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    if request.param == "single":
        b = Backend("single", request.getfixturevalue("redis_url"), False)
    else:
        b = Backend("cluster", request.getfixturevalue("cluster_url"), True)
    yield b
    b.cleanup()


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[RedisEventStore]:
    s = backend.store()
    try:
        yield s
    finally:
        await s.close()


class Outage:
    """A Redis the test may crash and restart, stop and start."""

    url: str
    cluster: bool

    def crash_and_restart(self, key: str) -> None:
        raise NotImplementedError

    def fsync_always(self, key: str) -> None:
        """Make the Redis holding ``key`` fsync every write (across restarts too)."""
        raise NotImplementedError

    def stop(self, key: str) -> None:
        raise NotImplementedError

    def start(self, key: str) -> None:
        raise NotImplementedError

    def heal(self) -> None:
        raise NotImplementedError


class ServerOutage(Outage):
    def __init__(self, server: RedisServer) -> None:
        self.server = server
        self.url = server.url
        self.cluster = False

    def crash_and_restart(self, key: str) -> None:
        self.server.restart(crash=True)

    def fsync_always(self, key: str) -> None:
        assert self.server.appendfsync == "always"

    def stop(self, key: str) -> None:
        self.server.kill()

    def start(self, key: str) -> None:
        self.server.start()

    def heal(self) -> None:
        self.server.stop()


class ClusterOutage(Outage):
    def __init__(self, cluster: LocalCluster) -> None:
        self.local = cluster
        self.url = cluster.url
        self.cluster = True

    def node(self, key: str) -> RedisServer:
        return self.local.node_for(key)

    def crash_and_restart(self, key: str) -> None:
        self.local.restart_node(self.node(key), crash=True)

    def fsync_always(self, key: str) -> None:
        node = self.node(key)
        node.appendfsync = "always"  # for its restarts
        client = redis.Redis(port=node.port)
        client.config_set("appendfsync", "always")
        client.close()

    def stop(self, key: str) -> None:
        self.node(key).kill()

    def start(self, key: str) -> None:
        self.node(key).start()
        self.local.wait_ok()

    def heal(self) -> None:
        for node in self.local.nodes:
            if not node.running:
                node.start()
            if node.appendfsync != "everysec":
                node.appendfsync = "everysec"
                client = redis.Redis(port=node.port)
                client.config_set("appendfsync", "everysec")
                client.close()
        self.local.wait_ok()


@pytest.fixture
def outage(backend: Backend, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Outage]:
    o: Outage
    if backend.name == "single":
        o = ServerOutage(RedisServer(tmp_path / "redis", appendfsync="always").start())
    else:
        o = ClusterOutage(request.getfixturevalue("local_cluster"))
    try:
        yield o
    finally:
        o.heal()


def same_slot(*keys: str) -> bool:
    return len({key_slot(k.encode()) for k in keys}) == 1
