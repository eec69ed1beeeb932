"""Seats given to the service's own bots are played by the service, through the same
path as a client's seat, by whichever replica holds the background lease."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
import redis

from clients.bots import GreedyBot
from clients.runner import play_seat
from clients.sdk import DaifugoClient
from service.app.match import stream_of
from service.app.service import MatchOptions, ServiceError
from service.audit import audit_events
from service.match.events import BotKind
from service.runtime import Running, running_service

from ..redis_support import unique
from .test_background import wait_until


async def test_three_bot_seats_and_a_client_play_a_match_to_its_end(
    running: Running, client: DaifugoClient
) -> None:
    service = running.service
    bots = {1: BotKind.RANDOM, 2: BotKind.GREEDY, 3: BotKind.STRONGER}
    options = MatchOptions("torasobi", 4, {}, games_per_set=2, bots=bots)
    created = await service.create(options)
    match = await service.load(created.match_id)
    assert match.bots == (None, "random", "greedy", "stronger")
    assert match.names[1:] == ("random bot 1", "greedy bot 2", "stronger bot 3")
    await service.start(created.match_id, created.host_token)
    seat = client.seat(created.match_id, created.seat_tokens[0])
    async with asyncio.timeout(600):  # a guard against a hang, not a time limit
        await play_seat(seat, GreedyBot())
    finished = await service.load(created.match_id)
    assert finished.over and finished.seed
    report = audit_events(await service.store.read(stream_of(created.match_id)))
    assert report.verdict == "valid", report


async def test_bots_in_any_seats_of_an_open_match_audit_valid(running: Running) -> None:
    service = running.service
    bots = {0: BotKind.GREEDY, 2: BotKind.RANDOM}
    options = MatchOptions("classic", 3, {}, games_per_set=2, open_seats=True, bots=bots)
    created = await service.create(options)
    assert (await service.load(created.match_id)).seats_free == (1,)
    seated = await service.join(created.match_id, "person")
    assert seated.seat == 1 and seated.token is not None
    token = seated.token
    await service.start(created.match_id, created.host_token)
    async with asyncio.timeout(600):  # a guard against a hang, not a time limit
        while not (await service.load(created.match_id)).over:
            seen = await service.next_turn(created.match_id, token)
            if seen.actions:
                first = seen.actions[0]
                await service.act(created.match_id, token, lambda _, first=first: first)
    report = audit_events(await service.store.read(stream_of(created.match_id)))
    assert report.verdict == "valid", report


async def test_seats_taken_out_of_order_audit_valid(running: Running) -> None:
    """An invite names its seat, so seats fill in any order; the audit accepts that."""
    service = running.service
    created = await service.create(MatchOptions("classic", 3, {}, games_per_set=1, open_seats=True))
    seated = [await service.claim_seat(created.match_id, seat, f"p{seat}") for seat in (2, 0)]
    tokens = [taken.token for taken in seated]
    bot = await service.seat_bot(created.match_id, created.host_token, BotKind.GREEDY)
    assert bot.seat == 1 and bot.token is None
    await service.start(created.match_id, created.host_token)
    async with asyncio.timeout(600):  # a guard against a hang, not a time limit
        while not (await service.load(created.match_id)).over:
            for token in tokens:
                seen = await service.seen(created.match_id, token)
                if seen.actions:
                    first = seen.actions[0]
                    await service.act(created.match_id, token, lambda _, first=first: first)
            await asyncio.sleep(0.01)
    report = audit_events(await service.store.read(stream_of(created.match_id)))
    assert report.verdict == "valid", report


async def test_the_host_seats_bots_in_open_seats_and_nobody_else_may(running: Running) -> None:
    service = running.service
    created = await service.create(MatchOptions("classic", 3, {}, open_seats=True))
    match_id = created.match_id
    joined = await service.join(match_id, "person")
    token = joined.token
    with pytest.raises(ServiceError) as refused:
        await service.seat_bot(match_id, token, BotKind.GREEDY)
    assert refused.value.code == "permission_denied"
    with pytest.raises(ServiceError) as unknown:
        await service.seat_bot(match_id, created.host_token, "cheater")  # type: ignore[arg-type]
    assert unknown.value.code == "bad_request"
    before = await service.load(match_id)
    assert before.seats_free == (1, 2)  # the refusals took no seat
    assert (await service.seat_bot(match_id, created.host_token, BotKind.GREEDY)).seat == 1
    assert (await service.seat_bot(match_id, created.host_token, BotKind.STRONGER)).seat == 2
    with pytest.raises(ServiceError) as full:
        await service.seat_bot(match_id, created.host_token, BotKind.RANDOM)
    assert full.value.code == "seats_full"
    assert joined.seat == 0


@pytest.mark.parametrize(
    ("bots", "reason"),
    [({4: BotKind.GREEDY}, "no seat 4"), ({0: "cheater"}, "no bot")],
)
async def test_a_bot_for_no_seat_or_of_no_kind_is_refused(
    running: Running, bots: dict[int, BotKind], reason: str
) -> None:
    with pytest.raises(ServiceError) as refused:
        await running.service.create(MatchOptions("classic", 4, {}, bots=bots))
    assert refused.value.code == "bad_request" and reason in refused.value.message


async def test_a_replica_taking_the_lease_over_plays_the_bot_seats_on(redis_url: str) -> None:
    """The replica that created an all-bot match stops mid-match; the other plays on."""
    prefix = unique("test-")
    try:
        async with contextlib.AsyncExitStack() as stack:
            first = await stack.enter_async_context(
                running_service(redis_url, grpc_port=0, prefix=prefix)
            )
            await wait_until(lambda: first.background.leading)
            bots = dict.fromkeys(range(4), BotKind.GREEDY)
            options = MatchOptions("federation", 4, {}, games_per_set=1, bots=bots, bot_pause=0.1)
            created = await first.service.create(options)
            await first.service.start(created.match_id, created.host_token)
            async with running_service(redis_url, grpc_port=0, prefix=prefix) as second:
                await asyncio.sleep(0.5)
                await stack.aclose()  # the first replica (and its bots) stop
                stopped_at = await second.service.load(created.match_id)
                assert not stopped_at.over
                await wait_until(lambda: second.background.leading, timeout=15)
                async with asyncio.timeout(600):  # a guard against a hang, not a time limit
                    while not (match := await second.service.load(created.match_id)).over:
                        await asyncio.sleep(0.1)
                assert match.version > stopped_at.version
    finally:
        client = redis.Redis.from_url(redis_url)
        for key in list(client.scan_iter(match=f"{prefix}:*", count=1000)):
            client.delete(key)
        client.close()
