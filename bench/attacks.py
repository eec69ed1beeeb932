"""`daifugo bench attacks`: the load attacks of issue 31 against a real `daifugo serve`
on 127.0.0.1, each with an honest match played beside it. Prints, per attack, an honest
Act's latency (p50 and p99) without the attack and under it, measured in the same run
on the same service, their ratio (target: within 2x), and what the attack got.

    daifugo bench attacks [--rows A,B,C,E,F] [--seconds 6] [--connections 20000]
                          [--loops 4] [--creates 200] [--audit-mb 9.4]
                          [--long-games 100] [--held-back 5000] [--uecda-connections 300]

Rows (issue 31): A ~20,000 TCP connections to REST that never send a byte, each
opened again as soon as the server closes it; B ``--loops``
loops of reads: ``GET /matches/{id}/state?seq=N`` (N random) on a finished match of
``--long-games`` games of 5 bots, ``GET /matches/{id}`` on a delayed match with
``--held-back`` events held back, and that long match replayed step by step; C
``--creates`` anonymous ``POST /matches`` of 5 bots and 100 games;
E loops of ``POST /audit`` with a ``--audit-mb`` MB JSON body; F
``--uecda-connections`` connections to the UECda port, a third silent, a third sending
half a profile, a third trickling one 4 bytes a second, each opened again when the
server closes it, while a real client tries to get a seat every second.

Each row gets a fresh service on a private Redis (no row's leftovers slow the next):
the honest match plays ``--seconds`` alone, then the attack starts (in a process of its
own, so its client work does not delay the honest client's, and niced, as its client
work would be on the attacker's own machine); once it is all in place (every connection
of a flood open once, every create of C answered) and a second more, the honest match
plays ``--seconds`` more under it. The service's CPU (share of a core) is printed for both.
Everything is bounded: the attack stops when the measure ends (and by itself at its own
deadline), on 127.0.0.1 only. It uses no flag a branch may lack: limits the service has
are the ones its defaults give, quotas included. The attack comes from an address of its
own (``ATTACKER``), the honest player from 127.0.0.1, as two callers on a network would.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import random
import resource
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.synchronize import Event as StopEvent
from pathlib import Path
from typing import Any

import httpx

from clients.bots import GreedyBot
from clients.sdk import DaifugoClient, Refused
from eventstore import RedisServer
from service.uecda.wire import INT_BYTES, NAME_CELLS, PROTOCOL_VERSION, TABLE_BYTES
from tests.serve_process import ServeProcess

from .grpc_api import cpu_seconds, percentile

HOST = "127.0.0.1"  # the only address this bench ever connects to
# the attacker's own address (as on the internet, not the honest player's: the limits
# per address apply to it alone); any of 127.0.0.0/8 is this host
ATTACKER = "127.0.0.2"
ROWS = ("A", "B", "C", "E", "F")
SETTING_UP = 120.0  # seconds an attack may take to be all in place (every connection open)
WARM_UP = 1.0  # seconds the attack runs, all in place, before the measure under it
# A real attacker's client work is on its own machine; here it shares the cores with
# the service, so it runs niced: it takes the CPU the service leaves, not the service's.
ATTACKER_NICENESS = 10


@dataclass
class Settings:
    seconds: float = 6.0
    connections: int = 20_000
    loops: int = 4
    creates: int = 200
    audit_mb: float = 9.4
    long_games: int = 100
    held_back: int = 5000
    uecda_connections: int = 300


@dataclass
class Target:
    """Where the attack goes: the service's ports and what the row set up."""

    http_port: int
    uecda_port: int | None = None
    finished: str = ""  # a long finished match (B)
    finished_version: int = 0
    delayed: str = ""  # a long delayed match (B)


@dataclass
class Row:
    row: str
    alone: list[float] = field(default_factory=list)
    attacked: list[float] = field(default_factory=list)
    got: str = ""
    cpu: tuple[float, float] = (0.0, 0.0)  # the service's share of a core, alone and attacked

    def line(self) -> str:
        def figures(samples: list[float]) -> str:
            if not samples:
                return "    none"
            p50, p99 = percentile(samples, 0.5) * 1e3, percentile(samples, 0.99) * 1e3
            return f"{p50:7.1f} / {p99:7.1f}"

        ratio = (
            percentile(self.attacked, 0.5) / percentile(self.alone, 0.5)
            if self.alone and self.attacked
            else float("nan")
        )
        return (
            f"{self.row}  {figures(self.alone)}  {figures(self.attacked)}  "
            f"{ratio:5.2f}x  {len(self.alone):5d}/{len(self.attacked):<5d}  "
            f"{self.cpu[0]:4.0%}/{self.cpu[1]:4.0%}  {self.got}"
        )


# -- the honest match ---------------------------------------------------------------


async def honest_acts(client: DaifugoClient, seconds: float) -> list[float]:
    """An honest 4-seat match played for ``seconds``: each Act's latency (the RPC, from
    the call to its answer; the seats ask for their turns apart)."""
    latencies: list[float] = []
    deadline = time.monotonic() + seconds
    choose = GreedyBot().choose
    while time.monotonic() < deadline:
        created = await client.create_match("federation", 4, games_per_set=100)
        seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
        await client.host(created.match_id, created.host_token).start()
        turn = await seats[0].turn()
        while time.monotonic() < deadline and turn.view.phase != "match_over":
            to_act = turn.view.turn
            if to_act is None:
                turn = await seats[0].next_turn(turn.version, timeout=30)
                continue
            turn = await seats[to_act].turn()
            if not turn.actions:
                continue
            command = choose(turn.view, turn.actions)
            started = time.perf_counter()
            with contextlib.suppress(Refused):
                await seats[to_act].act(command)
            latencies.append(time.perf_counter() - started)
            turn = await seats[to_act].turn()
    return latencies


# -- the attacks, each in a process of its own ---------------------------------------------


def _attack_process(
    row: str, target: Target, settings: Settings, stop: StopEvent, ready: StopEvent, results: Any
) -> None:
    with contextlib.suppress(ValueError, OSError):
        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with contextlib.suppress(OSError):
        os.nice(ATTACKER_NICENESS)
    deadline = time.monotonic() + SETTING_UP + 2 * settings.seconds + 60  # stops by itself
    got = asyncio.run(_attack(row, target, settings, stop, ready, deadline))
    results.put(got)


async def _until(stop: StopEvent, deadline: float) -> None:
    while not stop.is_set() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


async def _attack(
    row: str, target: Target, settings: Settings, stop: StopEvent, ready: StopEvent, deadline: float
) -> str:
    """The row's attack until ``stop``; ``ready`` is set once it is all in place (every
    connection of a flood open, every create of C sent), so the measure sees all of it."""
    match row:
        case "A":
            return await _rest_flood(target, settings, stop, deadline, ready)
        case "F":
            return await _uecda_flood(target, settings, stop, deadline, ready)
        case "B":
            ready.set()
            return await _read_loops(target, settings, stop, deadline)
        case "C":
            return await _creates(target, settings, stop, deadline, ready)
        case "E":
            ready.set()
            return await _audits(target, settings, stop, deadline)
    raise ValueError(f"no row {row}")


class _Held:
    """Connections an attacker keeps open: each slot connects, runs ``pattern`` (what
    it sends, if anything), and holds the connection; when the server closes it, the
    slot connects again at once, as a real flood does (a flood that let its dropped
    connections go would be no flood). ``in_place`` is set once every slot has connected
    (or failed to) once: the measure starts only after that."""

    def __init__(self, port: int, count: int, stop: StopEvent, deadline: float) -> None:
        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0] - 100
        self.port, self.count = port, min(count, limit)
        self.stop, self.deadline = stop, deadline
        self.held = 0  # open now
        self.opened = 0  # connections made in all
        self.dropped = 0  # of them, closed by the server
        self.failed: Counter[str] = Counter()
        self.started = 0  # slots that connected (or failed) once
        self.in_place = asyncio.Event()
        self.gate = asyncio.Semaphore(500)  # connects under way at once

    def running(self) -> bool:
        return not self.stop.is_set() and time.monotonic() < self.deadline

    async def slot(self, pattern: Callable[[asyncio.StreamWriter], Awaitable[None]]) -> None:
        first = True
        while self.running():
            try:
                async with self.gate:
                    reader, writer = await asyncio.wait_for(
                        asyncio.open_connection(HOST, self.port, local_addr=(ATTACKER, 0)), 5
                    )
            except (OSError, TimeoutError) as error:
                self.failed[type(error).__name__] += 1
                await asyncio.sleep(0.1)
            else:
                self.opened += 1
                self.held += 1
                first = self._started(first)
                try:
                    closed = asyncio.ensure_future(reader.read(1))
                    sending = asyncio.ensure_future(pattern(writer))
                    while self.running() and not closed.done():
                        await asyncio.wait([closed], timeout=0.2)
                    sending.cancel()
                    if closed.done() and not closed.cancelled():
                        self.dropped += 1
                    closed.cancel()
                    for future in (closed, sending):  # (a reset is how the server closes)
                        future.add_done_callback(_quietly)
                finally:
                    self.held -= 1
                    writer.transport.abort()
            first = self._started(first)

    def _started(self, first: bool) -> bool:
        if first:
            self.started += 1
            if self.started >= self.count:
                self.in_place.set()
        return False

    async def run(
        self,
        patterns: Sequence[Callable[[asyncio.StreamWriter], Awaitable[None]]],
        ready: StopEvent,
    ) -> None:
        slots = asyncio.gather(
            *(self.slot(patterns[number % len(patterns)]) for number in range(self.count)),
            return_exceptions=True,
        )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.in_place.wait(), max(0.0, self.deadline - time.monotonic()))
        ready.set()
        await _until(self.stop, self.deadline)
        await slots

    def report(self, what: str) -> str:
        failed = f" {dict(self.failed)}" if self.failed else ""
        return (
            f"{self.count} {what} held (reopened when closed): {self.opened} opened, "
            f"{self.dropped} closed by the server, {sum(self.failed.values())} failed{failed}"
        )


def _quietly(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def _silent(_writer: asyncio.StreamWriter) -> None:
    """Never a byte."""


async def _half_profile(writer: asyncio.StreamWriter) -> None:
    """A UECda profile's first half, then nothing: a handshake that stalls."""
    writer.write(_PROFILE[: TABLE_BYTES // 2])
    await writer.drain()


async def _trickled_profile(writer: asyncio.StreamWriter) -> None:
    """A UECda profile 4 bytes a second: it would take two minutes to arrive."""
    for offset in range(0, TABLE_BYTES, INT_BYTES):
        writer.write(_PROFILE[offset : offset + INT_BYTES])
        await writer.drain()
        await asyncio.sleep(1.0)


def _profile(name: str) -> bytes:
    cells = [0] * (TABLE_BYTES // INT_BYTES)
    cells[0] = PROTOCOL_VERSION
    for column, char in enumerate(name.encode()[: NAME_CELLS - 1]):
        cells[NAME_CELLS + column] = char
    return b"".join(value.to_bytes(INT_BYTES, "big") for value in cells)


_PROFILE = _profile("flood")


async def _rest_flood(
    target: Target, settings: Settings, stop: StopEvent, deadline: float, ready: StopEvent
) -> str:
    flood = _Held(target.http_port, settings.connections, stop, deadline)
    await flood.run([_silent], ready)
    return flood.report("silent REST connections")


async def _uecda_flood(
    target: Target, settings: Settings, stop: StopEvent, deadline: float, ready: StopEvent
) -> str:
    """Silent connections, profiles half sent, profiles trickled, a third each; and
    meanwhile a real client trying to get a seat every second (a table of 4 bots and
    it): how many got their player number, and how fast."""
    assert target.uecda_port is not None
    flood = _Held(target.uecda_port, settings.uecda_connections, stop, deadline)
    seated: list[float] = []
    turned_away: Counter[str] = Counter()

    async def real_clients() -> None:
        await flood.in_place.wait()
        while flood.running():
            started = time.monotonic()
            try:
                async with asyncio.timeout(10):
                    reader, writer = await asyncio.open_connection(HOST, target.uecda_port)
                    try:
                        writer.write(_profile(f"real{len(seated)}"))
                        await writer.drain()
                        await reader.readexactly(INT_BYTES)
                        seated.append(time.monotonic() - started)
                    finally:
                        writer.transport.abort()
            except (OSError, TimeoutError, asyncio.IncompleteReadError) as error:
                turned_away[type(error).__name__] += 1
            await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - started)))

    real = asyncio.ensure_future(real_clients())
    await flood.run([_silent, _half_profile, _trickled_profile], ready)
    real.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await real
    seat_time = (
        f", seated in p50 {percentile(seated, 0.5) * 1e3:.0f} ms / max {max(seated) * 1e3:.0f} ms"
        if seated
        else ""
    )
    return (
        f"{flood.report('UECda connections (silent, half a profile, a trickled profile)')}; "
        f"real clients seated under it: {len(seated)} of {len(seated) + sum(turned_away.values())}"
        f"{seat_time} {dict(turned_away) if turned_away else ''}"
    )


async def _read_loops(target: Target, settings: Settings, stop: StopEvent, deadline: float) -> str:
    """Loops of reads, taking turns: the state at a random seq of the long finished
    match, the delayed match now, and the long match replayed step by step (as the page
    does: ``/state`` at each seq in turn)."""
    statuses: Counter[int] = Counter()
    rng = random.Random(1)

    async def loop(number: int) -> None:
        step = 0
        async with _attacker_http(target) as http:
            while not stop.is_set() and time.monotonic() < deadline:
                kind = number % 3
                if kind == 1 and target.delayed:
                    answer = await http.get(f"/matches/{target.delayed}", timeout=30)
                else:
                    if kind == 2:
                        seq, step = step, (step + 1) % (target.finished_version + 1)
                    else:
                        seq = rng.randrange(target.finished_version + 1)
                    path = f"/matches/{target.finished}/state"
                    answer = await http.get(path, params={"seq": seq}, timeout=30)
                statuses[answer.status_code] += 1

    await asyncio.gather(*(loop(number) for number in range(settings.loops)))
    return (
        f"{sum(statuses.values())} reads {dict(statuses)} of a {target.finished_version + 1}-"
        "event finished match and a delayed one"
    )


async def _creates(
    target: Target, settings: Settings, stop: StopEvent, deadline: float, ready: StopEvent
) -> str:
    statuses: Counter[int] = Counter()
    body = {"players": 5, "bots": 5, "seat": None, "games_per_set": 100, "bot_pause": 0}
    async with _attacker_http(target) as http:

        async def create() -> None:
            try:
                answer = await http.post("/matches", json=body, timeout=30)
                statuses[answer.status_code] += 1
            except httpx.HTTPError as error:
                statuses[type(error).__name__] += 1  # type: ignore[index]

        await asyncio.gather(*(create() for _ in range(settings.creates)))
        ready.set()  # the created matches' bots play on meanwhile
        await _until(stop, deadline)
    return f"{settings.creates} creates {dict(statuses)}"


def _attacker_http(target: Target) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    return httpx.AsyncClient(base_url=f"http://{HOST}:{target.http_port}", transport=transport)


def _audit_body(megabytes: float) -> bytes:
    """A JSON audit request of about ``megabytes`` MB: a log of made-up events."""
    line = {
        "stream": "m:fakefakefakefake",
        "type": "Passed",
        "schema": 1,
        "at": 0,
        "request_id": "x",
        "data": {"seat": 0, "reason": ""},
        "prev_hash": "0" * 64,
    }
    one = len(json.dumps(json.dumps({**line, "seq": 0, "hash": "0" * 64}))) + 2
    lines = [
        json.dumps({**line, "seq": seq, "hash": f"{seq:064x}"})
        for seq in range(int(megabytes * 1_000_000 / one))
    ]
    return json.dumps({"log": "\n".join(lines)}).encode()


async def _audits(target: Target, settings: Settings, stop: StopEvent, deadline: float) -> str:
    body = _audit_body(settings.audit_mb)
    statuses: Counter[int] = Counter()

    async def loop() -> None:
        async with _attacker_http(target) as http:
            while not stop.is_set() and time.monotonic() < deadline:
                answer = await http.post(
                    "/audit", content=body, headers={"content-type": "application/json"}, timeout=60
                )
                statuses[answer.status_code] += 1

    await asyncio.gather(*(loop() for _ in range(settings.loops)))
    return f"{sum(statuses.values())} audits of {len(body) / 1e6:.1f} MB {dict(statuses)}"


# -- setting up a row ------------------------------------------------------------------


async def _long_finished(http: httpx.AsyncClient, games: int, wait: float) -> tuple[str, int]:
    """A match of 5 bots and ``games`` games played out (or as far as ``wait`` allows)."""
    body = {"players": 5, "bots": 5, "seat": None, "games_per_set": games, "bot_pause": 0}
    created = (await http.post("/matches", json=body)).json()
    match_id = created["match_id"]
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        view = (await http.get(f"/matches/{match_id}")).json()
        if view["state"] == "finished":
            break
        await asyncio.sleep(0.5)
    return match_id, int((await http.get(f"/matches/{match_id}")).json()["version"])


async def _long_delayed(client: DaifugoClient, held_back: int) -> str:
    """A live match with an hour's spectator delay and ``held_back`` events or more
    after its setting up (all held back), no longer played (no load of its own)."""
    created = await client.create_match("federation", 4, games_per_set=100, spectator_delay=3600)
    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    await client.host(created.match_id, created.host_token).start()
    choose = GreedyBot().choose
    played = 0
    turn = await seats[0].turn()
    while played < held_back and turn.view.phase != "match_over":
        to_act = turn.view.turn
        if to_act is None:
            turn = await seats[0].next_turn(turn.version, timeout=30)
            continue
        turn = await seats[to_act].turn()
        if turn.actions:
            result = await seats[to_act].act(choose(turn.view, turn.actions), await_turn=False)
            played = result.version
            turn = await seats[to_act].turn()
    return created.match_id


async def run_row(row: str, settings: Settings, work: Path) -> Row:
    redis = RedisServer(work / "redis", appendonly=False).start()
    # F: tables of 4 bots and one client, one game each (a real client trying to get in
    # is seated at once when it gets through)
    options = ("--uecda-port", "0", "--uecda-bots", "4", "--uecda-games", "1") if row == "F" else ()
    # the service's own defaults, quotas included
    serve = ServeProcess(redis.url, work / "serve.log", *options, roomy_quotas=False)
    serve.wait_ready()
    result = Row(row)
    try:
        target = Target(serve.http_port)
        if row == "F":
            found = serve.log_tail(20_000).split("UECda on ", 1)[1].split(",", 1)[0]
            target.uecda_port = int(found.strip())
        async with (
            DaifugoClient(serve.grpc_target, timeout=60) as client,
            httpx.AsyncClient(base_url=f"http://{HOST}:{serve.http_port}", timeout=60) as http,
        ):
            if row == "B":
                target.finished, target.finished_version = await _long_finished(
                    http, settings.long_games, wait=300
                )
                target.delayed = await _long_delayed(client, settings.held_back)
            result.alone, alone_cpu = await _measured(client, settings.seconds, serve.pid)
            context = multiprocessing.get_context("spawn")
            stop, ready, results = context.Event(), context.Event(), context.Queue()
            attack = context.Process(
                target=_attack_process,
                args=(row, target, settings, stop, ready, results),
                daemon=True,
            )
            attack.start()
            try:
                setting_up = time.monotonic()
                in_place = await asyncio.to_thread(ready.wait, SETTING_UP)
                setting_up = time.monotonic() - setting_up
                await asyncio.sleep(WARM_UP)
                result.attacked, attacked_cpu = await _measured(client, settings.seconds, serve.pid)
                result.cpu = (alone_cpu, attacked_cpu)
                answered = await _answers(http)
            finally:
                stop.set()
                got = await asyncio.to_thread(results.get, True, 90)
                attack.join(30)
                if attack.is_alive():
                    attack.kill()
            result.got = (
                f"{got}; in place after {setting_up:.1f} s"
                f"{'' if in_place else ' (NOT all in place: measured anyway)'}; "
                f"REST answered under it: {answered}"
            )
    finally:
        serve.stop()
        redis.stop()
    return result


async def _measured(client: DaifugoClient, seconds: float, pid: int) -> tuple[list[float], float]:
    """The honest Acts' latencies, and the service's share of a core meanwhile."""
    cpu, started = cpu_seconds(pid), time.monotonic()
    latencies = await honest_acts(client, seconds)
    return latencies, (cpu_seconds(pid) - cpu) / (time.monotonic() - started)


async def _answers(http: httpx.AsyncClient) -> str:
    try:
        answer = await http.get("/matches", params={"limit": 1}, timeout=5)
    except httpx.HTTPError as error:
        return f"no ({type(error).__name__})"
    return "yes" if answer.status_code == 200 else f"no ({answer.status_code})"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="daifugo bench attacks", description=__doc__)
    parser.add_argument("--rows", default=",".join(ROWS))
    defaults = Settings()
    for name, value in vars(defaults).items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    args = parser.parse_args(argv)
    rows = [row.strip().upper() for row in args.rows.split(",") if row.strip()]
    unknown = set(rows) - set(ROWS)
    if unknown:
        parser.error(f"no rows {sorted(unknown)}: the load rows are {', '.join(ROWS)}")
    settings = Settings(**{name: getattr(args, name) for name in vars(defaults)})
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
    print("honest Act latency, ms: p50 / p99 alone, p50 / p99 under the attack, p50 ratio")
    print(
        "row  alone p50 / p99   attacked p50 / p99  ratio  acts alone/attacked  "
        "service CPU alone/attacked  the attack"
    )
    for row in rows:
        with tempfile.TemporaryDirectory(prefix="bench-attacks-") as work:
            print(asyncio.run(run_row(row, settings, Path(work))).line(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
