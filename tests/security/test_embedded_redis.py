"""The Redis that `daifugo serve` starts without REDIS_URL holds the server key (in its
AOF), from which every seat token and the live seed can be derived. Nobody but its owner
may read it: a password kept in the data folder, the folder 0700 and its files 0600 (the
AOF as written and as rewritten), and 127.0.0.1 only. `daifugo audit MATCH_ID` finds it
from the data folder, running or not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis

from clients.bots import GreedyBot
from clients.runner import play_match
from clients.sdk import DaifugoClient
from tests.serve_process import ServeProcess

from ..redis_support import assert_private, listening_addresses, wait_for_rewrite


def _env(data_home: Path) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name != "REDIS_URL"}
    return {**env, "XDG_DATA_HOME": str(data_home)}


def _audit(match_id: str, data_home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "audit", match_id],
        env=_env(data_home),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
async def embedded_serve(tmp_path: Path) -> AsyncIterator[ServeProcess]:
    served = ServeProcess(None, tmp_path / "serve.log", env=_env(tmp_path / "data"))
    try:
        yield served.wait_ready()
    finally:
        served.stop()


async def test_the_embedded_redis_is_its_owners_alone(
    embedded_serve: ServeProcess, tmp_path: Path
) -> None:
    data_home = tmp_path / "data"
    folder = data_home / "daifugo" / "redis"
    url = (folder / "url").read_text().strip()
    password = (folder / "password").read_text().strip()
    port = redis.Redis.from_url(url).connection_pool.connection_kwargs["port"]
    # it says where its Redis is, and keeps the password out of its output
    log = embedded_serve.log_tail()
    assert f"Redis at redis://:***@127.0.0.1:{port}" in log
    assert str(folder / "url") in log and password not in log
    # the honest path: a match plays out, and the CLI audits it from the same Redis
    async with DaifugoClient(embedded_serve.grpc_target, timeout=20) as client:
        match_id = await play_match(client, "classic", [GreedyBot().choose for _ in range(3)])
    audited = _audit(match_id, data_home)
    assert audited.returncode == 0, audited.stderr
    assert json.loads(audited.stdout)["verdict"] == "valid"
    owner = redis.Redis.from_url(url)
    assert owner.exists("daifugo:server-key")
    owner.bgrewriteaof()
    wait_for_rewrite(owner)
    owner.set("after-the-rewrite", "1")  # appended to the rewritten AOF
    owner.close()
    # the attacks: no password, a wrong one, another address, reading the files
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(port=port).get("daifugo:server-key")
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(port=port, password="daifugo").get("daifugo:server-key")
    assert listening_addresses(port) == {"127.0.0.1"}
    assert_private(data_home / "daifugo")


async def test_audit_after_serve_reads_the_embedded_redis(
    embedded_serve: ServeProcess, tmp_path: Path
) -> None:
    data_home = tmp_path / "data"
    async with DaifugoClient(embedded_serve.grpc_target, timeout=20) as client:
        match_id = await play_match(client, "federation", [GreedyBot().choose for _ in range(3)])
    embedded_serve.stop()
    assert not (data_home / "daifugo" / "redis" / "url").exists()
    # stopped: the audit starts the embedded Redis on its data for the while
    audited = _audit(match_id, data_home)
    assert audited.returncode == 0, audited.stderr
    assert json.loads(audited.stdout)["match_id"] == match_id
    assert_private(data_home / "daifugo")
    # another data folder has no such match: the CLI does not look anywhere else
    elsewhere = _audit(match_id, tmp_path / "elsewhere")
    assert elsewhere.returncode == 2 and "no REDIS_URL nor embedded Redis data" in elsewhere.stderr
