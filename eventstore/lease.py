"""The lease (``Lease`` in port.py): at most one holder at a time, for work that every
replica could do but one is enough for. In Redis (``RedisLease``: ``<prefix>:lease:<name>``,
taken and renewed by one script) or in memory (``InMemoryLease``, for replicas sharing one
process's memory).

The holder renews it well within its time to live; when the holder dies it lapses and
another claims it. Two holders can overlap for a moment (a holder paused past its lease):
what a lease guards must tolerate that."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .connection import unavailable_as
from .port import Lease
from .scripts import Script

if TYPE_CHECKING:
    from .store import RedisEventStore

# take the lease when free, renew it when ours: 1 when held by ARGV[1] afterwards
CLAIM = Script(
    """
local holder = redis.call('GET', KEYS[1])
if holder == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""
)
RELEASE = Script(
    """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
)


class RedisLease:
    def __init__(self, store: RedisEventStore, name: str, ttl_ms: int = 5_000) -> None:
        self.store = store
        self.key = f"{store.keys.prefix}:lease:{name}"
        self.ttl_ms = ttl_ms
        self.holder = uuid.uuid4().hex  # this replica

    async def claim(self) -> bool:
        return bool(await self._run(CLAIM, self.holder, self.ttl_ms))

    async def release(self) -> None:
        await self._run(RELEASE, self.holder)

    async def _run(self, script: Script, *args: Any) -> Any:
        with unavailable_as(f"lease {self.key!r}", self.store.url):
            client = await self.store.connector.runner()
            return await script.run(client, [self.key], list(args))


@dataclass(eq=False)
class LeaseMemory:
    """Who holds each lease and until when (monotonic seconds), shared by the leases of
    one memory (as replicas over one Redis)."""

    held: dict[str, tuple[str, float]] = field(default_factory=dict)


class InMemoryLease:
    def __init__(self, name: str, memory: LeaseMemory | None = None, ttl_ms: int = 5_000) -> None:
        self.name = name
        self.memory = memory if memory is not None else LeaseMemory()
        self.ttl_ms = ttl_ms
        self.holder = uuid.uuid4().hex

    async def claim(self) -> bool:
        now = time.monotonic()
        holder, until = self.memory.held.get(self.name, ("", 0.0))
        if holder and holder != self.holder and until > now:
            return False
        self.memory.held[self.name] = (self.holder, now + self.ttl_ms / 1000)
        return True

    async def release(self) -> None:
        if self.memory.held.get(self.name, ("", 0.0))[0] == self.holder:
            del self.memory.held[self.name]


if TYPE_CHECKING:

    def _conforms(redis: RedisLease, memory: InMemoryLease) -> tuple[Lease, Lease]:
        return redis, memory  # mypy checks that both implement the port
