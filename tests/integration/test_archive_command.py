"""``daifugo archive status|run|get`` against a real Redis and a folder archive: run moves
what is due (and nothing live), get gives back the JSONL export byte for byte, from
Redis before the move and from the archive after it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import redis

from eventstore import CLOSING_TYPE, NewEvent, RedisEventStore, RedisStorage
from service.app import STORE_PREFIX
from service.app.match import stream_of
from service.archive_command import run_archive
from service.audit import export_jsonl

from ..service_support import applied_by_the_projections


async def fill(url: str) -> str:
    store = RedisEventStore.from_url(url, prefix=STORE_PREFIX)
    try:
        await store.append(stream_of("sealed-1"), [NewEvent("MatchCreated", {"n": 1})], -1)
        await store.append(stream_of("sealed-1"), [NewEvent(CLOSING_TYPE, {"s": "x"})], 0)
        await store.append(stream_of("live-1"), [NewEvent("MatchCreated", {"n": 2})], -1)
        return export_jsonl(await store.read(stream_of("sealed-1")))
    finally:
        await store.close()


async def followed(url: str) -> None:
    store = RedisEventStore.from_url(url, prefix=STORE_PREFIX)
    try:
        await applied_by_the_projections(RedisStorage(store), [stream_of("sealed-1")])
    finally:
        await store.close()


def test_status_run_and_get(
    redis_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = redis.Redis.from_url(redis_url)
    if client.keys(f"{STORE_PREFIX}:*"):
        pytest.skip("this Redis holds a deployment's keys")
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("DAIFUGO_ARCHIVE", str(tmp_path / "archive"))
    try:
        exported = asyncio.run(fill(redis_url))
        assert run_archive("get", 0, "sealed-1") == 0
        assert capsys.readouterr().out == exported
        assert run_archive("status", 0, "") == 0
        status = capsys.readouterr().out
        assert "live 1" in status and "awaiting the archive (the close log): 1" in status
        assert "oldest live match: live-1" in status and "0 matches" in status
        assert run_archive("run", 3600, "") == 0  # sealed less than an hour ago: stays
        assert "archived 0 matches" in capsys.readouterr().out
        assert run_archive("run", 0, "") == 0  # due, but the projections have not seen it
        ran = capsys.readouterr().out
        assert "archived 0 matches" in ran and "1 due but not yet applied" in ran
        assert client.exists(f"{STORE_PREFIX}:{{{stream_of('sealed-1')}}}:events") == 1
        asyncio.run(followed(redis_url))
        assert run_archive("run", 0, "") == 0
        assert "archived 1 matches" in capsys.readouterr().out
        assert client.exists(f"{STORE_PREFIX}:{{{stream_of('sealed-1')}}}:events") == 0
        assert len(list((tmp_path / "archive").iterdir())) == 1
        assert run_archive("get", 0, "sealed-1") == 0
        assert capsys.readouterr().out == exported  # from the archive now
        assert run_archive("status", 0, "") == 0
        status = capsys.readouterr().out
        assert "awaiting the archive (the close log): 0" in status and "archive: " in status
        assert "1 matches" in status and "archived listings: 0 segments and volumes" in status
        assert run_archive("get", 0, "nowhere") == 1
    finally:
        for key in client.scan_iter(match=f"{STORE_PREFIX}:*"):
            client.delete(key)
        client.close()
