"""`python -m bench.uecda`: one UECda table of five official contest clients against the
service, every action persisted: games/s, actions/s, and CPU per action of the service.

    python -m bench.uecda [--games 200] [--appendfsync always|everysec|no] [--profile N]
                          [--loop asyncio|uvloop]

A private Redis is started (AOF on, ``appendfsync always`` by default: each action is
on disk before the client hears its accept int), then the service in this process
(``running_service`` with ``--uecda-port``, its projections, timers and bot worker as in
``daifugo serve``), then five official clients built with gcc into a temporary folder.
The clock runs from the first client's start to the last one's exit. ``--profile N``
runs the same under cProfile and prints the N functions with the most own time.

Then, on the same Redis, the floor: as many appends as the table made actions (of as
many events each as an action stored), one after the other, with nothing else: the games/s
a table could not pass whatever the service did, its store being what it is.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

from eventstore import RedisEventStore, RedisServer
from service import event_loop
from service.app.match import stream_of
from service.audit.auditor import audit_events
from service.event_loop import LOOPS
from service.runtime import running_service, tune_gc_for_serving
from service.uecda.server import UecdaSettings
from tests.uecda.support import build_official_client, run_clients

from .grpc_api import FLOOR_EVENT, cpu_seconds

ACTIONS = ("CardsPlayed", "Passed", "CardsGiven")  # a seat's (or the automatic) actions


async def command_calls(redis_url: str) -> Counter[str]:
    """How many times Redis has run each command (``INFO commandstats``)."""
    client = Redis.from_url(redis_url)
    try:
        stats = await client.info("commandstats")
    finally:
        await client.aclose()
    return Counter(
        {name.removeprefix("cmdstat_"): int(values["calls"]) for name, values in stats.items()}
    )


async def run_table(
    redis_url: str, client: Path, games: int, profiler: cProfile.Profile | None
) -> tuple[dict[str, float], Counter[str]]:
    settings = UecdaSettings(games=games, turn_seconds=30.0)
    tune_gc_for_serving()
    async with running_service(redis_url, grpc_port=0, uecda_port=0, uecda=settings) as running:
        assert running.uecda is not None and running.uecda_port is not None
        calls_before = await command_calls(redis_url)
        times_before, started = os.times(), time.perf_counter()
        if profiler is not None:
            profiler.enable()
        codes = await run_clients(client, running.uecda_port, [f"cli{n}" for n in range(5)])
        if profiler is not None:
            profiler.disable()
        elapsed = time.perf_counter() - started - 0.8  # run_clients staggers the starts
        times = os.times()
        user, system = times.user - times_before.user, times.system - times_before.system
        # the clients are waited for, so their time is the children's (Redis is not yet)
        clients_cpu = (times.children_user - times_before.children_user) + (
            times.children_system - times_before.children_system
        )
        calls = await command_calls(redis_url)
        calls.subtract(calls_before)
        [match_id] = running.uecda.match_ids
        stored = await running.service.store.read(stream_of(match_id), 0)
    kinds = Counter(item.type for item in stored)
    actions = sum(kinds[kind] for kind in ACTIONS)
    figures = {
        "exit codes ok": float(codes == [0] * 5),
        "games": float(kinds["GameEnded"]),
        "seconds": elapsed,
        "actions": float(actions),
        "events": float(len(stored)),
        "cpu": user + system,
        "system": system,
        "clients cpu": clients_cpu,
        "valid": float(audit_events(stored).verdict == "valid"),
    }
    return figures, calls


async def append_floor(redis_url: str, appends: int, events_each: int) -> float:
    """Seconds that ``appends`` appends of ``events_each`` events take one after the
    other on the table's Redis: what a table's actions cost the store, with nothing
    of the game, the adapter or the clients."""
    store = RedisEventStore.from_url(redis_url, prefix=f"floor-{uuid.uuid4().hex[:6]}")
    events = [FLOOR_EVENT] * events_each
    try:
        version = -1
        started = time.perf_counter()
        for _ in range(appends):
            version = (await store.append("floor", events, version)).last_seq
        return time.perf_counter() - started
    finally:
        await store.close()


# where a function's own time is counted, by the first part of its file's path that matches
AREAS = (
    ("service/uecda/", "the UECda adapter (tables, sockets)"),
    ("service/rules/", "the rules engine (decide, fold)"),
    ("service/app/bot_seats", "the service: bot seats"),
    ("service/app/timers", "the service: turn timers"),
    ("service/app/", "the service: commands, codec, projections"),
    ("eventstore/", "the event store (encode, hash, Redis calls)"),
    ("site-packages/redis", "the Redis client"),
    ("json/", "json"),
    ("asyncio/", "asyncio"),
    ("selectors", "asyncio"),
)


def print_profile(profiler: cProfile.Profile, top: int) -> None:
    """Own time by area, then the ``top`` functions by own time."""
    stats = pstats.Stats(profiler)
    areas: Counter[str] = Counter()
    raw: dict[tuple[str, int, str], tuple[Any, ...]] = stats.stats  # type: ignore[attr-defined]
    for (path, _, name), (_, _, own, *_) in raw.items():
        area = next((label for part, label in AREAS if part in path), "")
        if not area:
            area = "socket calls (the kernel, the woken peers)" if "socket" in name else "other"
            if "poll" in name:
                area = "waiting (epoll)"
        areas[area] += own
    total = sum(areas.values())
    print("  where the service's time goes (cProfile, own time):")
    for area, seconds in areas.most_common():
        if seconds / total >= 0.005:
            print(f"    {seconds / total:6.1%}  {seconds:6.2f} s  {area}")
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    print(out.getvalue())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.uecda", description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--appendfsync", choices=("always", "everysec", "no"), default="always")
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    parser.add_argument("--loop", choices=LOOPS, default="asyncio", help="the event loop")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-uecda-") as base:
        client = build_official_client(Path(base))
        if client is None:
            print("bench.uecda: needs gcc and the official client's source", file=sys.stderr)
            return 2
        redis = RedisServer(Path(base) / "redis", appendfsync=args.appendfsync).start()
        profiler = cProfile.Profile() if args.profile else None
        try:
            assert redis.process is not None
            redis_cpu = cpu_seconds(redis.process.pid)
            table = run_table(redis.url, client, args.games, profiler)
            figures, calls = event_loop.run(table, args.loop)
            redis_cpu = cpu_seconds(redis.process.pid) - redis_cpu
            events_each = max(1, round(figures["events"] / figures["actions"]))
            floor = append_floor(redis.url, int(figures["actions"]), events_each)
            floor_seconds = event_loop.run(floor, args.loop)
        finally:
            redis.stop()
    seconds, actions = figures["seconds"], figures["actions"]
    print(
        f"one UECda table, five official clients, Redis AOF appendfsync {args.appendfsync},"
        f" {args.loop} loop"
    )
    games = figures["games"]
    print(f"  games        {games:.0f} in {seconds:.2f} s: {games / seconds:.1f} games/s")
    print(
        f"  actions      {actions:.0f} ({actions / games:.1f} a game):"
        f" {actions / seconds:.0f} actions/s"
    )
    print(f"  events       {figures['events']:.0f} stored")
    per_game = actions / games
    print(
        f"  floor        the same {actions:.0f} appends of {events_each} events one at a time,"
        f" alone: {actions / floor_seconds:.0f}/s, {floor_seconds / actions * 1000:.3f} ms each"
        f" (at most {actions / floor_seconds / per_game:.1f} games/s)"
    )
    cpu, system = figures["cpu"], figures["system"]
    print(
        f"  service CPU  {cpu:.2f} s ({system:.2f} s of it in the kernel):"
        f" {cpu / actions * 1000:.3f} ms an action"
    )
    print(f"  Redis CPU    {redis_cpu:.2f} s: {redis_cpu / actions * 1000:.3f} ms an action")
    clients_cpu = figures["clients cpu"]
    print(f"  clients CPU  {clients_cpu:.2f} s: {clients_cpu / actions * 1000:.3f} ms an action")
    print(
        f"  clients exit 0: {bool(figures['exit codes ok'])}, audit valid: {bool(figures['valid'])}"
    )
    print(
        f"  Redis calls  {calls.total() / actions:.2f} an action:",
        ", ".join(
            f"{name} {count / actions:.2f}" for name, count in calls.most_common() if count > 0
        ),
    )
    if profiler is not None:
        print_profile(profiler, args.profile)
    ok = figures["exit codes ok"] and figures["valid"]
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
