"""`python -m bench.uecda`: UECda tables of official contest clients against the service,
every action persisted: games/s, and per game the service's CPU and its round trips to
Redis; with each table's steps group-committed (``--uecda-durability game``) and each
stored before its clients hear of it (``step``), side by side in one run.

    python -m bench.uecda [--games 200] [--appendfsync always|everysec|no] [--profile N]
                          [--loop asyncio|uvloop] [--tables 4]

A private Redis is started (AOF on, ``appendfsync always`` by default, as ``./serve``'s),
then for each run the service in this process (``running_service`` with
``--uecda-port``, its projections, timers and bot worker as in ``daifugo serve``), then
five official clients a table, built with gcc into a temporary folder. The runs: one
table with ``game`` durability, the same with ``step``, then ``--tables`` tables at once
(``game``). A run's games/s counts the games that ended while all its tables played
(from the last table's first deal to the first table's last event, by the events' own
times); each run prints the machine's load average before and after it (on a shared
machine the figures move with it). ``--profile N`` runs the first under cProfile and
prints the N functions with the most own time.

Then, on the same Redis, the floor: as many appends as the one table made actions (of as
many events each as an action stored), one after the other, with nothing else: the games/s
a table that waits for each step could not pass whatever the service did.
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

from eventstore import RedisEventStore, RedisServer, StoredEvent
from service import event_loop
from service.app.match import stream_of
from service.audit.auditor import audit_events
from service.event_loop import LOOPS
from service.runtime import running_service, tune_gc_for_serving
from service.uecda.server import UecdaSettings
from service.uecda.table import SEATS, Durability
from tests.uecda.support import build_official_client, run_clients

from .grpc_api import FLOOR_EVENT, cpu_seconds

ACTIONS = ("CardsPlayed", "Passed", "CardsGiven")  # a seat's (or the automatic) actions


async def redis_info(redis_url: str, section: str) -> dict[str, Any]:
    client = Redis.from_url(redis_url)
    try:
        info: dict[str, Any] = await client.info(section)
        return info
    finally:
        await client.aclose()


async def command_calls(redis_url: str) -> Counter[str]:
    """How many times Redis has run each command (``INFO commandstats``)."""
    stats = await redis_info(redis_url, "commandstats")
    return Counter(
        {name.removeprefix("cmdstat_"): int(values["calls"]) for name, values in stats.items()}
    )


async def reads_processed(redis_url: str) -> int:
    """The reads Redis has made from its clients' sockets: a round trip each (a write
    of several commands at once is one)."""
    return int((await redis_info(redis_url, "stats"))["total_reads_processed"])


def games_while_all_played(streams: Sequence[Sequence[StoredEvent]]) -> tuple[int, float]:
    """The games that ended while every table played (from the last table's first deal
    to the first table's last event), and that time in seconds."""
    begin = max(next(e.at for e in events if e.type == "GameDealt") for events in streams)
    end = min(events[-1].at for events in streams)
    ended = sum(
        1 for events in streams for e in events if e.type == "GameEnded" and begin < e.at <= end
    )
    return ended, (end - begin) / 1000


async def run_tables(
    redis_url: str,
    client: Path,
    games: int,
    tables: int,
    durability: Durability,
    profiler: cProfile.Profile | None,
) -> tuple[dict[str, float], Counter[str]]:
    settings = UecdaSettings(games=games, turn_seconds=30.0, durability=durability)
    tune_gc_for_serving()
    async with running_service(redis_url, grpc_port=0, uecda_port=0, uecda=settings) as running:
        assert running.uecda is not None and running.uecda_port is not None
        calls_before = await command_calls(redis_url)
        reads_before = await reads_processed(redis_url)
        load_before = os.getloadavg()[0]  # the machine's, others' work too
        times_before = os.times()
        if profiler is not None:
            profiler.enable()
        names = [f"cli{n}" for n in range(SEATS * tables)]
        codes = await run_clients(client, running.uecda_port, names)
        if profiler is not None:
            profiler.disable()
        times = os.times()
        load_after = os.getloadavg()[0]
        user, system = times.user - times_before.user, times.system - times_before.system
        # the clients are waited for, so their time is the children's (Redis is not yet)
        clients_cpu = (times.children_user - times_before.children_user) + (
            times.children_system - times_before.children_system
        )
        reads = await reads_processed(redis_url) - reads_before
        calls = await command_calls(redis_url)
        calls.subtract(calls_before)
        streams = [
            await running.service.store.read(stream_of(match_id), 0)
            for match_id in running.uecda.match_ids
        ]
    kinds = Counter(item.type for events in streams for item in events)
    ended, seconds = games_while_all_played(streams)
    figures = {
        "exit codes ok": float(codes == [0] * len(names)),
        "tables": float(len(streams)),
        "games": float(kinds["GameEnded"]),
        "ended while all played": float(ended),
        "seconds": seconds,
        "actions": float(sum(kinds[kind] for kind in ACTIONS)),
        "events": float(sum(len(events) for events in streams)),
        "cpu": user + system,
        "system": system,
        "clients cpu": clients_cpu,
        "round trips": float(reads),
        "valid": float(all(audit_events(events).verdict == "valid" for events in streams)),
        "load before": load_before,
        "load after": load_after,
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


def print_run(title: str, figures: dict[str, float], redis_cpu: float) -> None:
    games, actions = figures["games"], figures["actions"]
    rate = figures["ended while all played"] / figures["seconds"]
    print(
        f"{title} (load average {figures['load before']:.2f} before,"
        f" {figures['load after']:.2f} after, on {os.cpu_count()} cores)"
    )
    print(
        f"  games        {games:.0f} at {figures['tables']:.0f} table(s):"
        f" {rate:.1f} games/s ({figures['ended while all played']:.0f} ended in"
        f" {figures['seconds']:.2f} s while all played); {actions / games:.1f} actions a game"
    )
    cpu, system = figures["cpu"], figures["system"]
    print(
        f"  service CPU  {cpu / games * 1000:.1f} ms a game ({system / games * 1000:.1f} ms of it"
        f" in the kernel): {cpu / actions * 1000:.3f} ms an action"
    )
    print(
        f"  Redis        {figures['round trips'] / games:.1f} round trips a game"
        f" ({figures['round trips'] / actions:.2f} an action),"
        f" CPU {redis_cpu / games * 1000:.1f} ms a game"
    )
    print(f"  clients CPU  {figures['clients cpu'] / games * 1000:.1f} ms a game")
    print(
        f"  clients exit 0: {bool(figures['exit codes ok'])},"
        f" every match audits valid: {bool(figures['valid'])}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.uecda", description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--tables", type=int, default=4, help="tables at once in the last run")
    parser.add_argument("--appendfsync", choices=("always", "everysec", "no"), default="always")
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    parser.add_argument("--loop", choices=LOOPS, default="asyncio", help="the event loop")
    args = parser.parse_args(argv)
    runs = [
        (1, Durability.GAME, "one table, --uecda-durability game"),
        (1, Durability.STEP, "one table, --uecda-durability step"),
        (args.tables, Durability.GAME, f"{args.tables} tables at once, game"),
    ]
    results: list[tuple[str, dict[str, float], Counter[str], float]] = []
    with tempfile.TemporaryDirectory(prefix="bench-uecda-") as base:
        client = build_official_client(Path(base))
        if client is None:
            print("bench.uecda: needs gcc and the official client's source", file=sys.stderr)
            return 2
        redis = RedisServer(Path(base) / "redis", appendfsync=args.appendfsync).start()
        profiler = cProfile.Profile() if args.profile else None
        try:
            assert redis.process is not None
            for tables, durability, title in runs:
                redis_cpu = cpu_seconds(redis.process.pid)
                profiled = profiler if not results else None
                run = run_tables(redis.url, client, args.games, tables, durability, profiled)
                figures, calls = event_loop.run(run, args.loop)
                redis_cpu = cpu_seconds(redis.process.pid) - redis_cpu
                results.append((title, figures, calls, redis_cpu))
            first = results[0][1]
            events_each = max(1, round(first["events"] / first["actions"]))
            floor = append_floor(redis.url, int(first["actions"]), events_each)
            floor_seconds = event_loop.run(floor, args.loop)
        finally:
            redis.stop()
    print(
        f"UECda tables of five official clients, Redis AOF appendfsync {args.appendfsync},"
        f" {args.loop} loop"
    )
    for title, figures, _, redis_cpu in results:
        print_run(title, figures, redis_cpu)
    title, figures, calls, _ = results[0]
    actions, per_game = figures["actions"], figures["actions"] / figures["games"]
    print(
        f"floor: the same {actions:.0f} appends of {events_each} events one at a time, alone:"
        f" {actions / floor_seconds:.0f}/s, {floor_seconds / actions * 1000:.3f} ms each"
        f" (at most {actions / floor_seconds / per_game:.1f} games/s waiting for each)"
    )
    print(
        f"Redis commands an action ({title}): {calls.total() / actions:.2f}:",
        ", ".join(
            f"{name} {count / actions:.2f}" for name, count in calls.most_common() if count > 0
        ),
    )
    if profiler is not None:
        print_profile(profiler, args.profile)
    ok = all(figures["exit codes ok"] and figures["valid"] for _, figures, _, _ in results)
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
