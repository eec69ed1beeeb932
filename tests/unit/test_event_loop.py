"""The event loop a process runs on: asyncio's, or uvloop's when asked."""

from __future__ import annotations

import asyncio

import pytest

from service.event_loop import LOOPS, run


async def _loop_name() -> str:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop()).__module__.split(".")[0]


@pytest.mark.parametrize("loop", LOOPS)
def test_a_coroutine_runs_on_the_loop_named(loop: str) -> None:
    pytest.importorskip(loop)
    assert run(_loop_name(), loop) == loop  # type: ignore[arg-type]
