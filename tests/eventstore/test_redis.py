"""What only the Redis store has, on one server and on a 3-master cluster: replies lost on
the wire, blocking connections killed or dropped, another process, entries tampered with in
Redis, the key layout, trimming. (The contract every store keeps is in contract.py.)"""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import textwrap
from typing import Any

import msgspec
import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from eventstore import (
    AppendResult,
    CorruptEvent,
    RedisEventStore,
    RequestIdReused,
    StoredEvent,
    StoreUnavailable,
)
from eventstore.hashing import event_hash
from eventstore.scripts import Script

from .conftest import Backend, same_slot
from .contract import collect, ev, fill


async def test_the_store_knows_whether_it_talks_to_a_cluster(
    store: RedisEventStore, backend: Backend
) -> None:
    assert store.is_cluster is None  # not connected yet
    await store.append("m:1", [ev()], -1)
    assert store.is_cluster is backend.cluster


class LoseReply:
    """Runs the real script, then loses the reply (as a dropped connection would)."""

    def __init__(self, script: Script, times: int = 1) -> None:
        self.script = script
        self.times = times
        self.calls = 0

    async def run(self, client: Any, keys: Any, args: Any, sent: Any = None) -> Any:
        self.calls += 1
        reply = await self.script.run(client, keys, args, sent)
        if self.times > 0:
            self.times -= 1
            raise RedisConnectionError("connection lost after the command was sent")
        return reply


async def test_retry_after_lost_reply_writes_once(store: RedisEventStore) -> None:
    await store.append("lost", [ev(n=0)], -1)
    store._append_script = LoseReply(store._append_script)
    with pytest.raises(StoreUnavailable) as info:
        await store.append("lost", [ev(n=1), ev(n=2)], 0, "cmd-x")
    assert "unavailable" in str(info.value)
    # the caller retries the same command with the same request_id
    retry = await store.append("lost", [ev(n=1), ev(n=2)], 0, "cmd-x")
    assert retry == AppendResult(1, 2, True)
    events = await store.read("lost")
    assert [e.data["n"] for e in events] == [0, 1, 2]
    assert (await store.verify("lost")).ok
    # a later append chains on correctly although the client never saw the first reply
    assert (await store.append("lost", [ev(n=3)], 2)).last_seq == 3
    assert (await store.verify("lost")).ok


async def test_an_append_that_finds_its_script_flushed_still_gives_its_events_meanwhile(
    store: RedisEventStore, backend: Backend
) -> None:
    await store.append("flushed", [ev(n=0)], -1)
    client = backend.client_for(store.keys.events("flushed"))
    try:
        client.script_flush()
    finally:
        client.close()
    given: list[tuple[StoredEvent, ...]] = []
    result = await store.append_overlapped("flushed", [ev(n=1)], 0, None, "", given.append)
    assert result.last_seq == 1 and given == [result.events]
    assert (await store.verify("flushed")).ok


# --- subscriptions -----------------------------------------------------------------------


async def test_subscription_resumes_after_dropped_connection(
    store: RedisEventStore, backend: Backend
) -> None:
    await fill(store, "drop", 10)
    got: list[int] = []
    async with store.subscribe("drop", 0, block_ms=300) as sub:
        async for event in sub:
            got.append(event.seq)
            if event.seq == 9:
                break
        # kill its blocking connection on the server, then append while it is gone
        client = backend.client_for(store.keys.events("drop"))
        try:
            killed = 0
            for entry in client.client_list():
                if entry.get("name") == sub.client_name:
                    client.client_kill_filter(_id=entry["id"])
                    killed += 1
        finally:
            client.close()
        assert killed == 1
        await fill(store, "drop", 20)
        async for event in sub:
            got.append(event.seq)
            if event.seq == 19:
                break
    assert got == list(range(20))


async def test_a_subscription_dropped_without_closing_closes_its_connection(
    store: RedisEventStore, backend: Backend
) -> None:
    await fill(store, "gone", 3)

    async def consume_some() -> str:
        sub = store.subscribe("gone", 0, block_ms=200)
        async for event in sub:
            if event.seq == 2:
                break  # the consumer just stops, never calls aclose()
        return sub.client_name

    name = await consume_some()
    gc.collect()
    client = backend.client_for(store.keys.events("gone"))
    try:
        for _ in range(100):
            await asyncio.sleep(0.02)
            if all(c.get("name") != name for c in client.client_list()):
                break
        assert all(c.get("name") != name for c in client.client_list())
    finally:
        client.close()


WRITER = """
import asyncio, sys
from eventstore import NewEvent, RedisEventStore

async def main(url: str, prefix: str, n: int) -> None:
    store = RedisEventStore.from_url(url, prefix=prefix)
    version = -1
    for i in range(n):
        version = (await store.append("xproc", [NewEvent("FromChild", {"i": i})], version)).last_seq
        await asyncio.sleep(0.002)
    await store.close()

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""


async def test_subscriber_sees_appends_from_another_process(
    store: RedisEventStore, backend: Backend
) -> None:
    sub = store.subscribe("xproc", 0, block_ms=200)
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        textwrap.dedent(WRITER),
        backend.url,
        store.keys.prefix,
        "40",
        env={**os.environ, "PYTHONPATH": os.getcwd()},
        stdout=subprocess.DEVNULL,
    )
    try:
        got = await collect(sub, 39, timeout=30)
    finally:
        await sub.aclose()
        if child.returncode is None:
            await asyncio.wait_for(child.wait(), 30)
    assert child.returncode == 0
    assert [e.data["i"] for e in got] == list(range(40))


# --- hash chain, corruption --------------------------------------------------------------


async def rewrite_entries(
    store: RedisEventStore, backend: Backend, stream: str, change: Any
) -> None:
    """Rebuild the stream entry by entry, letting ``change(seq, fields)`` alter or drop one
    (as someone with write access to Redis could)."""
    key = store.keys.events(stream)
    client = backend.client_for(key)
    try:
        entries = client.xrange(key)
        client.delete(key)
        for entry_id, fields in entries:
            seq = int(entry_id.split(b"-")[0])
            new = change(seq, dict(fields))
            if new is not None:
                client.xadd(key, new, id=entry_id)
    finally:
        client.close()


@pytest.mark.parametrize("kind", ["altered", "rehashed", "deleted", "garbage", "unknown-format"])
async def test_tampering_is_detected_at_the_right_seq(
    store: RedisEventStore, backend: Backend, kind: str
) -> None:
    await fill(store, "tamper", 10, batch=3)
    events = await store.read("tamper")
    target = events[6]

    def change(seq: int, fields: dict[bytes, bytes]) -> dict[bytes, bytes] | None:
        if seq != 6:
            return fields
        body = msgspec.msgpack.decode(fields[b"e"])
        if kind == "deleted":
            return None
        if kind == "garbage":
            fields[b"e"] = b"\xc1\xc1 not msgpack"
        elif kind == "unknown-format":
            fields[b"e"] = msgspec.msgpack.encode([99, *body[1:]])
        else:
            body[6] = {**body[6], "i": 666}  # data
            fields[b"e"] = msgspec.msgpack.encode(body)
            if kind == "rehashed":  # the altered event's own hash is made right
                fields[b"h"] = event_hash(
                    "tamper", 6, target.type, target.schema, target.at, target.request_id,
                    body[6], target.prev_hash,
                ).encode()  # fmt: skip
        return fields

    await rewrite_entries(store, backend, "tamper", change)
    result = await store.verify("tamper")
    assert not result.ok
    expected_bad = 7 if kind == "rehashed" else 6
    assert result.first_bad_seq == expected_bad, result
    assert result.checked == expected_bad
    assert result.reason
    if kind in ("garbage", "unknown-format", "deleted"):
        with pytest.raises(CorruptEvent) as info:
            await store.read("tamper")
        assert (info.value.stream, info.value.seq) == ("tamper", 6)
        assert "tamper" in str(info.value) and "seq 6" in str(info.value)


async def test_tampering_with_the_last_event_is_detected(
    store: RedisEventStore, backend: Backend
) -> None:
    await fill(store, "last", 5)
    last = (await store.read("last"))[-1]

    def change(seq: int, fields: dict[bytes, bytes]) -> dict[bytes, bytes]:
        if seq == 4:
            body = msgspec.msgpack.decode(fields[b"e"])
            body[6] = {"i": 999}
            fields[b"e"] = msgspec.msgpack.encode(body)
            fields[b"h"] = event_hash(
                "last", 4, last.type, last.schema, last.at, last.request_id, {"i": 999},
                last.prev_hash,
            ).encode()  # fmt: skip
        return fields

    await rewrite_entries(store, backend, "last", change)
    result = await store.verify("last")
    assert not result.ok and result.first_bad_seq == 4


# --- trimming, keys ----------------------------------------------------


async def test_streams_are_never_trimmed(backend: Backend) -> None:
    store = backend.store(feed_maxlen=10)  # the global feed is trimmed, streams never
    try:
        await fill(store, "long", 400, batch=1)
        assert await store.version("long") == 399
        assert len(await store.read("long")) == 400
        client = backend.client_for(store.keys.events("long"))
        try:
            assert client.xlen(store.keys.events("long")) == 400
        finally:
            client.close()
        feed = backend.client_for(store.keys.feed)
        try:
            assert feed.xlen(store.keys.feed) < 400
        finally:
            feed.close()
    finally:
        await store.close()


async def test_keys_of_a_stream_share_a_slot(store: RedisEventStore, backend: Backend) -> None:
    await store.append("m:42", [ev()], -1, "one")
    keys = store.keys
    assert keys.events("m:42") == f"{keys.prefix}:{{m:42}}:events"
    assert same_slot(keys.events("m:42"), keys.meta("m:42"))
    client = backend.client_for(keys.events("m:42"))
    try:
        assert client.exists(keys.events("m:42"), keys.meta("m:42")) == 2
        assert client.hget(keys.meta("m:42"), "r:one") == b"0 0"
    finally:
        client.close()


async def test_a_request_record_keeps_its_fingerprint(
    store: RedisEventStore, backend: Backend
) -> None:
    await store.append("m:7", [ev(), ev()], -1, "cmd", fingerprint="seat 0: play 3S 3H")
    key = store.keys.meta("m:7")
    client = backend.client_for(key)
    try:
        assert client.hget(key, "r:cmd") == b"0 1 seat 0: play 3S 3H"
        client.hset(key, "r:old", "5 6")  # written before fingerprints: none
    finally:
        client.close()
    assert await store.request_result("m:7", "old") == AppendResult(5, 6, True)
    assert (await store.append("m:7", [ev()], 1, "old")).duplicate
    with pytest.raises(RequestIdReused):
        await store.append("m:7", [ev()], 1, "old", fingerprint="now one")
