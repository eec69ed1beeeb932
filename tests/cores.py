"""Independent CPU-bound work of one test (whole matches of self-play) spread over the
machine's cores, its results in the order asked: the same games, the same assertions,
in a fraction of the time on a machine with cores to spare."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def map_on_cores(work: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """``[work(item) for item in items]``, in processes of their own (spawned: a fork of
    a test process that has run threads could inherit a held lock); ``work`` is a
    module-level function, so the children import it."""
    cores = len(os.sched_getaffinity(0))
    if cores < 2:
        return [work(item) for item in items]
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=cores, mp_context=spawn) as pool:
        return list(pool.map(work, items))
