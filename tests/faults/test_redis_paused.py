"""Redis stopped (SIGSTOP) for longer than the calls' deadline mid-match, just as a
seat sends its action: calls fail with DEADLINE_EXCEEDED or UNAVAILABLE meanwhile;
after SIGCONT the match plays on to its end, and the action whose calls timed out
is in the stream once, as the retry that got through answered it."""

from __future__ import annotations

import contextlib

import grpc

from clients.sdk import DaifugoClient
from eventstore import RedisEventStore, RedisServer
from tests.serve_process import ServeProcess

from .checks import assert_match_sound
from .lineup import seat_lineup
from .players import RETRYABLE, Ledger
from .processes import PauseBeforeAnAction
from .table import open_match

PAUSE_AT = 40  # the first action after this version is sent into the pause
PAUSED_FOR = 3.0  # seconds Redis answers nothing
DEADLINE = 1.0  # every call's deadline


async def test_calls_time_out_while_redis_is_paused_and_nothing_is_written_twice(
    redis_server: RedisServer, services: list[ServeProcess], store: RedisEventStore
) -> None:
    targets = [service.grpc_target for service in services]
    ledger = Ledger()
    hook = PauseBeforeAnAction(redis_server, lambda turn: turn.version >= PAUSE_AT, PAUSED_FOR)
    async with contextlib.AsyncExitStack() as stack:
        table = await open_match(await stack.enter_async_context(DaifugoClient(targets[0])))
        lineup = await seat_lineup(stack, targets, table, ledger, DEADLINE, hook)
        try:
            await lineup.play_out()
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
