"""Redis stopped (SIGSTOP) for longer than the calls' deadline mid-match, just as a
seat sends its action: calls fail with DEADLINE_EXCEEDED or UNAVAILABLE meanwhile;
after SIGCONT the match plays on to its end, and the action whose calls timed out
is in the stream once, as the retry that got through answered it."""

from __future__ import annotations

import asyncio
import contextlib

import grpc

from clients.sdk import DaifugoClient, Turn
from eventstore import RedisEventStore, RedisServer
from service.serve_process import ServeProcess

from .checks import assert_match_sound
from .lineup import seat_lineup
from .players import RETRYABLE, Ledger
from .processes import pause, resume
from .table import open_match

PAUSE_AT = 40  # the first action after this version is sent into the pause
PAUSED_FOR = 3.0  # seconds Redis answers nothing
DEADLINE = 1.0  # every call's deadline


class PauseBeforeAnAction:
    """A player's ``before_act`` hook: the first time a seat is about to act after
    ``PAUSE_AT``, stop Redis (resumed ``PAUSED_FOR`` seconds later), so that this
    action is sent to a service whose Redis does not answer."""

    def __init__(self, server: RedisServer) -> None:
        self.server = server
        self.resuming: asyncio.Task[None] | None = None

    async def __call__(self, turn: Turn) -> None:
        if self.resuming is None and turn.version >= PAUSE_AT:
            pause(self.server)
            self.resuming = asyncio.create_task(self._resume_later())

    async def _resume_later(self) -> None:
        await asyncio.sleep(PAUSED_FOR)
        resume(self.server)

    async def finish(self) -> None:
        """Wait for the resume; whatever happened, leave Redis running."""
        try:
            if self.resuming is not None:
                await self.resuming
        finally:
            resume(self.server)


async def test_calls_time_out_while_redis_is_paused_and_nothing_is_written_twice(
    redis_server: RedisServer, services: list[ServeProcess], store: RedisEventStore
) -> None:
    targets = [service.grpc_target for service in services]
    ledger = Ledger()
    hook = PauseBeforeAnAction(redis_server)
    async with contextlib.AsyncExitStack() as stack:
        table = await open_match(await stack.enter_async_context(DaifugoClient(targets[0])))
        lineup = await seat_lineup(stack, targets, table, ledger, DEADLINE, hook)
        try:
            async with asyncio.timeout(60), asyncio.TaskGroup() as group:
                for player in lineup.players:
                    group.create_task(player.play())
                for watcher in lineup.watchers:
                    group.create_task(watcher.follow())
        finally:
            await hook.finish()
        assert hook.resuming is not None, "the match ended before the pause"

    await assert_match_sound(store, table, ledger, lineup.watchers)
    assert ledger.failures[grpc.StatusCode.DEADLINE_EXCEEDED] > 0, ledger.failures
    assert set(ledger.failures) <= RETRYABLE, ledger.failures
    # The action sent into the pause timed out and was sent again until answered OK.
    # A send that timed out may have written it (Redis runs what was queued when it
    # resumes); either way the checks above found its events in the stream once, and
    # exactly as the OK answered them (seq, type and time): a retry answered the first
    # outcome and appended nothing.
    assert any(ack.failed_attempts for ack in ledger.acknowledged), "nothing sent in the pause"
