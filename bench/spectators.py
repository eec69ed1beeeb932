"""`daifugo bench spectators`: many SSE spectators on one live match; prints the delay
from an event's append to its delivery to each spectator (p50/p99/max), and the CPU
each delivery costs the service and the spectators' own processes.

    daifugo bench spectators [--spectators 1000] [--workers 2] [--pause 0.1]
                             [--games 1] [--loop asyncio|uvloop]

One `daifugo serve` process on a private Redis. The spectators are raw HTTP/1.1
connections to ``/matches/{id}/live``, spread over ``--workers`` child processes (so
their own parsing does not queue deliveries behind it). Once every spectator is
connected, four bots play the match through gRPC, each pausing ``--pause`` seconds
before it acts (a live pace; at full speed one match makes ~150 events/s). Delay =
arrival time minus the event's ``at`` (the service's clock just before the append,
in ms; one machine, one clock).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from clients.bots import GreedyBot
from clients.runner import play_seat
from clients.sdk import DaifugoClient
from eventstore import RedisServer
from service.event_loop import LOOPS, Loop
from tests.serve_process import ServeProcess

from .grpc_api import cpu_seconds, percentile

LAST_EVENT = b"MatchSealed"  # every match's last event
WATCH_TIMEOUT = 600.0


# an event's message, as the service writes it: the record's seq and time come first
MESSAGE = re.compile(rb'id: (\d+)\nevent: (\w+)\ndata: \{"seq":\d+,"at":(\d+(?:\.\d+)?)')


class Spectator(asyncio.Protocol):
    """One SSE response (chunked transfer encoding) read as it arrives, in the protocol's
    callback: a reader cheaper than the service's writer, so that the figures are the
    service's (a stream reader's task per connection cost the workers as much CPU per
    delivery as the service spent)."""

    def __init__(self, path: str, delays: list[float]) -> None:
        self.path, self.delays = path, delays
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.done: asyncio.Future[tuple[int, bool]] = asyncio.get_running_loop().create_future()
        self.raw = self.body = b""
        self.chunk: int | None = None  # the size of the chunk being read, once known
        self.headers = True  # still reading the response's head
        self.joined_ms = 0.0
        self.received, self.in_order = 0, True

    def itself(self) -> Spectator:
        """The protocol factory of its own connection."""
        return self

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        host, port = transport.get_extra_info("peername")[:2]
        head = f"GET {self.path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        request = f"{head}Accept: text/event-stream\r\n\r\n"
        transport.write(request.encode())

    def data_received(self, data: bytes) -> None:
        now_ms = time.time() * 1000
        self.raw += data
        if self.headers:
            head, found, self.raw = self.raw.partition(b"\r\n\r\n")
            if not found:
                self.raw = head
                return
            self.headers = False
            if int(head.split(b" ", 2)[1]) != 200:
                self.ready.set_exception(RuntimeError(f"GET {self.path} refused"))
                return
            self.joined_ms = now_ms
            self.ready.set_result(None)
        while True:  # take the whole chunks out of the raw bytes
            if self.chunk is None:
                size, found, rest = self.raw.partition(b"\r\n")
                if not found:
                    break
                self.chunk, self.raw = int(size, 16), rest
                if self.chunk == 0:
                    return self._end()
            if len(self.raw) < self.chunk + 2:
                break
            self.body += self.raw[: self.chunk]
            self.raw, self.chunk = self.raw[self.chunk + 2 :], None
        end = self.body.rfind(b"\n\n")
        if end < 0:
            return None
        whole, self.body = self.body[: end + 2], self.body[end + 2 :]
        for message in MESSAGE.finditer(whole):
            seq, kind, at = int(message[1]), message[2], float(message[3])
            self.in_order = self.in_order and seq == self.received
            self.received += 1
            if at >= self.joined_ms:  # appended after the spectator was in: a live one
                self.delays.append(now_ms - at)
            if kind == LAST_EVENT:
                return self._end()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()

    def _end(self) -> None:
        if not self.done.done():
            self.done.set_result((self.received, self.in_order))
            self.transport.close()


async def watch(port: int, path: str, count: int) -> None:
    """A worker: ``count`` spectators; says "ready" when all are in, then the delays."""
    loop = asyncio.get_running_loop()
    delays: list[float] = []
    spectators = [Spectator(path, delays) for _ in range(count)]
    for spectator in spectators:
        await loop.create_connection(spectator.itself, "127.0.0.1", port)
    await asyncio.wait_for(asyncio.gather(*(s.ready for s in spectators)), 60)
    print("ready", flush=True)
    ends = await asyncio.wait_for(asyncio.gather(*(s.done for s in spectators)), WATCH_TIMEOUT)
    counts, in_order = [count for count, _ in ends], all(ordered for _, ordered in ends)
    print(json.dumps({"delays": delays, "events": counts, "in_order": in_order}), flush=True)


async def play(target: str, match_id: str, tokens: Sequence[str], pause: float) -> None:
    async with DaifugoClient(target) as client:
        seats = [client.seat(match_id, token) for token in tokens]
        await asyncio.gather(*(play_seat(seat, GreedyBot(), pause=pause) for seat in seats))


async def run(spectators: int, workers: int, pause: float, games: int, loop: Loop) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-sse-") as base:
        redis = RedisServer(Path(base) / "redis", appendonly=False).start()
        try:
            log = Path(base) / "serve.log"
            # every spectator comes from 127.0.0.1: room for all of them from one address
            # (streams get at most half of the connections' room)
            room, streams = str(2 * spectators + 128), str(spectators + 64)
            limits = (
                *("--http-max-connections", room, "--http-max-per-address", room),
                *("--http-max-streams", streams, "--http-streams-per-address", streams),
            )
            service = ServeProcess(redis.url, log, "--loop", loop, *limits).wait_ready()
            try:
                await _measure(service, spectators, workers, pause, games)
            finally:
                service.stop()
        finally:
            redis.stop()


async def _measure(
    service: ServeProcess, spectators: int, workers: int, pause: float, games: int
) -> None:
    target = service.grpc_target
    async with DaifugoClient(target) as client:
        created = await client.create_match("federation", 4, games_per_set=games)
        await client.host(created.match_id, created.host_token).start()
    path = f"/matches/{created.match_id}/live"
    shares = [spectators // workers + (i < spectators % workers) for i in range(workers)]
    children = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.spectators", "--watch", f"{service.http_port}{path}",
            "--spectators", str(share),
            stdout=subprocess.PIPE,
        )
        for share in shares
    ]  # fmt: skip
    for child in children:
        assert child.stdout is not None
        if (await child.stdout.readline()).strip() != b"ready":
            raise RuntimeError("a spectator worker did not connect")
    readers = [child.pid for child in children]
    cpu_before = cpu_seconds(service.pid), sum(map(cpu_seconds, readers))
    started = time.perf_counter()
    await play(target, created.match_id, created.seat_tokens, pause)
    played = time.perf_counter() - started
    service_cpu = cpu_seconds(service.pid) - cpu_before[0]
    readers_cpu = sum(map(cpu_seconds, readers)) - cpu_before[1]
    delays: list[float] = []
    received: list[int] = []
    in_order = True
    for child in children:
        assert child.stdout is not None
        result = json.loads(await child.stdout.read())
        delays += result["delays"]
        received += result["events"]
        in_order = in_order and result["in_order"]
        await child.wait()
    events = max(received)
    print(f"{spectators} SSE spectators on one live match ({workers} worker processes)")
    print(
        f"  {events} events in {played:.1f} s ({events / played:.0f}/s), "
        f"{len(delays)} deliveries ({len(delays) / played:.0f}/s); "
        f"every spectator got all, in order: {min(received) == events and in_order}"
    )
    print(
        f"  append -> delivery  p50 {percentile(delays, 0.5):6.1f} ms  "
        f"p99 {percentile(delays, 0.99):6.1f} ms  max {max(delays):6.1f} ms"
    )
    per_delivery = 1e6 / max(1, len(delays))
    print(
        f"  CPU per delivery: service {service_cpu * per_delivery:.1f} µs, "
        f"spectator workers {readers_cpu * per_delivery:.1f} µs "
        f"(service {service_cpu / played:.0%} of a core)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="daifugo bench spectators", description=__doc__)
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2, help="spectator processes")
    parser.add_argument("--pause", type=float, default=0.1, help="seconds before each action")
    parser.add_argument("--games", type=int, default=1, help="games in the match")
    parser.add_argument("--loop", choices=LOOPS, default="asyncio", help="the service's loop")
    parser.add_argument("--watch", help=argparse.SUPPRESS)  # a worker: PORT/PATH
    args = parser.parse_args(argv)
    if args.watch:
        port, path = args.watch.split("/", 1)
        asyncio.run(watch(int(port), "/" + path, args.spectators))
    else:
        asyncio.run(run(args.spectators, args.workers, args.pause, args.games, args.loop))
    return 0


if __name__ == "__main__":
    sys.exit(main())
