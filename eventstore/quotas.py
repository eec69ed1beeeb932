"""Quota counting that holds across replicas: sliding windows (at most N takes in any
T ms) and gauges (at most N units held at once), checked and taken together in one
step, so that a take refused by one of them counts against none. The one rate-limit
port of the service: match creates, bots, audits and sign-ups all count here.

``QuotaStore`` is the port and ``InMemoryQuotas`` its twin in a dict (one process;
tests, ``--store memory``); ``RedisQuotas`` (redis_quotas.py) keeps the counts in the
store's Redis (one Lua script, every key in one cluster slot). Both pass
tests/eventstore/test_ports.py.

A take is made by a *holder* (a match, an audit job) under a *token* (the request it
answers): the same token again takes nothing more (a retried request), and releasing
the holder gives back every unit it holds. Units are held until released, or for
``hold_ms`` when given (so that a holder whose process died cannot hold them for good).
A ``count`` is a take of windows only by nobody: nothing to give back or to retry (a
sign-up).

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

    async def count(self, windows: Sequence[Window], now_ms: int) -> Full | None:
        """Take a slot of every window, all or none, for no holder (nothing is held, a
        repeat counts again); None when taken, else the first window that was full."""
        ...

    async def release(self, holder: str) -> None:
        """Give back every unit ``holder`` holds (nothing: nothing happens)."""
        ...

    async def give_back(self, holder: str, token: str) -> None:
        """Give back the units ``holder`` took under ``token`` (a take whose work then
        failed: a seat another caller won), and forget the token, so a retry of it takes
        anew; a window's slot stays taken (the attempt was made). Nothing: nothing."""
        ...

    async def holders(self) -> list[str]:
        """Every holder that may hold units (those taken with ``hold_ms`` may have
        lapsed already)."""
        ...

    async def held(self, key: str, now_ms: int) -> int:
        """Units of gauge ``key`` held at ``now_ms``."""
        ...


def check_holder(holder: str) -> None:
    if not holder:
        raise ValueError("a take has a holder (``count`` takes for nobody)")


@dataclass
class _Holder:
    tokens: set[str] = field(default_factory=set)
    units: list[tuple[str, str]] = field(default_factory=list)  # (gauge key, unit)


class InMemoryQuotas:
    def __init__(self) -> None:
        self._windows: dict[str, list[int]] = {}  # key -> take times, oldest first
        self._spans: dict[str, int] = {}  # key -> its window's ms (to forget idle ones)
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
        check_holder(holder)
        known = self._holders.get(holder)
        if known is not None and token in known.tokens:
            return None
        full = self._full_window(windows, now_ms)
        if full is not None:
            return full
        for gauge in gauges:
            units = self._gauges.setdefault(gauge.key, {})
            for unit in [unit for unit, until in units.items() if until <= now_ms]:
                del units[unit]
            if len(units) + gauge.amount > gauge.limit:
                return Full(gauge.key)
        self._count(windows, now_ms)
        known = self._holders.setdefault(holder, _Holder())
        until = now_ms + hold_ms if hold_ms else math.inf
        for gauge in gauges:
            for index in range(1, gauge.amount + 1):
                unit = f"{holder}|{token}|{index}"
                self._gauges[gauge.key][unit] = until
                known.units.append((gauge.key, unit))
        known.tokens.add(token)
        return None

    async def count(self, windows: Sequence[Window], now_ms: int) -> Full | None:
        full = self._full_window(windows, now_ms)
        if full is None:
            self._count(windows, now_ms)
        return full

    def _full_window(self, windows: Sequence[Window], now_ms: int) -> Full | None:
        for window in windows:
            times = self._windows.get(window.key, [])
            times[:] = [at for at in times if at > now_ms - window.window_ms]
            if len(times) >= window.limit:
                retry = times[0] + window.window_ms - now_ms if times else window.window_ms
                return Full(window.key, retry)
        return None

    def _count(self, windows: Sequence[Window], now_ms: int) -> None:
        if len(self._windows) > 4096:  # windows with no take in them count nothing
            self._windows = {
                key: times
                for key, times in self._windows.items()
                if times and times[-1] > now_ms - self._spans[key]
            }
            self._spans = {key: self._spans[key] for key in self._windows}
        for window in windows:
            self._windows.setdefault(window.key, []).append(now_ms)
            self._spans[window.key] = window.window_ms

    async def release(self, holder: str) -> None:
        known = self._holders.pop(holder, None)
        for key, unit in known.units if known is not None else ():
            self._gauges.get(key, {}).pop(unit, None)

    async def give_back(self, holder: str, token: str) -> None:
        known = self._holders.get(holder)
        if known is None or token not in known.tokens:
            return
        known.tokens.discard(token)
        mine = f"{holder}|{token}|"
        for key, unit in [item for item in known.units if item[1].startswith(mine)]:
            self._gauges.get(key, {}).pop(unit, None)
            known.units.remove((key, unit))

    async def holders(self) -> list[str]:
        return list(self._holders)

    async def held(self, key: str, now_ms: int) -> int:
        return sum(1 for until in self._gauges.get(key, {}).values() if until > now_ms)
