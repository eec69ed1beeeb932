"""Two `daifugo serve` processes on one Redis play one match consistently:
seats connected to different processes, every action through its own one."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from clients.bots import GreedyBot, RandomBot, StrongerBot
from clients.runner import play_seat
from clients.sdk import DaifugoClient
from eventstore import RedisEventStore
from service.app.match import fold_match, stream_of
from service.app.runtime import STORE_PREFIX
from service.rules import rule_set


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def two_services(redis_url: str) -> Iterator[list[str]]:
    processes: list[subprocess.Popen[str]] = []
    targets = []
    try:
        for _ in range(2):
            port = free_port()
            ports = ["--grpc-port", str(port), "--http-port", "0"]  # REST: any free port
            process = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "serve", *ports],
                env={**os.environ, "REDIS_URL": redis_url},
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            processes.append(process)
            assert process.stdout is not None
            for line in process.stdout:
                if "gRPC on" in line:
                    break
            else:
                raise RuntimeError("daifugo serve did not start")
            targets.append(f"127.0.0.1:{port}")
        yield targets
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=10)


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
