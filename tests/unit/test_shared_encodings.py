"""An event's encodings (the gRPC Event, the SSE message) are made once per audience and
shared by every answer and stream that sends it to that audience, never across
audiences: a seat's own hidden cards stay out of every other audience's encoding, even
one made after the seat's."""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from google.protobuf import json_format

from eventstore import InMemoryEventStore, StoredEvent
from service.app.keyring import Keyring
from service.app.match import stream_of
from service.app.service import GameService, MatchOptions
from service.grpc.mapping import event_message
from service.rest.broadcast import encoded
from service.rules.views import SPECTATOR, Viewer


@pytest.fixture
async def service() -> AsyncIterator[GameService]:
    store = InMemoryEventStore()
    service = GameService(store, Keyring(secrets.token_bytes(32)))
    yield service
    await service.fanout.close()
    await store.close()


def codes_in(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from codes_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from codes_in(item)
    elif isinstance(value, str):
        yield value


def grpc_codes(stored: StoredEvent, service: GameService, viewer: Viewer) -> set[str]:
    message = event_message(service.visible(stored, viewer, False))
    return set(codes_in(json_format.MessageToDict(message.data)))


def sse_codes(stored: StoredEvent, service: GameService, viewer: Viewer) -> set[str]:
    message = encoded(service.visible(stored, viewer, False)).decode()
    data = next(line for line in message.splitlines() if line.startswith("data: "))
    return set(codes_in(json.loads(data.removeprefix("data: "))))


async def test_no_audience_shares_the_encoding_that_shows_a_seat_its_hand(
    service: GameService,
) -> None:
    made = await service.create(MatchOptions("federation", 3, {}))
    await service.start(made.match_id, made.host_token)
    stored = await service.store.read(stream_of(made.match_id))
    (dealt,) = [item for item in stored if item.type == "GameDealt"]
    seat0, seat1 = Viewer.of_seat(0), Viewer.of_seat(1)
    hand = set(service.visible(dealt, seat0, False)["hands"][0]) - {"JK"}  # jokers: alike
    assert len(hand) >= 16  # a real hand, seen by its seat in both encodings
    assert hand <= grpc_codes(dealt, service, seat0) and hand <= sse_codes(dealt, service, seat0)
    for viewer in (SPECTATOR, seat1):  # made after seat 0's
        assert not hand & grpc_codes(dealt, service, viewer), viewer
        assert not hand & sse_codes(dealt, service, viewer), viewer
        record = service.visible(dealt, viewer, False)
        assert json_format.MessageToDict(event_message(record).data)["hands"][0] is None


async def test_an_audience_is_sent_one_encoding_of_an_event(service: GameService) -> None:
    made = await service.create(MatchOptions("federation", 2, {}))
    await service.start(made.match_id, made.host_token)
    last = (await service.store.read(stream_of(made.match_id)))[-1]
    watching = service.visible(last, SPECTATOR, False)
    again = service.visible(last, SPECTATOR, False)
    assert event_message(watching) is event_message(again)
    assert encoded(watching) is encoded(again)
    seat = service.visible(last, Viewer.of_seat(0), False)
    assert event_message(seat) is not event_message(watching)
