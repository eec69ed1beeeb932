"""Quota counting that holds across replicas: sliding windows (at most N takes in any
T ms) and gauges (at most N units held at once), checked and taken together in one
step, so that a take refused by one of them counts against none.

``QuotaStore`` is the port; ``RedisQuotas`` keeps the counts in the store's Redis (one
Lua script, every key in one cluster slot), ``InMemoryQuotas`` in a dict (one process;
tests, ``--store memory``). Both pass tests/eventstore/test_quotas.py.

A take is made by a *holder* (a match, an audit job) under a *token* (the request it
answers): the same token again takes nothing more (a retried request), and releasing
the holder gives back every unit it holds. Units are held until released, or for
``hold_ms`` when given (so that a holder whose process died cannot hold them for good).

Why not a rate-limiting library (``limits``, ``pyrate-limiter``): they count a key's
hits in a window, but a create must fit a window and two gauges at once, atomically,
and a gauge (bots playing at once) is not a rate. One script that does both is shorter
than a library plus a second script around it, and its clock is an argument, so the
tests move time rather than sleep."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .connection import unavailable_as
from .scripts import Script
from .store import RedisEventStore


@dataclass(frozen=True, slots=True)
class Window:
    """At most ``limit`` takes in any ``window_ms``."""

    key: str
    limit: int
    window_ms: int


@dataclass(frozen=True, slots=True)
class Gauge:
    """At most ``limit`` units held at once; a take holds ``amount`` more."""

    key: str
    limit: int
    amount: int


@dataclass(frozen=True, slots=True)
class Full:
    """Why a take was refused: the window or gauge that had no room, and (a window)
    how long until it has (``retry_after_ms``; 0 for a gauge: until a holder lets go)."""

    key: str
    retry_after_ms: int = 0


class QuotaStore(Protocol):
    async def take(
        self,
        holder: str,
        token: str,
        windows: Sequence[Window],
        gauges: Sequence[Gauge],
        now_ms: int,
        hold_ms: int = 0,
    ) -> Full | None:
        """Take a slot of every window and ``amount`` units of every gauge for ``holder``,
        all or none; None when taken (or taken before under ``token``), else the first
        that had no room."""
        ...

    async def release(self, holder: str) -> None:
        """Give back every unit ``holder`` holds (nothing: nothing happens)."""
        ...

    async def holders(self) -> list[str]:
        """Every holder that may hold units (those taken with ``hold_ms`` may have
        lapsed already)."""
        ...

    async def held(self, key: str, now_ms: int) -> int:
        """Units of gauge ``key`` held at ``now_ms``."""
        ...


# -- in memory ---------------------------------------------------------------------


@dataclass
class _Holder:
    tokens: set[str] = field(default_factory=set)
    units: list[tuple[str, str]] = field(default_factory=list)  # (gauge key, unit)


class InMemoryQuotas:
    def __init__(self) -> None:
        self._windows: dict[str, list[int]] = {}  # key -> take times, oldest first
        self._gauges: dict[str, dict[str, float]] = {}  # key -> unit -> held until
        self._holders: dict[str, _Holder] = {}

    async def take(
        self,
        holder: str,
        token: str,
        windows: Sequence[Window],
        gauges: Sequence[Gauge],
        now_ms: int,
        hold_ms: int = 0,
    ) -> Full | None:
        known = self._holders.get(holder)
        if known is not None and token in known.tokens:
            return None
        for window in windows:
            times = self._windows.setdefault(window.key, [])
            times[:] = [at for at in times if at > now_ms - window.window_ms]
            if len(times) >= window.limit:
                retry = times[0] + window.window_ms - now_ms if times else window.window_ms
                return Full(window.key, retry)
        for gauge in gauges:
            units = self._gauges.setdefault(gauge.key, {})
            for unit in [unit for unit, until in units.items() if until <= now_ms]:
                del units[unit]
            if len(units) + gauge.amount > gauge.limit:
                return Full(gauge.key)
        for window in windows:
            self._windows[window.key].append(now_ms)
        known = self._holders.setdefault(holder, _Holder())
        until = now_ms + hold_ms if hold_ms else math.inf
        for gauge in gauges:
            for index in range(1, gauge.amount + 1):
                unit = f"{holder}|{token}|{index}"
                self._gauges[gauge.key][unit] = until
                known.units.append((gauge.key, unit))
        known.tokens.add(token)
        return None

    async def release(self, holder: str) -> None:
        known = self._holders.pop(holder, None)
        for key, unit in known.units if known is not None else ():
            self._gauges.get(key, {}).pop(unit, None)

    async def holders(self) -> list[str]:
        return list(self._holders)

    async def held(self, key: str, now_ms: int) -> int:
        return sum(1 for until in self._gauges.get(key, {}).values() if until > now_ms)


# -- in Redis ------------------------------------------------------------------------

# KEYS: the holder's record, the set of holders, then the windows', then the gauges'.
# ARGV: now, held until (-1: until released), token, holder, how many windows, how
# many gauges, then (limit, window ms) per window, then (limit, amount) per gauge.
# Replies {0}: taken (or taken before); {1, i, ms}: window i full for ms; {2, i}: gauge i.
_TAKE = Script(
    """
local now, held_until = tonumber(ARGV[1]), tonumber(ARGV[2])
local token, holder = ARGV[3], ARGV[4]
local windows, gauges = tonumber(ARGV[5]), tonumber(ARGV[6])
local record, everyone = KEYS[1], KEYS[2]
if redis.call('SISMEMBER', record, 't:' .. token) == 1 then return {0} end
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

    async def holders(self) -> list[str]:
        with unavailable_as("quotas", self.store.url):
            client = await self.store.raw_client()
            members = await client.smembers(f"{self._base}:holders")  # type: ignore[misc]
        return sorted(member.decode() for member in members)

    async def held(self, key: str, now_ms: int) -> int:
        with unavailable_as("quotas", self.store.url):
            client = await self.store.raw_client()
            return int(await client.zcount(self._key("g", key), f"({now_ms}", "+inf"))
