"""The game API end to end: real gRPC, real Redis, the real service."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from clients.bots import GreedyBot, RandomBot, StrongerBot
from clients.runner import play_match
from clients.sdk import DaifugoClient, Refused, SeatSession
from service.app.keyring import HOST
from service.app.match import fold_match, stream_of
from service.grpc.gen.daifugo.v1 import match_service_pb2 as pb
from service.rules import rule_set
from service.runtime import Running

from .conftest import arrange


async def version_of(seat: SeatSession) -> int:
    response = await seat.client.call(
        seat.client.stub.GetView, pb.GetViewRequest(match_id=seat.match_id), seat.token
    )
    return int(response.version)


@pytest.mark.parametrize("preset", ["federation", "torasobi", "classic", "uecda"])
async def test_bots_play_a_whole_match_of_each_preset(
    running: Running, client: DaifugoClient, preset: str
) -> None:
    rules = rule_set(preset)
    bots = [StrongerBot(rules), GreedyBot(), RandomBot(1), GreedyBot()]
    match_id = await play_match(client, preset, bots)
    store = running.service.store
    stored = await store.read(stream_of(match_id))
    match = fold_match(None, stored)
    assert match.over and len(match.game.results) == rules.games_per_set
    assert all(sorted(places) == [1, 2, 3, 4] for places in match.game.results)
    assert (await store.verify(stream_of(match_id))).ok
    assert [event.type for event in stored[-2:]] == ["SeedRevealed", "MatchSealed"]


async def test_a_uecda_seat_sees_the_preset_and_its_seating(client: DaifugoClient) -> None:
    created = await client.create_match("uecda", seats=5)
    await client.host(created.match_id, created.host_token).start()
    turn = await client.seat(created.match_id, created.seat_tokens[0]).turn()
    assert turn.view.preset == "uecda" and turn.view.options["jokers"] == 1
    assert sorted(turn.view.seating) == [0, 1, 2, 3, 4]
    assert sum(turn.view.hand_sizes) == 53


def act_request(seat: SeatSession, **action: Any) -> pb.ActRequest:
    return pb.ActRequest(
        match_id=seat.match_id, request_id=uuid.uuid4().hex, action=pb.Action(**action)
    )


# (preset, hands, leader, steps before, the refused step, code); a step is
# (seat, "play"|"pass"|"give", cards)
REFUSALS: list[
    tuple[str, list[str], int, list[tuple[int, str, str]], tuple[int, str, str], str]
] = [
    ("federation", ["3D", "4D 5D"], 0, [(0, "play", "3D")], (1, "play", "5D"), "game_over"),
    ("federation", ["3D 9C", "4D 5D"], 0, [], (1, "play", "4D"), "not_your_turn"),
    ("federation", ["3D 9C", "4D 5D"], 0, [], (0, "give", "3D"), "wrong_action"),
    ("federation", ["3D 9C", "4D 5D"], 0, [], (0, "play", "4D"), "card_not_in_hand"),
    ("federation", ["3D 9C", "4D 5D"], 0, [], (0, "pass", ""), "cannot_pass"),
    ("classic", ["3D 9C KS", "4D 5D 6H"], 0, [], (0, "play", "9C"), "must_include_d3"),
    ("federation", ["3D 9C", "4D 5D"], 0, [], (0, "play", "3D 9C"), "invalid_meld"),
    (
        "federation",
        ["3D 9C", "4D 4S 5D"],
        0,
        [(0, "play", "3D")],
        (1, "play", "4D 4S"),
        "shape_mismatch",
    ),
    (
        "federation",
        ["4H 7C", "9H 5S", "KS QH"],
        0,
        [(0, "play", "4H"), (1, "play", "9H")],
        (2, "play", "KS"),
        "suit_locked",
    ),
    (
        "torasobi",
        ["5H TS", "6D JH", "KS 7C"],
        0,
        [(0, "play", "5H"), (1, "play", "6D")],
        (2, "play", "KS"),
        "number_locked",
    ),
    ("federation", ["KH 9C", "4C 5D"], 0, [(0, "play", "KH")], (1, "play", "4C"), "not_stronger"),
]


async def send(seat: SeatSession, kind: str, cards: str) -> Any:
    if kind == "pass":
        return await seat.pass_()
    return await getattr(seat, kind)(cards)


@pytest.mark.parametrize("case", REFUSALS, ids=[case[-1] for case in REFUSALS])
async def test_every_refusal_code_comes_back_and_changes_nothing(
    running: Running, client: DaifugoClient, case: Any
) -> None:
    preset, hands, leader, before, (seat, kind, cards), code = case
    table = await arrange(running, client, preset, hands, leader)
    for who, what, played in before:
        await send(table.seats[who], what, played)
    version = await version_of(table.seats[0])
    with pytest.raises(Refused) as refused:
        await send(table.seats[seat], kind, cards)
    assert refused.value.code == code
    expected = (
        grpc.StatusCode.INVALID_ARGUMENT
        if code == "invalid_meld"
        else grpc.StatusCode.FAILED_PRECONDITION
    )
    assert refused.value.status == expected
    assert await version_of(table.seats[0]) == version


async def test_bad_notation_is_an_invalid_argument(running: Running, client: DaifugoClient) -> None:
    table = await arrange(running, client, "federation", ["3D 9C", "4D 5D"], 0)
    seat = table.seats[0]
    for action in ({"play": pb.Play(cards=["5Z"])}, {"play": pb.Play(cards=["3D", "3D"])}, {}):
        with pytest.raises(Refused) as refused:
            await client.call(client.stub.Act, act_request(seat, **action), seat.token)
        assert (refused.value.code, refused.value.status) == (
            "bad_request",
            grpc.StatusCode.INVALID_ARGUMENT,
        )


async def test_a_seat_sees_only_its_own_hand_and_acts_only_for_itself(
    running: Running, client: DaifugoClient
) -> None:
    table = await arrange(running, client, "federation", ["3D 9C", "4D 5D", "6H 7H"], 0)
    seat0, seat1 = table.seats[0], table.seats[1]
    view = await seat1.view()
    assert view.seat == 1 and view.hand == ("4D", "5D") and view.hands is None
    assert view.hand_sizes == (2, 2, 2)
    assert "3D" not in json.dumps(view.__repr__()) and "6H" not in repr(view)
    # seat 1's token only ever acts as seat 1: it is not seat 1's turn
    with pytest.raises(Refused) as refused:
        await seat1.play("4D")
    assert refused.value.code == "not_your_turn"
    # a forged or foreign token is refused; no token at all is unauthenticated
    with pytest.raises(Refused) as refused:
        await client.seat(table.match_id, seat0.token[:-2] + "xx").view()
    assert refused.value.status == grpc.StatusCode.PERMISSION_DENIED
    other = await arrange(running, client, "federation", ["3D", "4D"], 0)
    with pytest.raises(Refused) as refused:
        await client.seat(table.match_id, other.seats[0].token).view()
    assert refused.value.status == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(Refused) as refused:
        await client.call(client.stub.GetView, pb.GetViewRequest(match_id=table.match_id))
    assert refused.value.status == grpc.StatusCode.UNAUTHENTICATED
    # the host token starts matches, it plays no seat
    with pytest.raises(Refused) as refused:
        await client.seat(table.match_id, table.host_token).play("3D")
    assert refused.value.status == grpc.StatusCode.PERMISSION_DENIED


async def test_the_event_stream_of_a_seat_hides_other_hands(
    running: Running, client: DaifugoClient
) -> None:
    table = await arrange(running, client, "federation", ["3D 9C", "4D 5D", "6H 7H"], 0)
    seen: list[dict[str, Any]] = []
    async for event in table.seats[1].events():
        seen.append(event)
        if event["type"] == "GameDealt":
            break
    dealt = seen[-1]
    assert dealt["hands"][1] == ["4D", "5D"]
    assert dealt["hands"][0] is None and dealt["hands"][2] is None
    assert dealt["hand_sizes"] == [2, 2, 2]


async def test_a_retried_request_changes_nothing(running: Running, client: DaifugoClient) -> None:
    table = await arrange(running, client, "federation", ["3D 9C", "4D 5D"], 0)
    seat = table.seats[0]
    request = act_request(seat, play=pb.Play(cards=["3D"]))
    first = await client.call(client.stub.Act, request, seat.token)
    second = await client.call(client.stub.Act, request, seat.token)
    assert second.version == first.version
    assert [e.seq for e in second.events] == [e.seq for e in first.events]
    stored = await running.service.store.read(stream_of(table.match_id))
    assert stored[-1].seq == first.version
    assert sum(1 for e in stored if e.type == "CardsPlayed") == 1


async def test_a_stream_resumed_after_a_disconnect_is_complete(
    running: Running, client: DaifugoClient
) -> None:
    rules = rule_set("torasobi")
    bots = [GreedyBot(), RandomBot(3), StrongerBot(rules)]
    match_id = await play_match(client, "torasobi", bots, games_per_set=1)
    stored = await running.service.store.read(stream_of(match_id))
    host = client.host(match_id, running.service.keyring.token(match_id, HOST))

    async def until_the_end(from_seq: int = 0, stop_after: int = 0) -> list[dict[str, Any]]:
        """Events from ``from_seq``; the stream is live, so stop at the last one
        (or after ``stop_after`` events, dropping the connection)."""
        seen: list[dict[str, Any]] = []
        async for event in host.events(from_seq):
            seen.append(event)
            if event["type"] == "MatchSealed" or len(seen) == stop_after:
                break
        return seen

    everything = await until_the_end()
    assert [e["seq"] for e in everything] == [e.seq for e in stored]
    first_part = await until_the_end(stop_after=len(everything) // 2)
    rest = await until_the_end(first_part[-1]["seq"] + 1)
    assert first_part + rest == everything


async def test_the_turn_timer_acts_for_an_absent_seat(
    running: Running, client: DaifugoClient
) -> None:
    created = await client.create_match("federation", 3, games_per_set=1, turn_time_limit=1.0)
    await client.host(created.match_id, created.host_token).start()
    seat = client.seat(created.match_id, created.seat_tokens[0])
    timed_out: list[dict[str, Any]] = []

    async def watch() -> None:
        async for event in seat.events():
            if event["type"] == "TurnTimedOut":
                timed_out.append(event)
                if len(timed_out) == 2:
                    return

    await asyncio.wait_for(watch(), timeout=60)
    stored = await running.service.store.read(stream_of(created.match_id))
    kinds = [e.type for e in stored]
    first = kinds.index("TurnTimedOut")
    assert kinds[first + 1] in ("CardsPlayed", "Passed")


async def test_health_checking_and_reflection_are_on(running: Running) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.grpc_port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        answer = await health.Check(
            health_pb2.HealthCheckRequest(service="daifugo.v1.MatchService")
        )
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
        listed = await health.List(health_pb2.HealthListRequest())
        assert {name: status.status for name, status in listed.statuses.items()} == {
            "": health_pb2.HealthCheckResponse.SERVING,
            "daifugo.v1.MatchService": health_pb2.HealthCheckResponse.SERVING,
            "daifugo.v1.KeysService": health_pb2.HealthCheckResponse.SERVING,
        }
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        responses = [r async for r in reflection.ServerReflectionInfo(iter([request]))]
        names = {s.name for s in responses[0].list_services_response.service}
        assert {"daifugo.v1.MatchService", "grpc.health.v1.Health"} <= names


async def test_tokens_never_appear_in_events(running: Running, client: DaifugoClient) -> None:
    created = await client.create_match("classic", 3, games_per_set=1)
    await client.host(created.match_id, created.host_token).start()
    bots = [RandomBot(random.randrange(1000)) for _ in range(3)]
    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    from clients.runner import play_seat

    await asyncio.gather(*(play_seat(seat, bot) for seat, bot in zip(seats, bots, strict=True)))
    stored = await running.service.store.read(stream_of(created.match_id))
    text = json.dumps([e.data for e in stored])
    for token in (created.host_token, *created.seat_tokens):
        assert token not in text


async def test_await_turn_answers_when_the_seat_is_to_act_and_honours_deadlines(
    running: Running, client: DaifugoClient
) -> None:
    table = await arrange(running, client, "federation", ["3D 9C", "4D 5D"], 0)
    first, second = table.seats
    now = await second.turn()
    assert now.actions == [] and now.view.turn == 0
    with pytest.raises(Refused) as waited:  # seat 0 does not act: the deadline passes
        await second.next_turn(now.version, timeout=0.3)
    assert waited.value.status == grpc.StatusCode.DEADLINE_EXCEEDED
    waiting = asyncio.create_task(second.next_turn(now.version))
    played = await first.play("3D")
    turn = await waiting
    assert turn.version == played.version and turn.view.turn == 1 and turn.actions
    assert turn.view.hand == ("4D", "5D")  # its own view only
    # the seat's stream says the same with the events
    async for update in second.updates(played.version):
        assert update.events[-1]["seq"] == played.version
        assert update.turn is not None and update.turn.actions == turn.actions
        break


async def test_an_act_that_awaits_the_turn_answers_at_the_next_one_and_retries_safely(
    running: Running, client: DaifugoClient
) -> None:
    table = await arrange(running, client, "federation", ["3D 9C", "4D 5D"], 0)
    first, second = table.seats
    three = (await first.turn()).actions[0]
    with pytest.raises(Refused) as waited:  # seat 1 does not act: the deadline passes
        await first.act(three, "play-3D", await_turn=True, timeout=0.3)
    assert waited.value.status == grpc.StatusCode.DEADLINE_EXCEEDED
    played = await version_of(first)  # ...but the play was carried out
    retried = asyncio.create_task(first.act(three, "play-3D", await_turn=True))
    await asyncio.sleep(0.2)
    assert not retried.done()  # still seat 1's turn
    answer = await second.play("4D")
    result = await retried
    assert result.version == played  # the first outcome
    assert [e["type"] for e in result.events] == ["CardsPlayed", "TurnMoved"]
    assert result.turn is not None and result.turn.version == answer.version
    assert result.turn.view.turn == 0 and result.turn.actions
    stored = await running.service.store.read(stream_of(table.match_id))
    assert sum(1 for e in stored if e.type == "CardsPlayed") == 2


async def test_open_seats_are_joined_then_the_host_starts(
    running: Running, client: DaifugoClient
) -> None:
    created = await client.create_match("classic", 3, open_seats=True, games_per_set=1)
    assert created.seat_tokens == ()
    host = client.host(created.match_id, created.host_token)
    with pytest.raises(Refused) as early:
        await host.start()
    assert early.value.code == "not_started"
    joined = [await client.join(created.match_id, f"player {n}") for n in range(3)]
    assert [seat.seat for seat in joined] == [0, 1, 2]
    assert len({seat.token for seat in joined}) == 3
    with pytest.raises(Refused) as full:
        await client.join(created.match_id, "late")
    assert full.value.code == "seats_full"
    await host.start()
    views = [await seat.view() for seat in joined]
    assert [view.seat for view in views] == [0, 1, 2]
    names = [e["name"] for e in [e async for e in _first(host.events(), 4)][1:]]
    assert names == ["player 0", "player 1", "player 2"]


async def _first(
    events: AsyncIterator[dict[str, Any]], count: int
) -> AsyncIterator[dict[str, Any]]:
    seen = 0
    async for event in events:
        yield event
        seen += 1
        if seen == count:
            return
