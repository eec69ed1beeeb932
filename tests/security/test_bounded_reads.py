"""Anonymous reads of a long match must not fold it from event 0 (issue 31, B), and a
delayed match's reads must do the same work whatever is held back (L): each watched
through the Redis the service reads (MONITOR), counting the events every read of the
match's stream fetched. No timings: what is read is what can be folded."""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from collections.abc import Iterator

import httpx
import redis

from clients.bots import GreedyBot
from clients.runner import play_match, play_seat
from clients.sdk import DaifugoClient
from eventstore import RedisEventStore, RedisServer, RedisSnapshots
from service.app.match import stream_of
from service.app.snapshots import EVERY

_XRANGE = re.compile(r"^XRANGE (\S+) (\d+)-0 \+ COUNT (\d+)$")
_STOP = "monitor:stop"


class Reads:
    """Every XRANGE the Redis runs meanwhile, as (key, first seq, count asked)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ranges: list[tuple[str, int, int]] = []

    @contextlib.contextmanager
    def watched(self) -> Iterator[Reads]:
        client = redis.Redis.from_url(self.url)
        ready = threading.Event()

        def follow() -> None:
            with client.monitor() as monitor:
                ready.set()
                while True:
                    command = monitor.next_command()["command"]
                    if _STOP in command:
                        return
                    found = _XRANGE.match(command)
                    if found:
                        key, first, count = found.groups()
                        self.ranges.append((key, int(first), int(count)))

        thread = threading.Thread(target=follow, daemon=True)
        thread.start()
        ready.wait(10)
        try:
            yield self
        finally:
            redis.Redis.from_url(self.url).echo(_STOP)
            thread.join(10)
            client.close()

    def read_of(self, key_part: str, version: int) -> list[int]:
        """The events each read of a stream fetched (its version then: ``version``)."""
        return [
            min(count, version + 1 - first)
            for key, first, count in self.ranges
            if key_part in key and first <= version
        ]


async def snapshots_written(store: RedisEventStore, match_id: str) -> None:
    """Wait until the service has written the match's snapshots (after its appends)."""
    stream = stream_of(match_id)
    last = (await store.version(stream) + 1) // EVERY * EVERY - 1
    for _ in range(500):
        found = await RedisSnapshots(store).at_or_before(stream, last)
        if found is not None and found.seq == last:
            return
        await asyncio.sleep(0.02)


async def followed_to_its_end(http: httpx.AsyncClient, match_id: str) -> None:
    """Wait until the service's followers have read the match to its end (the list shows
    it finished): a lagging follower's own catch-up read is not a request's."""
    for _ in range(1000):
        listed = await http.get("/matches", params={"state": "finished", "limit": 200})
        if any(item["match_id"] == match_id for item in listed.json()["matches"]):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the followers did not reach the match's end")


async def nothing_else_reads(url: str, stream: str) -> None:
    """Wait until nothing in the background reads the stream (a follower that lagged on a
    loaded machine catching up on a live match): its read is not a request's."""
    for _ in range(40):
        with Reads(url).watched() as reads:
            await asyncio.sleep(0.5)
        if not reads.read_of(stream, 1 << 62):
            return
    raise AssertionError("the stream was still read in the background")


async def test_reads_of_a_long_finished_match_fetch_one_block_at_most(
    client: DaifugoClient,
    http: httpx.AsyncClient,
    store: RedisEventStore,
    redis_server: RedisServer,
) -> None:
    match_id = await play_match(
        client, "classic", [GreedyBot().choose for _ in range(3)], games_per_set=6
    )
    version = await store.version(stream_of(match_id))
    assert version > 6 * EVERY
    await snapshots_written(store, match_id)
    await followed_to_its_end(http, match_id)
    seqs = [0, EVERY - 1, EVERY, version // 2, version // 2 + 1, version - 1, version]
    with Reads(redis_server.url).watched() as reads:
        for seq in seqs:
            answer = await http.get(f"/matches/{match_id}/state", params={"seq": seq})
            assert answer.status_code == 200, answer.text
            assert answer.json()["seq"] == seq and answer.json()["version"] == version
        now = await http.get(f"/matches/{match_id}")
        assert now.status_code == 200 and now.json()["version"] == version
    fetched = reads.read_of(stream_of(match_id), version)
    assert fetched, "no read of the stream was seen"
    assert max(fetched) <= EVERY, fetched  # not seq + 1 events for the state at seq
    assert sum(fetched) <= len(seqs) * (EVERY + 1), fetched


async def play_until(client: DaifugoClient, store: RedisEventStore, held: int) -> str:
    """A live match with a spectator delay of an hour, played until more than ``held``
    events are stored after its setting up (all of them held back from spectators)."""
    created = await client.create_match("classic", 3, games_per_set=100, spectator_delay=3600)
    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    await client.host(created.match_id, created.host_token).start()
    tasks = [asyncio.create_task(play_seat(seat, GreedyBot().choose)) for seat in seats]
    try:
        while await store.version(stream_of(created.match_id)) < held:
            await asyncio.sleep(0.02)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return created.match_id


async def test_a_delayed_match_s_reads_do_the_same_work_whatever_is_held_back(
    client: DaifugoClient,
    http: httpx.AsyncClient,
    store: RedisEventStore,
    redis_server: RedisServer,
) -> None:
    few, many = (
        await play_until(client, store, 3 * EVERY),
        await play_until(client, store, 20 * EVERY),
    )
    for match_id in (few, many):
        await snapshots_written(store, match_id)
    fetched: dict[str, list[int]] = {}
    seen: dict[str, dict[str, object]] = {}
    for match_id in (few, many):
        version = await store.version(stream_of(match_id))
        await http.get(f"/matches/{match_id}")  # the service's own copy catches up first
        await nothing_else_reads(redis_server.url, stream_of(match_id))
        with Reads(redis_server.url).watched() as reads:
            for _ in range(3):
                answer = await http.get(f"/matches/{match_id}")
                assert answer.status_code == 200, answer.text
        seen[match_id] = answer.json()
        fetched[match_id] = reads.read_of(stream_of(match_id), version)
    # the honest path: each shows its setting up only (the start is an hour away)
    for match_id in (few, many):
        assert seen[match_id]["state"] == "open" and seen[match_id]["version"] == 3
    # ~190 and ~1,280 events held back: the same reads for both
    assert fetched[few] == fetched[many], fetched
    assert max(fetched[many]) <= EVERY + 1, fetched  # a block, and the snapshot's own event
