"""The deadlines (``Deadlines`` in deadlines.py) in the event store's Redis: one sorted
set per name, ``<prefix>:deadlines:<name>``, its members scored by their deadline in ms
(so that the lapsed ones are one range read)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .connection import unavailable_as
from .store import RedisEventStore

if TYPE_CHECKING:
    from .deadlines import Deadlines, InMemoryDeadlines


class RedisDeadlines:
    def __init__(self, store: RedisEventStore, name: str) -> None:
        self.store = store
        self.key = f"{store.keys.prefix}:deadlines:{name}"

    async def renew(self, names: Sequence[str], until_ms: int) -> None:
        if not names:
            return
        scores: list[str | int] = []
        for name in names:
            scores += [until_ms, name]
        with unavailable_as("renew deadlines", self.store.url):
            await self.store.connector.execute("ZADD", self.key, *scores)

    async def forget(self, name: str) -> None:
        with unavailable_as("forget a deadline", self.store.url):
            await self.store.connector.execute("ZREM", self.key, name)

    async def lapsed(self, now_ms: int, limit: int = 100) -> list[str]:
        with unavailable_as("read lapsed deadlines", self.store.url):
            names = await self.store.connector.execute(
                "ZRANGE", self.key, "-inf", now_ms, "BYSCORE", "LIMIT", 0, limit
            )
        return [name.decode() if isinstance(name, bytes) else str(name) for name in names]


if TYPE_CHECKING:

    def _conforms(redis: RedisDeadlines, memory: InMemoryDeadlines) -> tuple[Deadlines, Deadlines]:
        return redis, memory  # mypy checks that both implement the port
