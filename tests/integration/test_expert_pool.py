"""The expert's process pool outlives a worker's death: a worker killed (as the kernel's
out-of-memory killer would) breaks a ProcessPoolExecutor for good, so the pool is
replaced and the search made again; an expert seat and an analysis keep working."""

from __future__ import annotations

import os
import signal

from clients import expert


async def test_a_killed_worker_does_not_break_the_expert_s_pool() -> None:
    worker = await expert.in_pool(os.getpid)
    assert worker != os.getpid()  # the honest path: it ran in a worker
    os.kill(worker, signal.SIGKILL)
    # the next calls, whenever the pool notices the death, are answered by a new worker
    for _ in range(3):
        again = await expert.in_pool(os.getpid)
        assert again not in (worker, os.getpid())
