"""The quotas as the service applies them, over the in-memory quota store and a real
GameService, with the clock moved by the test: who a caller is (its address, an IPv6
one by its /64, a proxy believed only when trusted), each limit and its reason code
and Retry-After, a retried create counted once, and bots given back when a match ends."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from eventstore import InMemoryEventStore
from eventstore.quotas import Full, InMemoryQuotas, Window
from service.app.errors import ErrorKind, ServiceError
from service.app.keyring import Keyring
from service.app.match import stream_of
from service.app.quotas import (
    Caller,
    Limits,
    QuotaExceeded,
    QuotaRelease,
    Quotas,
    caller_address,
    grpc_peer_address,
    network_of,
    parse_networks,
)
from service.app.scanning import SharedScan
from service.app.service import GameService, MatchOptions
from service.match import AbandonReason, BotKind

PROXY = parse_networks(["10.0.0.0/8", "127.0.0.1"])
ANN, BO = Caller("198.51.100.7"), Caller("198.51.100.8")


class Clock:
    def __init__(self) -> None:
        self.ms = 1_000_000

    def __call__(self) -> int:
        return self.ms


# -- who a caller is --------------------------------------------------------------------


def test_the_address_is_the_peer_s_unless_a_trusted_proxy_forwarded_it() -> None:
    forged = ["203.0.113.1"]
    assert caller_address("198.51.100.7", forged, PROXY) == "198.51.100.7"
    assert caller_address("127.0.0.1", ["198.51.100.7"], PROXY) == "198.51.100.7"
    # the caller's own X-Forwarded-For comes first: the proxies' appends are read from
    # the right, and the first address that is no trusted proxy is the caller
    chain = ["203.0.113.1, 198.51.100.7, 10.1.2.3"]
    assert caller_address("10.9.9.9", chain, PROXY) == "198.51.100.7"
    assert caller_address("10.9.9.9", ["203.0.113.1", "198.51.100.7"], PROXY) == "198.51.100.7"
    assert caller_address("10.9.9.9", ["not an address"], PROXY) == "10.9.9.9"
    assert caller_address("10.9.9.9", [], PROXY) == "10.9.9.9"
    assert caller_address("127.0.0.1", ["198.51.100.7"], ()) == "127.0.0.1"


def test_an_ipv6_caller_is_its_64_and_a_grpc_peer_reads_as_an_address() -> None:
    assert network_of("2001:db8:1:2:aaaa::1") == network_of("2001:db8:1:2:ffff::9")
    assert network_of("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert network_of("2001:db8:1:3::1") != network_of("2001:db8:1:2::1")
    assert network_of("::ffff:198.51.100.7") == "198.51.100.7"
    assert Caller("198.51.100.7").counted_as() == ("net:198.51.100.7",)
    assert Caller("198.51.100.7", "k1").counted_as() == ("net:198.51.100.7", "player:k1")
    assert grpc_peer_address("ipv4:198.51.100.7:5555") == "198.51.100.7"
    assert grpc_peer_address("ipv6:[2001:db8::1]:5555") == "2001:db8::1"


def test_limits_refuse_nonsense() -> None:
    for bad in ({"creates": 0}, {"bots": -1}, {"create_window": 0}, {"idle_abandon": -1}):
        with pytest.raises(ValueError):
            Limits(**bad)  # type: ignore[arg-type]


# -- the quotas ---------------------------------------------------------------------------


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def quotas(clock: Clock) -> Quotas:
    limits = Limits(creates=2, create_window=60, bots_per_caller=6, bots=8, audits_per_caller=1)
    return Quotas(InMemoryQuotas(), limits, clock)


async def test_creates_slide_with_the_clock_and_say_when_to_retry(
    quotas: Quotas, clock: Clock
) -> None:
    await quotas.create(ANN, "m1", "t1", 0)
    clock.ms += 20_000
    await quotas.create(ANN, "m2", "t2", 0)
    with pytest.raises(QuotaExceeded) as refused:
        await quotas.create(ANN, "m3", "t3", 0)
    assert refused.value.code == "quota_creates" and refused.value.retry_after == 40
    assert refused.value.kind == ErrorKind.EXHAUSTED
    await quotas.create(BO, "m4", "t4", 0)  # another caller has its own
    await quotas.create(ANN, "m1", "t1", 0)  # a retry of the first: counted once
    clock.ms += 40_000
    await quotas.create(ANN, "m3", "t3", 0)


async def test_bots_are_held_per_caller_and_for_all_until_the_match_ends(
    quotas: Quotas, clock: Clock
) -> None:
    await quotas.create(ANN, "m1", "t1", 5)
    with pytest.raises(QuotaExceeded) as mine:
        await quotas.seat_bot(ANN, "m1", "bot 2")  # 5 + 1 fits, 5 + 2 does not
        await quotas.seat_bot(ANN, "m1", "bot 3")
    assert mine.value.code == "quota_bots" and mine.value.retry_after == 30
    await quotas.create(BO, "m2", "t2", 2)
    with pytest.raises(QuotaExceeded) as everyone:
        clock.ms += 10**7  # windows long gone: the gauges never lapse by themselves
        await quotas.create(BO, "m3", "t3", 1)
    assert everyone.value.code == "quota_bots_global"
    assert sorted(await quotas.held_matches()) == ["m1", "m2"]  # a refusal holds nothing
    await quotas.release_match("m1")
    await quotas.create(BO, "m3", "t3", 1)


async def test_audits_hold_a_slot_for_their_time(quotas: Quotas) -> None:
    async with quotas.audit(ANN):
        with pytest.raises(QuotaExceeded) as refused:
            async with quotas.audit(ANN):
                pass
        assert refused.value.code == "quota_audits"
        async with quotas.audit(BO):
            pass
    async with quotas.audit(ANN):
        pass


def test_games_per_set_past_the_limit_are_bad_input(quotas: Quotas) -> None:
    quotas.check_games(0, 100, None, "7", True)
    for games in (101, 1000):
        with pytest.raises(ServiceError) as refused:
            quotas.check_games(0, games)
        assert refused.value.code == "too_many_games"
        assert refused.value.kind == ErrorKind.BAD_INPUT


# -- in the service -----------------------------------------------------------------------


@pytest.fixture
async def service(quotas: Quotas) -> AsyncIterator[GameService]:
    store = InMemoryEventStore()
    service = GameService(store, Keyring(secrets.token_bytes(32)), quotas=quotas)
    yield service
    await service.fanout.close()
    await store.close()


def bot_table(games: int = 0, **options: object) -> MatchOptions:
    bots = {seat: BotKind.GREEDY for seat in range(3)}
    return MatchOptions("classic", 3, dict(options), games_per_set=games, bots=bots)


async def test_the_service_counts_callers_creates_not_its_own(service: GameService) -> None:
    request = secrets.token_hex(16)
    first = await service.create(bot_table(), request, ANN)
    again = await service.create(bot_table(), request, ANN)  # a retry: the same match
    assert again.match_id == first.match_id
    await service.create(bot_table(), caller=ANN)
    with pytest.raises(QuotaExceeded):
        await service.create(bot_table(), caller=ANN)
    await service.create(bot_table())  # the service's own (UECda tables): no quota
    for games in ({"games": 101}, {"games_per_set": 101}):
        with pytest.raises(ServiceError) as refused:
            await service.create(bot_table(**games), caller=BO)  # type: ignore[arg-type]
        assert refused.value.code == "too_many_games"


async def test_a_refused_create_holds_no_bots(service: GameService, quotas: Quotas) -> None:
    with pytest.raises(ServiceError) as refused:
        await service.create(bot_table(jokers=9), caller=ANN)
    assert refused.value.code == "bad_request"
    assert await quotas.store.held("bots", 0) == 0


async def test_an_ended_match_gives_its_bots_back(service: GameService, quotas: Quotas) -> None:
    made = await service.create(bot_table(), caller=ANN)
    other = await service.create(bot_table(), caller=BO)
    assert await quotas.store.held("bots", 0) == 6
    release = QuotaRelease(quotas, SharedScan(service.store))
    await service.abandon(made.match_id, AbandonReason.IDLE)
    for event in await service.store.read(stream_of(made.match_id)):
        await release.take(event)
    assert await quotas.store.held("bots", 0) == 3
    # one that ended while no replica held the lease is let go at start
    await service.abandon(other.match_id, AbandonReason.IDLE)
    await release.start()
    assert await quotas.store.held("bots", 0) == 0 and await quotas.held_matches() == []


class YieldingQuotas(InMemoryQuotas):
    """Lets the loop run another join between a join's count and its seat, as the
    Redis round trip of a real store does."""

    async def take(self, *args: Any, **kwargs: Any) -> Full | None:
        taken = await super().take(*args, **kwargs)
        await asyncio.sleep(0)
        return taken


async def test_a_join_that_loses_the_last_seat_gives_its_lobby_seat_back(clock: Clock) -> None:
    quotas = Quotas(YieldingQuotas(), Limits(seats_per_caller=1), clock)
    store = InMemoryEventStore()
    service = GameService(store, Keyring(secrets.token_bytes(32)), quotas=quotas)
    try:
        table = MatchOptions("classic", 3, {}, open_seats=True, lobby=True)
        made = await service.create(table)
        await service.join(made.match_id, "ann")
        await service.join(made.match_id, "bo")
        cy, dee = Caller("198.51.100.9"), Caller("198.51.100.10")
        # both are counted before either is seated: one gets the last seat
        joins = [
            service.join(made.match_id, name, caller=c) for name, c in (("cy", cy), ("dee", dee))
        ]
        results = await asyncio.gather(*joins, return_exceptions=True)
        lost = [r for r in results if isinstance(r, ServiceError)]
        assert len(lost) == 1 and lost[0].code == "seats_full", results
        held = [await quotas.store.held(f"seats:net:{c.address}", 0) for c in (cy, dee)]
        assert sorted(held) == [0, 1]  # the loser holds nothing for a seat it never had
        # and may take a seat elsewhere at once (its one seat is free)
        loser = (cy, dee)[held.index(0)]
        other = await service.create(table)
        request = secrets.token_hex(16)
        await service.join(other.match_id, "again", request_id=request, caller=loser)
        # the attack: the same request id with other content is refused, and a refusal
        # that is no lost seat gives nothing back (the seat it took stays counted)
        with pytest.raises(ServiceError) as reused:
            await service.join(other.match_id, "other", request_id=request, caller=loser)
        assert reused.value.code == "request_id_reused"
        assert await quotas.store.held(f"seats:net:{loser.address}", 0) == 1
    finally:
        await service.fanout.close()
        await store.close()


async def test_the_in_memory_twin_forgets_windows_no_take_is_in() -> None:
    quotas = InMemoryQuotas()
    for caller in range(5000):  # sign-ups from as many addresses: each its own window
        assert await quotas.count([Window(f"signups:address:{caller}", 1, 1000)], 0) is None
    assert await quotas.count([Window("signups:address:late", 1, 1000)], 1000) is None
    assert await quotas.count([Window("signups:address:late", 1, 1000)], 1000) is not None
    assert len(quotas._windows) < 10 and set(quotas._spans) == set(quotas._windows)
