"""Deadlines that a living process keeps pushing back: a name whose deadline passes
belongs to a process that stopped (killed, cut off from Redis), and whoever looks after
such names (the background lease's holder) can act for it.

``Deadlines`` is the port; ``RedisDeadlines`` keeps one sorted set in the store's Redis
(names scored by their deadline in ms, so that the lapsed ones are one range read),
``InMemoryDeadlines`` a dict (one process; tests). Both pass
tests/eventstore/test_deadlines.py. The clock is an argument: the tests move time, and
a replica's clock need only agree with the others' to within the time a deadline is
pushed back by."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .connection import unavailable_as
from .store import RedisEventStore


class Deadlines(Protocol):
    async def renew(self, names: Sequence[str], until_ms: int) -> None:
        """Push each name's deadline to ``until_ms`` (a name not kept yet is added)."""
        ...

    async def forget(self, name: str) -> None:
        """Stop keeping ``name`` (its owner is done with it)."""
        ...

    async def lapsed(self, now_ms: int, limit: int = 100) -> list[str]:
        """At most ``limit`` names whose deadline is ``now_ms`` or earlier, oldest first."""
        ...


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


class InMemoryDeadlines:
    def __init__(self) -> None:
        self.deadlines: dict[str, int] = {}

    async def renew(self, names: Sequence[str], until_ms: int) -> None:
        for name in names:
            self.deadlines[name] = until_ms

    async def forget(self, name: str) -> None:
        self.deadlines.pop(name, None)

    async def lapsed(self, now_ms: int, limit: int = 100) -> list[str]:
        due = sorted((at, name) for name, at in self.deadlines.items() if at <= now_ms)
        return [name for _, name in due[:limit]]


def _conforms(redis: RedisDeadlines, memory: InMemoryDeadlines) -> tuple[Deadlines, Deadlines]:
    return redis, memory  # mypy checks that both implement the port
