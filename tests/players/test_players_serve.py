"""Registered players against a real `daifugo serve` on a Redis of its own: sign-up
over REST, a lookalike name refused, a forged or rotated key refused, sign-up floods
refused with 429 and Retry-After, and `daifugo players add` on the same store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from eventstore import RedisServer
from tests.serve_process import ServeProcess


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = RedisServer(tmp_path_factory.mktemp("players-redis"), appendonly=False).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="module")
def served(own_redis: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    log = tmp_path_factory.mktemp("players-serve") / "serve.log"
    limits = ["--registrations-per-address", "4", "--registration-window", "600"]
    process = ServeProcess(own_redis, log, *limits).wait_ready()
    try:
        yield process
    finally:
        process.stop()


def rest(served: ServeProcess) -> httpx.Client:
    return httpx.Client(base_url=f"http://127.0.0.1:{served.http_port}", timeout=30)


def test_sign_up_lookalikes_forged_keys_rotation_and_floods(served: ServeProcess) -> None:
    with rest(served) as http:
        signed_up = http.post("/players", json={"name": "Hanako"})
        assert signed_up.status_code == 201, signed_up.text
        key = signed_up.json()["key"]
        assert signed_up.json()["player"]["name"] == "Hanako"
        me = http.get("/players/me", headers={"Authorization": f"Bearer {key}"})
        assert me.status_code == 200 and me.json()["name"] == "Hanako"

        stolen = http.post("/players", json={"name": "ＨＡＮＡＫＯ"})  # fullwidth, upper case
        assert stolen.status_code == 409 and stolen.json()["code"] == "name_taken"
        mixed = http.post("/players", json={"name": "Hаnako"})  # a Cyrillic а
        assert mixed.status_code == 400 and mixed.json()["code"] == "invalid_name"

        player_id = signed_up.json()["player"]["player_id"]
        forged = f"dfp_{player_id}_{'A' * 43}"
        refused = http.get("/players/me", headers={"Authorization": f"Bearer {forged}"})
        assert refused.status_code == 401 and refused.json()["code"] == "unauthenticated"

        rotated = http.post("/players/me/key", headers={"Authorization": f"Bearer {key}"})
        assert rotated.status_code == 200
        old = http.get("/players/me", headers={"Authorization": f"Bearer {key}"})
        assert old.status_code == 401
        new_key = rotated.json()["key"]
        assert http.get("/players/me", headers={"Authorization": f"Bearer {new_key}"}).is_success

        # 4 sign-ups per address per window: 3 made above (2 refused still count)
        flood = [http.post("/players", json={"name": f"flood{n}"}) for n in range(3)]
        assert [r.status_code for r in flood[:1]] == [201]
        assert flood[-1].status_code == 429
        assert flood[-1].json()["code"] == "too_many_registrations"
        assert 0 < int(flood[-1].headers["Retry-After"]) <= 600
        assert http.get("/players/me", headers={"Authorization": f"Bearer {new_key}"}).is_success


def test_players_add_registers_on_the_served_store(served: ServeProcess, own_redis: str) -> None:
    env = {**os.environ, "REDIS_URL": own_redis}
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "players", "add", "Taro"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    key = json.loads(done.stdout)["key"]
    with rest(served) as http:
        me = http.get("/players/me", headers={"Authorization": f"Bearer {key}"})
        assert me.status_code == 200 and me.json()["name"] == "Taro"
    again = subprocess.run(
        [sys.executable, "-m", "service.cli", "players", "add", "taro"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert again.returncode == 1 and "name_taken" in again.stderr
