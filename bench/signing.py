"""Signed records' cost, side by side in one run. Prints figures; asserts nothing.

    .venv/bin/python -m bench.signing [--records N] [--rounds R] [--plays P]
        [--matches M] [--seconds S] [--no-action-path]

1. Per record (median of the rounds, µs): the canonical JSON of a receipt's payload,
   the raw Ed25519 sign and verify of those bytes, the whole of what the service does
   per action (``Signer.receipt``: clock, key, encoding, sign) and what the auditor
   does per receipt (``verify`` of its JSON), and, for scale, one event's chain hash.
2. Per event: the whole auditor over real finished matches' logs (played through
   ``GameService``, every answer's receipt kept), µs per event, with the seal's and
   the receipts' signatures checked and without (no key, no receipts: those two
   checks do not run), and the checks one by one.
3. The action path: the game service in a process of its own, as ``daifugo serve``
   runs it, once signing as it does and once with its signer swapped for one that
   builds the same records but signs nothing (a stand-in of this bench: the service
   has no switch for it). Sequential Act p50/p99 and the service's CPU per turn (the
   Act and the two view calls before it), and actions/s of M concurrent bot matches
   (one Act call per action, as ``clients.runner.play_seat``, but a seat that waits
   5 s in vain for its turn looks again, and the run counts it) with the service's
   CPU per action; beside
   the floor of ``bench.grpc_api`` (a bare grpc.aio append), so the ratios read
   against issue 19's targets (sequential p50 <= 2x the floor, concurrent >= 0.5 of
   its calls/s). The sides alternate round by round; figures are medians.

Redis for part 3: REDIS_URL, else a private redis-server started for the run.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import secrets
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from clients.bots import GreedyBot, RandomBot, StrongerBot
from clients.sdk import DaifugoClient, Refused, SeatSession
from eventstore import InMemoryEventStore, RedisServer, StoredEvent
from eventstore.hashing import canonical_json, event_hash
from service import event_loop
from service.app.keyring import Keyring
from service.app.match import stream_of
from service.app.service import GameService, MatchOptions
from service.app.signing import Signer, generate_keys, now_ms
from service.audit import audit_events
from service.event_loop import LOOPS
from service.records import (
    ActionReceipt,
    KeySet,
    RefusalReceipt,
    Seal,
    SignedRecord,
    verify,
)
from service.records.formats import payload_of
from service.rules.commands import SeatCommand
from service.rules.legal import legal_actions
from service.rules.views import Viewer, build_view
from service.runtime import running_service, tune_gc_for_serving

from .grpc_api import (
    act_latency,
    cpu_seconds,
    durations,
    floor_latency,
    floor_throughput,
    percentile,
    serve_until_stdin_closes,
    server_process,
)

HEAD = hashlib.sha256(b"head").hexdigest()
DIGEST = hashlib.sha256(b"request").hexdigest()
UNSIGNED = bytes(64)  # what the stand-in puts where a signature goes
MS = 1000


def per_record_us(work: Callable[[int], object], records: int, rounds: int) -> float:
    """The median over rounds of µs per call of ``work(i)`` for i in range(records)."""
    samples = []
    for _ in range(rounds):
        started = time.perf_counter_ns()
        for number in range(records):
            work(number)
        samples.append((time.perf_counter_ns() - started) / records / 1000)
    return statistics.median(samples)


# -- 1. per record -------------------------------------------------------------


def per_record(records: int, rounds: int) -> None:
    signer = Signer(generate_keys(now_ms() - 1000))
    keys: KeySet = signer.key_set()
    private = signer.keys.signing_key(now_ms()).private_key
    public = Ed25519PublicKey.from_public_bytes(signer.keys.published[-1].public_key)
    signed = [signer.receipt("0123456789abcdef", n, n + 2, HEAD, DIGEST) for n in range(records)]
    wire = [record.to_dict() for record in signed]
    payloads = [canonical_json(payload_of(record.record)) for record in signed]
    signatures = [record.signature for record in signed]
    data = {"seat": 1, "cards": ["3S", "3H"], "jokers_as": [], "reason": "play"}

    match_id, stream = "0123456789abcdef", "m:0123456789abcdef"

    def encode(n: int) -> bytes:
        return canonical_json(payload_of(signed[n].record))

    def receipt(n: int) -> object:
        return signer.receipt(match_id, n, n + 2, HEAD, DIGEST)

    def chain_hash(n: int) -> str:
        return event_hash(stream, n, "CardsPlayed", 1, 1_700_000_000_000, "r", data, HEAD)

    figures: list[tuple[str, Callable[[int], object]]] = [
        ("canonical JSON of a receipt's payload", encode),
        ("Ed25519 sign of those bytes", lambda n: private.sign(payloads[n])),
        ("Signer.receipt (the service's whole cost)", receipt),
        ("Ed25519 verify of those bytes", lambda n: public.verify(signatures[n], payloads[n])),
        ("verify(record JSON) (the auditor's whole cost)", lambda n: verify(wire[n], keys)),
        ("sha256 of one event envelope (hash chain)", chain_hash),
    ]
    print(f"1. per record: {records} records x {rounds} rounds, median µs per record")
    for name, work in figures:
        print(f"  {name:<48} {per_record_us(work, records, rounds):8.1f}")
    genuine = sum(verify(record, keys).ok for record in wire)
    print(f"  ({genuine} of {records} records verified)")


# -- 2. per event ----------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    events: list[StoredEvent]
    keys: KeySet
    receipts: list[dict[str, Any]]


async def played_match(preset: str, players: int, games: int) -> Played:
    """A whole match through ``GameService`` (bots choosing), every receipt kept."""
    store = InMemoryEventStore()
    signer = Signer(generate_keys(now_ms() - 1000))
    service = GameService(store, Keyring(secrets.token_bytes(32)), signer)
    made = await service.create(MatchOptions(preset, players, {}, games_per_set=games))
    assert made.receipt is not None
    receipts = [made.receipt.to_dict()]
    started = await service.start(made.match_id, made.host_token)
    assert started.receipt is not None
    receipts.append(started.receipt.to_dict())
    bots = [GreedyBot(), RandomBot(1), StrongerBot(), GreedyBot(), RandomBot(2)][:players]
    while not (match := await service.load(made.match_id)).over:
        seat = match.game.turn
        assert seat is not None
        action = bots[seat](build_view(match.game, Viewer.of_seat(seat)), legal_actions(match.game))
        outcome = await service.act(made.match_id, made.seat_tokens[seat], _always(action))
        assert outcome.receipt is not None
        receipts.append(outcome.receipt.to_dict())
    events = await store.read(stream_of(made.match_id), 0)
    return Played(events, signer.key_set(), receipts)


def _always(action: SeatCommand) -> Callable[[int], SeatCommand]:
    return lambda _seat: action


def per_event(rounds: int) -> None:
    matches = [
        asyncio.run(played_match("federation", 4, 3)),
        asyncio.run(played_match("classic", 2, 5)),
        asyncio.run(played_match("uecda", 5, 3)),
    ]
    events = sum(len(match.events) for match in matches)
    receipts = sum(len(match.receipts) for match in matches)

    def audit_all(signed: bool) -> float:
        samples = []
        for _ in range(rounds):
            started = time.perf_counter_ns()
            for match in matches:
                keys, given = (match.keys, match.receipts) if signed else (None, None)
                report = audit_events(match.events, keys, given)
                assert report.verdict == "valid", report.to_dict()
                assert bool(report.not_run) != signed  # signed: every check ran
            samples.append((time.perf_counter_ns() - started) / events / 1000)
        return statistics.median(samples)

    print(
        f"2. per event: the whole auditor over {len(matches)} real finished matches "
        f"({events} events, {receipts} receipts), median of {rounds} rounds, µs per event"
    )
    with_signatures, without = audit_all(True), audit_all(False)
    print(f"  every check, the seal and {receipts} receipts verified  {with_signatures:8.1f}")
    print(f"  without a key or receipts (seal, receipts not run)  {without:8.1f}")
    print(f"  the signatures' share                               {with_signatures - without:8.1f}")
    split = check_times(matches, rounds)
    alone = ", ".join(f"{name} {us:.1f}" for name, us in split.items())
    print(f"  each check alone, µs per event: {alone}")


def check_times(matches: Sequence[Played], rounds: int) -> dict[str, float]:
    """µs per event of each check on its own (the decoding counted once, apart)."""
    from service.audit import blinding, chain, commitment, legality, receipts, seal
    from service.audit.decoding import decode_all

    events = sum(len(match.events) for match in matches)
    decoded = [decode_all(match.events) for match in matches]
    work: dict[str, Callable[[int], object]] = {
        "decode": lambda i: decode_all(matches[i].events),
        "hash_chain": lambda i: chain.check_hash_chain(matches[i].events),
        "seal": lambda i: seal.check_seal(matches[i].events, matches[i].keys),
        "seed_commitment": lambda i: commitment.check_seed_commitment(decoded[i]),
        "blinding": lambda i: blinding.check_blinding(decoded[i]),
        "legality": lambda i: legality.check_legality(decoded[i]),
        "receipts": lambda i: receipts.check_receipts(
            matches[i].events, matches[i].receipts, matches[i].keys
        ),
    }
    out = {}
    for name, run in work.items():
        samples = []
        for _ in range(rounds):
            started = time.perf_counter_ns()
            for index in range(len(matches)):
                run(index)
            samples.append((time.perf_counter_ns() - started) / events / 1000)
        out[name] = statistics.median(samples)
    return out


# -- 3. the action path --------------------------------------------------------------


class UnsignedSigner(Signer):
    """The service's signer with the signing taken out: the same records, keys and
    answers, but no canonical JSON and no Ed25519 (a zero signature). Only this
    bench uses it, to weigh what signing adds to an action."""

    def receipt(
        self,
        match_id: str,
        first_seq: int,
        last_seq: int,
        head: str,
        request_digest: str,
        at: int | None = None,
    ) -> SignedRecord:
        at = self._clock() if at is None else at
        key_id = self.keys.signing_key(at).key_id
        record = ActionReceipt(match_id, first_seq, last_seq, head, request_digest, at, key_id)
        return SignedRecord(record, UNSIGNED)

    def refusal(
        self, match_id: str, judged_at_seq: int, head: str, reason: str, request_digest: str
    ) -> SignedRecord:
        at = self._clock()
        key_id = self.keys.signing_key(at).key_id
        record = RefusalReceipt(match_id, judged_at_seq, head, reason, request_digest, at, key_id)
        return SignedRecord(record, UNSIGNED)

    def seal(self, match_id: str, last_seq: int, head: str) -> SignedRecord:
        at = self._clock()
        key_id = self.keys.signing_key(at).key_id
        return SignedRecord(Seal(match_id, last_seq, head, at, key_id), UNSIGNED)


async def serve_game(redis_url: str, signed: bool) -> None:
    """The game service as ``daifugo serve`` runs it, signing or not; prints its port."""
    tune_gc_for_serving()
    keys = generate_keys(now_ms() - 1000)
    signer = Signer(keys) if signed else UnsignedSigner(keys)
    # a store of its own: each side holds its own background lease, and its CPU counts
    # the projections of its own matches only
    prefix = f"bench-signing-{'signed' if signed else 'unsigned'}"
    async with running_service(
        redis_url, grpc_port=0, timers=False, signer=signer, prefix=prefix
    ) as running:
        await serve_until_stdin_closes(running.grpc_port)


STALL_WAIT = 5.0  # seconds a seat waits for its turn before it looks again


@dataclass
class Stalls:
    """Turns a seat waited STALL_WAIT for in vain and then found by looking again: a
    wake-up the service missed (counted, so that it shows)."""

    count: int = 0


async def play_counted(session: SeatSession, stalls: Stalls, deadline: float) -> int:
    """Play a seat as ``clients.runner.play_seat`` does (one Act call per action, which
    waits for the next turn), but never waiting long in vain; the actions it took."""
    bot, acts = GreedyBot(), 0
    turn = await session.turn()
    while turn.view.phase != "match_over":
        try:
            if turn.actions:
                after = await session.act(
                    bot(turn.view, turn.actions), await_turn=True, timeout=STALL_WAIT
                )
                acts += 1
                assert after.turn is not None
                turn = after.turn
            else:
                turn = await session.next_turn(turn.version, timeout=STALL_WAIT)
            continue
        except Refused as refused:
            if refused.code == "deadline_exceeded":
                stalls.count += 1
            elif refused.code not in ("not_your_turn", "wrong_action", "game_over"):
                raise
        if time.perf_counter() > deadline + 300:
            raise RuntimeError("a match made no progress for minutes")
        turn = await session.turn()
    return acts


async def match_throughput(
    client: DaifugoClient, matches: int, seconds: float, stalls: Stalls
) -> tuple[float, int]:
    """Actions/s and actions taken by ``matches`` bot matches at once (each started
    before the deadline is played to its end)."""
    acts = 0
    deadline = time.perf_counter() + seconds

    async def one_table() -> None:
        nonlocal acts
        while time.perf_counter() < deadline:
            created = await client.create_match("federation", 4, games_per_set=1)
            await client.host(created.match_id, created.host_token).start()
            seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
            done = await asyncio.gather(*(play_counted(s, stalls, deadline) for s in seats))
            acts += sum(done)

    started = time.perf_counter()
    await asyncio.gather(*(one_table() for _ in range(matches)))
    return acts / (time.perf_counter() - started), acts


@dataclass
class Side:
    """One side's samples over the rounds."""

    latencies: list[float]
    cpu_sequential: list[float]  # service CPU ms per action, sequential Acts
    rates: list[float]
    cpu_concurrent: list[float]  # service CPU ms per action, concurrent matches


async def action_path(
    redis_url: str, plays: int, matches: int, seconds: float, rounds: int
) -> None:
    sides = {name: Side([], [], [], []) for name in ("signed", "unsigned")}
    stalls = Stalls()
    floor_latencies: list[float] = []
    floor_rates: list[float] = []
    with (
        server_process("signed", redis_url, bench="bench.signing") as signed,
        server_process("unsigned", redis_url, bench="bench.signing") as unsigned,
        server_process("floor", redis_url) as floor,
    ):
        servers = {"signed": signed, "unsigned": unsigned}
        clients = {
            name: DaifugoClient(f"127.0.0.1:{server.port}") for name, server in servers.items()
        }
        try:
            await floor_latency(floor.port, 200)  # warm-up
            for client in clients.values():
                await act_latency(client, 200)
            for round_number in range(rounds):
                floor_latencies += durations(await floor_latency(floor.port, plays))
                # alternate which side goes first: a machine that drifts weighs on both
                order = ["signed", "unsigned"] if round_number % 2 == 0 else ["unsigned", "signed"]
                for name in order:
                    side, server = sides[name], servers[name]
                    cpu = cpu_seconds(server.pid)
                    timings = durations(await act_latency(clients[name], plays))
                    side.cpu_sequential.append((cpu_seconds(server.pid) - cpu) / len(timings) * MS)
                    side.latencies += timings
                rate, _ = await floor_throughput(floor.port, matches, seconds)
                floor_rates.append(rate)
                for name in order:
                    side, server = sides[name], servers[name]
                    cpu = cpu_seconds(server.pid)
                    rate, acts = await match_throughput(clients[name], matches, seconds, stalls)
                    side.cpu_concurrent.append((cpu_seconds(server.pid) - cpu) / max(1, acts) * MS)
                    side.rates.append(rate)
        finally:
            for client in clients.values():
                await client.close()

    floor_p50 = percentile(floor_latencies, 0.5)
    floor_rate = statistics.median(floor_rates)
    print(
        f"3. the action path: {rounds} rounds, {plays} sequential Acts and {seconds:.0f} s of "
        f"{matches} concurrent bot matches per side and round"
    )
    print(
        f"  {'':<9} {'Act p50':>8} {'p99':>8} {'x floor':>8} {'CPU/turn':>8}"
        f" {'actions/s':>10} {'x floor':>8} {'CPU/act':>8}"
    )
    for name, side in sides.items():
        p50, p99 = percentile(side.latencies, 0.5), percentile(side.latencies, 0.99)
        rate = statistics.median(side.rates)
        cpu_sequential = statistics.median(side.cpu_sequential)
        cpu_concurrent = statistics.median(side.cpu_concurrent)
        print(
            f"  {name:<9} {p50 * MS:6.2f}ms {p99 * MS:6.2f}ms {p50 / floor_p50:7.2f}x"
            f" {cpu_sequential:6.2f}ms {rate:10.0f} {rate / floor_rate:8.2f}"
            f" {cpu_concurrent:6.2f}ms"
        )
    print(
        f"  {'floor':<9} {floor_p50 * MS:6.2f}ms {percentile(floor_latencies, 0.99) * MS:6.2f}ms"
        f" {'':>8} {'':>8} {floor_rate:10.0f}"
    )
    signed_side, unsigned_side = sides["signed"], sides["unsigned"]
    added = percentile(signed_side.latencies, 0.5) - percentile(unsigned_side.latencies, 0.5)
    cpu_added = statistics.median(signed_side.cpu_sequential) - statistics.median(
        unsigned_side.cpu_sequential
    )
    cpu_act_added = statistics.median(signed_side.cpu_concurrent) - statistics.median(
        unsigned_side.cpu_concurrent
    )
    print(
        "  (CPU/turn: the service's CPU per sequential Act with the two view calls before it;"
        " CPU/act: per action of the concurrent matches, one Act call each)"
    )
    print(
        f"  signing adds {added * MS * 1000:+.0f} µs to the Act p50, "
        f"{cpu_added * 1000:+.0f} µs of service CPU per sequential turn and "
        f"{cpu_act_added * 1000:+.0f} µs per concurrent action"
    )
    print("  targets (issue 19): sequential p50 <= 2x the floor; concurrent >= 0.5 of its calls/s")
    if stalls.count:
        print(f"  ({stalls.count} turns were found only by looking again after {STALL_WAIT:g} s)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.signing", description=__doc__)
    parser.add_argument("--records", type=int, default=5000, help="records per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--plays", type=int, default=500, help="sequential Acts per round")
    parser.add_argument("--matches", type=int, default=32, help="concurrent bot matches")
    parser.add_argument("--seconds", type=float, default=6.0, help="per concurrent round")
    parser.add_argument("--no-action-path", action="store_true", help="parts 1 and 2 only")
    parser.add_argument("--serve", choices=("signed", "unsigned"), help=argparse.SUPPRESS)
    parser.add_argument("--loop", choices=LOOPS, default="asyncio", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    redis_url = os.environ.get("REDIS_URL")
    if args.serve:
        assert redis_url, "a served side is given REDIS_URL"
        event_loop.run(serve_game(redis_url, args.serve == "signed"), args.loop)
        return 0
    per_record(args.records, max(args.rounds, 5))
    per_event(max(args.rounds, 5))
    if args.no_action_path:
        return 0
    run = (args.plays, args.matches, args.seconds, args.rounds)
    if redis_url:
        asyncio.run(action_path(redis_url, *run))
        return 0
    server = RedisServer(tempfile.mkdtemp(prefix="bench-redis-"), appendonly=False).start()
    try:
        asyncio.run(action_path(server.url, *run))
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
