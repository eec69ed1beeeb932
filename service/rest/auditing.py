"""Audits run in worker processes, never on the serving event loop: replaying a whole
match is seconds of CPU, and a thread would still hold the loop's GIL. Parsing the
uploaded body (JSON Lines, or a JSON request holding them) is the worker's too, inside
the pool's bound: the loop only reads the bytes, up to ``DEFAULT_MAX_BYTES``. A few workers
(``workers``) and a bounded queue (``queued``); past that the caller is told to come
back later (503 ``audit_busy`` with Retry-After), so audits can never starve play.

The workers are spawned, not forked (a fork of a process running gRPC is unsafe), on the
first audit, and share nothing with the serving process: each decodes with its own
state, so nothing uploaded can reach what the service reads its own events with."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from clients.workers import end_with_parent

from .codes import RestCode

DEFAULT_WORKERS = 1
DEFAULT_QUEUED = 4
DEFAULT_MAX_BYTES = 10_000_000  # the largest body POST /audit reads (a 40,000-event log)
RETRY_AFTER_SECONDS = 5

Argument = TypeVar("Argument")


class AuditsBusy(Exception):
    """Every worker is busy and the queue is full (or a worker died): try again later."""

    def __init__(
        self, code: RestCode, message: str, retry_after: int = RETRY_AFTER_SECONDS
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


class AuditPool:
    def __init__(self, workers: int = DEFAULT_WORKERS, queued: int = DEFAULT_QUEUED) -> None:
        if workers < 1 or queued < 0:
            raise ValueError("an audit pool needs a worker and a queue of zero or more")
        self.workers = workers
        self.capacity = workers + queued  # audits running or waiting, at most
        self._executor: ProcessPoolExecutor | None = None
        self._taken = 0
        # released from the executor's thread when an audit ends, even one whose
        # caller went away: the bound counts what the workers really have to do
        self._lock = threading.Lock()

    @property
    def taken(self) -> int:
        with self._lock:
            return self._taken

    async def run(
        self, work: Callable[[Argument], dict[str, Any]], argument: Argument
    ) -> dict[str, Any]:
        """``work(argument)`` in a worker process (``work`` a module-level function)."""
        with self._lock:
            if self._taken >= self.capacity:
                raise AuditsBusy(
                    RestCode.AUDIT_BUSY,
                    f"{self.capacity} audits are running or waiting: try again later",
                )
            self._taken += 1
        try:
            future = self._pool().submit(work, argument)
        except BaseException:
            self._release(None)
            raise
        future.add_done_callback(self._release)
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:  # a worker died (killed, out of memory): start afresh
            self._discard_pool()
            raise AuditsBusy(
                RestCode.AUDIT_UNAVAILABLE, "the audit worker stopped: try again"
            ) from None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=end_with_parent,  # an audit waits for the CPU before play does
                initargs=(os.getpid(),),
            )
        return self._executor

    def _release(self, _: Future[Any] | None) -> None:
        with self._lock:
            self._taken -= 1

    def _discard_pool(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    def shutdown(self) -> None:
        """Stop the workers (audits under way are abandoned: their callers are gone)."""
        self._discard_pool()
