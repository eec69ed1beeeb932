"""POST /audit takes anyone's bytes: nothing uploaded may change how the service
reads its own events. The attack: flush whatever the service caches with 20,000
fake events, then upload a match's genuine log with one event forged and its
genuine hash kept, so that a cache keyed by the claimed hash would hand the
forgery to the service's own reads."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

import httpx

from clients.bots import GreedyBot
from clients.runner import play_match, play_seat
from clients.sdk import DaifugoClient
from eventstore import RedisEventStore
from service.app.match import stream_of

FAKE_EVENTS = 20_000


def fake_log() -> str:
    """A log of many events with hashes all different (the chain is nonsense: it
    need only be parsed and decoded)."""
    lines = []
    for seq in range(FAKE_EVENTS):
        record = {
            "stream": "m:fakefakefakefake",
            "seq": seq,
            "type": "Passed",
            "schema": 1,
            "at": 0,
            "request_id": "x",
            "data": {"seat": seq % 3, "reason": ""},
            "prev_hash": "0" * 64,
            "hash": secrets.token_hex(32),
        }
        lines.append(json.dumps(record))
    return "\n".join(lines) + "\n"


def forged(export: str, seq: int, **changes: Any) -> str:
    """The log with event ``seq``'s data changed and every hash kept."""
    records = [json.loads(line) for line in export.splitlines() if line]
    records[seq]["data"].update(changes)
    return "".join(json.dumps(record) + "\n" for record in records)


async def flush_and_upload(http: httpx.AsyncClient, log: str) -> None:
    flood = await http.post("/audit", content=fake_log(), headers={"content-type": "text/plain"})
    assert flood.status_code in (200, 400), flood.text
    answer = await http.post("/audit", content=log, headers={"content-type": "text/plain"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["verdict"] == "invalid", answer.json()  # the auditor sees the forgery


async def test_an_uploaded_forgery_does_not_change_the_server_s_reading_of_a_match(
    client: DaifugoClient, http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    match_id = await play_match(client, "classic", [GreedyBot().choose for _ in range(3)])
    export = (await http.get(f"/matches/{match_id}/record", params={"format": "jsonl"})).text
    # the honest path: the genuine log and the stored match audit valid
    genuine = await http.post("/audit", content=export, headers={"content-type": "text/plain"})
    assert genuine.json()["verdict"] == "valid", genuine.json()
    assert (await http.get(f"/matches/{match_id}/audit")).json()["verdict"] == "valid"
    stored = await store.read(stream_of(match_id))
    played = next(e for e in stored if e.type == "CardsPlayed")
    before = (await http.get(f"/matches/{match_id}/state", params={"seq": played.seq})).json()
    events_before = (await http.get(f"/matches/{match_id}/events", params={"limit": 500})).json()

    other_cards = ["JK"] if played.data["cards"] != ["JK"] else ["3S"]
    await flush_and_upload(http, forged(export, played.seq, cards=other_cards))

    after = (await http.get(f"/matches/{match_id}/state", params={"seq": played.seq})).json()
    assert after == before
    events_after = (await http.get(f"/matches/{match_id}/events", params={"limit": 500})).json()
    assert events_after == events_before
    assert (await http.get(f"/matches/{match_id}/audit")).json()["verdict"] == "valid"
    again = (await http.get(f"/matches/{match_id}/record", params={"format": "jsonl"})).text
    assert again == export
    assert (await store.verify(stream_of(match_id))).ok


async def test_a_forged_match_created_does_not_end_a_live_match_early(
    client: DaifugoClient, http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    """A spectator who knows a live match's MatchCreated hash (here the strongest
    such attacker: read from the store) uploads a forgery with games_per_set 5 → 1.
    The match still plays five games, and nothing of the forgery is stored."""
    created = await client.create_match("federation", 3, games_per_set=5)
    first = (await store.read(stream_of(created.match_id), 0, 1))[0]
    assert first.type == "MatchCreated" and first.data["options"]["games_per_set"] == 5
    envelope = {
        "stream": first.stream,
        "seq": 0,
        "type": first.type,
        "schema": first.schema,
        "at": first.at,
        "request_id": first.request_id,
        "data": {**first.data, "options": {**first.data["options"], "games_per_set": 1}},
        "prev_hash": first.prev_hash,
        "hash": first.hash,  # the genuine hash, kept
    }
    await flush_and_upload(http, json.dumps(envelope) + "\n")

    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    await client.host(created.match_id, created.host_token).start()
    await asyncio.gather(*(play_seat(seat, GreedyBot().choose) for seat in seats))
    stored = await store.read(stream_of(created.match_id))
    assert sum(e.type == "GameEnded" for e in stored) == 5
    assert [e.type for e in stored].count("MatchEnded") == 1
    assert stored[0] == first
    view = (await http.get(f"/matches/{created.match_id}")).json()
    assert view["view"]["games_per_set"] == 5
    assert (await http.get(f"/matches/{created.match_id}/audit")).json()["verdict"] == "valid"
