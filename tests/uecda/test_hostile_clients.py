"""Clients that break the protocol, and one that leaves mid-game: the table plays on
(the turn timer acts for the seats that are gone), finishes, and the server stays up."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from service.app.inputs import MIN_TURN_SECONDS
from service.app.match import fold_match, stream_of
from service.audit.auditor import audit_events
from service.uecda.server import UecdaSettings
from service.uecda.wire import GAME_GOES_ON, REJECTED, cell
from tests.service_support import isolated_service

from .support import RawClient, run_clients

pytestmark = pytest.mark.asyncio
GAMES = 2
EVERY_CARD = [1 if 0 < column < 14 and row < 4 else 0 for row in range(8) for column in range(15)]


async def _garbage_connections(port: int) -> None:
    """Connections that never become clients: random bytes, a wrong version, half a
    profile, nothing at all. None takes a seat."""
    rng = random.Random(7)
    for send in (
        bytes(rng.getrandbits(8) for _ in range(480)),
        (20060).to_bytes(4, "big") + bytes(476),
        (20070).to_bytes(4, "big") + bytes(100),
        b"",
    ):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(send)
        await writer.drain()
        if send[:4] == (20070).to_bytes(4, "big"):
            writer.close()  # half a profile, then gone
            continue
        assert await reader.read(4) == b""  # closed without a player number
        writer.close()


async def _hostile_seat(port: int) -> list[int]:
    """A seated client that answers its turns with garbage, then an illegal play, then
    half a table and a hang-up; the replies it got."""
    client = await RawClient.connect(port, "hostile\x01\x7fname-longer-than-allowed")
    replies: list[int] = []
    rng = random.Random(3)
    start = await client.read_table()
    assert start[cell(5, 0)] == 1
    if start[cell(5, 1)]:
        client.send_bytes(bytes(rng.getrandbits(8) for _ in range(480)))  # a garbage give
    while True:
        hand = await client.read_table()
        if hand[cell(5, 2)] == 1:
            if len(replies) == 0:
                client.send_bytes(bytes(rng.getrandbits(8) for _ in range(480)))
            elif len(replies) == 1:
                client.send(EVERY_CARD)  # every card at once: not a meld, not its own
            else:
                client.send_bytes(bytes(240))  # half a table, then gone
                await client.writer.drain()
                client.close()
                return replies
            replies.append(await client.read_int())
        await client.read_table()
        assert await client.read_int() == GAME_GOES_ON


async def test_hostile_and_leaving_clients_do_not_stop_the_table(
    redis_url: str, official_client: Path
) -> None:
    settings = UecdaSettings(games=GAMES, turn_seconds=MIN_TURN_SECONDS)
    async with isolated_service(redis_url, grpc_port=0, uecda_port=0, uecda=settings) as running:
        assert running.uecda is not None and running.uecda_port is not None
        port = running.uecda_port
        await _garbage_connections(port)
        clients = asyncio.create_task(run_clients(official_client, port, ["a", "b", "c"]))
        await asyncio.sleep(1.0)
        leaver = await asyncio.create_subprocess_exec(
            str(official_client), "-p", str(port), "-n", "leaver",
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        await asyncio.sleep(0.3)
        hostile = asyncio.create_task(_hostile_seat(port))
        replies = await asyncio.wait_for(hostile, 120)
        assert replies == [REJECTED, REJECTED]
        leaver.kill()  # mid-game, its socket closed by the kernel
        await leaver.wait()
        assert await asyncio.wait_for(clients, 600) == [0, 0, 0]
        [match_id] = running.uecda.match_ids
        stored = await running.service.store.read(stream_of(match_id), 0)
        match = fold_match(None, stored)
        assert match.over and match.game.game_number == GAMES
        assert match.names == ("a", "b", "c", "leaver", "hostile??name-")
        assert any(item.type == "TurnTimedOut" for item in stored)
        assert audit_events(stored).verdict == "valid"
        # the server takes new clients afterwards
        newcomers = await asyncio.gather(*(RawClient.connect(port, "after") for _ in range(5)))
        assert sorted(newcomer.player for newcomer in newcomers) == [0, 1, 2, 3, 4]
        for newcomer in newcomers:
            newcomer.close()
