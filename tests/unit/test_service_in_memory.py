"""GameService over the in-memory event store: the application layer's own behaviour
(create, join, start, act, refusals, retries, waiting for a turn) without Redis. The
same service on a real Redis is tested in tests/integration."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from eventstore import InMemoryEventStore, StoredEvent
from service.app.bot_seats import BotSeats
from service.app.keyring import Keyring
from service.app.match import stream_of
from service.app.service import CreatedMatch, GameService, MatchOptions, ServiceError
from service.match import BotKind, MatchAbandoned
from service.records.formats import RefusalReceipt
from service.rules.commands import Pass, SeatCommand
from service.rules.legal import legal_actions
from service.rules.views import SPECTATOR


@pytest.fixture
async def store() -> AsyncIterator[InMemoryEventStore]:
    store = InMemoryEventStore()
    yield store
    await store.close()


@pytest.fixture
async def service(store: InMemoryEventStore) -> AsyncIterator[GameService]:
    service = GameService(store, Keyring(secrets.token_bytes(32)))
    yield service
    await service.fanout.close()


async def stored(store: InMemoryEventStore, match_id: str) -> list[StoredEvent]:
    return await store.read(stream_of(match_id))


async def started(service: GameService, players: int = 2) -> CreatedMatch:
    made = await service.create(MatchOptions("federation", players, {}))
    await service.start(made.match_id, made.host_token)
    return made


async def first_legal(service: GameService, match_id: str) -> tuple[int, SeatCommand]:
    match = await service.load(match_id)
    seat = match.game.turn
    assert seat is not None
    return seat, legal_actions(match.game)[0]


def always(command: SeatCommand) -> Callable[[int], SeatCommand]:
    """The command, for the seat of the token it comes with (as the adapters make it)."""
    return lambda seat: dataclasses.replace(command, seat=seat)


async def test_create_writes_the_match_and_its_seats(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await service.create(MatchOptions("federation", 3, {}))
    events = await stored(store, made.match_id)
    assert [e.type for e in events] == ["MatchCreated", "SeatJoined", "SeatJoined", "SeatJoined"]
    assert len(made.seat_tokens) == 3
    match = await service.load(made.match_id)
    assert match.version == 3 and not match.started and match.players == 3
    assert await store.streams() == [stream_of(made.match_id)]
    assert (await store.verify(stream_of(made.match_id))).ok


async def test_unknown_and_impossible_match_ids_are_not_found(service: GameService) -> None:
    for match_id in ("nope", "{braces}"):
        with pytest.raises(ServiceError) as info:
            await service.load(match_id)
        assert info.value.code == "not_found"


async def test_join_takes_free_seats_and_a_retry_takes_none(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await service.create(MatchOptions("federation", 2, {}, open_seats=True))
    secret = "join-ann-" + "7" * 32  # a join's request id is the joiner's secret
    first = await service.join(made.match_id, "ann", request_id=secret)
    again = await service.join(made.match_id, "ann", request_id=secret)
    assert again == first and first.seat == 0  # the same receipt too, byte for byte
    assert len(first.receipts) == 1
    assert (await service.join(made.match_id, "bob")).seat == 1
    with pytest.raises(ServiceError) as info:
        await service.join(made.match_id, "cat")
    assert info.value.code == "seats_full"
    joined = [e.data["name"] for e in await stored(store, made.match_id) if e.type == "SeatJoined"]
    assert joined == ["ann", "bob"]


async def test_only_the_host_starts_and_only_once(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await service.create(MatchOptions("federation", 2, {}))
    before = await stored(store, made.match_id)
    for token, code in [
        (made.seat_tokens[0], "permission_denied"),
        ("", "unauthenticated"),
        ("forged", "unauthenticated"),  # not of a token's form
        (made.seat_tokens[0][:-2] + "xx", "permission_denied"),
    ]:
        with pytest.raises(ServiceError) as info:
            await service.start(made.match_id, token)
        assert info.value.code == code
    assert await stored(store, made.match_id) == before  # refusals change nothing
    outcome = await service.start(made.match_id, made.host_token)
    assert outcome.match.started and outcome.version > before[-1].seq
    with pytest.raises(ServiceError) as info:
        await service.start(made.match_id, made.host_token)
    assert info.value.code == "already_started"


async def test_acting_appends_and_refusals_change_nothing(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await started(service)
    seat, command = await first_legal(service, made.match_id)
    other = made.seat_tokens[1 - seat]
    before = await stored(store, made.match_id)
    for token in (other, made.host_token, "forged"):  # not this seat's turn, or no seat
        with pytest.raises(ServiceError):
            await service.act(made.match_id, token, always(command))
    assert await stored(store, made.match_id) == before
    outcome = await service.act(made.match_id, made.seat_tokens[seat], always(command))
    after = await stored(store, made.match_id)
    assert outcome.version == after[-1].seq > before[-1].seq
    assert [e["seq"] for e in outcome.events] == [e.seq for e in after[len(before) :]]
    assert (await store.verify(stream_of(made.match_id))).ok


async def test_a_retried_action_is_carried_out_once(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await started(service)
    seat, command = await first_legal(service, made.match_id)
    token = made.seat_tokens[seat]
    first = await service.act(made.match_id, token, always(command), request_id="act-1")
    length = len(await stored(store, made.match_id))
    # the same request again (the reply was lost): the first outcome, nothing written
    again = await service.act(made.match_id, token, always(command), request_id="act-1")
    assert again.version == first.version and again.events == first.events
    assert len(await stored(store, made.match_id)) == length
    # also from a service that never saw it (another replica, an empty cache)
    other = GameService(store, service.keyring)
    retried = await other.act(made.match_id, token, always(command), request_id="act-1")
    assert retried.version == first.version
    assert len(await stored(store, made.match_id)) == length


async def test_an_unanswered_action_is_stored_alike_with_nothing_shown_or_signed(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await started(service)
    seat, command = await first_legal(service, made.match_id)
    token = made.seat_tokens[seat]
    before = len(await stored(store, made.match_id))
    outcome = await service.act(
        made.match_id, token, always(command), request_id="act-1", answered=False
    )
    after = await stored(store, made.match_id)
    assert outcome.receipt is None and outcome.events == ()
    assert list(outcome.stored) == after[before:] and outcome.version == after[-1].seq
    assert outcome.match == await GameService(store, service.keyring).load(made.match_id)
    # the same request again, answered: carried out once, its receipt of the same events
    again = await service.act(made.match_id, token, always(command), request_id="act-1")
    assert len(await stored(store, made.match_id)) == len(after)
    assert again.receipt is not None and again.version == outcome.version
    assert [event["seq"] for event in again.events] == [event.seq for event in after[before:]]


async def test_a_waiting_seat_wakes_when_its_turn_comes(service: GameService) -> None:
    made = await started(service)
    seat, command = await first_legal(service, made.match_id)
    waiter = made.seat_tokens[1 - seat]
    version = (await service.load(made.match_id)).version
    waiting = asyncio.create_task(service.next_turn(made.match_id, waiter, version))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    played = await service.act(made.match_id, made.seat_tokens[seat], always(command))
    turn = await asyncio.wait_for(waiting, 20)
    assert turn.match.version == played.version
    assert turn.view.turn == 1 - seat or turn.match.over


async def test_a_whole_match_played_to_its_end(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await started(service)
    seen: list[int] = []

    async def watch() -> None:
        async for event in service.events(made.match_id, SPECTATOR, 0):
            seen.append(event["seq"])
            if event["type"] == "MatchSealed":  # the last event
                return

    watching = asyncio.create_task(watch())
    for _ in range(2000):
        match = await service.load(made.match_id)
        if match.over:
            break
        seat, command = await first_legal(service, made.match_id)
        await service.act(made.match_id, made.seat_tokens[seat], always(command))
    assert (await service.load(made.match_id)).over
    await asyncio.wait_for(watching, 20)
    events = await stored(store, made.match_id)
    assert seen == [e.seq for e in events]  # the live stream missed nothing, repeated nothing
    assert [e.type for e in events[-2:]] == ["SeedRevealed", "MatchSealed"]
    assert (await store.verify(stream_of(made.match_id))).ok


async def test_a_seat_token_cannot_act_for_another_seat(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await started(service)
    seat, command = await first_legal(service, made.match_id)
    other = made.seat_tokens[1 - seat]
    before = await stored(store, made.match_id)
    with pytest.raises(ServiceError) as refused:
        await service.act(made.match_id, other, lambda _seat: command)
    assert refused.value.code == "permission_denied"
    assert await stored(store, made.match_id) == before
    outcome = await service.act(made.match_id, made.seat_tokens[seat], always(command))
    assert outcome.version > before[-1].seq  # the seat's own token does it


async def bots_play_out(
    service: GameService, store: InMemoryEventStore, match_id: str, worker: BotSeats
) -> None:
    """Run the bot seats ``worker`` (fed by the store's feed) until the match is over."""
    from service.app.following import SharedFeed

    feed = SharedFeed(store, [worker])
    running = [asyncio.create_task(worker.run()), asyncio.create_task(feed.run())]
    try:
        async with asyncio.timeout(120):  # a guard against a hang, not a time limit
            while not (await service.load(match_id)).over:
                await asyncio.sleep(0.01)
    finally:
        worker.stop()
        feed.stop()
        await asyncio.wait(running, timeout=5)


async def test_a_bot_seat_whose_action_failed_tries_its_turn_again(
    service: GameService, store: InMemoryEventStore
) -> None:
    """A bot's append that fails (the store briefly down) is retried, not forgotten:
    the seat would otherwise wait for a turn after one that never comes."""
    from clients.bots import bot_of_kind
    from eventstore import StoreUnavailable
    from service.app import bot_seats
    from service.app.bot_seats import BotSeats

    made = await service.create(
        MatchOptions(
            "classic", 2, {}, games_per_set=1, bots=dict.fromkeys(range(2), BotKind.GREEDY)
        )
    )
    appends = {"failed": 0}
    real_append = service._append_overlapping  # the service's one way to append

    async def flaky_append(*args: object, **kwargs: object) -> object:
        request_id = args[3] if len(args) > 3 else kwargs.get("request_id")
        if not appends["failed"] and isinstance(request_id, str) and "service" not in request_id:
            appends["failed"] += 1
            raise StoreUnavailable("down for a moment")
        return await real_append(*args, **kwargs)  # type: ignore[arg-type]

    await service.start(made.match_id, made.host_token)
    service._append_overlapping = flaky_append  # type: ignore[assignment]
    bot_seats.RETRY_PAUSE, pause = 0.01, bot_seats.RETRY_PAUSE
    try:
        await bots_play_out(service, store, made.match_id, BotSeats(service, bot_of_kind))
    finally:
        bot_seats.RETRY_PAUSE = pause
    assert appends["failed"] == 1


async def test_the_servers_least_bot_pause_holds_whatever_the_match_asks(
    service: GameService, store: InMemoryEventStore
) -> None:
    """Row C of the attacks: a caller's bot tables at ``bot_pause`` 0 would take the
    serving loop back to back; the server's least pause spaces every bot action."""
    from clients.bots import bot_of_kind
    from service.app.bot_seats import BotSeats

    made = await service.create(
        MatchOptions(
            "classic", 2, {}, games_per_set=1, bots=dict.fromkeys(range(2), BotKind.GREEDY)
        )
    )
    await service.start(made.match_id, made.host_token)
    await bots_play_out(
        service, store, made.match_id, BotSeats(service, bot_of_kind, min_pause=0.03)
    )
    first_of_each_action: dict[str, int] = {}
    for event in await stored(store, made.match_id):
        if event.type in {"CardsPlayed", "Passed"}:  # every play and pass here is a bot's
            first_of_each_action.setdefault(event.request_id, event.at)
    times = sorted(first_of_each_action.values())
    assert len(times) > 5
    # one bot acts at a time here (two seats, alternate turns): each waited 30 ms first
    assert all(later - earlier >= 29 for earlier, later in itertools.pairwise(times))


# -- the one loop: a stale cache, a refusal judged afresh, the service's own commands --


async def test_a_stale_cache_is_caught_by_the_append_and_decided_again(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await service.create(MatchOptions("federation", 3, {}, open_seats=True))
    await service.load(made.match_id)  # cached: every seat free
    other = GameService(store, service.keyring)  # another replica, sharing the store
    assert (await other.join(made.match_id, "ann")).seat == 0
    appends = 0
    real_append = service._append_overlapping  # the service's one way to append

    async def counted(*args: object, **kwargs: object) -> object:
        nonlocal appends
        appends += 1
        return await real_append(*args, **kwargs)  # type: ignore[arg-type]

    service._append_overlapping = counted  # type: ignore[assignment]
    # decided on the stale cache (seat 0 free), refused by the append's expected
    # version, loaded and decided again: the next free seat
    assert (await service.join(made.match_id, "bob")).seat == 1
    assert appends == 2
    names = [e.data["name"] for e in await stored(store, made.match_id) if e.type == "SeatJoined"]
    assert names == ["ann", "bob"]


async def test_a_refusal_on_a_stale_cache_is_judged_again_on_the_stream(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await service.create(MatchOptions("federation", 2, {}))
    await service.load(made.match_id)  # cached: not started
    other = GameService(store, service.keyring)
    await other.start(made.match_id, made.host_token)
    match = await other.load(made.match_id)
    turn = match.game.turn
    assert turn is not None
    # the cache says "not started"; the stream says otherwise, and the stream decides
    outcome = await service.act(
        made.match_id, made.seat_tokens[turn], always(legal_actions(match.game)[0])
    )
    assert outcome.version > match.version


async def test_what_was_prepared_for_an_append_that_lost_its_race_is_never_given(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await started(service)
    seat, command = await first_legal(service, made.match_id)
    token = made.seat_tokens[seat]
    other = GameService(store, service.keyring)  # another replica, sharing the store
    real_append = service._append_overlapping  # the seam of the overlapped append
    lost: list[tuple[StoredEvent, ...]] = []

    async def raced(*args: Any) -> Any:
        # the other replica's action lands while this one's append is on its way
        service._append_overlapping = real_append
        await other.act(made.match_id, token, always(command))
        *asked, prepare = args
        return await real_append(*asked, lambda stored: (lost.append(stored), prepare(stored)))

    service._append_overlapping = raced
    with pytest.raises(ServiceError) as refused:
        await service.act(made.match_id, token, always(command))
    assert refused.value.code == "not_your_turn" and lost  # prepared, then not stored
    after = await other.load(made.match_id)
    cached = service.cached(made.match_id)
    assert cached is not None and (cached.version, cached.game) == (after.version, after.game)
    receipt = refused.value.receipt
    assert isinstance(receipt.record, RefusalReceipt)  # judged on the stream as it is
    assert (receipt.record.judged_at_seq, receipt.record.head) == (after.version, after.head)
    kept = {item.hash for item in await stored(store, made.match_id)}
    assert not kept & {item.hash for item in lost[0]}


async def test_a_refusal_changes_nothing_and_a_retry_of_a_done_request_is_its_outcome(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await started(service)
    seat, command = await first_legal(service, made.match_id)
    token = made.seat_tokens[seat]
    first = await service.act(made.match_id, token, always(command), request_id="r-1")
    # the same request id once the command has become illegal: the first outcome, not
    # the refusal (the retry is recognised on the refusal path)
    again = await service.act(made.match_id, token, always(command), request_id="r-1")
    assert again.version == first.version
    # another command under that id is refused as a reused id, and changes nothing
    before = await stored(store, made.match_id)
    with pytest.raises(ServiceError) as info:
        await service.act(made.match_id, token, always(Pass(seat)), request_id="r-1")
    assert info.value.code == "request_id_reused"
    assert await stored(store, made.match_id) == before


async def test_a_refused_command_carries_a_signed_refusal(service: GameService) -> None:
    made = await started(service)
    match = await service.load(made.match_id)
    seat, _ = await first_legal(service, made.match_id)
    with pytest.raises(ServiceError) as info:
        await service.act(made.match_id, made.seat_tokens[1 - seat], always(Pass(1 - seat)))
    assert info.value.code == "not_your_turn"
    receipt = info.value.receipt
    assert receipt is not None
    signed = receipt.to_dict()
    assert signed["kind"] == "refusal" and signed["reason"] == "not_your_turn"
    assert (signed["judged_at_seq"], signed["head"]) == (match.version, match.head)


async def test_a_timed_out_turn_is_taken_once(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await service.create(MatchOptions("federation", 2, {}, turn_seconds=30))
    await service.start(made.match_id, made.host_token)
    version = (await service.load(made.match_id)).version
    outcome = await service.time_out(made.match_id, version)
    assert outcome is not None and outcome.events[0]["type"] == "TurnTimedOut"
    length = len(await stored(store, made.match_id))
    assert await service.time_out(made.match_id, version) is None  # done, or moved on
    assert await GameService(store, service.keyring).time_out(made.match_id, version) is None
    assert len(await stored(store, made.match_id)) == length


async def test_no_turn_times_out_without_a_timer(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await started(service)
    before = await stored(store, made.match_id)
    assert await service.time_out(made.match_id, before[-1].seq) is None
    assert await stored(store, made.match_id) == before


async def test_a_finished_match_is_sealed_once(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await started(service)
    while not (await service.load(made.match_id)).over:
        seat, command = await first_legal(service, made.match_id)
        await service.act(made.match_id, made.seat_tokens[seat], always(command))
    match = await service.load(made.match_id)
    assert match.sealed and not match.awaits_seal
    assert not await service.seal(made.match_id)
    assert not await GameService(store, service.keyring).seal(made.match_id)
    assert [e.type for e in await stored(store, made.match_id)].count("MatchSealed") == 1


async def test_the_store_refuses_an_append_after_the_seal_as_game_over(
    service: GameService, store: InMemoryEventStore
) -> None:
    """Whoever writes past the deciders (a writer on a stale version, a bug): the seal was
    the stream's last append, and the store's refusal comes back as game_over."""
    made = await started(service)
    while not (await service.load(made.match_id)).over:
        seat, command = await first_legal(service, made.match_id)
        await service.act(made.match_id, made.seat_tokens[seat], always(command))
    match = await service.load(made.match_id)
    assert match.sealed
    for expected in (match.version, match.version - 1):
        with pytest.raises(ServiceError) as info:
            await service._append(
                made.match_id, [MatchAbandoned("idle", expected)], expected, "late"
            )
        assert info.value.code == "game_over"
    assert [e.type for e in await stored(store, made.match_id)][-1] == "MatchSealed"
    assert (await service.load(made.match_id)).version == match.version


async def test_an_invite_table_is_joined_by_claim_and_full_it_starts_itself(
    service: GameService, store: InMemoryEventStore
) -> None:
    made = await service.create(
        MatchOptions("federation", 2, {}, open_seats=True, invites=True, auto_start=True)
    )
    with pytest.raises(ServiceError) as info:
        await service.join(made.match_id, "ann")
    assert info.value.code == "permission_denied"
    secret = "claim-" + "5" * 32
    claimed = await service.claim_seat(made.match_id, 1, "ann", request_id=secret)
    assert await service.claim_seat(made.match_id, 1, "ann", request_id=secret) == claimed
    with pytest.raises(ServiceError) as info:
        await service.claim_seat(made.match_id, 1, "bob")
    assert info.value.code == "seat_taken"
    assert info.value.receipt is not None  # a refusal judged on the match is signed
    bot = await service.seat_bot(made.match_id, made.host_token, BotKind.RANDOM)
    assert bot.token is None and len(bot.receipts) == 2  # its seat's, and the auto start's
    types = [e.type for e in await stored(store, made.match_id)]
    assert types[:4] == ["MatchCreated", "SeatJoined", "SeatJoined", "MatchStarted"]
    assert (await service.load(made.match_id)).started


async def test_a_read_that_ends_after_a_newer_append_does_not_take_the_cache_back(
    service: GameService, store: InMemoryEventStore
) -> None:
    # a slow load that read the stream before an append, and folds after it, must not
    # leave the older match cached: a seat waiting for its turn looks at the cache, and
    # the turn the append brought would never wake it
    made = await started(service)
    before = await service.load(made.match_id)
    read, gate, read_done = store.read, asyncio.Event(), asyncio.Event()

    async def slow_read(*args: object, **kwargs: object) -> list[StoredEvent]:
        events = await read(*args, **kwargs)  # type: ignore[arg-type]
        read_done.set()
        await gate.wait()
        return events

    store.read = slow_read  # type: ignore[method-assign]
    slow = asyncio.create_task(service.load(made.match_id))
    await read_done.wait()
    store.read = read  # type: ignore[method-assign]
    seat, command = await first_legal(service, made.match_id)
    await service.act(made.match_id, made.seat_tokens[seat], always(command))
    moved = service.cached(made.match_id)
    assert moved is not None and moved.version > before.version
    gate.set()
    assert (await slow).version == before.version
    assert service.cached(made.match_id) is moved
