"""Helpers for tests that talk to a real Redis."""

from __future__ import annotations

import contextlib
import socket
import time
import uuid
from pathlib import Path

import redis


def unique(prefix: str = "t") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def answers(url: str) -> bool:
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=0.3, socket_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (redis.RedisError, OSError, ValueError):
        return False


def assert_private(folder: Path) -> None:
    """``folder`` and every folder under it 0700, every file 0600."""
    assert folder.stat().st_mode & 0o777 == 0o700, folder
    found = []
    for entry in folder.rglob("*"):
        mode = entry.stat().st_mode & 0o777
        assert mode == (0o700 if entry.is_dir() else 0o600), (entry, oct(mode))
        found.append(entry.name)
    assert any("aof" in name for name in found), found


def wait_for_rewrite(client: redis.Redis) -> None:
    deadline = time.monotonic() + 30
    while True:
        info = client.info("persistence")
        if not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]:
            return
        assert time.monotonic() < deadline, "the AOF rewrite did not finish"
        time.sleep(0.05)


def listening_addresses(port: int) -> set[str]:
    """The local addresses listening on ``port`` (TCP, IPv4 and IPv6), from /proc."""
    addresses = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        with contextlib.suppress(FileNotFoundError), open(table) as lines:
            for line in list(lines)[1:]:
                local, state = line.split()[1], line.split()[3]
                address, _, hex_port = local.partition(":")
                if state != "0A" or int(hex_port, 16) != port:  # 0A: LISTEN
                    continue
                if width == 8:
                    addresses.add(socket.inet_ntop(socket.AF_INET, bytes.fromhex(address)[::-1]))
                else:
                    raw = b"".join(bytes.fromhex(address[i : i + 8])[::-1] for i in range(0, 32, 8))
                    addresses.add(socket.inet_ntop(socket.AF_INET6, raw))
    return addresses
