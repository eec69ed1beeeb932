"""Derived data about finished matches (their analyses), and the jobs that make them:
opaque bodies under a key their writer chose (the service: match, game, budget and a
digest of the analysing code), never truth, since the match's events can always make
them again.

A result is kept for the time its writer gives (then made again if asked for). A job's
record is kept while its owner refreshes it (``ttl_ms``): one whose process died lapses,
so a reader can tell a job under way from one lost, and ``claim`` lets only one writer
start a job for a key.

``AnalysisStore`` is the port; ``RedisAnalyses`` (redis_analyses.py) keeps both under
``<prefix>:{analysis}:`` (one slot), ``InMemoryAnalyses`` in one process. Both pass
tests/eventstore/test_analyses.py.
"""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable

MAX_KEY = 200  # a key is the writer's (a match id and three numbers), never a caller's text


@runtime_checkable
class AnalysisStore(Protocol):
    async def result(self, key: str) -> bytes | None:
        """The result kept under ``key``; None when none is."""
        ...

    async def save_result(self, key: str, body: bytes, ttl_ms: int) -> None:
        """Keep ``body`` as ``key``'s result for ``ttl_ms`` (again: replaced)."""
        ...

    async def claim(self, key: str, body: bytes, ttl_ms: int) -> bool:
        """Keep ``body`` as ``key``'s job record for ``ttl_ms``, unless one is kept: then
        nothing changes and the answer is False."""
        ...

    async def job(self, key: str) -> bytes | None:
        """``key``'s job record, unless it lapsed or was dropped."""
        ...

    async def save_job(self, key: str, body: bytes, ttl_ms: int) -> None:
        """Replace ``key``'s job record, kept ``ttl_ms`` more."""
        ...

    async def drop_job(self, key: str) -> None: ...


def check_key(key: str, ttl_ms: int = 1) -> None:
    if not key or len(key) > MAX_KEY or ttl_ms < 1:
        raise ValueError(f"an analysis key of 1 to {MAX_KEY} characters and a positive time")


class InMemoryAnalyses:
    """In one process's memory (a job record's time is this process's clock)."""

    def __init__(self) -> None:
        self._results: dict[str, tuple[bytes, float]] = {}  # key -> (result, lapses at)
        self._jobs: dict[str, tuple[bytes, float]] = {}  # key -> (record, lapses at)

    async def result(self, key: str) -> bytes | None:
        kept = self._results.get(key)
        if kept is None or kept[1] <= time.monotonic():
            self._results.pop(key, None)
            return None
        return kept[0]

    async def save_result(self, key: str, body: bytes, ttl_ms: int) -> None:
        check_key(key, ttl_ms)
        self._results[key] = (bytes(body), time.monotonic() + ttl_ms / 1000)

    async def claim(self, key: str, body: bytes, ttl_ms: int) -> bool:
        check_key(key, ttl_ms)
        if await self.job(key) is not None:
            return False
        await self.save_job(key, body, ttl_ms)
        return True

    async def job(self, key: str) -> bytes | None:
        kept = self._jobs.get(key)
        if kept is None or kept[1] <= time.monotonic():
            self._jobs.pop(key, None)
            return None
        return kept[0]

    async def save_job(self, key: str, body: bytes, ttl_ms: int) -> None:
        check_key(key, ttl_ms)
        self._jobs[key] = (bytes(body), time.monotonic() + ttl_ms / 1000)

    async def drop_job(self, key: str) -> None:
        self._jobs.pop(key, None)
