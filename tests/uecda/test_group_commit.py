"""A table with ``--uecda-durability game`` sends its steps without waiting for them; when
one does not land because another writer moved the match on behind its back (here the
turn timer acting for a seat whose client then answers), the table stops: its clients
are closed, nothing of its own is written after the other writer's step, and the match
ends as abandoned (``table_failed``) right there. (With ``step`` the same answer is
refused as the turn moved on and the table plays on.) (The timer acts from a service of its own,
another replica's: this process's own appends would tell the table the match moved on
before it sends anything.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from eventstore import RedisEventStore
from service.app.match import stream_of
from service.app.service import GameService
from service.audit.auditor import audit_events
from service.match import AbandonReason
from service.uecda.server import UecdaSettings
from service.uecda.table import Durability
from service.uecda.wire import cell
from tests.service_support import isolated_service

from .support import RawClient, run_clients

pytestmark = pytest.mark.asyncio
PASS = [0] * 120


async def interloped_seat(port: int, service: GameService, match_ids: list[str]) -> int:
    """The last seat: on its second turn the turn timer is made to act for it first
    (as soon as the store holds the table's steps), then it answers a pass all the
    same. The version the timer acted at."""
    client = await RawClient.connect(port, "late")
    try:
        await client.read_table()  # the start table
        turns = 0
        while True:
            hand = await client.read_table()
            if hand[cell(5, 2)] == 1:
                turns += 1
                if turns == 2:  # one after a step the table sent (its first may follow the deal)
                    break
                client.send(PASS)
                await client.read_int()
            await client.read_table()
            await client.read_int()
        stream = stream_of(match_ids[0])
        for _ in range(200):
            version = await service.store.version(stream)
            if await service.time_out(match_ids[0], version) is not None:
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the timer never acted")
        client.send(PASS)
        await client.writer.drain()
        while await client.reader.read(4096):  # whatever the table still sent, then closed
            pass
        return version
    finally:
        client.close()


async def test_a_step_that_conflicts_stops_a_game_table_and_abandons_its_match(
    redis_url: str, official_client: Path
) -> None:
    settings = UecdaSettings(games=3, turn_seconds=30.0, durability=Durability.GAME)
    async with isolated_service(redis_url, grpc_port=0, uecda_port=0, uecda=settings) as running:
        assert running.uecda is not None and running.uecda_port is not None
        port, service = running.uecda_port, running.service
        # the timer of another replica: a service of its own on the same store
        store = service.store
        assert isinstance(store, RedisEventStore)
        other_store = RedisEventStore.from_url(store.url, prefix=store.keys.prefix)
        other = GameService(other_store, service.keyring, service.signer)
        clients = asyncio.create_task(run_clients(official_client, port, ["a", "b", "c", "d"]))
        await asyncio.sleep(1.0)
        try:
            timed_out_at = await asyncio.wait_for(
                interloped_seat(port, other, running.uecda.match_ids), 60
            )
        finally:
            await other_store.close()
        await asyncio.wait_for(clients, 120)
        stream = stream_of(running.uecda.match_ids[0])
        for _ in range(100):
            events = await service.store.read(stream)
            if events[-1].type == "MatchSealed":
                break
            await asyncio.sleep(0.1)
    kinds = [e.type for e in events]
    assert audit_events(events).verdict == "valid"
    assert kinds[-1] == "MatchSealed"
    timer_steps = [e for e in events if e.seq > timed_out_at and e.type == "TurnTimedOut"]
    assert timer_steps, kinds[timed_out_at:]
    at = kinds.index("MatchAbandoned")
    abandonment = events[at]
    assert abandonment.data["reason"] == AbandonReason.TABLE_FAILED
    # the timer's step is the last before the abandonment: the table's pass, sent at the
    # version it had, conflicted and was not stored, nor anything after it
    assert abandonment.data["last_seq"] == abandonment.seq - 1
    timer_request = timer_steps[0].request_id
    assert all(e.request_id == timer_request for e in events[timed_out_at + 1 : at])
    assert kinds[at + 1 :] == ["SeedRevealed", "MatchSealed"]
