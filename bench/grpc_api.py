"""The game API's speed, beside its floor, in one run. Prints figures; asserts nothing.

    .venv/bin/python -m bench.grpc_api [--plays N] [--matches M]

1. Sequential: p50/p99 latency of one Act (a play or pass with its Redis append)
   through gRPC, against the floor: a grpc.aio call whose handler does the same Lua
   append through the event store and nothing else.
2. Concurrent: actions/s with M bot matches at once (every seat a bot client task),
   against the floor's calls/s with M concurrent callers.

Redis: REDIS_URL, else 127.0.0.1:6379 if it answers, else an embedded one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
import uuid
from collections.abc import Sequence

import grpc

from clients.bots import GreedyBot
from clients.runner import Chooser, play_seat
from clients.sdk import DaifugoClient
from eventstore import NewEvent, RedisEventStore
from service.app.runtime import running_service
from service.rules.commands import SeatCommand
from service.rules.views import View

FLOOR_METHOD = "/bench.Floor/Append"


async def start_floor(redis_url: str) -> tuple[grpc.aio.Server, int, RedisEventStore]:
    """A bare grpc.aio server whose one handler appends one event."""
    store = RedisEventStore.from_url(redis_url, prefix=f"floor-{uuid.uuid4().hex[:6]}")
    versions: dict[str, int] = {}

    async def append(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
        stream = request.decode()
        result = await store.append(
            stream,
            [NewEvent("CardsPlayed", {"seat": 1, "cards": ["4D"]})],
            versions.get(stream, -1),
        )
        versions[stream] = result.last_seq
        return b"ok"

    handler = grpc.method_handlers_generic_handler(
        "bench.Floor", {"Append": grpc.unary_unary_rpc_method_handler(append)}
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port, store


def percentile(samples: Sequence[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def floor_latency(port: int, calls: int) -> list[float]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(FLOOR_METHOD)
        stream = f"s{uuid.uuid4().hex[:6]}".encode()
        timings = []
        for _ in range(calls):
            started = time.perf_counter()
            await call(stream)
            timings.append(time.perf_counter() - started)
        return timings


async def floor_throughput(port: int, callers: int, seconds: float) -> float:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(FLOOR_METHOD)
        done = 0
        deadline = time.perf_counter() + seconds

        async def caller() -> None:
            nonlocal done
            stream = f"s{uuid.uuid4().hex[:6]}".encode()
            while time.perf_counter() < deadline:
                await call(stream)
                done += 1

        started = time.perf_counter()
        await asyncio.gather(*(caller() for _ in range(callers)))
        return done / (time.perf_counter() - started)


async def act_latency(client: DaifugoClient, plays: int) -> list[float]:
    """Time each Act of whole matches played one action at a time."""
    timings: list[float] = []
    bot = GreedyBot()
    while len(timings) < plays:
        created = await client.create_match("federation", 4, games_per_set=1)
        await client.host(created.match_id, created.host_token).start()
        seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
        for seat in seats:
            await seat.view()
        while len(timings) < plays:
            view = await seats[0].view()
            if view.phase != "in_game" or view.turn is None:
                break
            seat = seats[view.turn]
            actions = await seat.legal_actions()
            command = bot(await seat.view(), actions)
            started = time.perf_counter()
            await seat.act(command)
            timings.append(time.perf_counter() - started)
    return timings


async def match_throughput(client: DaifugoClient, matches: int, seconds: float) -> float:
    acts = 0
    deadline = time.perf_counter() + seconds

    def counting(bot: GreedyBot) -> Chooser:
        def choose(view: View, actions: list[SeatCommand]) -> SeatCommand:
            nonlocal acts
            acts += 1
            return bot(view, actions)

        return choose

    async def one_table() -> None:
        while time.perf_counter() < deadline:
            created = await client.create_match("federation", 4, games_per_set=1)
            await client.host(created.match_id, created.host_token).start()
            seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
            await asyncio.gather(*(play_seat(seat, counting(GreedyBot())) for seat in seats))

    started = time.perf_counter()
    await asyncio.gather(*(one_table() for _ in range(matches)))
    return acts / (time.perf_counter() - started)


async def run(plays: int, matches: int, seconds: float) -> None:
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
    async with running_service(redis_url, grpc_port=0, timers=False) as running:
        floor, floor_port, floor_store = await start_floor(redis_url)
        try:
            async with DaifugoClient(f"127.0.0.1:{running.grpc_port}") as client:
                await floor_latency(floor_port, 200)  # warm-up
                base = await floor_latency(floor_port, plays)
                acts = await act_latency(client, plays)
                ms = 1000
                print(f"sequential, {plays} calls each")
                print(
                    f"  Act (play or pass)  p50 {percentile(acts, 0.5) * ms:6.2f} ms"
                    f"  p99 {percentile(acts, 0.99) * ms:6.2f} ms"
                )
                print(
                    f"  floor (Lua append)  p50 {percentile(base, 0.5) * ms:6.2f} ms"
                    f"  p99 {percentile(base, 0.99) * ms:6.2f} ms"
                )
                ratio = statistics.median(acts) / statistics.median(base)
                print(f"  ratio p50 {ratio:.2f} x (target <= 2x)")
                floor_rate = await floor_throughput(floor_port, matches, seconds)
                act_rate = await match_throughput(client, matches, seconds)
                print(f"concurrent, {matches} at once, {seconds:.0f} s each")
                print(f"  bot matches   {act_rate:8.0f} actions/s")
                print(f"  floor callers {floor_rate:8.0f} calls/s")
                print(f"  ratio {act_rate / floor_rate:.2f} (target >= 0.5)")
        finally:
            await floor.stop(grace=None)
            await floor_store.close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--plays", type=int, default=2000)
    parser.add_argument("--matches", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args(argv)
    asyncio.run(run(args.plays, args.matches, args.seconds))


if __name__ == "__main__":
    main()
