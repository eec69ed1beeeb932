"""The turn timers' bookkeeping: a deadline per timed live match, and nothing kept
once a match has ended (a replica follows every match it ever sees), and a
timeout that fails tried again."""

from __future__ import annotations

import uuid
from typing import Any, cast

from eventstore import RedisEventStore, StoredEvent
from service.app.keyring import Keyring
from service.app.service import GameService
from service.app.timers import RETRY_MS, TurnTimers


def stored(seq: int, kind: str, at: int, **data: Any) -> StoredEvent:
    return StoredEvent("m:abc", seq, kind, 1, data, "", at, "0" * 64, "0" * 64)


async def test_a_timed_match_has_a_deadline_until_it_ends_then_is_forgotten() -> None:
    # events of a match it saw created never make it load the match
    timers = TurnTimers(cast(GameService, None))
    await timers.take(stored(0, "MatchCreated", 1_000, turn_ms=300))
    await timers.take(stored(1, "CardsPlayed", 2_000))
    assert timers.deadlines == {"abc": (2_300, 1)}
    await timers.take(stored(2, "MatchEnded", 3_000))
    assert timers.deadlines == {}
    await timers.take(stored(3, "SeedRevealed", 3_000))
    assert timers.turn_ms == {}
    assert timers.deadlines == {}


async def test_an_untimed_match_never_gets_a_deadline() -> None:
    timers = TurnTimers(cast(GameService, None))
    await timers.take(stored(0, "MatchCreated", 1_000, turn_ms=0))
    await timers.take(stored(1, "CardsPlayed", 2_000))
    assert timers.deadlines == {}
    await timers.take(stored(2, "SeedRevealed", 3_000))
    assert timers.turn_ms == {}


async def test_a_timeout_that_fails_is_tried_again_not_dropped() -> None:
    # a real service whose Redis is not there: every timeout fails
    store = RedisEventStore.from_url("redis://127.0.0.1:9", connect_timeout=0.2, retries=0)
    timers = TurnTimers(GameService(store, Keyring(b"k" * 32)))
    try:
        timers.deadlines = {"abc": (1_000, 4), "def": (1_500, 7)}
        await timers._fire(2_000)
        assert timers.deadlines == {"abc": (2_000 + RETRY_MS, 4), "def": (2_000 + RETRY_MS, 7)}
        # a retry keeps the version it was due for
        timers.deadlines["abc"] = (1_000, 5)
        await timers._fire(2_000 + RETRY_MS)
        assert timers.deadlines["abc"] == (2_000 + 2 * RETRY_MS, 5)
    finally:
        await store.close()


async def test_a_timeout_of_a_match_that_is_gone_is_dropped(redis_url: str) -> None:
    store = RedisEventStore.from_url(redis_url, prefix=f"t{uuid.uuid4().hex[:8]}")
    timers = TurnTimers(GameService(store, Keyring(b"k" * 32)))
    try:
        timers.deadlines = {"nosuchmatch": (1_000, 4)}
        await timers._fire(2_000)
        assert timers.deadlines == {}
    finally:
        await store.close()
