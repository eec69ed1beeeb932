"""`daifugo serve --uecda-arena`: a lone UECda program is seated at a rated table our
bots fill, as the unverified player uecda:<name>, and its games are rated."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import httpx
import pytest

from eventstore import RedisServer
from tests.serve_process import ServeProcess

from .support import RawClient

pytestmark = pytest.mark.asyncio


async def test_a_lone_program_plays_a_rated_table_filled_with_bots(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis", appendonly=False).start()
    options = ["--uecda-port", "0", "--uecda-arena", "--arena-bots-after", "0.5"]
    options += ["--uecda-games", "1", "--uecda-turn-seconds", "1"]
    serve = ServeProcess(redis.url, tmp_path / "serve.log", *options).wait_ready()
    try:
        found = re.search(r"UECda on (\d+)", serve.log_tail())
        assert found, serve.log_tail()
        client = await RawClient.connect(int(found[1]), "silentprog")
        start = await asyncio.wait_for(client.read_table(), 30)  # bots filled: it started
        assert start[75] == 1
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{serve.http_port}") as rest:
            for _ in range(600):  # the silent program's turns time out: a game takes a while
                ratings = (await rest.get("/ratings", params={"pool": "uecda.4-5"})).json()
                names = {rating["name"]: rating["games"] for rating in ratings["ratings"]}
                if names.get("silentprog") == 1:
                    break
                await asyncio.sleep(0.2)
        assert names.get("silentprog") == 1, names
        assert {"bot:stronger", "bot:greedy", "bot:random"} <= names.keys()
        client.close()
    finally:
        serve.stop()
        redis.stop()
