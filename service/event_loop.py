"""Which asyncio event loop a process of the service runs on: the standard one, or
uvloop's (libuv), which spends less of each wake-up in Python: the service's work is
many small wake-ups (a socket ready, a Redis reply, a timer)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar

T = TypeVar("T")
Loop = Literal["asyncio", "uvloop"]
LOOPS: tuple[Loop, ...] = ("asyncio", "uvloop")


def loop_factory(loop: Loop) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """How to make the loop (None: asyncio's own); ValueError when uvloop is missing."""
    if loop == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        raise ValueError("the uvloop loop needs the uvloop package (pip install uvloop)") from None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def run(main: Coroutine[Any, Any, T], loop: Loop = "asyncio") -> T:
    """``asyncio.run(main)`` on the loop named."""
    with asyncio.Runner(loop_factory=loop_factory(loop)) as runner:
        return runner.run(main)
