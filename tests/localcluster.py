"""A local Redis Cluster of N masters (no replicas) on free ports, for the tests and
``bench.load`` (it does not ship: a deployment brings its own cluster).

Started from plain redis-server processes (``--cluster-enabled yes``): slots are assigned
with CLUSTER ADDSLOTS, nodes joined with CLUSTER MEET, then it waits for cluster_state:ok.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import redis
from redis.crc import key_slot

from eventstore.embedded import RedisServer

SLOTS = 16384


class LocalCluster:
    """``masters`` redis-server processes under ``base_dir``, one cluster.

    A node restarted within ``node_timeout_ms`` is never marked failed by the others (there
    are no replicas to fail over to). Redis makes a master wait 2 s after it starts, and
    ``node_timeout_ms`` (0.5 to 5 s) after it rejoins, before it serves: a start or restart
    takes about 2 s.
    """

    def __init__(
        self,
        base_dir: str | os.PathLike[str],
        *,
        masters: int = 3,
        appendfsync: str = "always",
        node_timeout_ms: int = 2_000,
        binary: str | None = None,
    ) -> None:
        self.base_dir = Path(base_dir)
        self.nodes: list[RedisServer] = []
        self._masters = masters
        self._appendfsync = appendfsync
        self._node_timeout_ms = node_timeout_ms
        self._binary = binary

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def start(self, timeout: float = 30.0) -> LocalCluster:
        try:
            for _ in range(self._masters):
                node = RedisServer(
                    self.base_dir,  # replaced below once the port is known
                    binary=self._binary,
                    appendfsync=self._appendfsync,
                    with_bus=True,
                )
                node.data_dir = self.base_dir / f"node-{node.port}"
                node.extra_args = [
                    "--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", str(self._node_timeout_ms),
                ]  # fmt: skip
                node.start()
                self.nodes.append(node)
            self._assign_slots()
            self.wait_ok(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _assign_slots(self) -> None:
        n = len(self.nodes)
        bounds = [SLOTS * i // n for i in range(n + 1)]
        clients: list[Any] = [redis.Redis(port=node.port) for node in self.nodes]
        try:
            for i, client in enumerate(clients):
                client.execute_command("CLUSTER", "ADDSLOTS", *range(bounds[i], bounds[i + 1]))
            for node in self.nodes[1:]:
                clients[0].execute_command("CLUSTER", "MEET", "127.0.0.1", node.port)
        finally:
            for client in clients:
                client.close()

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Wait until every node says cluster_state:ok and knows every other node."""
        deadline = time.monotonic() + timeout
        n = len(self.nodes)
        while True:
            if all(self._node_ok(node, n) for node in self.nodes):
                return
            if time.monotonic() > deadline:
                raise TimeoutError("the local cluster did not reach cluster_state:ok")
            time.sleep(0.05)

    @staticmethod
    def _node_ok(node: RedisServer, n: int) -> bool:
        client: Any = redis.Redis(port=node.port, socket_connect_timeout=0.5, decode_responses=True)
        try:
            info = client.execute_command("CLUSTER", "INFO")
            if isinstance(info, dict):
                state, known = info.get("cluster_state"), int(info.get("cluster_known_nodes", 0))
                assigned = int(info.get("cluster_slots_ok", 0))
            else:
                fields = dict(line.split(":", 1) for line in str(info).splitlines() if ":" in line)
                state, known = fields.get("cluster_state"), int(fields["cluster_known_nodes"])
                assigned = int(fields["cluster_slots_ok"])
            if state != "ok" or known != n or assigned != SLOTS:
                return False
            nodes = client.execute_command("CLUSTER", "NODES")
            text = nodes if isinstance(nodes, str) else str(nodes)
            return "fail" not in text and "handshake" not in text and "disconnected" not in text
        except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError, KeyError):
            return False
        finally:
            client.close()

    def node_for(self, key: str) -> RedisServer:
        """The node that holds ``key``'s slot."""
        slot = key_slot(key.encode())
        n = len(self.nodes)
        bounds = [SLOTS * i // n for i in range(n + 1)]
        for i in range(n):
            if bounds[i] <= slot < bounds[i + 1]:
                return self.nodes[i]
        raise LookupError(slot)  # pragma: no cover

    def restart_node(self, node: RedisServer, crash: bool = True) -> None:
        node.restart(crash=crash)
        self.wait_ok()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        self.nodes = []

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
