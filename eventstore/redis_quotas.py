"""The quotas (``QuotaStore`` in quotas.py) in the event store's Redis: one Lua script
checks and takes every window and gauge at once, all under ``<prefix>:{quota}:`` (one
cluster slot)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .connection import unavailable_as
from .quotas import Full, Gauge, InMemoryQuotas, QuotaStore, Window, check_holder
from .scripts import Script
from .store import RedisEventStore

# KEYS: the holder's record, the set of holders, then the windows', then the gauges'.
# ARGV: now, held until (-1: until released), token, holder, how many windows, how
# many gauges, then (limit, window ms) per window, then (limit, amount) per gauge.
# Replies {0}: taken (or taken before); {1, i, ms}: window i full for ms; {2, i}: gauge i.
# An empty holder (a count) has no record: its token only makes its windows' entries
# unique, and it holds no gauge.
_TAKE = Script(
    """
local now, held_until = tonumber(ARGV[1]), tonumber(ARGV[2])
local token, holder = ARGV[3], ARGV[4]
local windows, gauges = tonumber(ARGV[5]), tonumber(ARGV[6])
local record, everyone = KEYS[1], KEYS[2]
local counting = holder == ''
if not counting and redis.call('SISMEMBER', record, 't:' .. token) == 1 then return {0} end
for i = 1, windows do
  local key, limit, span = KEYS[2 + i], tonumber(ARGV[5 + 2 * i]), tonumber(ARGV[6 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - span)
  if redis.call('ZCARD', key) >= limit then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    local retry = span
    if oldest[2] then retry = tonumber(oldest[2]) + span - now end
    return {1, i, retry}
  end
end
local base = 6 + 2 * windows
for i = 1, gauges do
  local key, limit = KEYS[2 + windows + i], tonumber(ARGV[base + 2 * i - 1])
  local amount = tonumber(ARGV[base + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) + amount > limit then return {2, i} end
end
for i = 1, windows do
  local key, span = KEYS[2 + i], tonumber(ARGV[6 + 2 * i])
  redis.call('ZADD', key, now, holder .. '|' .. token)
  redis.call('PEXPIRE', key, span)
end
local score = '+inf'
if held_until >= 0 then score = held_until end
for i = 1, gauges do
  local key, amount = KEYS[2 + windows + i], tonumber(ARGV[base + 2 * i])
  for unit = 1, amount do
    local member = holder .. '|' .. token .. '|' .. unit
    redis.call('ZADD', key, score, member)
    redis.call('SADD', record, 'g:' .. key .. '\\n' .. member)
  end
end
if counting then return {0} end
redis.call('SADD', record, 't:' .. token)
if held_until >= 0 then redis.call('PEXPIREAT', record, held_until) end
redis.call('SADD', everyone, holder)
return {0}
"""
)
# KEYS: the holder's record, the set of holders; ARGV: the holder. Its units' gauges
# are named in its record (every key of the quotas shares one slot).
_RELEASE = Script(
    """
for _, item in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if string.sub(item, 1, 2) == 'g:' then
    local cut = string.find(item, '\\n', 3, true)
    redis.call('ZREM', string.sub(item, 3, cut - 1), string.sub(item, cut + 1))
  end
end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
return 0
"""
)

# KEYS: the holder's record; ARGV: the holder, the token. The units taken under the
# token are the record's gauge items whose member starts with "<holder>|<token>|".
_GIVE_BACK = Script(
    """
if redis.call('SREM', KEYS[1], 't:' .. ARGV[2]) == 0 then return 0 end
local mine = ARGV[1] .. '|' .. ARGV[2] .. '|'
for _, item in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if string.sub(item, 1, 2) == 'g:' then
    local cut = string.find(item, '\\n', 3, true)
    local member = string.sub(item, cut + 1)
    if string.sub(member, 1, #mine) == mine then
      redis.call('ZREM', string.sub(item, 3, cut - 1), member)
      redis.call('SREM', KEYS[1], item)
    end
  end
end
return 1
"""
)


class RedisQuotas:
    """Quotas in the event store's Redis, under ``<prefix>:{quota}:`` (one slot)."""

    def __init__(self, store: RedisEventStore) -> None:
        self.store = store
        self._base = f"{store.keys.prefix}:{{quota}}"

    def _key(self, kind: str, name: str) -> str:
        return f"{self._base}:{kind}:{name}"

    async def take(
        self,
        holder: str,
        token: str,
        windows: Sequence[Window],
        gauges: Sequence[Gauge],
        now_ms: int,
        hold_ms: int = 0,
    ) -> Full | None:
        check_holder(holder)
        return await self._take(holder, token, windows, gauges, now_ms, hold_ms)

    async def count(self, windows: Sequence[Window], now_ms: int) -> Full | None:
        return await self._take("", secrets.token_hex(8), windows, [], now_ms, 0)

    async def _take(
        self,
        holder: str,
        token: str,
        windows: Sequence[Window],
        gauges: Sequence[Gauge],
        now_ms: int,
        hold_ms: int,
    ) -> Full | None:
        keys = [self._key("h", holder), f"{self._base}:holders"]
        keys += [self._key("w", window.key) for window in windows]
        keys += [self._key("g", gauge.key) for gauge in gauges]
        args: list[str | int] = [now_ms, now_ms + hold_ms if hold_ms else -1, token, holder]
        args += [len(windows), len(gauges)]
        for window in windows:
            args += [window.limit, window.window_ms]
        for gauge in gauges:
            args += [gauge.limit, gauge.amount]
        with unavailable_as("quotas", self.store.url):
            client = await self.store.raw_client()
            reply = await _TAKE.run(client, keys, args)
        match [int(item) for item in reply]:
            case [0]:
                return None
            case [1, index, retry]:
                return Full(windows[index - 1].key, retry)
            case [2, index]:
                return Full(gauges[index - 1].key)
            case other:
                raise ValueError(f"the quota script answered {other!r}")

    async def release(self, holder: str) -> None:
        with unavailable_as("quotas", self.store.url):
            client = await self.store.raw_client()
            await _RELEASE.run(client, [self._key("h", holder), f"{self._base}:holders"], [holder])

    async def give_back(self, holder: str, token: str) -> None:
        with unavailable_as("quotas", self.store.url):
            client = await self.store.raw_client()
            await _GIVE_BACK.run(client, [self._key("h", holder)], [holder, token])

    async def holders(self) -> list[str]:
        with unavailable_as("quotas", self.store.url):
            client = await self.store.raw_client()
            members = await client.smembers(f"{self._base}:holders")  # type: ignore[misc]
        return sorted(member.decode() for member in members)

    async def held(self, key: str, now_ms: int) -> int:
        with unavailable_as("quotas", self.store.url):
            client = await self.store.raw_client()
            return int(await client.zcount(self._key("g", key), f"({now_ms}", "+inf"))


if TYPE_CHECKING:

    def _conforms(redis: RedisQuotas, memory: InMemoryQuotas) -> tuple[QuotaStore, QuotaStore]:
        return redis, memory  # mypy checks that both implement the port
