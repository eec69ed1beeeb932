"""The background loops' one shape: work on a clock tick until asked to stop."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable


async def tick_until_stopped(
    stopping: asyncio.Event, tick: float, work: Callable[[int], Awaitable[None]]
) -> None:
    """Run ``work(now_ms)`` every ``tick`` seconds until ``stopping`` is set."""
    while not stopping.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), tick)
        if not stopping.is_set():
            await work(int(time.time() * 1000))
