"""Every port of one deployment over the same data (``Storage`` in port.py): in Redis
(``RedisStorage``, over a ``RedisEventStore``) or in one process's memory
(``InMemoryStorage``: all of it lost when the process ends)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .analyses import InMemoryAnalyses
from .deadlines import InMemoryDeadlines
from .embedded import redacted_url
from .lease import InMemoryLease, LeaseMemory, RedisLease
from .memory import InMemoryEventStore
from .projection_store import InMemoryProjectionStore, ProjectionMemory, RedisProjectionStore
from .quotas import InMemoryQuotas
from .redis_analyses import RedisAnalyses
from .redis_deadlines import RedisDeadlines
from .redis_quotas import RedisQuotas
from .redis_snapshots import RedisSnapshots
from .server_key import SERVER_KEY, InMemoryServerKey, RedisServerKey
from .snapshots import InMemorySnapshots
from .store import RedisEventStore

if TYPE_CHECKING:
    from .port import Storage


class RedisStorage:
    def __init__(self, events: RedisEventStore, server_key: str = SERVER_KEY) -> None:
        self.events = events
        self.server_key_name = server_key

    @classmethod
    def from_url(cls, url: str, prefix: str = "es") -> RedisStorage:
        return cls(RedisEventStore.from_url(url, prefix=prefix))

    @property
    def durable(self) -> bool:
        return True

    @property
    def where(self) -> str:
        return f"Redis at {redacted_url(self.events.url)}"

    def projection(self, name: str) -> RedisProjectionStore:
        return RedisProjectionStore(self.events, name)

    def lease(self, name: str, ttl_ms: int = 5_000) -> RedisLease:
        return RedisLease(self.events, name, ttl_ms)

    def server_key(self) -> RedisServerKey:
        return RedisServerKey(self.events, self.server_key_name)

    def quotas(self) -> RedisQuotas:
        return RedisQuotas(self.events)

    def snapshots(self) -> RedisSnapshots:
        return RedisSnapshots(self.events)

    def deadlines(self, name: str) -> RedisDeadlines:
        return RedisDeadlines(self.events, name)

    def analyses(self) -> RedisAnalyses:
        return RedisAnalyses(self.events)

    async def close(self) -> None:
        await self.events.close()


@dataclass(eq=False)
class _Memory:
    projections: dict[str, ProjectionMemory] = field(default_factory=dict)
    leases: LeaseMemory = field(default_factory=LeaseMemory)
    server_key: InMemoryServerKey = field(default_factory=InMemoryServerKey)
    quotas: InMemoryQuotas = field(default_factory=InMemoryQuotas)
    snapshots: InMemorySnapshots = field(default_factory=InMemorySnapshots)
    deadlines: dict[str, InMemoryDeadlines] = field(default_factory=dict)
    analyses: InMemoryAnalyses = field(default_factory=InMemoryAnalyses)


class InMemoryStorage:
    def __init__(self, events: InMemoryEventStore | None = None) -> None:
        self.events = events if events is not None else InMemoryEventStore()
        self._memory = _Memory(snapshots=InMemorySnapshots(self.events))

    def sharing(self) -> InMemoryStorage:
        """Another storage over the same data, as another replica would see it."""
        other = InMemoryStorage(self.events.sharing(upcasters=self.events.upcasters))
        other._memory = self._memory
        return other

    @property
    def durable(self) -> bool:
        return False

    @property
    def where(self) -> str:
        return "memory (nothing is kept once the process ends)"

    def projection(self, name: str) -> InMemoryProjectionStore:
        memory = self._memory.projections.setdefault(name, ProjectionMemory())
        return InMemoryProjectionStore(name, memory)

    def lease(self, name: str, ttl_ms: int = 5_000) -> InMemoryLease:
        return InMemoryLease(name, self._memory.leases, ttl_ms)

    def server_key(self) -> InMemoryServerKey:
        return self._memory.server_key

    def quotas(self) -> InMemoryQuotas:
        return self._memory.quotas

    def snapshots(self) -> InMemorySnapshots:
        return self._memory.snapshots

    def deadlines(self, name: str) -> InMemoryDeadlines:
        return self._memory.deadlines.setdefault(name, InMemoryDeadlines())

    def analyses(self) -> InMemoryAnalyses:
        return self._memory.analyses

    async def close(self) -> None:
        await self.events.close()


if TYPE_CHECKING:

    def _conforms(redis: RedisStorage, memory: InMemoryStorage) -> tuple[Storage, Storage]:
        return redis, memory  # mypy checks that both implement the port
