"""The spectators' and replayers' reads: the match list, a match, its events
page by page, and the state at any seq (which is the fold of events 0..seq)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from clients.sdk import DaifugoClient
from service.app import queries
from service.app.match import fold_match
from service.app.service import visible
from service.rules.views import AUDITOR, SPECTATOR, build_view
from service.runtime import Running

from .support import advance, finished_match, new_match, stored, wait_listed


async def catalogued(served: Running, match_id: str, version: int) -> None:
    """Until the catalog has applied the match's events up to ``version``."""
    for _ in range(200):
        listing = await served.catalog.listing(match_id)
        if listing is not None and listing.version >= version:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the catalog never reached {match_id} at {version}")


async def test_the_list_tells_a_delayed_match_no_sooner_than_its_spectators_see_it(
    served: Running, http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catalog learns at once that a match started and which game it is in; with a
    spectator delay, the list (and the match's own state) must not tell it sooner than
    the delayed events do, in what it shows or by what a filter lets through."""
    created = await new_match(served, "classic", 3, delay=3600)  # started and dealt
    everything = await stored(served, created.match_id)
    dealt = next(item for item in everything if item.type == "GameDealt")
    seated = max(item.at for item in everything if item.type in ("MatchCreated", "SeatJoined"))
    await catalogued(served, created.match_id, dealt.seq)  # it knows: live, game 1
    url = f"/matches/{created.match_id}"

    listed = await wait_listed(http, created.match_id)
    assert (listed["state"], listed["game_number"]) == ("open", 0)
    assert listed["updated_at"] <= seated
    live = (await http.get("/matches", params={"state": "live", "limit": "200"})).json()
    assert created.match_id not in [item["match_id"] for item in live["matches"]]
    assert (await http.get(url)).json()["state"] == "open"

    # an hour after the deal: as it is
    monkeypatch.setattr(queries, "now_ms", lambda: dealt.at + 3_600_000)
    listed = await wait_listed(http, created.match_id, "live")
    assert (listed["game_number"], listed["updated_at"]) == (1, dealt.at)
    assert (await http.get(url)).json()["state"] == "live"


async def test_the_list_filters_and_pages_newest_first(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    open_one = await new_match(served, "federation", 4, start=False)
    live_one = await new_match(served, "torasobi", 3)
    finished = await finished_match(grpc_client, "classic", 3)
    listed = {
        open_one.match_id: await wait_listed(http, open_one.match_id, "open"),
        live_one.match_id: await wait_listed(http, live_one.match_id, "live"),
        finished: await wait_listed(http, finished, "finished"),
    }
    assert listed[open_one.match_id]["preset"] == "federation"
    assert listed[open_one.match_id]["players"] == 4
    assert listed[open_one.match_id]["game_number"] == 0
    assert listed[live_one.match_id]["names"] == ["seat 0", "seat 1", "seat 2"]
    assert listed[live_one.match_id]["game_number"] == 1
    assert listed[finished]["games_per_set"] == 1
    assert set(listed[finished]) == {
        "match_id", "preset", "players", "state", "names", "game_number",
        "games_per_set", "created_at", "updated_at", "lobby",
    }  # fmt: skip
    assert listed[finished]["lobby"] is False  # a gRPC match: no lobby

    # every filter holds what it says, newest first, and a page at a time
    for params in (
        {},
        {"state": "live"},
        {"preset": "torasobi"},
        {"state": "open", "preset": "federation"},
    ):
        seen: list[dict[str, object]] = []
        cursor = None
        for _ in range(4):  # our matches are the newest: a few pages find them
            page = (
                await http.get(
                    "/matches",
                    params={**params, "limit": 2, **({"cursor": cursor} if cursor else {})},
                )
            ).json()
            assert len(page["matches"]) <= 2
            seen += page["matches"]
            cursor = page["next"]
            if cursor is None:
                break
        ids = [item["match_id"] for item in seen]
        assert len(ids) == len(set(ids)), "a match on two pages"
        keys = [(item["created_at"], item["match_id"]) for item in seen]
        assert keys == sorted(keys, reverse=True)
        for item in seen:
            assert item["state"] == params.get("state", item["state"])
            assert item["preset"] == params.get("preset", item["preset"])
        expected = [
            match_id
            for match_id, item in listed.items()
            if all(item[name] == value for name, value in params.items())
        ]
        assert set(expected) <= set(ids), params


async def test_a_finished_match_shows_everything(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    match_id = await finished_match(grpc_client, "federation", 4)
    match = await served.service.load(match_id)
    body = (await http.get(f"/matches/{match_id}")).json()
    assert body == {
        "match_id": match_id,
        "state": "finished",
        "version": match.version,
        "names": list(match.names),
        "spectator_delay_ms": 0,
        "view": build_view(match.game, SPECTATOR).to_dict(),
        "turn_ms": 0,
        "turn_deadline_ms": None,
    }
    assert body["view"]["hands"] is not None and body["view"]["blind"] is not None

    # the events, page by page, are every stored event revealed
    events: list[dict[str, object]] = []
    start: int | None = 0
    while start is not None:
        page = (
            await http.get(f"/matches/{match_id}/events", params={"from": start, "limit": 17})
        ).json()
        events += page["events"]
        start = page["next"]
    everything = await stored(served, match_id)
    assert events == [visible(item, SPECTATOR, True) for item in everything]
    late = (
        await http.get(f"/matches/{match_id}/events", params={"from": match.version + 5})
    ).json()
    assert late == {"events": [], "next": None}


async def test_state_at_a_seq_is_the_fold_of_events_up_to_it(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    match_id = await finished_match(grpc_client, "classic", 3)
    everything = await stored(served, match_id)
    last = everything[-1].seq
    for seq in sorted({0, 4, 5, 6, 11, last // 2, last - 1, last}):
        body = (await http.get(f"/matches/{match_id}/state", params={"seq": seq})).json()
        folded = fold_match(None, everything[: seq + 1])
        assert body["seq"] == seq and body["version"] == last and body["state"] == "finished"
        assert body["view"] == build_view(folded.game, AUDITOR, match_over=True).to_dict()
        if folded.game.game_number:  # dealt: the full deal at every step of a replay
            assert body["view"]["hands"] is not None
    missing = await http.get(f"/matches/{match_id}/state", params={"seq": last + 1})
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


async def test_a_live_match_at_any_seq_shows_no_hand(
    served: Running, http: httpx.AsyncClient
) -> None:
    created = await new_match(served, "classic", 3)
    match = await advance(served, created, 6)
    everything = await stored(served, created.match_id)
    for seq in range(match.version + 1):
        body = (await http.get(f"/matches/{created.match_id}/state", params={"seq": seq})).json()
        folded = fold_match(None, everything[: seq + 1])
        assert body["state"] == "live"
        assert body["view"] == build_view(folded.game, SPECTATOR).to_dict()
        assert body["view"]["hands"] is None and body["view"]["hand"] is None
    now = (await http.get(f"/matches/{created.match_id}")).json()
    assert now["version"] == match.version and now["state"] == "live"
    assert now["view"] == build_view(match.game, SPECTATOR).to_dict()
