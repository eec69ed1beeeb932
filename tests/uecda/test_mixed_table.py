"""One table of two official clients, two of the service's bots and a gRPC seat: a gRPC
client finds the waiting UECda table in the listing and takes an open seat; the two
clients waiting for it then fill the rest."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from clients.bots import GreedyBot
from clients.runner import play_seat
from clients.sdk import DaifugoClient
from service.app.match import fold_match, stream_of
from service.audit.auditor import audit_events
from service.uecda.server import PRESET, UecdaSettings
from tests.service_support import isolated_service

from .support import run_clients

pytestmark = pytest.mark.asyncio
GAMES = 3


async def _open_uecda_table(http_port: int) -> str:
    """The waiting table's id as a client finds it: the open matches listed over REST."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{http_port}") as rest:
        for _ in range(600):
            listed = (await rest.get("/matches", params={"state": "open"})).json()["matches"]
            seated = [m for m in listed if m["preset"] == PRESET and m["names"].count("") == 3]
            if seated:
                return str(seated[0]["match_id"])
            await asyncio.sleep(0.1)
    raise AssertionError("no UECda table with three open seats was listed")


async def test_two_clients_two_bots_and_a_grpc_seat(redis_url: str, official_client: Path) -> None:
    settings = UecdaSettings(games=GAMES, bots=2, turn_seconds=30.0)
    async with isolated_service(
        redis_url, grpc_port=0, http_port=0, uecda_port=0, uecda=settings
    ) as running:
        assert running.uecda is not None and running.uecda_port is not None
        assert running.http_port is not None
        clients = asyncio.create_task(
            run_clients(official_client, running.uecda_port, ["prog-a", "prog-b"])
        )
        match_id = await _open_uecda_table(running.http_port)
        async with DaifugoClient(f"127.0.0.1:{running.grpc_port}") as grpc_client:
            seat = await grpc_client.join(match_id, "grpc seat")
            await asyncio.wait_for(play_seat(seat, GreedyBot()), 300)
        assert await clients == [0, 0]
        assert running.uecda.match_ids == [match_id]
        stored = await running.service.store.read(stream_of(match_id), 0)
        match = fold_match(None, stored)
        assert match.over and match.game.game_number == GAMES
        assert match.names[2] == "grpc seat"
        assert sorted(match.names[3:]) == ["prog-a", "prog-b"]
        assert match.bots[:2] == ("stronger", "stronger")
        assert audit_events(stored).verdict == "valid"
