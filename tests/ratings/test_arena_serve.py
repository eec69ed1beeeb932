"""The arena against a real `daifugo serve`: a program queued alone is seated at a rated
match our bots fill, plays it, stays queued and is seated again; two queued at once
share a table; the ratings move with every game; a forged key queues nobody."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator

import httpx
import pytest

from clients.runner import play_seat
from clients.sdk import DaifugoClient, Refused, SeatSession
from eventstore import RedisServer
from service.app.selfplay import random_policy
from tests.serve_process import ServeProcess

POOL = "federation.4-5"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    folder = tmp_path_factory.mktemp("arena")
    server = RedisServer(folder / "redis", appendonly=False).start()
    options = ["--arena-bots-after", "1", "--arena-games", "1"]
    process = ServeProcess(server.url, folder / "serve.log", *options).wait_ready()
    try:
        yield process
    finally:
        process.stop()
        server.stop()


def register(served: ServeProcess, name: str) -> str:
    with httpx.Client(base_url=f"http://127.0.0.1:{served.http_port}", timeout=30) as http:
        response = http.post("/players", json={"name": name})
        assert response.status_code == 201, response.text
        key: str = response.json()["key"]
        return key


async def play_matches(served: ServeProcess, key: str, matches: int) -> list[SeatSession]:
    seats = []
    async with DaifugoClient(served.grpc_target, player_key=key) as client:
        queue = client.join_queue(POOL)
        async for seat in queue:
            seats.append(seat)
            await play_seat(seat, random_policy(random.Random(len(seats))))
            if len(seats) == matches:
                break
        await queue.aclose()  # type: ignore[attr-defined]
    return seats


def test_a_lone_program_plays_match_after_match_against_bots(served: ServeProcess) -> None:
    key = register(served, "Lone")
    seats = asyncio.run(asyncio.wait_for(play_matches(served, key, 2), 120))
    assert len({seat.match_id for seat in seats}) == 2
    with httpx.Client(base_url=f"http://127.0.0.1:{served.http_port}", timeout=30) as http:
        for _ in range(100):
            ratings = http.get("/ratings", params={"pool": POOL}).json()["ratings"]
            mine = [r for r in ratings if r["name"] == "Lone"]
            if mine and mine[0]["games"] == 2:
                break
            time.sleep(0.2)
        assert mine and mine[0]["games"] == 2, ratings
        assert any(r["name"].startswith("bot:") for r in ratings)


def test_players_queued_together_share_a_table(served: ServeProcess) -> None:
    keys = [register(served, name) for name in ("Queued1", "Queued2")]

    async def both() -> list[list[SeatSession]]:
        return await asyncio.gather(*(play_matches(served, key, 1) for key in keys))

    seated = asyncio.run(asyncio.wait_for(both(), 120))
    assert seated[0][0].match_id == seated[1][0].match_id


def test_a_forged_key_queues_nobody(served: ServeProcess) -> None:
    async def forged() -> None:
        async with DaifugoClient(served.grpc_target, player_key="dfp_" + "0" * 32 + "_x") as c:
            async for _ in c.join_queue(POOL):
                raise AssertionError("seated with a forged key")

    with pytest.raises(Refused) as refused:
        asyncio.run(forged())
    assert refused.value.code == "unauthenticated"
