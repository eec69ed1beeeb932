"""The server commits to its dealing seed in the very first event, before any
client seed exists, so it cannot choose its seed after seeing the seats'."""

from __future__ import annotations

import asyncio
import hashlib

import httpx

from clients.bots import GreedyBot
from clients.runner import play_seat
from clients.sdk import DaifugoClient
from eventstore import RedisEventStore
from service.app.match import stream_of


async def test_the_seed_is_committed_before_any_client_seed(
    client: DaifugoClient, http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    created = await client.create_match("classic", 3, open_seats=True)
    stream = stream_of(created.match_id)
    first = (await store.read(stream, 0, 1))[0]
    committed = first.data["seed_commitment"]
    assert first.type == "MatchCreated" and len(committed) == 64
    # the seats bring their seeds only now
    seats = [
        await client.join(created.match_id, f"p{n}", client_seed=bytes([n]) * 16) for n in range(3)
    ]
    assert await client.host(created.match_id, created.host_token).start() == committed
    await asyncio.gather(*(play_seat(seat, GreedyBot().choose) for seat in seats))
    stored = await store.read(stream)
    seeded = [e.seq for e in stored if e.type == "SeatJoined" and e.data["client_seed"]]
    assert seeded and min(seeded) > first.seq
    started = next(e for e in stored if e.type == "MatchStarted")
    assert started.data["seed_commitment"] == committed
    revealed = bytes.fromhex(stored[-2].data["seed"])  # SeedRevealed, then the seal
    assert hashlib.sha256(revealed).hexdigest() == committed
    audit = (await http.get(f"/matches/{created.match_id}/audit")).json()
    assert audit["verdict"] == "valid", audit
    check = next(c for c in audit["checks"] if c["name"] == "seed_commitment")
    assert check["ok"] and check["commitment"] == committed
