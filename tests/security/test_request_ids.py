"""Request ids are the caller's own. A seat cannot meet another seat's ids or the
service's (the turn timer's), the same id for another request is refused, and a
create's id is the creator's secret: it is never stored or exported, and nobody
else's create with it lands on the creator's match."""

from __future__ import annotations

import asyncio
import re
import uuid

import httpx
import pytest

from clients.bots import GreedyBot
from clients.runner import play_seat
from clients.sdk import DaifugoClient, Refused, SeatSession
from eventstore import RedisEventStore, StoredEvent
from service.app.match import stream_of
from service.rules.commands import Pass

DIGEST = re.compile(r"[0-9a-f]{32}")


async def seat_to_act(seats: list[SeatSession]) -> SeatSession:
    view = await seats[0].view()
    assert view.turn is not None
    return seats[view.turn]


async def test_a_seat_reusing_another_seat_s_request_id_acts_for_itself(
    client: DaifugoClient, store: RedisEventStore
) -> None:
    created = await client.create_match("federation", 3)
    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    await client.host(created.match_id, created.host_token).start()
    shared = uuid.uuid4().hex
    first = await seat_to_act(seats)
    done = await first.act((await first.legal_actions())[0], shared)
    second = await seat_to_act(seats)
    assert second is not first
    # the same id from another seat: that seat's own action, carried out
    theirs = await second.act((await second.legal_actions())[0], shared)
    assert theirs.version > done.version
    stored = await store.read(stream_of(created.match_id), done.version + 1)
    assert stored and stored[-1].seq == theirs.version
    assert len({e.request_id for e in stored}) == 1
    mine = (await store.read(stream_of(created.match_id), done.version, 1))[0]
    assert mine.request_id != stored[0].request_id  # scoped: two seats, two ids
    for event in (mine, *stored):
        assert DIGEST.fullmatch(event.request_id) and shared not in event.request_id


async def test_the_same_request_id_for_another_action_is_refused(
    client: DaifugoClient, http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    created = await client.create_match("federation", 3)
    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    await client.host(created.match_id, created.host_token).start()
    seat = await seat_to_act(seats)
    actions = await seat.legal_actions()
    request_id = uuid.uuid4().hex
    first = await seat.act(actions[0], request_id)
    # the honest retry: the first outcome, nothing written
    again = await seat.act(actions[0], request_id)
    assert (again.version, again.events) == (first.version, first.events)
    assert await store.version(stream_of(created.match_id)) == first.version
    # another body under the same id, at any later turn of this seat: refused
    other = next(a for a in actions if a != actions[0])
    with pytest.raises(Refused) as refused:
        await seat.act(other, request_id)
    assert refused.value.code == "request_id_reused"
    # over REST the same
    body = {"request_id": request_id, "action": "pass"}
    headers = {"authorization": f"Bearer {seat.token}"}
    answer = await http.post(f"/matches/{created.match_id}/actions", json=body, headers=headers)
    assert (answer.status_code, answer.json()["code"]) == (409, "request_id_reused")
    assert await store.version(stream_of(created.match_id)) == first.version


async def timer_ids(store: RedisEventStore, match_id: str, after: int) -> list[StoredEvent]:
    events = await store.read(stream_of(match_id), after + 1)
    return [e for e in events if e.type == "TurnTimedOut"]


async def test_a_seat_cannot_switch_the_turn_timer_off(
    client: DaifugoClient, store: RedisEventStore
) -> None:
    """The seat to act passes (or plays) with the very request id the timer will use
    for the version its action leaves; the timer still acts for every absent seat."""
    created = await client.create_match("federation", 3, games_per_set=5, turn_time_limit=1.0)
    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    await client.host(created.match_id, created.host_token).start()
    # the honest path: the timer acts for a seat that does nothing
    start = await store.version(stream_of(created.match_id))
    async with asyncio.timeout(120):
        while not await timer_ids(store, created.match_id, start):
            await asyncio.sleep(0.2)
    attacker = seats[0]
    # the timer's ids as they were once, and as they are: neither can be taken
    for crafted in ("timeout:{}", "service:timeout:{}"):
        hit = await act_as_the_timer_would(attacker, crafted)
        # the attacker stops acting; the timer goes on timing every seat out
        async with asyncio.timeout(180):
            while len(await timer_ids(store, created.match_id, hit)) < 3:
                await asyncio.sleep(0.2)
        timed = await timer_ids(store, created.match_id, hit)
        assert timed[0].seq == hit + 1
        assert timed[0].request_id == f"service:timeout:{hit}"
        attack = (await store.read(stream_of(created.match_id), hit, 1))[0]
        assert DIGEST.fullmatch(attack.request_id)


async def act_as_the_timer_would(attacker: SeatSession, crafted: str) -> int:
    """Act with the request id the timer will use for the version the action leaves
    (``crafted`` with that version), until a turn's guess is exact; that version."""
    async with asyncio.timeout(300):
        while True:
            turn = await attacker.next_turn(timeout=120)
            if turn.view.phase != "in_game" or not turn.actions:
                continue
            command = next((a for a in turn.actions if isinstance(a, Pass)), turn.actions[0])
            predicted = turn.version + 2  # the action, then the turn moving on
            try:
                done = await attacker.act(command, crafted.format(predicted))
            except Refused:  # the timer was quicker: try at the next turn
                continue
            if done.version == predicted:
                return done.version


async def test_a_create_request_id_is_the_creator_s_secret(
    client: DaifugoClient, http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    secret = uuid.uuid4().hex
    created = await client.create_match("classic", 3, request_id=secret)
    # the honest path: a lost reply retried gives the same match and tokens
    retried = await client.create_match("classic", 3, request_id=secret)
    assert retried == created
    # another body under the same id is refused: nothing of the first match handed out
    for other in ({"preset": "federation", "seats": 3}, {"preset": "classic", "seats": 4}):
        with pytest.raises(Refused) as refused:
            await client.create_match(other["preset"], other["seats"], request_id=secret)
        assert refused.value.code == "request_id_reused"
    # a guessable id is refused
    for short in ("1", "create:abc", "x" * 21):
        with pytest.raises(Refused) as refused:
            await client.create_match("classic", 3, request_id=short)
        assert refused.value.code == "request_id_too_short"
    # play it out: the public export holds neither the id nor anything that gives it back
    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    await client.host(created.match_id, created.host_token).start()
    await asyncio.gather(*(play_seat(seat, GreedyBot().choose) for seat in seats))
    export = await http.get(f"/matches/{created.match_id}/record", params={"format": "jsonl"})
    assert export.status_code == 200
    events = (await http.get(f"/matches/{created.match_id}/events", params={"limit": 500})).text
    text = (await http.get(f"/matches/{created.match_id}/record")).text
    for public in (export.text, events, text):
        assert secret not in public
        for token in (created.host_token, *created.seat_tokens):
            assert token not in public
    stored = await store.read(stream_of(created.match_id))
    assert "request_id" not in stored[0].data
    for event in stored:
        assert secret not in event.request_id
        assert DIGEST.fullmatch(event.request_id) or event.request_id.startswith(
            ("service:", "auto-")
        )
    # the envelope's id (public) used as a create's request id lands on another match
    replayed = await client.create_match("classic", 3, request_id=stored[0].request_id)
    assert replayed.match_id != created.match_id
    assert not set(replayed.seat_tokens) & set(created.seat_tokens)
