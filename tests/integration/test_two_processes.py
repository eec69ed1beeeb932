"""Two `daifugo serve` processes on one Redis play one match consistently:
seats connected to different processes, every action through its own one."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.bots import GreedyBot, RandomBot, StrongerBot
from clients.runner import play_seat
from clients.sdk import DaifugoClient
from eventstore import RedisEventStore
from service.app import STORE_PREFIX
from service.app.match import fold_match, stream_of
from service.rules import rule_set
from tests.serve_process import serve_processes


@pytest.fixture
def two_services(redis_url: str, tmp_path: Path) -> Iterator[list[str]]:
    with serve_processes(redis_url, tmp_path, 2) as services:
        yield [service.grpc_target for service in services]


async def test_seats_on_two_processes_play_one_match(
    redis_url: str, two_services: list[str]
) -> None:
    rules = rule_set("federation")
    async with DaifugoClient(two_services[0]) as first, DaifugoClient(two_services[1]) as second:
        created = await first.create_match("federation", 4, games_per_set=2)
        await second.host(created.match_id, created.host_token).start()
        clients = [first, second, first, second]
        seats = [
            client.seat(created.match_id, token)
            for client, token in zip(clients, created.seat_tokens, strict=True)
        ]
        bots = [StrongerBot(rules), GreedyBot(), RandomBot(5), GreedyBot()]
        await asyncio.wait_for(
            asyncio.gather(*(play_seat(seat, bot) for seat, bot in zip(seats, bots, strict=True))),
            timeout=120,
        )
        views = [await seat.view() for seat in seats]
    assert all(view.phase == "match_over" for view in views)
    assert len({view.results for view in views}) == 1
    store = RedisEventStore.from_url(redis_url, prefix=STORE_PREFIX)
    try:
        stored = await store.read(stream_of(created.match_id))
        assert (await store.verify(stream_of(created.match_id))).ok
    finally:
        await store.close()
    match = fold_match(None, stored)
    assert match.over and match.game.results == views[0].results
    assert [event.seq for event in stored] == list(range(len(stored)))
