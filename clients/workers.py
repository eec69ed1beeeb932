"""Worker processes of a serving process (the expert's pool, the auditor's): they
give way to it on the cores, and end when it does, even when it is killed with -9."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys

# a worker waits for the CPU before the serving loop does (bench.attacks, row E)
WORKER_NICENESS = 10
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends


def end_with_parent(parent: int) -> None:
    """A pool's initializer, in each worker: lower its priority, and ask Linux for a
    SIGTERM when ``parent`` ends (a worker holds both ends of its queue, so it would
    never see the parent go)."""
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            ctypes.CDLL("libc.so.6").prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # it ended before the signal was asked for
        os._exit(0)
