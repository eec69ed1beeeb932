"""The fixture's service plays an honest match to the end: the baseline every attack
test in this folder measures itself against."""

from __future__ import annotations

import httpx

from clients.bots import GreedyBot
from clients.runner import play_match
from clients.sdk import DaifugoClient
from eventstore import RedisEventStore
from service.app.match import stream_of


async def test_an_honest_match_plays_out_and_audits_valid(
    client: DaifugoClient, http: httpx.AsyncClient, store: RedisEventStore
) -> None:
    match_id = await play_match(client, "classic", [GreedyBot().choose for _ in range(3)])
    audit = (await http.get(f"/matches/{match_id}/audit")).json()
    assert audit["verdict"] == "valid", audit
    assert (await store.verify(stream_of(match_id))).ok
