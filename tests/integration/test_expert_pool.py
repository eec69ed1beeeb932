"""The expert's process pool: it outlives a worker's death (a worker killed, as the
kernel's out-of-memory killer would, breaks a ProcessPoolExecutor for good, so the
pool is replaced and the search made again), a search split over its workers
answers as in one process, and its workers run below the serving loop's priority."""

from __future__ import annotations

import os
import signal

from clients import expert
from tools.check_compiled import searches


async def test_a_killed_worker_does_not_break_the_expert_s_pool() -> None:
    worker = await expert.in_pool(os.getpid)
    assert worker != os.getpid()  # the honest path: it ran in a worker
    os.kill(worker, signal.SIGKILL)
    # the next calls, whenever the pool notices the death, are answered by a new worker
    for _ in range(3):
        again = await expert.in_pool(os.getpid)
        assert again not in (worker, os.getpid())


async def test_a_search_in_the_pool_answers_as_it_does_in_one_process() -> None:
    """The pool splits each round over its workers (the requests and answers pickled
    across, as a compiled install sends them): with a playout budget, the answer
    is the one process's, to the last mean."""
    for request in searches("torasobi")[:6]:
        assert await expert.think_in_pool(request) == expert.think(request)


async def test_the_pool_s_workers_yield_the_cpu_to_the_serving_loop() -> None:
    here = os.nice(0)
    assert await expert.in_pool(os.nice, 0) == min(19, here + expert.WORKER_NICENESS)
