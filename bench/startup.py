"""`python -m bench.startup`: how long the lease holder's workers take to start when the
store holds many finished matches. Prints figures; asserts nothing.

    python -m bench.startup [--matches 20000] [--rounds 3]

Until the workers have started, no turn timer runs: a replica that takes the lease over
(a restart, a failover) leaves every timed match without its clock that long. Each round
a ``Background`` takes the lease, as a replica's does, and starts its followers (the
projections, the sealer, the turn timers, the bot seats); the figures are the time until
the turn timers have started, until every follower has (the first round's projections
also catch up on every stored match), and the process's CPU meanwhile. Then what
following such a store costs once started, which grows with every match ever stored: a
look at every stream (the global feed's sweep, every minute) and a map of positions.

A private Redis is started (appendfsync no) and filled with ``--matches`` streams whose
last event is a match's last (``MatchSealed``), and stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Sequence

from clients.bots import bot_of_kind
from eventstore import InMemoryCheckpoints, NewEvent, RedisEventStore, RedisServer, RedisStorage
from service.app.background import Background
from service.app.following import SharedFeed
from service.app.keyring import Keyring
from service.app.scanning import scan_streams
from service.app.service import GameService
from service.app.timers import TurnTimers

FILL_AT_ONCE = 64
SEALED = [NewEvent("MatchSealed", {"head": "0" * 64, "key_id": "bench", "signature": ""})]


async def fill(store: RedisEventStore, matches: int) -> None:
    gate = asyncio.Semaphore(FILL_AT_ONCE)

    async def one(number: int) -> None:
        async with gate:
            await store.append(f"m:bench{number:09d}", SEALED, -1)

    await asyncio.gather(*(one(number) for number in range(matches)))


async def workers_start(service: GameService, store: RedisEventStore) -> tuple[float, float, float]:
    """Seconds from taking the lease until the turn timers have started, and until every
    follower has; the CPU seconds this process spent until then."""
    background = Background(service, RedisStorage(store), make_bot=bot_of_kind)
    cpu, started = time.process_time(), time.perf_counter()
    running = asyncio.create_task(background.run())
    timers_at = 0.0
    while True:
        # the workers Background started (private: a bench looks inside)
        feed = next((w for w, _ in background._running if isinstance(w, SharedFeed)), None)
        if feed is not None:
            timers = next(i for i, f in enumerate(feed.followers) if isinstance(f, TurnTimers))
            if not timers_at and timers not in feed.starting:
                timers_at = time.perf_counter() - started
            if not feed.starting:
                break
        await asyncio.sleep(0.005)
    every, spent = time.perf_counter() - started, time.process_time() - cpu
    background.stop()
    await running
    return timers_at, every, spent


async def following_costs(store: RedisEventStore) -> tuple[float, float, int, int]:
    """What following a store of finished matches costs once started: the seconds (and
    CPU seconds) of one look at every stream with nothing new in any (what the feed does
    every minute, ``sweep_every``), and the bytes of a map of every stream's position,
    its stream ids included, and of each further map of them (the shared feed keeps one
    per follower, and one for its read)."""
    tracemalloc.start()
    positions = (await scan_streams(store)).positions
    first = tracemalloc.get_traced_memory()[0]
    copy = tracemalloc.get_traced_memory()[0]
    further = dict(positions)
    copy = tracemalloc.get_traced_memory()[0] - copy
    tracemalloc.stop()
    del further
    cpu, started = time.process_time(), time.perf_counter()
    async with store.subscribe_all(InMemoryCheckpoints(positions), live=False) as feed:
        async for event in feed:
            raise AssertionError(f"nothing is new, yet {event.stream} {event.seq} came")
    return time.perf_counter() - started, time.process_time() - cpu, first, copy


async def run(matches: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = RedisServer(folder, appendfsync="no").start()
        store = RedisEventStore.from_url(server.url)
        try:
            started = time.perf_counter()
            await fill(store, matches)
            print(f"{matches} finished matches stored in {time.perf_counter() - started:.1f} s")
            service = GameService(store, Keyring(b"k" * 32))
            timers_started = []
            for round_ in range(rounds):
                timers_at, every, cpu = await workers_start(service, store)
                timers_started.append(timers_at)
                print(
                    f"  round {round_ + 1}: turn timers started after {timers_at:6.2f} s,"
                    f" every follower after {every:6.2f} s; {cpu:6.2f} s CPU"
                )
            median = statistics.median(timers_started)
            print(f"turn timers: median {median:.2f} s, {median / matches * 1e6:.0f} µs a match")
            wall, cpu, first, further = await following_costs(store)
            print(f"then, every minute: a look at every stream {wall:.2f} s ({cpu:.2f} s CPU)")
            print(
                f"and kept: a map of positions {first / 1e6:.1f} MB with its ids,"
                f" {further / 1e6:.1f} MB each further map"
            )
        finally:
            await store.close()
            server.stop()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    asyncio.run(run(args.matches, args.rounds))


if __name__ == "__main__":
    main()
