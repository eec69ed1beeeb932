"""The running service for tests, kept apart from every other test's data."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import redis

from service.runtime import Running, running_service

from .redis_support import unique


@contextlib.asynccontextmanager
async def isolated_service(redis_url: str, **options: Any) -> AsyncIterator[Running]:
    """``running_service`` under a key prefix of its own, deleted afterwards: no other
    test's matches for its projections to catch up on, count or time."""
    prefix = unique("test-")
    try:
        async with running_service(redis_url, prefix=prefix, **options) as running:
            yield running
    finally:
        client = redis.Redis.from_url(redis_url)
        try:
            for key in list(client.scan_iter(match=f"{prefix}:*", count=1000)):
                client.delete(key)
        finally:
            client.close()
