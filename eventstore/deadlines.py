"""Deadlines that a living process keeps pushing back: a name whose deadline passes
belongs to a process that stopped (killed, cut off from Redis), and whoever looks after
such names (the background lease's holder) can act for it.

``Deadlines`` is the port; ``RedisDeadlines`` (redis_deadlines.py) keeps one sorted set
in the store's Redis (names scored by their deadline in ms, so that the lapsed ones are
one range read), ``InMemoryDeadlines`` a dict (one process; tests). Both pass
tests/eventstore/test_deadlines.py. The clock is an argument: the tests move time, and a
replica's clock need only agree with the others' to within the time a deadline is pushed
back by."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


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
