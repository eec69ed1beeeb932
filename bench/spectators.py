"""`daifugo bench spectators`: many SSE spectators on one live match; prints the delay
from an event's append to its delivery to each spectator (p50/p99/max).

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

from .grpc_api import percentile

LAST_EVENT = b"MatchSealed"  # every match's last event
WATCH_TIMEOUT = 600.0


class SseReader:
    """Reads one SSE response (chunked transfer encoding) event by event."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader, self.buffer = reader, b""

    async def headers(self) -> int:
        status = int((await self.reader.readline()).split()[1])
        while (await self.reader.readline()) not in (b"\r\n", b""):
            pass
        return status

    async def message(self) -> bytes:
        """The next message's text ("event:/id:/data:" lines); b"" at the end."""
        while b"\n\n" not in self.buffer:
            size = int((await self.reader.readline()).strip() or b"0", 16)
            if size == 0:
                return b""
            self.buffer += await self.reader.readexactly(size + 2)  # chunk + CRLF
            self.buffer = self.buffer.replace(b"\r\n", b"\n")
        message, self.buffer = self.buffer.split(b"\n\n", 1)
        return message


async def spectate(port: int, path: str, delays: list[float], ready: asyncio.Event) -> int:
    """Watch until the last event; returns the events received. The delays counted are
    those of events appended after the spectator was in (not the replayed past)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n"
    writer.write(request.encode())
    sse = SseReader(reader)
    if await sse.headers() != 200:
        raise RuntimeError(f"GET {path} refused")
    ready.set()
    joined_ms = time.time() * 1000
    received = 0
    try:
        while message := await sse.message():
            data = next((line for line in message.split(b"\n") if line.startswith(b"data:")), None)
            if data is None:
                continue  # a keep-alive comment
            record = json.loads(data[5:])
            if record["at"] >= joined_ms:
                delays.append(time.time() * 1000 - record["at"])
            received += 1
            if record["type"] == LAST_EVENT.decode():
                return received
        return received
    finally:
        writer.close()


async def watch(port: int, path: str, count: int) -> None:
    """A worker: ``count`` spectators; says "ready" when all are in, then the delays."""
    delays: list[float] = []
    readies = [asyncio.Event() for _ in range(count)]
    tasks = [asyncio.create_task(spectate(port, path, delays, ready)) for ready in readies]
    await asyncio.wait_for(asyncio.gather(*(ready.wait() for ready in readies)), 60)
    print("ready", flush=True)
    counts = await asyncio.wait_for(asyncio.gather(*tasks), WATCH_TIMEOUT)
    print(json.dumps({"delays": delays, "events": counts}), flush=True)


async def play(target: str, match_id: str, tokens: Sequence[str], pause: float) -> None:
    async with DaifugoClient(target) as client:
        seats = [client.seat(match_id, token) for token in tokens]
        await asyncio.gather(*(play_seat(seat, GreedyBot(), pause=pause) for seat in seats))


async def run(spectators: int, workers: int, pause: float, games: int, loop: Loop) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-sse-") as base:
        redis = RedisServer(Path(base) / "redis", appendonly=False).start()
        try:
            log = Path(base) / "serve.log"
            service = ServeProcess(redis.url, log, "--loop", loop).wait_ready()
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
    started = time.perf_counter()
    await play(target, created.match_id, created.seat_tokens, pause)
    played = time.perf_counter() - started
    delays: list[float] = []
    received: list[int] = []
    for child in children:
        assert child.stdout is not None
        result = json.loads(await child.stdout.read())
        delays += result["delays"]
        received += result["events"]
        await child.wait()
    events = max(received)
    print(f"{spectators} SSE spectators on one live match ({workers} worker processes)")
    print(
        f"  {events} events in {played:.1f} s ({events / played:.0f}/s), "
        f"{len(delays)} deliveries ({len(delays) / played:.0f}/s); "
        f"every spectator got all: {min(received) == events}"
    )
    print(
        f"  append -> delivery  p50 {percentile(delays, 0.5):6.1f} ms  "
        f"p99 {percentile(delays, 0.99):6.1f} ms  max {max(delays):6.1f} ms"
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
