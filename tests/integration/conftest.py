"""A running game service (gRPC, real Redis) for the integration tests, and
matches arranged in a known position by appending their opening events."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from clients.sdk import DaifugoClient, SeatSession
from service.app.keyring import HOST, Role
from service.match.events import MatchCreated, MatchStarted, SeatJoined
from service.match.shuffle import SHUFFLE_VERSION, commitment
from service.rules import Refusal, SetUp, decide, initial_state, rule_set
from service.rules.notation import parse_mask
from service.runtime import Running

from ..service_support import isolated_service


@pytest.fixture
async def running() -> AsyncIterator[Running]:
    async with isolated_service(None, grpc_port=0) as service:
        yield service


@pytest.fixture
async def client(running: Running) -> AsyncIterator[DaifugoClient]:
    async with DaifugoClient(f"127.0.0.1:{running.grpc_port}", timeout=20) as connected:
        yield connected


@dataclass
class Arranged:
    match_id: str
    seats: list[SeatSession]
    host_token: str


async def arrange(
    running: Running,
    client: DaifugoClient,
    preset: str,
    hands: Sequence[str],
    leader: int | None = None,
    options: dict[str, Any] | None = None,
    games_per_set: int = 1,
    **start: Any,
) -> Arranged:
    """A started match whose first game is dealt ``hands`` (card codes, space
    separated): its opening events appended as the service would, so every
    later action goes through the real API."""
    service = running.service
    match_id = uuid.uuid4().hex[:16]
    rules = rule_set(preset, {**(options or {}), "games_per_set": games_per_set})
    players = len(hands)
    seed = service.keyring.seed(match_id)
    masks = tuple(parse_mask(hand.split()) for hand in hands)
    dealt = decide(initial_state(rules, players), SetUp(masks, leader, **start))
    assert not isinstance(dealt, Refusal), dealt
    events = [
        MatchCreated(match_id, preset, rules.options(), players, False, 0),
        *(SeatJoined(seat, f"seat {seat}") for seat in range(players)),
        MatchStarted(commitment(seed), SHUFFLE_VERSION),
        *dealt,
    ]
    await service._append(match_id, events, -1, "arranged")
    keyring = service.keyring
    seats = [
        client.seat(match_id, keyring.token(match_id, Role("seat", seat)))
        for seat in range(players)
    ]
    for seat in seats:
        await seat.view()
    return Arranged(match_id, seats, keyring.token(match_id, HOST))
