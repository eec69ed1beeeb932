"""A lease in Redis: at most one replica holds it at a time, for work that every replica
could do but one is enough for (the projections and the turn timers follow every event of
every match; done by each replica, their cost would grow with the replicas).

The holder renews it well within its time to live; when the holder dies, it lapses and
another replica claims it. Two holders can overlap for a moment (a holder paused past its
lease), which the work tolerates: projections apply each event once through their
checkpoints, and a timer's append carries the expected version."""

from __future__ import annotations

import uuid
from typing import Any

from eventstore import RedisEventStore

# take the lease when free, renew it when ours: 1 when held by ARGV[1] afterwards
_CLAIM = """
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
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Lease:
    def __init__(self, store: RedisEventStore, name: str, ttl_ms: int = 5_000) -> None:
        self.store = store
        self.key = f"{store.keys.prefix}:lease:{name}"
        self.ttl_ms = ttl_ms
        self.holder = uuid.uuid4().hex  # this replica

    async def claim(self) -> bool:
        """Take or renew the lease; whether this replica holds it now."""
        return bool(await self._eval(_CLAIM, self.holder, self.ttl_ms))

    async def release(self) -> None:
        """Give it up at once (if still ours), so another replica need not wait it out."""
        await self._eval(_RELEASE, self.holder)

    async def _eval(self, script: str, *args: Any) -> Any:
        client: Any = await self.store.raw_client()
        return await client.eval(script, 1, self.key, *args)
