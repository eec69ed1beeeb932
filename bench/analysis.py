"""The analysis time of a finished 4-player match of one game at the default budget
(issue 37's target: at most 30 s on this machine), measured two ways side by side:
in this process (``daifugo analyse``), and as the service runs a job (the moves
prepared, then each judged move searched, in the expert's process pool). Prints the
figures, the CPU time (what an idle core would take) and the machine's load; asserts
nothing. Seeded: the same arguments play the
same matches (``stronger`` bots in every seat).

    .venv/bin/python -m bench.analysis [--matches N] [--playouts P] [--preset NAME]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import statistics
import time
from collections.abc import Sequence
from typing import Any

from clients import analysis
from clients.bots import StrongerBot
from clients.expert import pool, think_in_pool
from eventstore import InMemoryStorage
from service.app.match import stream_of
from service.app.service import MatchOptions
from service.rules.commands import SeatCommand
from service.runtime import running_service

Records = list[tuple[str, dict[str, Any]]]


async def _played(preset: str, count: int) -> list[Records]:
    """``count`` one-game matches of 4 ``stronger`` bots, through the service."""
    out = []
    async with running_service(storage=InMemoryStorage(), grpc_port=0, timers=False) as running:
        service = running.service
        for _ in range(count):
            created = await service.create(MatchOptions(preset, 4, {}, games_per_set=1))
            await service.start(created.match_id, created.host_token)
            bots = [StrongerBot() for _ in range(4)]
            while not (match := await service.load(created.match_id)).over:
                seat = match.game.turn
                assert seat is not None
                seen = await service.seen(created.match_id, created.seat_tokens[seat])
                chosen = bots[seat].choose(seen.view, seen.actions)
                token = created.seat_tokens[seat]
                await service.act(created.match_id, token, functools.partial(_same, chosen))
            stored = await service.store.read(stream_of(created.match_id))
            out.append([(event.type, event.data) for event in stored])
    return out


def _same(chosen: SeatCommand, _seat: int) -> SeatCommand:
    return chosen


async def _as_the_service(records: Records, playouts: int) -> float:
    """The job's path (service/app/analysis.py): prepared, then searched move by move.
    Wall time: on a loaded machine the worker waits for a core too."""
    loop = asyncio.get_running_loop()
    start = time.perf_counter()
    prepared = await loop.run_in_executor(pool(), analysis.prepare, records, 1, playouts)
    for decision in prepared.decisions:
        if decision.request is not None:
            await think_in_pool(decision.request)
    return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--playouts", type=int, default=analysis.DEFAULT_PLAYOUTS)
    parser.add_argument("--preset", default="classic")
    args = parser.parse_args(argv)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"cores: {os.cpu_count()} (the expert's pool: one process a core)")
    matches = asyncio.run(_played(args.preset, args.matches))
    asyncio.run(_as_the_service(matches[0][:], 1))  # the pool's workers start (not timed)
    here: list[float] = []
    cpu: list[float] = []
    served: list[float] = []
    for number, records in enumerate(matches, 1):
        start, started = time.perf_counter(), time.process_time()
        result = analysis.analyse(records, 1, args.playouts)
        here.append(time.perf_counter() - start)
        cpu.append(time.process_time() - started)
        served.append(asyncio.run(_as_the_service(records, args.playouts)))
        judged = sum(1 for move in result["moves"] if move["kind"] == "judged")
        print(
            f"match {number}: {len(result['moves'])} moves, {judged} judged at "
            f"{args.playouts} playouts: in process {here[-1]:.1f} s ({cpu[-1]:.1f} s of CPU), "
            f"as the service runs it {served[-1]:.1f} s"
        )
    print(
        f"{args.preset}, 4 players, 1 game, {args.playouts} playouts a judged move: "
        f"in process median {statistics.median(here):.1f} s (max {max(here):.1f}; "
        f"CPU median {statistics.median(cpu):.1f} s: the figure on an idle core); "
        f"as the service median {statistics.median(served):.1f} s (max {max(served):.1f}); "
        "target <= 30 s"
    )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    pool().shutdown()


if __name__ == "__main__":
    main()
