"""The ratings recorder on a real Redis: a rated game is recorded once in its pool's
stream however often it is taken (a restart, two lease holders in a handover), an
unrated match or one with an unregistered seat records nothing, and a delayed match's
games are recorded at its end."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from eventstore import NewEvent, RedisEventStore, RedisStorage, StoredEvent
from service.app.ratings import RatingsRecorder, pool_stream

from ..redis_support import unique


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[RedisEventStore]:
    opened = RedisEventStore.from_url(redis_url, prefix=unique())
    try:
        yield opened
    finally:
        await opened.close()


async def match_log(
    store: RedisEventStore, rated: bool, players: tuple[str, str], delay: int = 0
) -> list[StoredEvent]:
    match_id = unique("m")
    created = {"match_id": match_id, "preset": "federation", "options": {}, "players": 2}
    created |= {"open_seats": True, "turn_ms": 0, "spectator_delay_ms": delay, "rated": rated}
    events = [NewEvent("MatchCreated", created)]
    events += [
        NewEvent("SeatJoined", {"seat": seat, "name": f"n{seat}", "player": player})
        for seat, player in enumerate(players)
    ]
    events += [
        NewEvent("MatchStarted", {"seed_commitment": "", "shuffle_version": "1"}),
        NewEvent("GameEnded", {"places": [2, 1]}),
        NewEvent("GameEnded", {"places": [1, 2]}),
        NewEvent("MatchEnded", {}),
    ]
    result = await store.append(f"m:{match_id}", events, -1)
    return list(result.events)


async def take_all(store: RedisEventStore, events: list[StoredEvent]) -> None:
    recorder = RatingsRecorder(RedisStorage(store))
    await recorder.start()
    for event in events:
        await recorder.take(event)


async def test_a_rated_game_is_recorded_once_however_often_taken(store: RedisEventStore) -> None:
    events = await match_log(store, True, ("a" * 32, "b" * 32))
    for _ in range(3):  # a restart, and another holder taking the same events
        await take_all(store, events)
    recorded = await store.read(pool_stream("federation.2-3"))
    assert [event.data["places"] for event in recorded] == [[2, 1], [1, 2]]
    assert recorded[0].data["players"] == [["a" * 32, "n0"], ["b" * 32, "n1"]]


async def test_unrated_or_unregistered_seats_record_nothing(store: RedisEventStore) -> None:
    await take_all(store, await match_log(store, False, ("a" * 32, "b" * 32)))
    await take_all(store, await match_log(store, True, ("a" * 32, "")))
    assert await store.read(pool_stream("federation.2-3")) == []


async def test_a_delayed_matchs_games_are_recorded_at_its_end(store: RedisEventStore) -> None:
    events = await match_log(store, True, ("a" * 32, "b" * 32), delay=60_000)
    recorder = RatingsRecorder(RedisStorage(store))
    for event in events[:-1]:
        await recorder.take(event)
    assert await store.read(pool_stream("federation.2-3")) == []
    await recorder.take(events[-1])
    assert len(await store.read(pool_stream("federation.2-3"))) == 2
