"""`python -m bench.uecda`: one UECda table of five official contest clients against the
service, every action persisted: games/s, actions/s, and CPU per action of the service.

    python -m bench.uecda [--games 200] [--appendfsync always|everysec|no] [--profile N]

A private Redis is started (AOF on, ``appendfsync always`` by default: each action is
on disk before the client hears its accept int), then the service in this process
(``running_service`` with ``--uecda-port``, its projections, timers and bot worker as in
``daifugo serve``), then five official clients built with gcc into a temporary folder.
The clock runs from the first client's start to the last one's exit. ``--profile N``
runs the same under cProfile and prints the N functions with the most own time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from eventstore import RedisServer
from service.app.match import stream_of
from service.app.runtime import running_service, tune_gc_for_serving
from service.audit.auditor import audit_events
from service.uecda.server import UecdaSettings
from tests.uecda.support import build_official_client, run_clients

from .grpc_api import cpu_seconds

ACTIONS = ("CardsPlayed", "Passed", "CardsGiven")  # a seat's (or the automatic) actions


async def run_table(
    redis_url: str, client: Path, games: int, profiler: cProfile.Profile | None
) -> dict[str, float]:
    settings = UecdaSettings(games=games, turn_seconds=30.0)
    tune_gc_for_serving()
    async with running_service(redis_url, grpc_port=0, uecda_port=0, uecda=settings) as running:
        assert running.uecda is not None and running.uecda_port is not None
        times_before, started = os.times(), time.perf_counter()
        if profiler is not None:
            profiler.enable()
        codes = await run_clients(client, running.uecda_port, [f"cli{n}" for n in range(5)])
        if profiler is not None:
            profiler.disable()
        elapsed = time.perf_counter() - started - 0.8  # run_clients staggers the starts
        times = os.times()
        user, system = times.user - times_before.user, times.system - times_before.system
        [match_id] = running.uecda.match_ids
        stored = await running.service.store.read(stream_of(match_id), 0)
    kinds = Counter(item.type for item in stored)
    actions = sum(kinds[kind] for kind in ACTIONS)
    return {
        "exit codes ok": float(codes == [0] * 5),
        "games": float(kinds["GameEnded"]),
        "seconds": elapsed,
        "actions": float(actions),
        "events": float(len(stored)),
        "cpu": user + system,
        "system": system,
        "valid": float(audit_events(stored).verdict == "valid"),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.uecda", description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--appendfsync", choices=("always", "everysec", "no"), default="always")
    parser.add_argument("--profile", type=int, default=0, metavar="N")
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
            figures = asyncio.run(run_table(redis.url, client, args.games, profiler))
            redis_cpu = cpu_seconds(redis.process.pid) - redis_cpu
        finally:
            redis.stop()
    seconds, actions = figures["seconds"], figures["actions"]
    print(f"one UECda table, five official clients, Redis AOF appendfsync {args.appendfsync}")
    games = figures["games"]
    print(f"  games        {games:.0f} in {seconds:.2f} s: {games / seconds:.1f} games/s")
    print(
        f"  actions      {actions:.0f} ({actions / games:.1f} a game):"
        f" {actions / seconds:.0f} actions/s"
    )
    print(f"  events       {figures['events']:.0f} stored")
    cpu, system = figures["cpu"], figures["system"]
    print(
        f"  service CPU  {cpu:.2f} s ({system:.2f} s of it in the kernel):"
        f" {cpu / actions * 1000:.3f} ms an action"
    )
    print(f"  Redis CPU    {redis_cpu:.2f} s: {redis_cpu / actions * 1000:.3f} ms an action")
    print(
        f"  clients exit 0: {bool(figures['exit codes ok'])}, audit valid: {bool(figures['valid'])}"
    )
    if profiler is not None:
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats(os.environ.get("BENCH_SORT", "tottime")).print_stats(args.profile)
        print(out.getvalue())
    ok = figures["exit codes ok"] and figures["valid"]
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
