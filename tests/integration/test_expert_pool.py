"""The expert's process pool: it outlives a worker's death (a worker killed, as the
kernel's out-of-memory killer would, breaks a ProcessPoolExecutor for good, so the
pool is replaced and the search made again), a search split over its workers
answers as in one process, and its workers run below the serving loop's priority
and end with the serving process (the auditor's too), even killed with -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clients import expert, workers
from tools.check_compiled import searches

SERVING = """
import asyncio, os, time
from clients import expert
from service.rest.auditing import AuditPool

def pid_of(_):
    return {"pid": os.getpid()}

async def main():
    pids = {await expert.in_pool(os.getpid) for _ in range(4 * expert.WORKERS)}
    pids.add((await AuditPool(1, 0).run(pid_of, None))["pid"])
    print(*pids, flush=True)
    time.sleep(600)

if __name__ == "__main__":
    asyncio.run(main())
"""


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
    assert await expert.in_pool(os.nice, 0) == min(19, here + workers.WORKER_NICENESS)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"  # a zombie has ended, whoever reaps it


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_workers_end_when_the_serving_process_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "serving.py"
    script.write_text(SERVING)
    serving = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert serving.stdout is not None
        pids = [int(pid) for pid in serving.stdout.readline().split()]
        assert len(pids) >= 2 and all(_running(pid) for pid in pids)
    finally:
        serving.kill()
        serving.wait()
    deadline = time.monotonic() + 30
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in pids if _running(pid)]
