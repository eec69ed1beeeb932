"""Every string and byte string a caller gives has a limit: past it the request is
refused with a reason code and nothing is stored. Each test first shows the
largest honest input is accepted."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from clients.sdk import DaifugoClient, Refused
from eventstore import RedisEventStore
from service.app.match import stream_of
from service.grpc.gen.daifugo.v1 import match_service_pb2 as pb

MEGABYTE = 1 << 20


async def refused(code: str, work: Any) -> None:
    with pytest.raises(Refused) as refusal:
        await work
    assert refusal.value.code == code, refusal.value


async def test_creates_past_a_limit_store_nothing(
    client: DaifugoClient, store: RedisEventStore
) -> None:
    honest = await client.create_match(
        "classic", 3, client_seeds=[b"\xff" * 64] * 3, options={"eleven_back": "order"}
    )
    assert (await store.read(stream_of(honest.match_id), 1, 1))[0].data["client_seed"] == "ff" * 64
    before = await store.stream_count()
    await refused("too_long", client.create_match("classic", 3, client_seeds=[b"s" * MEGABYTE]))
    await refused("too_long", client.create_match("classic", 3, client_seeds=[b"s" * 65]))
    await refused("too_many", client.create_match("classic", 3, client_seeds=[b"s"] * 4))
    many = {f"option_{n}": True for n in range(10_000)}
    await refused("too_many", client.create_match("classic", 3, options=many))
    await refused("too_long", client.create_match("classic", 3, options={"x" * 41: True}))
    await refused(
        "too_long", client.create_match("classic", 3, options={"eleven_back": "o" * MEGABYTE})
    )
    await refused("bad_request", client.create_match("classic", 3, options={"jokers": [1, 2]}))
    await refused("too_long", client.create_match("classic", 3, request_id="r" * 129))
    await refused("turn_time_too_short", client.create_match("classic", 3, turn_time_limit=0.5))
    await refused("bad_request", client.create_match("classic", 3, spectator_delay=-1))
    assert await store.stream_count() == before


async def test_a_turn_time_limit_of_one_second_is_the_shortest(
    client: DaifugoClient, store: RedisEventStore
) -> None:
    created = await client.create_match("classic", 3, turn_time_limit=1.0)
    first = (await store.read(stream_of(created.match_id), 0, 1))[0]
    assert first.data["turn_ms"] == 1000
    untimed = await client.create_match("classic", 3, turn_time_limit=0)
    assert (await store.read(stream_of(untimed.match_id), 0, 1))[0].data["turn_ms"] == 0
    before = await store.stream_count()
    for short in (0.001, 0.999):
        await refused(
            "turn_time_too_short", client.create_match("classic", 3, turn_time_limit=short)
        )
    assert await store.stream_count() == before


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("n" * 33, "too_long"),
        ("\u202eevil", "invalid_name"),  # right-to-left override
        ("a\u2066b", "invalid_name"),  # left-to-right isolate
        ("a\u200fb", "invalid_name"),  # right-to-left mark
        ("line\nbreak", "invalid_name"),
        ("nul\x00", "invalid_name"),
        ("bell\x07", "invalid_name"),
    ],
)
async def test_joins_with_a_bad_name_or_seed_store_nothing(
    client: DaifugoClient, store: RedisEventStore, name: str, code: str
) -> None:
    created = await client.create_match("classic", 3, open_seats=True)
    stream = stream_of(created.match_id)
    honest = await client.join(created.match_id, "名" * 32, client_seed=b"\x01" * 64)
    joined = (await store.read(stream, 1, 1))[0]
    assert (honest.seat, joined.data["name"]) == (0, "名" * 32)
    version = await store.version(stream)
    await refused(code, client.join(created.match_id, name))
    await refused("too_long", client.join(created.match_id, "ok", client_seed=b"s" * MEGABYTE))
    assert await store.version(stream) == version


async def test_request_ids_past_their_limit_are_refused(
    client: DaifugoClient, http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    created = await client.create_match("classic", 3)
    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    host = client.host(created.match_id, created.host_token)
    long_id = "r" * 129
    start = pb.StartMatchRequest(match_id=created.match_id, request_id=long_id)
    await refused("too_long", client.call(client.stub.StartMatch, start, created.host_token))
    await host.start()
    view = await seats[0].view()
    assert view.turn is not None
    seat = seats[view.turn]
    stream = stream_of(created.match_id)
    version = await store.version(stream)
    action = (await seat.legal_actions())[0]
    await refused("too_long", seat.act(action, long_id))
    body = {"action": "pass", "request_id": long_id}
    headers = {"authorization": f"Bearer {seat.token}"}
    answer = await http.post(f"/matches/{created.match_id}/actions", json=body, headers=headers)
    assert answer.status_code == 400, answer.text
    assert await store.version(stream) == version
    # the honest path: an id of 128 characters is fine
    done = await seat.act(action, "r" * 128)
    assert done.version > version
    # and joins take secrets of 22 characters at least
    open_match = await client.create_match("classic", 3, open_seats=True)
    join = pb.JoinMatchRequest(match_id=open_match.match_id, name="a", request_id="x" * 21)
    await refused("request_id_too_short", client.call(client.stub.JoinMatch, join))
    join = pb.JoinMatchRequest(match_id=open_match.match_id, name="a", request_id="x" * 22)
    assert (await client.call(client.stub.JoinMatch, join)).seat == 0


async def test_a_huge_match_id_is_no_match(client: DaifugoClient) -> None:
    request = pb.JoinMatchRequest(match_id="m" * MEGABYTE, name="a", request_id=uuid.uuid4().hex)
    await refused("not_found", client.call(client.stub.JoinMatch, request))


async def test_the_spectator_delay_is_set_at_creation_and_shown(
    client: DaifugoClient, http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    created = await client.create_match("classic", 3, spectator_delay=30)
    assert (await store.read(stream_of(created.match_id), 0, 1))[0].data[
        "spectator_delay_ms"
    ] == 30_000
    shown = (await http.get(f"/matches/{created.match_id}")).json()
    assert shown["spectator_delay_ms"] == 30_000
    seat = client.seat(created.match_id, created.seat_tokens[0])
    view = await client.call(
        client.stub.GetView, pb.GetViewRequest(match_id=created.match_id), seat.token
    )
    assert view.view.spectator_delay_ms == 30_000
    live = await client.create_match("classic", 3)
    assert (await http.get(f"/matches/{live.match_id}")).json()["spectator_delay_ms"] == 0
