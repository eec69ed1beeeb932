"""The game API's speed, beside its floor, in one run. Prints figures; asserts nothing.

    .venv/bin/python -m bench.grpc_api [--plays N] [--matches M] [--seconds S] [--rounds R]
                                       [--loop asyncio|uvloop] [--split]

1. Sequential: p50/p99 latency of one Act (a play or pass with its Redis append)
   through gRPC, against the floor: a grpc.aio call whose handler does the same Lua
   append through the event store and nothing else. With ``--split``, where each
   side's calls go: to the handler (the client's call, the transport, the server's
   reading), in it, and back (the answer's way and the client's reading of it), from
   each handler's own span, timed in its process (one clock on one machine).
2. Concurrent: actions/s with M bot matches at once (every seat a bot client task that
   takes each turn with one Act call), against the floor's calls/s with M callers.

Each side runs R times, alternating with the other, and the ratios are the medians.

The game service and the floor each run in a process of their own, as `daifugo
serve` would; the callers (bots) run in this one.

Redis: REDIS_URL, else a private redis-server started for the run (so projections
have no history to catch up on, and figures compare between runs).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import cProfile
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

import grpc

from clients.bots import GreedyBot
from clients.runner import Chooser, play_seat
from clients.sdk import DaifugoClient
from eventstore import NewEvent, RedisEventStore, RedisServer
from service import event_loop
from service.event_loop import LOOPS, Loop
from service.grpc.servicer import MatchServicer
from service.rules.commands import SeatCommand
from service.rules.views import View
from service.runtime import running_service, tune_gc_for_serving

T = TypeVar("T")
P = ParamSpec("P")
FLOOR_METHOD = "/bench.Floor/Append"
FLOOR_EVENT = NewEvent("CardsPlayed", {"seat": 1, "cards": ["4D"]})  # what a floor appends
SPANS_FILE = "BENCH_SPANS"  # env: where a served process writes its handlers' spans
Span = tuple[float, float]  # perf_counter at a call's start and end: one clock per machine


def handler_spans() -> list[Span] | None:
    """The list a served process notes its handlers' spans in, when asked to."""
    return [] if os.environ.get(SPANS_FILE) else None


def write_spans(spans: list[Span] | None) -> None:
    if spans is not None:
        with open(os.environ[SPANS_FILE], "w") as out:
            out.writelines(f"{start} {end}\n" for start, end in spans)


def timed(
    handler: Callable[P, Awaitable[T]], spans: list[Span]
) -> Callable[P, Coroutine[Any, Any, T]]:
    """``handler``, noting the span of each call in ``spans``."""

    async def call(*args: P.args, **kwargs: P.kwargs) -> T:
        started = time.perf_counter()
        try:
            return await handler(*args, **kwargs)
        finally:
            spans.append((started, time.perf_counter()))

    return call


def read_spans(path: str) -> list[Span]:
    with open(path) as spans:
        return sorted((float(start), float(end)) for start, end in map(str.split, spans))


async def serve_floor(redis_url: str) -> None:
    """A bare grpc.aio server whose one handler appends one event; prints its port."""
    store = RedisEventStore.from_url(redis_url, prefix=f"floor-{uuid.uuid4().hex[:6]}")
    versions: dict[str, int] = {}
    spans = handler_spans()

    async def append(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
        stream = request.decode()
        result = await store.append(
            stream,
            [FLOOR_EVENT],
            versions.get(stream, -1),
        )
        versions[stream] = result.last_seq
        return b"ok"

    if spans is not None:
        append = timed(append, spans)
    handler = grpc.method_handlers_generic_handler(
        "bench.Floor", {"Append": grpc.unary_unary_rpc_method_handler(append)}
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        await serve_until_stdin_closes(port)
    finally:
        await server.stop(grace=None)
        await store.close()
        write_spans(spans)


async def serve_game(redis_url: str) -> None:
    tune_gc_for_serving()  # as `daifugo serve` does
    spans = handler_spans()
    if spans is not None:  # in this bench's served process only
        MatchServicer.Act = timed(MatchServicer.Act, spans)  # type: ignore[method-assign]
    async with running_service(redis_url, grpc_port=0, timers=False) as running:
        profile_to = os.environ.get("BENCH_PROFILE")  # where the service's time goes
        profiler = cProfile.Profile() if profile_to else None
        if profiler is not None:
            profiler.enable()
        await serve_until_stdin_closes(running.grpc_port)
        if profiler is not None and profile_to:
            profiler.disable()
            profiler.dump_stats(profile_to)
    write_spans(spans)


async def serve_until_stdin_closes(port: int) -> None:
    print(port, flush=True)
    await asyncio.to_thread(sys.stdin.read)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (Linux; 0 elsewhere): a figure that
    holds when other work shares the machine, unlike rates."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Server:
    port: int
    pid: int


@contextlib.contextmanager
def server_process(
    kind: str,
    redis_url: str,
    loop: Loop = "asyncio",
    bench: str = "bench.grpc_api",
    spans_to: str | None = None,
) -> Iterator[Server]:
    """Run ``--serve kind`` of the module ``bench`` in a child process, on the event
    loop ``loop``; ``spans_to``: the file it writes its handlers' spans to as it ends."""
    env = {**os.environ, "REDIS_URL": redis_url}
    if spans_to is not None:
        env[SPANS_FILE] = spans_to
    child = subprocess.Popen(
        [sys.executable, "-m", bench, "--serve", kind, "--loop", loop],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        yield Server(int(child.stdout.readline()), child.pid)
    finally:
        child.stdin.close()
        child.wait(timeout=30)


def percentile(samples: Sequence[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def durations(spans: Sequence[Span]) -> list[float]:
    return [end - start for start, end in spans]


def split(calls: Sequence[Span], handled: Sequence[Span]) -> tuple[float, float, float]:
    """The medians of a sequential call's three parts: from its start to its handler's
    (the client's sending, the transport, the server's reading and guards), the
    handler, and from the handler's end to the call's (the way back and the client's
    reading of the answer). Each call is matched with the handler span inside it."""
    starts = [start for start, _ in handled]
    to, at, back = [], [], []
    for start, end in calls:
        index = bisect.bisect_left(starts, start)
        if index < len(handled) and handled[index][1] <= end:
            began, ended = handled[index]
            to.append(began - start)
            at.append(ended - began)
            back.append(end - ended)
    if not to:
        return (0.0, 0.0, 0.0)
    return statistics.median(to), statistics.median(at), statistics.median(back)


async def floor_latency(port: int, calls: int) -> list[Span]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(FLOOR_METHOD)
        stream = f"s{uuid.uuid4().hex[:6]}".encode()
        spans = []
        for _ in range(calls):
            started = time.perf_counter()
            await call(stream)
            spans.append((started, time.perf_counter()))
        return spans


async def floor_throughput(port: int, callers: int, seconds: float) -> tuple[float, int]:
    """Calls/s and calls made."""
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
        return done / (time.perf_counter() - started), done


async def act_latency(client: DaifugoClient, plays: int) -> list[Span]:
    """Time each Act of whole matches played one action at a time."""
    timings: list[Span] = []
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
            turn = await seat.turn()
            command = bot(turn.view, turn.actions)
            started = time.perf_counter()
            await seat.act(command)
            timings.append((started, time.perf_counter()))
    return timings


async def match_throughput(
    client: DaifugoClient, matches: int, seconds: float
) -> tuple[float, int]:
    """Actions/s and actions taken."""
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
    return acts / (time.perf_counter() - started), acts


async def run(
    redis_url: str,
    plays: int,
    matches: int,
    seconds: float,
    rounds: int,
    loop: Loop,
    spans_in: str | None = None,
) -> None:
    """``spans_in``: a folder for the handlers' spans (then where the time goes)."""
    # the two sides alternate, round by round: a machine that speeds up or slows down
    # meanwhile (a shared host does) weighs on both alike
    ms = 1000
    game_spans = os.path.join(spans_in, "game") if spans_in else None
    floor_spans = os.path.join(spans_in, "floor") if spans_in else None
    base: list[Span] = []
    acts: list[Span] = []
    print(f"the service and the floor on the {loop} event loop")
    with (
        server_process("game", redis_url, loop, spans_to=game_spans) as game,
        server_process("floor", redis_url, loop, spans_to=floor_spans) as floor,
    ):
        async with DaifugoClient(f"127.0.0.1:{game.port}") as client:
            await floor_latency(floor.port, 200)  # warm-up
            await act_latency(client, 200)
            for _ in range(rounds):
                base += await floor_latency(floor.port, plays // rounds)
                acts += await act_latency(client, plays // rounds)
            print(f"sequential, {len(acts)} calls each")
            for name, spans in (("Act (play or pass)", acts), ("floor (Lua append)", base)):
                taken = durations(spans)
                print(
                    f"  {name}  p50 {percentile(taken, 0.5) * ms:6.2f} ms"
                    f"  p99 {percentile(taken, 0.99) * ms:6.2f} ms"
                )
            ratio = statistics.median(durations(acts)) / statistics.median(durations(base))
            print(f"  ratio p50 {ratio:.2f} x (target <= 2x)")
            print(f"concurrent, {matches} at once, {rounds} rounds of {seconds:.0f} s each side")
            ratios = []
            for _ in range(rounds):
                floor_cpu = cpu_seconds(floor.pid)
                floor_rate, floor_calls = await floor_throughput(floor.port, matches, seconds)
                floor_cpu = cpu_seconds(floor.pid) - floor_cpu
                game_cpu, bots_cpu = cpu_seconds(game.pid), cpu_seconds(os.getpid())
                act_rate, act_calls = await match_throughput(client, matches, seconds)
                game_cpu = cpu_seconds(game.pid) - game_cpu
                bots_cpu = cpu_seconds(os.getpid()) - bots_cpu
                ratios.append(act_rate / floor_rate)
                print(
                    f"  bot matches {act_rate:5.0f} actions/s"
                    f" (service CPU {game_cpu / max(1, act_calls) * ms:.2f} ms,"
                    f" bots {bots_cpu / max(1, act_calls) * ms:.2f} ms per action);"
                    f" floor {floor_rate:5.0f} calls/s"
                    f" ({floor_cpu / max(1, floor_calls) * ms:.2f} ms per call): {ratios[-1]:.2f}"
                )
            print(f"  ratio, median of the rounds {statistics.median(ratios):.2f} (target >= 0.5)")
    if game_spans and floor_spans:  # written as the served processes ended
        print(
            "where a sequential call goes, medians of each part (ms): to the handler, in it, back"
        )
        for name, calls, handled in (("Act", acts, game_spans), ("floor", base, floor_spans)):
            parts = split(calls, read_spans(handled))
            print(f"  {name:5} " + "  ".join(f"{part * ms:5.2f}" for part in parts))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--plays", type=int, default=2000)
    parser.add_argument("--matches", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--loop", choices=LOOPS, default="asyncio", help="the served processes' event loop"
    )
    parser.add_argument(
        "--split", action="store_true", help="also where a sequential call's time goes"
    )
    parser.add_argument("--serve", choices=("game", "floor"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    redis_url = os.environ.get("REDIS_URL")
    if args.serve == "game" and redis_url:
        event_loop.run(serve_game(redis_url), args.loop)
    elif args.serve == "floor" and redis_url:
        event_loop.run(serve_floor(redis_url), args.loop)
    else:
        with contextlib.ExitStack() as stack:
            spans_in = stack.enter_context(tempfile.TemporaryDirectory()) if args.split else None
            if not redis_url:
                server = RedisServer(tempfile.mkdtemp(prefix="bench-redis-"), appendonly=False)
                redis_url = server.start().url
                stack.callback(server.stop)
            measured = (args.plays, args.matches, args.seconds, args.rounds, args.loop, spans_in)
            asyncio.run(run(redis_url, *measured))


if __name__ == "__main__":
    main()
