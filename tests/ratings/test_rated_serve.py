"""Rated matches against a real `daifugo serve` on a Redis of its own: registered
players join with their keys (over gRPC, through the SDK), our bots fill the other
seats, every game moves the ratings, an unregistered seat is refused, and a restarted
service rebuilds the very same numbers from the log."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from clients.runner import play_seat
from clients.sdk import DaifugoClient, Refused
from eventstore import RedisServer
from service.app.selfplay import random_policy
from tests.serve_process import ServeProcess

POOL = "federation.4-5"
GAMES = 2


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[str]:
    server = RedisServer(tmp_path / "redis", appendonly=False).start()
    try:
        yield server.url
    finally:
        server.stop()


def board(http_port: int) -> list[dict[str, Any]]:
    with httpx.Client(base_url=f"http://127.0.0.1:{http_port}", timeout=30) as http:
        response = http.get("/ratings", params={"pool": POOL})
        assert response.status_code == 200, response.text
        ratings: list[dict[str, Any]] = response.json()["ratings"]
        return ratings


def wait_for_games(http_port: int, games: int, players: int = 4) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ratings = board(http_port)
        if len(ratings) == players and all(r["games"] == games for r in ratings):
            return ratings
        time.sleep(0.2)
    raise AssertionError(f"the ratings did not reach {games} games: {board(http_port)}")


async def play_rated_match(served: ServeProcess, keys: list[str]) -> str:
    base = f"http://127.0.0.1:{served.http_port}"
    async with DaifugoClient(served.grpc_target) as host:
        created = await host.create_match(
            "federation", 4, open_seats=True, rated=True, games_per_set=GAMES
        )
        with pytest.raises(Refused) as refused:  # no key: no seat in a rated match
            await host.join(created.match_id, "anyone")
        assert refused.value.code == "registration_required"
        seats = []
        for key in keys:
            client = DaifugoClient(served.grpc_target, player_key=key)
            seats.append((client, await client.join(created.match_id, "ignored")))
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            for kind in ("greedy", "random"):
                seated = await http.post(
                    f"/matches/{created.match_id}/bots",
                    json={"kind": kind},
                    headers={"Authorization": f"Bearer {created.host_token}"},
                )
                assert seated.status_code == 200, seated.text
        await host.host(created.match_id, created.host_token).start()
        rng = random.Random(7)
        await asyncio.gather(*(play_seat(seat, random_policy(rng)) for _, seat in seats))
        for client, _ in seats:
            await client.close()
        return created.match_id


def test_rated_games_move_ratings_and_a_restart_rebuilds_them(
    own_redis: str, tmp_path: Path
) -> None:
    served = ServeProcess(own_redis, tmp_path / "serve-1.log").wait_ready()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{served.http_port}", timeout=30) as http:
            keys = [http.post("/players", json={"name": n}).json()["key"] for n in ("Ann", "Ben")]
        match_id = asyncio.run(play_rated_match(served, keys))
        ratings = wait_for_games(served.http_port, GAMES)
        assert {r["name"] for r in ratings} == {"Ann", "Ben", "bot:greedy", "bot:random"}
        with httpx.Client(base_url=f"http://127.0.0.1:{served.http_port}", timeout=30) as http:
            for rating in ratings:
                assert rating["ordinal"] == pytest.approx(rating["mu"] - 3 * rating["sigma"])
                page = http.get(f"/ratings/{POOL}/players/{rating['player_id']}").json()
                moves = page["games"]
                assert [game["match_id"] for game in moves] == [match_id] * GAMES
                assert all(game["delta"] != 0 for game in moves)  # each game moved it
            audit = http.get(f"/matches/{match_id}/audit")  # a rated match audits as any
            assert audit.status_code == 200 and audit.json()["verdict"] == "valid", audit.text
    finally:
        served.stop()
    again = ServeProcess(own_redis, tmp_path / "serve-2.log").wait_ready()
    try:
        assert wait_for_games(again.http_port, GAMES) == ratings  # the same, bit for bit
    finally:
        again.stop()
