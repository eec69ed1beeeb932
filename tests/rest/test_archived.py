"""A sealed match moved to the archive reads as it did while live, over every read path
(the match, its events, its state at a seq, its record and JSONL export, its audit, the
catalog and the rankings), from a service started afterwards that never held it; a live
match is never moved; a create retried after its match left starts nothing again."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import redis.asyncio

from clients.sdk import DaifugoClient
from eventstore import InMemoryArchive, InMemoryStorage, RedisStorage, Storage
from service.app.archiver import archive_now
from service.app.match import stream_of
from service.app.signing import Signer, ephemeral_signer
from service.runtime import Running, running_service

from ..service_support import unique
from .support import finished_match, wait_listed


@contextlib.asynccontextmanager
async def serving(
    storage: Storage, archive: InMemoryArchive, signer: Signer, keep_live: float = 86_400
) -> AsyncIterator[tuple[Running, httpx.AsyncClient, DaifugoClient]]:
    async with running_service(
        grpc_port=0,
        http_port=0,
        timers=False,
        storage=storage,
        archive=archive,
        signer=signer,
        keep_live=keep_live,
    ) as running:
        base = f"http://127.0.0.1:{running.http_port}"
        async with (
            httpx.AsyncClient(base_url=base, timeout=30) as http,
            DaifugoClient(f"127.0.0.1:{running.grpc_port}", timeout=20) as grpc_client,
        ):
            yield running, http, grpc_client


async def every_read(http: httpx.AsyncClient, match_id: str) -> dict[str, Any]:
    url = f"/matches/{match_id}"
    jsonl = (await http.get(f"{url}/record", params={"format": "jsonl"})).content
    reads: dict[str, Any] = {
        "match": (await http.get(url)).json(),
        "events": (await http.get(f"{url}/events")).json(),
        "events_from": (await http.get(f"{url}/events", params={"from_seq": 5})).json(),
        "state_0": (await http.get(f"{url}/state", params={"seq": 0})).json(),
        "state_9": (await http.get(f"{url}/state", params={"seq": 9})).json(),
        "state": (await http.get(f"{url}/state")).json(),
        "record": (await http.get(f"{url}/record")).text,
        "jsonl": jsonl,
        "audit": (await http.get(f"{url}/audit")).json(),
        "posted_audit": (await http.post("/audit", content=jsonl)).json(),
        "listed": await wait_listed(http, match_id, "finished"),
        "rankings": (await http.get("/rankings")).json(),
    }
    return reads


@pytest.fixture(params=["memory", "redis"])
async def storage(request: pytest.FixtureRequest) -> AsyncIterator[Storage]:
    if request.param == "memory":
        yield InMemoryStorage()
        return
    url, prefix = request.getfixturevalue("redis_url"), unique("archived-")
    redis_storage = RedisStorage.from_url(url, prefix=prefix)
    try:
        yield redis_storage
    finally:
        await redis_storage.close()
        client = redis.asyncio.Redis.from_url(url)
        keys = [key async for key in client.scan_iter(match=f"{prefix}:*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()


def another_replica(storage: Storage) -> Storage:
    if isinstance(storage, InMemoryStorage):
        return storage.sharing()
    assert isinstance(storage, RedisStorage)
    return RedisStorage.from_url(storage.events.url, prefix=storage.events.keys.prefix)


async def test_an_archived_match_reads_as_it_did_live(storage: Storage) -> None:
    archive, signer = InMemoryArchive(), ephemeral_signer()
    async with serving(storage, archive, signer) as (running, http, grpc_client):
        match_id = await finished_match(grpc_client, "torasobi", 4)
        live = await grpc_client.create_match("classic", 3)
        before = await every_read(http, match_id)
        assert before["audit"]["verdict"] == "valid"
        assert before["match"]["match_id"] == match_id
        mover = await archive_now(
            running.service.store, archive, storage.snapshots(), keep_live_ms=0
        )
        assert mover.moved.matches == 1 and list(archive.objects) == [stream_of(match_id)]
        assert await storage.events.read_as_stored(stream_of(match_id)) == []
        assert await storage.events.read_as_stored(stream_of(live.match_id)) != []
        assert await every_read(http, match_id) == before  # the same service
    # a service started afterwards, which never held the match, reads it from the archive
    async with serving(another_replica(storage), archive, signer) as (running, http, _):
        after = await every_read(http, match_id)
        assert after == before
        # its listing retires to a segment (as a thousand would): listed as before
        await running.catalog.forget([stream_of(match_id)])
        assert await running.catalog.retire_listings(everything=True) == 1
        assert await running.catalog.listing(match_id) is None  # nothing of it here
        assert len(archive.part("listings").objects) == 1
        assert await every_read(http, match_id) == before
        assert (await http.get(f"/matches/{match_id}/state", params={"seq": 10**6})).status_code
        missing = await http.get("/matches/no-such-match")
        assert missing.status_code == 404


async def test_a_match_sealed_less_than_keep_live_ago_stays() -> None:
    storage, archive, signer = InMemoryStorage(), InMemoryArchive(), ephemeral_signer()
    async with serving(storage, archive, signer) as (running, _http, grpc_client):
        match_id = await finished_match(grpc_client, "classic", 3)
        mover = await archive_now(running.service.store, archive, storage.snapshots(), 3_600_000)
        assert mover.moved.matches == 0 and archive.objects == {}
        assert await storage.events.read_as_stored(stream_of(match_id)) != []
        assert mover.due  # due in an hour


@pytest.mark.parametrize("moves", [1, 2])
async def test_moving_again_moves_nothing_twice(moves: int) -> None:
    storage, archive, signer = InMemoryStorage(), InMemoryArchive(), ephemeral_signer()
    async with serving(storage, archive, signer) as (running, http, grpc_client):
        match_id = await finished_match(grpc_client, "classic", 3)
        for _ in range(moves):
            await archive_now(running.service.store, archive, storage.snapshots(), keep_live_ms=0)
        assert list(archive.objects) == [stream_of(match_id)]
        assert (await http.get(f"/matches/{match_id}/audit")).json()["verdict"] == "valid"


async def test_the_service_archives_a_match_once_its_projections_applied_it(
    storage: Storage,
) -> None:
    archive, signer = InMemoryArchive(), ephemeral_signer()
    async with serving(storage, archive, signer, keep_live=0) as (_, http, grpc_client):
        match_id = await finished_match(grpc_client, "classic", 3)
        async with asyncio.timeout(60):  # a guard against a hang, not a time limit
            while stream_of(match_id) not in archive.objects:
                await asyncio.sleep(0.1)
        assert await storage.events.read_as_stored(stream_of(match_id)) == []
        listed = await wait_listed(http, match_id, "finished")
        assert listed["match_id"] == match_id
        # its game counted in the rankings, its listing kept: every projection had it
        rankings = (await http.get("/rankings")).json()["rankings"]
        assert sorted(standing["games"] for standing in rankings) == [1, 1, 1]
