"""`python -m bench.following`: what following the global feed costs the background
workers, a reader each against one shared reader (``SharedFeed``), side by side.

    python -m bench.following [--matches 16] [--rate 800] [--seconds 4] [--rounds 3]

A writer appends actions (two events each, as a play and its turn move) to ``--matches``
streams in turn at ``--rate`` actions/s. The five followers of the lease holder (the
projections, the sealer and the bot seats at a 0.25 s pace, the timers at 0.1 s) take
every event and do nothing with it, so the figures are the reading alone: the feed's
reads, the decoding, the hand-over. Each round measures this process's CPU until every
follower has taken the last event; the writer's own CPU, from a round with no follower,
is taken off. Rounds alternate (none, a reader each, shared) so a noisy machine moves
them alike. A private Redis is started (appendfsync no) and stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from eventstore import InMemoryCheckpoints, NewEvent, RedisEventStore, RedisServer, StoredEvent
from service.app.following import Resume, SharedFeed

PACES = (0.25, 0.25, 0.25, 0.1, 0.25)  # results, catalog, sealer, timers, bot seats
PLAY = NewEvent("CardsPlayed", {"seat": 2, "cards": ["5S", "5H"], "jokers": {}})
MOVE = NewEvent("TurnMoved", {"seat": 3})


class Counting:
    """A follower that only counts what it takes."""

    def __init__(self, pace: float, start: Mapping[str, int]) -> None:
        self.name = f"follower at {pace}"
        self.pace = pace
        self.positions = dict(start)
        self.taken = 0

    async def start(self) -> Resume:
        return Resume(self.positions)

    async def take(self, event: StoredEvent) -> None:
        self.taken += 1


async def a_reader_each(store: RedisEventStore, follower: Counting) -> None:
    """How each worker followed the feed before: a subscription of its own."""
    checkpoints = InMemoryCheckpoints(follower.positions)
    async with store.subscribe_all(checkpoints, pace=follower.pace) as feed:
        async for event in feed:
            checkpoints.commit(event.stream, event.seq)
            await follower.take(event)


async def write(store: RedisEventStore, streams: Sequence[str], actions: int, rate: float) -> None:
    versions = {stream: await store.version(stream) for stream in streams}
    started = time.perf_counter()
    for n in range(actions):
        stream = streams[n % len(streams)]
        versions[stream] = (await store.append(stream, [PLAY, MOVE], versions[stream])).last_seq
        ahead = started + (n + 1) / rate - time.perf_counter()
        if ahead > 0:
            await asyncio.sleep(ahead)


async def one_round(
    store: RedisEventStore, how: str, streams: Sequence[str], actions: int, rate: float
) -> float:
    """CPU seconds of this process for one round."""
    heads = {stream: await store.version(stream) for stream in streams}
    followers = [Counting(pace, heads) for pace in PACES]
    tasks: list[asyncio.Task[None]] = []
    shared = SharedFeed(store, followers)
    if how == "a reader each":
        tasks = [asyncio.create_task(a_reader_each(store, f)) for f in followers]
    elif how == "shared":
        tasks = [asyncio.create_task(shared.run())]
    await asyncio.sleep(0.5)  # every follower started
    cpu = time.process_time()
    await write(store, streams, actions, rate)
    while tasks and any(f.taken < 2 * actions for f in followers):
        await asyncio.sleep(0.01)
    cpu = time.process_time() - cpu
    shared.stop()
    for task in tasks:
        task.cancel()
    await asyncio.wait(tasks or [asyncio.create_task(asyncio.sleep(0))], timeout=5)
    return cpu


async def run(matches: int, rate: float, seconds: float, rounds: int, url: str) -> None:
    store = RedisEventStore.from_url(url, prefix="bench-following")
    streams = [f"m:bench{n}" for n in range(matches)]
    actions = int(rate * seconds)
    cpu: dict[str, list[float]] = {"none": [], "a reader each": [], "shared": []}
    try:
        for _ in range(rounds):
            for how in cpu:
                cpu[how].append(await one_round(store, how, streams, actions, rate))
    finally:
        await store.close()
    events = 2 * actions
    writer = statistics.median(cpu["none"])
    print(
        f"{matches} matches, {rate:.0f} actions/s ({events} events a round), five followers,"
        f" {rounds} alternating rounds; CPU of this process less the writer's"
        f" ({writer / events * 1e6:.1f} us an event)"
    )
    for how in ("a reader each", "shared"):
        per_event = [(c - writer) / events * 1e6 for c in cpu[how]]
        rounds_text = " / ".join(f"{value:.1f}" for value in per_event)
        print(f"  {how:14} {statistics.median(per_event):6.1f} us an event (rounds: {rounds_text})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.following", description=__doc__)
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--rate", type=float, default=800.0, help="actions per second")
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-following-") as base:
        redis = RedisServer(Path(base) / "redis", appendfsync="no").start()
        try:
            asyncio.run(run(args.matches, args.rate, args.seconds, args.rounds, redis.url))
        finally:
            redis.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
