"""`daifugo bench load`: many concurrent bot matches across two service processes, on
one Redis and on a local 3-master Redis Cluster; prints figures, then audits every match.

    daifugo bench load [--matches 2,32,256] [--seconds 20] [--backend single|cluster|both]

For each backend: a private Redis (or cluster) is started, then two `daifugo serve`
processes on it. For each M in ``--matches``, M tables play at once for ``--seconds``:
every seat is a bot client task, seats of one table spread over both processes, and a
table that finishes its match starts another. Then no new match starts, the ones in
play finish, and every match played is read back and audited (all must be `valid`).

Printed per run: actions/s in the window, p50/p99 latency of one Act as the bot sees it
(its queueing in this process included), errors, and CPU seconds per action of each
process, which says where the bottleneck is.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from clients.bots import GreedyBot
from clients.runner import play_seat
from clients.sdk import ActResult, DaifugoClient, Refused, SeatSession, Turn
from eventstore import RedisEventStore, RedisServer
from service.app import STORE_PREFIX
from service.app.match import stream_of
from service.audit.auditor import audit_events
from service.rules.commands import SeatCommand
from tests.localcluster import LocalCluster
from tests.serve_process import ServeProcess, serve_processes

from .grpc_api import cpu_seconds, percentile

DRAIN_SECONDS = 300.0  # the longest the matches in play may take to finish after the window


@dataclass
class Tally:
    """What the bots saw, counted while the window is open."""

    open: bool = True
    actions: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    match_ids: list[str] = field(default_factory=list)


class TimedSeat:
    """A seat session whose Act calls are timed into the tally (while it is open)."""

    def __init__(self, session: SeatSession, tally: Tally) -> None:
        self.session, self.tally = session, tally

    async def turn(self) -> Turn:
        return await self.session.turn()

    async def next_turn(self, after_version: int = -1, timeout: float | None = None) -> Turn:
        return await self.session.next_turn(after_version, timeout)

    async def act(
        self, command: SeatCommand, *, await_turn: bool = False, timeout: float | None = None
    ) -> ActResult:
        # the action alone is timed: the wait for the next turn is a call of its own
        started = time.perf_counter()
        result = await self.session.act(command, include_turn=True)
        if self.tally.open:
            self.tally.latencies.append(time.perf_counter() - started)
            self.tally.actions += 1
        turn = result.turn
        if await_turn and turn is not None and not turn.actions and turn.view.phase != "match_over":
            result = replace(result, turn=await self.session.next_turn(result.version, timeout))
        return result


async def play_table(
    table: int, clients: Sequence[DaifugoClient], tally: Tally, games: int, deadline: float
) -> None:
    """Matches one after another until the deadline; seat i talks to process (table+i)%2."""
    while time.perf_counter() < deadline:
        try:
            created = await clients[table % 2].create_match("federation", 4, games_per_set=games)
            tally.match_ids.append(created.match_id)
            await clients[table % 2].host(created.match_id, created.host_token).start()
            seats = [
                TimedSeat(clients[(table + i) % 2].seat(created.match_id, token), tally)
                for i, token in enumerate(created.seat_tokens)
            ]
            await asyncio.gather(*(play_seat(seat, GreedyBot()) for seat in seats))
        except Refused as error:
            tally.errors[f"{error.status.name} {error.code}"] += 1


@dataclass
class RunFigures:
    matches: int
    seconds: float
    tally: Tally
    cpu: dict[str, float]  # process name -> CPU seconds in the window
    drain_seconds: float
    audits: Counter[str]


async def load_run(
    targets: Sequence[str],
    matches: int,
    seconds: float,
    games: int,
    watched: dict[str, list[int]],
    redis_url: str,
) -> RunFigures:
    tally = Tally()
    clients = [DaifugoClient(target, timeout=30.0) for target in targets]
    try:
        cpu_before = {name: sum(map(cpu_seconds, pids)) for name, pids in watched.items()}
        started = time.perf_counter()
        deadline = started + seconds
        tables = [
            asyncio.create_task(play_table(table, clients, tally, games, deadline))
            for table in range(matches)
        ]
        await asyncio.sleep(seconds)
        tally.open = False
        window = time.perf_counter() - started
        cpu = {
            name: sum(map(cpu_seconds, pids)) - cpu_before[name] for name, pids in watched.items()
        }
        _, unfinished = await asyncio.wait(tables, timeout=DRAIN_SECONDS)
        for task in unfinished:
            task.cancel()
        drain = time.perf_counter() - started - window
        for task in tables:
            if not task.cancelled() and task.exception() is not None:
                error = task.exception()
                tally.errors[f"{type(error).__name__}: {error}"] += 1
        if unfinished:
            tally.errors["matches unfinished after the drain"] += len(unfinished)
    finally:
        for client in clients:
            await client.close()
    audits = await audit_all(redis_url, tally.match_ids)
    return RunFigures(matches, window, tally, cpu, drain, audits)


async def audit_all(redis_url: str, match_ids: Sequence[str]) -> Counter[str]:
    """The audit verdict of every match, counted."""
    verdicts: Counter[str] = Counter()
    store = RedisEventStore.from_url(redis_url, prefix=STORE_PREFIX)
    try:
        for match_id in match_ids:
            events = await store.read(stream_of(match_id), 0)
            verdicts[audit_events(events).verdict] += 1
    finally:
        await store.close()
    return verdicts


def print_figures(figures: RunFigures) -> None:
    ms = 1000.0
    tally = figures.tally
    rate = tally.actions / figures.seconds
    p50 = percentile(tally.latencies, 0.5) * ms if tally.latencies else 0.0
    p99 = percentile(tally.latencies, 0.99) * ms if tally.latencies else 0.0
    print(
        f"  {figures.matches:4d} matches  {rate:7.0f} actions/s  "
        f"Act p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  errors {sum(tally.errors.values())}"
    )
    per_action = "  ".join(
        f"{name} {cpu / max(1, tally.actions) * ms:.2f}" for name, cpu in figures.cpu.items()
    )
    print(f"        CPU ms per action: {per_action}")
    verdicts = ", ".join(f"{count} {verdict}" for verdict, count in sorted(figures.audits.items()))
    print(
        f"        {len(tally.match_ids)} matches played, audit: {verdicts or 'none'}; "
        f"the last ones finished {figures.drain_seconds:.0f} s after the window"
    )
    for error, count in tally.errors.most_common():
        print(f"        error x{count}: {error}")


@contextlib.contextmanager
def backend(kind: str, base_dir: Path, appendfsync: str) -> Iterator[tuple[str, list[int]]]:
    """A fresh Redis (kind "single") or 3-master cluster: its URL and server pids."""
    if kind == "single":
        server = RedisServer(base_dir / "redis", appendfsync=appendfsync).start()
        try:
            yield server.url, [_pid(server)]
        finally:
            server.stop()
        return
    with LocalCluster(base_dir / "cluster", masters=3, appendfsync=appendfsync) as cluster:
        yield cluster.url, [_pid(node) for node in cluster.nodes]


def _pid(server: RedisServer) -> int:
    assert server.process is not None
    return server.process.pid


async def run_backend(
    kind: str, counts: Sequence[int], seconds: float, games: int, appendfsync: str
) -> bool:
    """Every count on one backend; True when every match audited valid without errors."""
    clean = True
    with contextlib.ExitStack() as stack:
        base = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-load-")))
        redis_url, redis_pids = stack.enter_context(backend(kind, base, appendfsync))
        services = stack.enter_context(serve_processes(redis_url, base, count=2))
        label = "one Redis" if kind == "single" else "a 3-master Redis Cluster"
        print(f"{label} (appendfsync {appendfsync}), two service processes")
        watched = {
            **{f"service{i + 1}": [service.pid] for i, service in enumerate(services)},
            "redis": redis_pids,
            "bots": [os.getpid()],
        }
        for matches in counts:
            figures = await load_run(
                _targets(services), matches, seconds, games, watched, redis_url
            )
            print_figures(figures)
            sys.stdout.flush()
            clean &= not figures.tally.errors and set(figures.audits) <= {"valid"}
    return clean


def _targets(services: Sequence[ServeProcess]) -> list[str]:
    return [service.grpc_target for service in services]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="daifugo bench load", description=__doc__)
    parser.add_argument("--matches", default="2,32,256", help="comma-separated counts")
    parser.add_argument("--seconds", type=float, default=20.0, help="window per count")
    parser.add_argument("--games", type=int, default=1, help="games per match")
    parser.add_argument("--backend", choices=("single", "cluster", "both"), default="both")
    parser.add_argument("--appendfsync", choices=("always", "everysec", "no"), default="everysec")
    args = parser.parse_args(argv)
    counts = [int(count) for count in args.matches.split(",")]
    kinds = ("single", "cluster") if args.backend == "both" else (args.backend,)
    clean = True
    for kind in kinds:
        clean &= asyncio.run(run_backend(kind, counts, args.seconds, args.games, args.appendfsync))
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
