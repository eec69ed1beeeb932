"""Redis (AOF, appendfsync always) killed with SIGKILL mid-match and started again
on the same port with the same data: calls fail with UNAVAILABLE or DEADLINE_EXCEEDED
meanwhile, nothing is half-written, and the match plays on to its end."""

from __future__ import annotations

import asyncio
import contextlib

from clients.sdk import DaifugoClient
from eventstore import RedisEventStore, RedisServer
from tests.serve_process import ServeProcess

from .checks import assert_match_sound
from .lineup import seat_lineup
from .players import RETRYABLE, Ledger
from .table import open_match, wait_for_version

CRASH_AT = 40  # a version well inside a one-game match
DOWN_FOR = 0.5  # seconds between the crash and the restart: clients call meanwhile


async def test_match_plays_on_after_redis_crashes_and_restarts(
    redis_server: RedisServer, services: list[ServeProcess], store: RedisEventStore
) -> None:
    targets = [service.grpc_target for service in services]
    ledger = Ledger()
    async with contextlib.AsyncExitStack() as stack:
        table = await open_match(await stack.enter_async_context(DaifugoClient(targets[0])))
        lineup = await seat_lineup(stack, targets, table, ledger)
        async with asyncio.TaskGroup() as group:
            group.create_task(lineup.play_out())
            crashed_at = await wait_for_version(store, table, CRASH_AT)
            redis_server.kill()
            await asyncio.sleep(DOWN_FOR)
            # same port, same data dir; off the loop, so the players keep calling meanwhile
            await asyncio.to_thread(redis_server.start)

    assert all(service.alive for service in services)
    events = await assert_match_sound(store, table, ledger, lineup.watchers)
    assert crashed_at < len(events) - 1, "the match was over before the crash"
    # the outage was seen, and only as UNAVAILABLE or DEADLINE_EXCEEDED (any other
    # status would have stopped its player)
    assert ledger.failures.total() > 0
    assert set(ledger.failures) <= RETRYABLE, ledger.failures
