"""The analyses' store (``AnalysisStore`` in analyses.py) in the event store's Redis,
under ``<prefix>:{analysis}:`` (one cluster slot)."""

from __future__ import annotations

from .analyses import check_key
from .connection import unavailable_as
from .store import RedisEventStore


class RedisAnalyses:
    """In the event store's Redis: ``<prefix>:{analysis}:result:<key>`` (a string with an
    expiry) and ``<prefix>:{analysis}:job:<key>`` (a string with an expiry)."""

    def __init__(self, store: RedisEventStore) -> None:
        self.store = store
        self._base = f"{store.keys.prefix}:{{analysis}}"

    async def result(self, key: str) -> bytes | None:
        return await self._get(f"{self._base}:result:{key}")

    async def save_result(self, key: str, body: bytes, ttl_ms: int) -> None:
        check_key(key, ttl_ms)
        with unavailable_as("save an analysis", self.store.url):
            client = await self.store.raw_client()
            await client.set(f"{self._base}:result:{key}", body, px=ttl_ms)

    async def claim(self, key: str, body: bytes, ttl_ms: int) -> bool:
        check_key(key, ttl_ms)
        with unavailable_as("claim an analysis job", self.store.url):
            client = await self.store.raw_client()
            return bool(await client.set(f"{self._base}:job:{key}", body, px=ttl_ms, nx=True))

    async def job(self, key: str) -> bytes | None:
        return await self._get(f"{self._base}:job:{key}")

    async def save_job(self, key: str, body: bytes, ttl_ms: int) -> None:
        check_key(key, ttl_ms)
        with unavailable_as("save an analysis job", self.store.url):
            client = await self.store.raw_client()
            await client.set(f"{self._base}:job:{key}", body, px=ttl_ms)

    async def drop_job(self, key: str) -> None:
        with unavailable_as("drop an analysis job", self.store.url):
            client = await self.store.raw_client()
            await client.delete(f"{self._base}:job:{key}")

    async def _get(self, name: str) -> bytes | None:
        with unavailable_as("read an analysis", self.store.url):
            client = await self.store.raw_client()
            found = await client.get(name)
        return None if found is None else bytes(found)
