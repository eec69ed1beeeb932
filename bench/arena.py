"""`python -m bench.arena`: how many queued players the arena seats per second, and
what the ratings projection costs per rated game. Prints figures; asserts nothing.

    python -m bench.arena [--players 400] [--games 2000]

Seating: ``--players`` registered players queue at once in one pool (federation.4-5,
tables of four, every rating new so every window overlaps); the arena forms tables
until all are seated. Each seating is a rated match created and four joins (each
checking the player's key), on a private Redis (appendfsync no) and, side by side, on
the in-memory store: the difference is the store's round trips.

Ratings: ``--games`` rated four-player games among 50 players, folded from a pool's
stream (OpenSkill Plackett-Luce per game: what a replica's first read, or a restart,
pays per game), then the recorder's append of one GameRated per game to Redis (what
the lease holder pays per game as games end).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from collections.abc import Sequence

from eventstore import EventStore, InMemoryEventStore, NewEvent, RedisEventStore, RedisServer
from service.app.arena import Arena, ArenaSettings, Seating
from service.app.keyring import Keyring
from service.app.ratings import PoolFold, RatedGame, Ratings, Seat, fold_events, pool_stream
from service.app.service import GameService

POOL = "federation.4-5"


async def seat_queue(store: EventStore, players: int) -> tuple[float, int]:
    """Seconds to seat ``players`` queued at once, and how many were seated."""
    service = GameService(store, Keyring(random.randbytes(32)))
    arena = Arena(service, Ratings(store), ArenaSettings(tick=3600))  # ticks: by hand
    keys = [(await service.players.register(f"b{n}")).key for n in range(players)]
    seated: list[Seating] = []

    async def queued(key: str) -> None:
        seatings = arena.queue(key, POOL)
        seated.append(await anext(seatings))
        await seatings.aclose()

    tasks = [asyncio.create_task(queued(key)) for key in keys]
    while arena.queued_count < players:  # every one queued before the clock starts
        await asyncio.sleep(0.01)
    start = time.perf_counter()
    await arena.form_tables(time.monotonic())
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - start
    arena.stop()
    return elapsed, len(seated)


def rated_games(count: int) -> list[RatedGame]:
    rng = random.Random(1)
    people = [Seat(f"id{n}", f"p{n}") for n in range(50)]
    return [
        RatedGame("m", seq, tuple(rng.sample(people, 4)), tuple(rng.sample(range(1, 5), 4)))
        for seq in range(count)
    ]


async def ratings_cost(redis: RedisEventStore, games: int) -> None:
    log = rated_games(games)
    memory = InMemoryEventStore()
    stream = pool_stream(POOL)
    for seq, game in enumerate(log):
        await memory.append(stream, [NewEvent("GameRated", game.data(), 1)], seq - 1)
    events = await memory.read(stream)
    start = time.perf_counter()
    fold_events(events, PoolFold())
    fold = time.perf_counter() - start
    start = time.perf_counter()
    await Ratings(memory).pool(POOL)
    rebuild = time.perf_counter() - start
    start = time.perf_counter()
    for seq, game in enumerate(log[:500]):
        record = NewEvent("GameRated", game.data(), 1)
        version = await redis.version(stream)
        await redis.append(stream, [record], version, f"game:m:{seq}")
    append = (time.perf_counter() - start) / min(games, 500)
    print(f"ratings fold:            {fold / games * 1e6:8.1f} µs per game ({games} games)")
    print(f"ratings rebuild (store): {rebuild / games * 1e6:8.1f} µs per game (read + decode)")
    print(f"recorder append (Redis): {append * 1e6:8.1f} µs per game (version + append)")


async def run(players: int, games: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = RedisServer(folder, appendonly=False).start()
        try:
            redis = RedisEventStore.from_url(server.url, prefix="bench-arena")
            for name, store in (("memory", InMemoryEventStore()), ("redis", redis)):
                elapsed, seated = await seat_queue(store, players)
                print(
                    f"arena seating ({name:6}): {seated} players in {elapsed:.2f} s = "
                    f"{seated / elapsed:7.0f} players/s ({seated // 4} rated matches)"
                )
            await ratings_cost(redis, games)
            await redis.close()
        finally:
            server.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.arena", description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args(argv)
    asyncio.run(run(args.players, args.games))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
