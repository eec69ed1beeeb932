"""The idle-match worker over a real GameService (in-memory store), its clock given
(``abandon_idle(now_ms)``) rather than slept: a match nobody acts in for the idle limit
is abandoned, revealed and sealed; any action (a bot's too) starts the count again; the
turn timer acting does not; an action that lands first wins; an ended match is forgotten."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import pytest

from eventstore import InMemoryEventStore, NewEvent, StreamClosed
from service.app.idle import IdleMatches
from service.app.keyring import Keyring
from service.app.match import stream_of
from service.app.service import GameService, MatchOptions
from service.rules.legal import legal_actions

IDLE_MS = 60_000


@pytest.fixture
async def service() -> AsyncIterator[GameService]:
    store = InMemoryEventStore()
    service = GameService(store, Keyring(secrets.token_bytes(32)))
    yield service
    await service.fanout.close()
    await store.close()


async def follow(worker: IdleMatches, service: GameService, match_id: str, first: int) -> int:
    """Hand the worker the match's events from ``first`` on, as the feed would."""
    events = await service.store.read(stream_of(match_id), first)
    for event in events:
        await worker.take(event)
    return events[-1].seq + 1 if events else first


async def test_a_match_nobody_acts_in_is_abandoned_revealed_and_sealed(
    service: GameService,
) -> None:
    worker = IdleMatches(service, IDLE_MS)
    made = await service.create(MatchOptions("classic", 3, {}, open_seats=True))
    await worker.start()  # the live match, idle since its last event
    created_at = (await service.load(made.match_id)).last_event_ms
    assert worker.last_acted == {made.match_id: (created_at, 0)}

    await worker.abandon_idle(created_at + IDLE_MS - 1)  # not yet
    assert not (await service.load(made.match_id)).over
    await worker.abandon_idle(created_at + IDLE_MS)
    match = await service.load(made.match_id)
    assert match.abandoned == "idle" and match.seed and match.sealed
    types = [event.type for event in await service.store.read(stream_of(made.match_id))]
    assert types[-3:] == ["MatchAbandoned", "SeedRevealed", "MatchSealed"]
    with pytest.raises(StreamClosed):  # its seal closed its stream too
        await service.store.append(stream_of(made.match_id), [NewEvent("Late")], match.version)
    assert worker.last_acted == {}
    await follow(worker, service, made.match_id, 1)  # its end, as the feed brings it
    assert worker.last_acted == {}


async def test_an_action_starts_the_count_again_and_one_landing_first_wins(
    service: GameService,
) -> None:
    worker = IdleMatches(service, IDLE_MS)
    made = await service.create(MatchOptions("classic", 2, {}))
    seen = await follow(worker, service, made.match_id, 0)
    await service.start(made.match_id, made.host_token)
    seen = await follow(worker, service, made.match_id, seen)
    match = await service.load(made.match_id)
    assert worker.last_acted[made.match_id] == (match.last_event_ms, match.version)

    # an action lands after the worker last looked: the abandonment at the old version
    # finds the match moved on, and appends nothing
    seat = match.game.turn
    assert seat is not None
    command = legal_actions(match.game)[0]
    await service.act(made.match_id, made.seat_tokens[seat], lambda _s: command)
    await worker.abandon_idle(match.last_event_ms + 10 * IDLE_MS)
    after = await service.load(made.match_id)
    assert not after.over and after.version > match.version
    # the feed brings the action: idle from its time on
    await follow(worker, service, made.match_id, seen)
    assert worker.last_acted[made.match_id] == (after.last_event_ms, after.version)
    await worker.abandon_idle(after.last_event_ms + IDLE_MS)
    assert (await service.load(made.match_id)).abandoned == "idle"


async def test_the_turn_timer_acting_is_nobody_acting(service: GameService) -> None:
    worker = IdleMatches(service, IDLE_MS)
    made = await service.create(MatchOptions("classic", 2, {}, turn_seconds=10))
    await service.start(made.match_id, made.host_token)
    seen = await follow(worker, service, made.match_id, 0)
    acted_at = worker.last_acted[made.match_id][0]
    for _ in range(3):  # the seats left: the timer acts for them
        version = (await service.load(made.match_id)).version
        assert await service.time_out(made.match_id, version) is not None
    seen = await follow(worker, service, made.match_id, seen)
    match = await service.load(made.match_id)
    assert worker.last_acted[made.match_id] == (acted_at, match.version)
    await worker.abandon_idle(acted_at + IDLE_MS)
    assert (await service.load(made.match_id)).abandoned == "idle"


async def test_a_match_that_ended_is_forgotten_and_never_abandoned(service: GameService) -> None:
    worker = IdleMatches(service, IDLE_MS)
    made = await service.create(MatchOptions("classic", 2, {}, games_per_set=1))
    await service.start(made.match_id, made.host_token)
    while not (match := await service.load(made.match_id)).over:
        seat = match.game.turn
        assert seat is not None
        command = legal_actions(match.game)[0]
        await service.act(made.match_id, made.seat_tokens[seat], lambda _s, c=command: c)
    await follow(worker, service, made.match_id, 0)
    assert worker.last_acted == {}
    worker.last_acted[made.match_id] = (0, match.version)  # as if it were missed
    await worker.abandon_idle(10 * IDLE_MS)
    assert not (await service.load(made.match_id)).abandoned
    assert worker.last_acted == {}
