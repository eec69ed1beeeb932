"""Helpers for tests that talk to a real Redis."""

from __future__ import annotations

import uuid

import redis

DEFAULT_URL = "redis://127.0.0.1:6379"


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
