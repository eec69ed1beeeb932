"""The event store contract, run against one Redis server and against a 3-master cluster."""

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
    GENESIS_HASH,
    AppendResult,
    ConcurrencyConflict,
    CorruptEvent,
    InvalidEvent,
    NewEvent,
    RedisEventStore,
    StoredEvent,
    StoreUnavailable,
    Upcasters,
    recompute_hash,
)
from eventstore.hashing import event_hash
from eventstore.scripts import Script

from .conftest import Backend, same_slot


def ev(type_: str = "Tick", **data: Any) -> NewEvent:
    return NewEvent(type_, data)


async def fill(store: RedisEventStore, stream: str, n: int, batch: int = 1) -> None:
    version = await store.version(stream)
    i = version + 1
    while i < n:
        events = [ev(i=j) for j in range(i, min(n, i + batch))]
        version = (await store.append(stream, events, version)).last_seq
        i = version + 1


def seqs(events: list[StoredEvent]) -> list[int]:
    return [e.seq for e in events]


# --- append, read, version ---------------------------------------------------------------


async def test_append_read_roundtrip(store: RedisEventStore, backend: Backend) -> None:
    first = await store.append(
        "m:1",
        [NewEvent("Started", {"players": 4, "name": "テスト"}), NewEvent("Dealt", {"h": [[1, 2]]})],
        -1,
        "req-1",
    )
    assert first == AppendResult(0, 1, False)
    assert await store.version("m:1") == 1
    second = await store.append("m:1", [NewEvent("Played", {"x": None, "ok": True}, 2)], 1)
    assert second == AppendResult(2, 2, False)
    events = await store.read("m:1")
    assert seqs(events) == [0, 1, 2]
    e0, e1, e2 = events
    assert (e0.stream, e0.type, e0.schema, e0.data) == (
        "m:1",
        "Started",
        1,
        {"players": 4, "name": "テスト"},
    )
    assert e1.data == {"h": [[1, 2]]} and e0.request_id == e1.request_id == "req-1"
    assert e2.schema == 2 and e2.request_id and e2.request_id != "req-1"
    assert e0.prev_hash == GENESIS_HASH
    assert e1.prev_hash == e0.hash and e2.prev_hash == e1.hash
    assert all(recompute_hash(e) == e.hash for e in events)
    assert e0.at == e1.at and e0.at > 1_600_000_000_000
    assert store.is_cluster is backend.cluster


async def test_empty_stream_and_bad_input(store: RedisEventStore) -> None:
    assert await store.version("nothing") == -1
    assert await store.read("nothing") == []
    with pytest.raises(InvalidEvent):
        await store.append("s", [], -1)
    with pytest.raises(InvalidEvent):
        await store.append("s", [ev()], -2)
    with pytest.raises(InvalidEvent):
        await store.append("bad{id}", [ev()], -1)
    with pytest.raises(InvalidEvent):
        await store.append("s", [NewEvent("T", {1: "int key"})], -1)  # type: ignore[dict-item]
    with pytest.raises(InvalidEvent):
        await store.append("s", [NewEvent("T", {"x": float("nan")})], -1)
    with pytest.raises(InvalidEvent):
        await store.append("s", [NewEvent("T", {"x": {1, 2}})], -1)
    with pytest.raises(InvalidEvent):
        await store.append("s", [NewEvent("T", {"x": 2**70})], -1)
    with pytest.raises(InvalidEvent):
        await store.append("s", [NewEvent("", {})], -1)
    assert await store.version("s") == -1


async def test_read_pages(store: RedisEventStore) -> None:
    await fill(store, "p", 25, batch=7)
    assert seqs(await store.read("p", 10, 5)) == [10, 11, 12, 13, 14]
    assert seqs(await store.read("p", 20)) == [20, 21, 22, 23, 24]
    assert await store.read("p", 25) == []
    pages = [seqs(page) async for page in store.read_pages("p", 3, page_size=10)]
    assert pages == [list(range(3, 13)), list(range(13, 23)), [23, 24]]


async def test_conflict_carries_actual_version_and_writes_nothing(store: RedisEventStore) -> None:
    await store.append("c", [ev(), ev()], -1)
    for expected in (-1, 0, 2, 7):
        with pytest.raises(ConcurrencyConflict) as info:
            await store.append("c", [ev(bad=True)], expected)
        assert info.value.actual_version == 1
        assert info.value.expected_version == expected
    assert await store.version("c") == 1
    assert all("bad" not in e.data for e in await store.read("c"))


async def test_twenty_writers_race_exactly_one_wins_each_version(backend: Backend) -> None:
    writers = [backend.store(prefix=backend.prefixes[0] if backend.prefixes else None)]
    writers += [backend.store(prefix=writers[0].keys.prefix) for _ in range(19)]
    try:
        for version in range(-1, 6):

            async def attempt(i: int, v: int = version) -> AppendResult | int:
                try:
                    return await writers[i].append("race", [ev(writer=i, v=v)], v)
                except ConcurrencyConflict as exc:
                    return exc.actual_version

            outcomes = await asyncio.gather(*(attempt(i) for i in range(20)))
            wins = [o for o in outcomes if isinstance(o, AppendResult)]
            assert len(wins) == 1, outcomes
            assert wins[0] == AppendResult(version + 1, version + 1, False)
            assert [o for o in outcomes if not isinstance(o, AppendResult)] == [version + 1] * 19
        events = await writers[0].read("race")
        assert seqs(events) == list(range(7))
        assert (await writers[0].verify("race")).ok
    finally:
        for w in writers:
            await w.close()


async def test_twenty_writers_retrying_land_every_event_once(backend: Backend) -> None:
    first = backend.store()
    writers = [first] + [backend.store(prefix=first.keys.prefix) for _ in range(19)]
    per_writer = 4

    async def writer(i: int) -> None:
        store = writers[i]
        version = await store.version("busy")
        for k in range(per_writer):
            while True:
                try:
                    result = await store.append(
                        "busy", [ev(writer=i, k=k)], version, request_id=f"w{i}-{k}"
                    )
                    version = result.last_seq
                    break
                except ConcurrencyConflict as exc:
                    version = exc.actual_version

    try:
        await asyncio.gather(*(writer(i) for i in range(20)))
        events = await first.read("busy")
        assert seqs(events) == list(range(20 * per_writer))
        assert sorted((e.data["writer"], e.data["k"]) for e in events) == [
            (i, k) for i in range(20) for k in range(per_writer)
        ]
        assert (await first.verify("busy")).ok
    finally:
        for w in writers:
            await w.close()


# --- exactly-once retries ----------------------------------------------------------------


async def test_same_request_id_returns_first_result_and_writes_nothing(
    store: RedisEventStore,
) -> None:
    first = await store.append("r", [ev(n=1), ev(n=2)], -1, "cmd-1")
    await store.append("r", [ev(n=3)], 1, "cmd-2")
    again = await store.append("r", [ev(n=1), ev(n=2)], -1, "cmd-1")
    assert again == AppendResult(0, 1, True)
    # whatever the expected version or the events: the first outcome, nothing written
    assert await store.append("r", [ev(other=True)], 2, "cmd-1") == AppendResult(0, 1, True)
    assert await store.append("r", [ev()], 99, "cmd-2") == AppendResult(2, 2, True)
    assert first == AppendResult(0, 1, False)
    assert await store.version("r") == 2
    assert await store.request_result("r", "cmd-1") == AppendResult(0, 1, True)
    assert await store.request_result("r", "cmd-2") == AppendResult(2, 2, True)
    assert await store.request_result("r", "never") is None
    # request ids are per stream
    assert await store.append("other", [ev()], -1, "cmd-1") == AppendResult(0, 0, False)


class LoseReply:
    """Runs the real script, then loses the reply (as a dropped connection would)."""

    def __init__(self, script: Script, times: int = 1) -> None:
        self.script = script
        self.times = times
        self.calls = 0

    async def run(self, client: Any, keys: Any, args: Any) -> Any:
        self.calls += 1
        reply = await self.script.run(client, keys, args)
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


# --- subscriptions -----------------------------------------------------------------------


async def collect(sub: Any, until_seq: int, timeout: float = 20.0) -> list[StoredEvent]:
    out: list[StoredEvent] = []

    async def run() -> None:
        async for event in sub:
            out.append(event)
            if event.seq >= until_seq:
                return

    await asyncio.wait_for(run(), timeout)
    return out


async def test_subscribe_catches_up_then_follows_live(store: RedisEventStore) -> None:
    await fill(store, "live", 30, batch=4)

    async def writer() -> None:
        for _ in range(30):
            await asyncio.sleep(0.002)
            v = await store.version("live")
            await store.append("live", [ev(), ev()], v)

    task = asyncio.create_task(writer())
    async with store.subscribe("live", 5, block_ms=200) as sub:
        got = await collect(sub, 89)
    await task
    assert seqs(got) == list(range(5, 90))
    assert got[0].prev_hash == (await store.read("live", 4, 1))[0].hash


async def test_subscriber_killed_and_restarted_misses_nothing(store: RedisEventStore) -> None:
    total = 200
    seen: list[int] = []

    async def writer() -> None:
        version = -1
        for i in range(0, total, 4):
            version = (
                await store.append("k", [ev(i=j) for j in range(i, i + 4)], version)
            ).last_seq
            await asyncio.sleep(0.001)

    async def subscriber(from_seq: int, stop_after: int | None) -> None:
        async with store.subscribe("k", from_seq, block_ms=200, batch=7) as sub:
            async for event in sub:
                seen.append(event.seq)
                if stop_after is not None and len(seen) >= stop_after:
                    await asyncio.sleep(3600)  # stuck mid-stream until killed
                if event.seq == total - 1:
                    return

    writing = asyncio.create_task(writer())
    first = asyncio.create_task(subscriber(0, stop_after=57))
    while len(seen) < 57:
        await asyncio.sleep(0.005)
    first.cancel()  # killed
    with pytest.raises(asyncio.CancelledError):
        await first
    await asyncio.wait_for(subscriber(seen[-1] + 1, None), 20)
    await writing
    assert seen == list(range(total))


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


async def test_verify_ok(store: RedisEventStore) -> None:
    await fill(store, "v", 12, batch=5)
    result = await store.verify("v")
    assert result.ok and result.checked == 12 and result.first_bad_seq is None
    assert result.head_hash == (await store.read("v", 11))[0].hash
    empty = await store.verify("none")
    assert empty.ok and empty.checked == 0 and empty.head_hash == GENESIS_HASH


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


# --- upcasting, index, trimming, keys ----------------------------------------------------


async def test_upcasters_lift_old_schemas_on_read(backend: Backend) -> None:
    writer = backend.store()
    await writer.append("u", [NewEvent("Played", {"card": 5}, 1), NewEvent("Other", {})], -1)
    up = Upcasters()

    @up.register("Played", 1)
    def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
        return {"cards": [data["card"]]}

    up.add("Played", 2, lambda d: {**d, "jokers": []}, rename_to="CardsPlayed")
    reader = backend.store(prefix=writer.keys.prefix, upcasters=up)
    try:
        played, other = await reader.read("u")
        assert (played.type, played.schema, played.data) == (
            "CardsPlayed",
            3,
            {"cards": [5], "jokers": []},
        )
        assert other.type == "Other" and other.schema == 1
        assert (await reader.verify("u")).ok  # the hash is over the stored event
    finally:
        await writer.close()
        await reader.close()


async def test_stream_index_lists_oldest_first(store: RedisEventStore) -> None:
    for name in ("m:b", "m:a", "m:c"):
        await store.append(name, [ev()], -1)
    await store.append("m:a", [ev()], 0)
    assert await store.streams() == ["m:b", "m:a", "m:c"]
    assert await store.streams(1, 1) == ["m:a"]
    assert await store.streams(3) == []
    assert await store.stream_count() == 3


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
