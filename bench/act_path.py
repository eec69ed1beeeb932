"""The action path's own work, without the gRPC transport. Prints figures; asserts nothing.

    .venv/bin/python -m bench.act_path [--matches M] [--seconds S] [--rounds R]
    .venv/bin/python -m bench.act_path --overlap both   # the append's overlap, on and off
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python -m bench.act_path --whole N   # instruction counts

Bot matches call the gRPC servicer's methods in this process (``MatchServicer.Act``
with ``await_turn``, as ``clients.runner.play_seat`` does over the network), so a
figure holds what the service does per action (mapping, token check, decide, append
with its Lua round trip, the fold, the receipt, the turn wake-up of the next seat
and its view) and nothing of HTTP/2 or of the bots' clients: the process's CPU per
action, for comparing two versions of the service side by side. Each seat picks a
random legal action (seeded): the choosing costs next to nothing.

``--whole N`` plays N whole matches (8 at a time) and prints the actions taken: run
it under callgrind for two values of N, and the difference of the instruction
counts over the difference of the actions is the instructions per action, a figure
that a machine shared with other work does not blur.

Redis: REDIS_URL, else a private redis-server started for the run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import tempfile
import time
import uuid
from collections.abc import Sequence
from typing import Any, cast

from eventstore import EventStore, RedisEventStore, RedisServer, RedisStorage
from service.app.keyring import Keyring
from service.app.service import GameService
from service.app.signing import ephemeral_signer
from service.grpc.gen.daifugo.v1 import match_service_pb2 as pb
from service.grpc.servicer import MatchServicer
from service.runtime import tune_gc_for_serving


class Context:
    """What the servicer reads of a call: its bearer token; an abort is a failure here."""

    def __init__(self, token: str = "") -> None:
        self.metadata = (("authorization", f"Bearer {token}"),) if token else ()

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self.metadata

    async def abort_with_status(self, status: Any) -> None:
        raise RuntimeError(f"refused: {status}")

    async def abort(self, code: Any, message: str) -> None:
        raise RuntimeError(f"{code}: {message}")


class Tables:
    def __init__(self, servicer: MatchServicer) -> None:
        self.servicer = servicer
        self.actions = 0

    async def seat(self, match_id: str, token: str, chooser: random.Random) -> None:
        context = Context(token)
        seen = await self.servicer.GetView(pb.GetViewRequest(match_id=match_id), context)
        view, actions, version = seen.view, list(seen.legal_actions), seen.version
        while view.phase != "match_over":
            if not actions:
                waited = await self.servicer.AwaitTurn(
                    pb.AwaitTurnRequest(match_id=match_id, after_version=version), context
                )
                view, actions, version = waited.view, list(waited.legal_actions), waited.version
                continue
            request = pb.ActRequest(
                match_id=match_id,
                action=chooser.choice(actions),
                request_id=uuid.uuid4().hex,
                await_turn=True,
            )
            acted = await self.servicer.Act(request, context)
            self.actions += 1
            view, actions, version = acted.view, list(acted.legal_actions), acted.view_version

    async def match(self, chooser: random.Random) -> None:
        created = await self.servicer.CreateMatch(
            pb.CreateMatchRequest(
                preset=pb.PRESET_FEDERATION,
                seats=4,
                games_per_set=1,
                request_id=secrets.token_hex(16),
            ),
            Context(),
        )
        await self.servicer.StartMatch(
            pb.StartMatchRequest(match_id=created.match_id, request_id=uuid.uuid4().hex),
            Context(created.host_token),
        )
        await asyncio.gather(
            *(self.seat(created.match_id, seat.token, chooser) for seat in created.seat_tokens)
        )

    async def until(self, deadline: float, chooser: random.Random) -> None:
        while time.perf_counter() < deadline:
            await self.match(chooser)


class WithoutOverlap:
    """The store as the port alone has it: every method but the overlapped append, so
    the service appends and then makes the outcome (eventstore/overlap.py)."""

    def __init__(self, store: RedisEventStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        if name == "append_overlapped":
            raise AttributeError(name)
        return getattr(self._store, name)


async def run(
    redis_url: str, matches: int, seconds: float, rounds: int, whole: int, overlap: str
) -> None:
    store = RedisEventStore.from_url(redis_url, prefix=f"bench-act-{uuid.uuid4().hex[:6]}")
    keyring = Keyring(await RedisStorage(store).server_key().load())
    service = GameService(store, keyring, ephemeral_signer())
    tables = Tables(MatchServicer(service, lambda match: None))
    tune_gc_for_serving()  # as `daifugo serve` does
    if overlap == "both":
        without = GameService(cast(EventStore, WithoutOverlap(store)), keyring, service.signer)
        try:
            await side_by_side(
                tables, Tables(MatchServicer(without, lambda match: None)), matches, seconds, rounds
            )
        finally:
            await without.fanout.close()
            await service.fanout.close()
            await store.close()
        return
    if overlap == "off":
        service = GameService(cast(EventStore, WithoutOverlap(store)), keyring, service.signer)
        tables = Tables(MatchServicer(service, lambda match: None))
    try:
        if whole:
            for start in range(0, whole, 8):
                numbers = range(start, min(whole, start + 8))
                await asyncio.gather(*(tables.match(random.Random(n)) for n in numbers))
            print(f"{whole} whole matches, {tables.actions} actions")
            return
        print(f"{matches} bot matches at once, in this process, without the gRPC transport")
        for number in range(rounds + 1):  # the first warms up
            tables.actions = 0
            cpu = time.process_time()
            deadline = time.perf_counter() + seconds
            choosers = [random.Random(number * matches + n) for n in range(matches)]
            await asyncio.gather(*(tables.until(deadline, chooser) for chooser in choosers))
            used = time.process_time() - cpu
            if number:
                print(
                    f"  round {number}: {tables.actions} actions,"
                    f" {used / max(1, tables.actions) * 1e6:.0f} µs CPU per action"
                )
    finally:
        await service.fanout.close()
        await store.close()


async def side_by_side(
    overlapped: Tables, after: Tables, matches: int, seconds: float, rounds: int
) -> None:
    """Rounds of each in turn (which goes first alternating), each round's figures."""
    print(
        f"{matches} bot matches at once, in this process, without the gRPC transport: "
        "the outcome made during the append's round trip, or after it"
    )
    for number in range(rounds + 1):  # the first warms up
        order = [("overlapped", overlapped), ("after", after)]
        for name, tables in order if number % 2 else order[::-1]:
            tables.actions = 0
            cpu = time.process_time()
            deadline = time.perf_counter() + seconds
            choosers = [random.Random(number * matches + n) for n in range(matches)]
            await asyncio.gather(*(tables.until(deadline, chooser) for chooser in choosers))
            used = time.process_time() - cpu
            if number:
                print(
                    f"  round {number} {name:>10}: {tables.actions / seconds:6.0f} actions/s,"
                    f" {used / max(1, tables.actions) * 1e6:.0f} µs CPU per action"
                )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--matches", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--whole", type=int, default=0, help="play N whole matches and stop")
    parser.add_argument(
        "--overlap",
        choices=("on", "off", "both"),
        default="on",
        help="make an action's outcome during its append's round trip (on, as served), "
        "after it (off), or rounds of each side by side (both)",
    )
    args = parser.parse_args(argv)
    redis_url = os.environ.get("REDIS_URL")
    if redis_url:
        asyncio.run(
            run(redis_url, args.matches, args.seconds, args.rounds, args.whole, args.overlap)
        )
        return
    server = RedisServer(tempfile.mkdtemp(prefix="bench-redis-"), appendonly=False).start()
    try:
        asyncio.run(
            run(server.url, args.matches, args.seconds, args.rounds, args.whole, args.overlap)
        )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
