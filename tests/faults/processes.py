"""Pausing the private redis-server the fault tests share (SIGSTOP: it keeps its
connections open but answers nothing), by hand or just before an action. The services
are ``ServeProcess`` children."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Iterator

from clients.sdk import Turn
from eventstore import RedisServer


def pause(server: RedisServer) -> None:
    """SIGSTOP: Redis keeps its connections open but answers nothing."""
    assert server.process is not None
    os.kill(server.process.pid, signal.SIGSTOP)


def resume(server: RedisServer) -> None:
    if server.process is not None and server.process.poll() is None:
        os.kill(server.process.pid, signal.SIGCONT)


@contextlib.contextmanager
def paused(server: RedisServer) -> Iterator[None]:
    pause(server)
    try:
        yield
    finally:
        resume(server)


class PauseBeforeAnAction:
    """A player's ``before_act`` hook: the first time a seat is about to act and
    ``when(turn)``, stop Redis, so that the action is sent to a service whose Redis
    does not answer; ``hold`` seconds later run ``then`` and let Redis go on."""

    def __init__(
        self,
        server: RedisServer,
        when: Callable[[Turn], bool],
        hold: float,
        then: Callable[[], None] = lambda: None,
    ) -> None:
        self.server, self.when, self.hold, self.then = server, when, hold, then
        self.paused_at = -1  # the match's version then
        self.resuming: asyncio.Task[None] | None = None

    async def __call__(self, turn: Turn) -> None:
        if self.resuming is None and self.when(turn):
            self.paused_at = turn.version
            pause(self.server)
            self.resuming = asyncio.create_task(self._resume_later())

    async def _resume_later(self) -> None:
        try:
            await asyncio.sleep(self.hold)
            self.then()
        finally:
            resume(self.server)

    async def finish(self) -> None:
        """Wait for the resume; whatever happened, leave Redis running."""
        try:
            if self.resuming is not None:
                await self.resuming
        finally:
            resume(self.server)
