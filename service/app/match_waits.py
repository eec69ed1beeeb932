"""Tasks waiting for a match to reach some state (a seat's turn), woken only when it
does. One listener per match in this process serves them all: with a listener per
waiter, every action would wake every waiting seat of its match to look and sleep again."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from eventstore import EventStoreError, StoredEvent
from eventstore.fanout import Fanout

from .match import Match, stream_of

MatchAfter = Callable[[str, Sequence[StoredEvent]], Awaitable[Match | None]]


@dataclass(eq=False)
class _Watch:
    """A match's waiters (each future with what it waits for) and the task that listens."""

    waiters: dict[asyncio.Future[Match], Callable[[Match], bool]] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None


class MatchWaits:
    def __init__(self, fanout: Fanout, match_after: MatchAfter) -> None:
        """``match_after(match_id, batch)``: the match right after a batch of its events,
        or None when more have come since (their batch will tell)."""
        self.fanout = fanout
        self.match_after = match_after
        self._watches: dict[str, _Watch] = {}

    async def until(self, match_id: str, from_seq: int, ready: Callable[[Match], bool]) -> Match:
        """The match once ``ready`` holds for it after one of its events from ``from_seq``
        on. (The caller has looked at the match before: the events it has seen are
        behind it, and from the call to the registration nothing else runs.)"""
        watch = self._watches.get(match_id)
        if watch is None:
            watch = self._watches[match_id] = _Watch()
            watch.task = asyncio.create_task(self._listen(match_id, from_seq, watch))
        future: asyncio.Future[Match] = asyncio.get_running_loop().create_future()
        watch.waiters[future] = ready
        try:
            return await future
        finally:
            del watch.waiters[future]
            if not watch.waiters and self._watches.get(match_id) is watch:
                # the last waiter gone: a new one starts a new listener, from where it is
                del self._watches[match_id]
                assert watch.task is not None
                watch.task.cancel()  # safe: the fanout's blocking read is another task's

    async def _listen(self, match_id: str, from_seq: int, watch: _Watch) -> None:
        try:
            async with self.fanout.listen(stream_of(match_id), from_seq) as batches:
                async for batch in batches:
                    now = await self.match_after(match_id, batch)
                    if now is None:
                        continue
                    for future, ready in watch.waiters.items():
                        if not future.done() and ready(now):
                            future.set_result(now)
            raise EventStoreError("the match's events stopped")  # a listener never ends
        except Exception as error:  # its waiters learn of it; the next ones start anew
            if self._watches.get(match_id) is watch:
                del self._watches[match_id]
            for future in watch.waiters:
                if not future.done():
                    future.set_exception(error)
