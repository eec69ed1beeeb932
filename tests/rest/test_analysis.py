"""A finished match's analysis over REST, end to end: asked for, its progress, its
result (kept once, served again), the bounds per caller and overall, a live match
refused, bad ids and budgets refused, and a job lost with its replica said so."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from clients.sdk import DaifugoClient
from eventstore import InMemoryArchive, InMemoryStorage
from service.app import analysis as jobs
from service.app.archiver import archive_now
from service.app.match import stream_of
from service.app.queries import MatchQueries
from service.app.quotas import Limits, parse_networks
from service.runtime import Running, running_service

from ..service_support import isolated_service
from .support import finished_match, new_match, play_out, stored

PLAYOUTS = 50  # the quick budget: the tests judge the plumbing, not the play


async def _analysed(http: httpx.AsyncClient, match_id: str, **params: Any) -> list[dict[str, Any]]:
    """Every status GET answered until the result."""
    seen = []
    for _ in range(1200):
        answer = await http.get(f"/matches/{match_id}/analysis", params=params)
        assert answer.status_code == 200, answer.text
        seen.append(answer.json())
        if seen[-1]["state"] in ("done", "failed"):
            return seen
        await asyncio.sleep(0.1)
    raise AssertionError(f"the analysis never ended: {seen[-1]}")


async def test_a_finished_match_is_analysed_move_by_move(
    http: httpx.AsyncClient, grpc_client: DaifugoClient, served: Running
) -> None:
    match_id = await finished_match(grpc_client, "classic", 4)
    params = {"playouts": PLAYOUTS}
    url = f"/matches/{match_id}/analysis"
    never = await http.get(url, params=params)
    assert never.status_code == 404 and never.json()["code"] == "analysis_not_requested"

    asked = await http.post(url, params=params)
    assert asked.status_code == 202, asked.text
    assert asked.json()["state"] == "queued"
    statuses = await _analysed(http, match_id, **params)
    done = statuses[-1]
    assert done["state"] == "done", done
    assert all(item["state"] in ("queued", "running", "done") for item in statuses)
    running = [item for item in statuses if item["state"] == "running"]
    assert all(0 <= item["done"] <= item["total"] for item in running)

    result = done["result"]
    assert result["match_id"] == match_id and result["players"] == 4
    assert result["playouts"] == PLAYOUTS and result["game"] == 1
    moves = result["moves"]
    types = {event.seq: event.type for event in await stored(served, match_id)}
    begun = {"CardsPlayed", "Passed", "CardsGiven", "CardsDiscarded", "RanksBombed", "PilePicked"}
    assert moves and all(types[move["seq"]] in begun for move in moves)
    judged = [move for move in moves if move["kind"] == "judged"]
    assert judged, "a game has plays with a choice"
    for move in judged:
        assert move["legal"] > 1
        places = [item["place"] for item in move["candidates"]]
        assert places == sorted(places) and 1 <= places[0] <= 4
        assert move["taken"] in [item["action"] for item in move["candidates"]]
        assert move["loss"] == pytest.approx(move["taken_place"] - move["best_place"], abs=0.002)
        thresholds = sorted(result["thresholds"].items(), key=lambda item: -item[1])
        expected = next((name for name, at in thresholds if move["loss"] >= at), None)
        assert move["label"] == expected
    forced = [move for move in moves if move["kind"] == "forced"]
    assert all(move["legal"] == 1 and "label" not in move for move in forced)
    assert [row["seat"] for row in result["seats"]] == [0, 1, 2, 3]
    assert sum(row["judged"] for row in result["seats"]) == len(judged)

    # kept: asked again, it is there at once, the same
    again = await http.post(url, params=params)
    assert again.status_code == 200 and again.json()["result"] == result
    # another budget is another analysis
    other = await http.get(url, params={"playouts": 600})
    assert other.status_code == 404


async def test_a_live_match_bad_ids_and_bad_budgets_are_refused(
    http: httpx.AsyncClient, grpc_client: DaifugoClient, served: Running
) -> None:
    live = await new_match(served, "classic", 4)
    for method in ("GET", "POST"):
        answer = await http.request(method, f"/matches/{live.match_id}/analysis")
        assert answer.status_code == 409 and answer.json()["code"] == "match_not_over"
        for bad in ("nope", "a" * 65, "..%2F..%2Fkeys", "m%3A1"):
            answer = await http.request(method, f"/matches/{bad}/analysis")
            assert answer.status_code == 404, (bad, answer.text)
            assert answer.json()["code"] == "not_found"
    match_id = await finished_match(grpc_client, "classic", 3)
    url = f"/matches/{match_id}/analysis"
    for params, code in (
        ({"game": 0}, "bad_request"),
        ({"game": 2}, "bad_request"),  # a one-game match
        ({"game": "x"}, "bad_request"),
        ({"playouts": 0}, "bad_request"),
        ({"playouts": 51}, "bad_request"),  # not a budget the service runs: results stay few
        ({"playouts": 10**9}, "bad_request"),
        ({"playouts": "1.5"}, "bad_request"),
    ):
        for method in ("GET", "POST"):
            answer = await http.request(method, url, params=params)
            assert answer.status_code == 400 and answer.json()["code"] == code, (
                params,
                answer.text,
            )


@pytest.fixture
async def limited() -> AsyncIterator[Running]:
    limits = Limits(
        analyses_per_caller=1, analyses=2, trusted_proxies=parse_networks(["127.0.0.1"])
    )
    async with isolated_service(
        None, grpc_port=0, http_port=0, timers=False, limits=limits
    ) as running:
        yield running


async def test_analyses_are_bounded_per_caller_and_overall(limited: Running) -> None:
    async with DaifugoClient(f"127.0.0.1:{limited.grpc_port}", timeout=20) as client:
        match_id = await finished_match(client, "classic", 4)
    base = f"http://127.0.0.1:{limited.http_port}"
    url = f"/matches/{match_id}/analysis"
    deep, default, quick = 3000, 600, 50  # the deep job lasts while the test asks for more

    def caller(address: str) -> dict[str, str]:
        return {"X-Forwarded-For": address}

    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        first = await http.post(url, params={"playouts": deep}, headers=caller("10.0.0.1"))
        assert first.status_code == 202, first.text
        # the same caller's second job: past its own bound
        mine = await http.post(url, params={"playouts": default}, headers=caller("10.0.0.1"))
        assert mine.status_code == 429 and mine.json()["code"] == "quota_analyses"
        assert int(mine.headers["Retry-After"]) > 0
        # the job under way asked again takes no second slot
        same = await http.post(url, params={"playouts": deep}, headers=caller("10.0.0.1"))
        assert same.status_code == 202 and same.json()["state"] in ("queued", "running")
        other = await http.post(url, params={"playouts": default}, headers=caller("10.0.0.2"))
        assert other.status_code == 202, other.text
        # everyone's bound
        third = await http.post(url, params={"playouts": quick}, headers=caller("10.0.0.3"))
        assert third.status_code == 429 and third.json()["code"] == "quota_analyses_global"
        assert int(third.headers["Retry-After"]) > 0
        # a refused job was not queued
        lost = await http.get(url, params={"playouts": quick})
        assert lost.status_code == 404 and lost.json()["code"] == "analysis_not_requested"


async def test_a_job_lost_with_its_replica_must_be_asked_for_again(
    served: Running, grpc_client: DaifugoClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replica that queued a job and died: its record lapses, and the status says the
    job must be asked for again, never that it is still queued."""
    match_id = await finished_match(grpc_client, "classic", 3)
    monkeypatch.setattr(jobs, "JOB_TTL_MS", 200)
    dead = jobs.Analyses(MatchQueries(served.service), served.storage.analyses(), background=False)
    queued = await dead.request(None, match_id, 1, PLAYOUTS)
    assert queued["state"] == "queued"
    assert (await dead.status(match_id, 1, PLAYOUTS))["state"] == "queued"
    await asyncio.sleep(0.4)
    with pytest.raises(jobs.ServiceError) as lost:
        await dead.status(match_id, 1, PLAYOUTS)
    assert lost.value.code == "analysis_not_requested"

    # a job that failed says why, and asked again it is queued again
    key = (await dead.job_of(match_id, 1, PLAYOUTS)).key
    await dead.store.save_job(key, jobs._record("failed", reason="the worker died"), 60_000)
    failed = await dead.status(match_id, 1, PLAYOUTS)
    assert failed["state"] == "failed" and failed["reason"] == "the worker died"
    again = await dead.request(None, match_id, 1, PLAYOUTS)
    assert again["state"] == "queued"
    assert (await dead.status(match_id, 1, PLAYOUTS))["state"] == "queued"


async def test_a_spectator_delayed_match_once_over_is_analysed_like_any(
    http: httpx.AsyncClient, grpc_client: DaifugoClient, served: Running
) -> None:
    created = await new_match(served, "classic", 3, delay=3600.0)
    url = f"/matches/{created.match_id}/analysis"
    early = await http.post(url, params={"playouts": PLAYOUTS})
    assert early.status_code == 409 and early.json()["code"] == "match_not_over"
    await play_out(grpc_client, created)
    asked = await http.post(url, params={"playouts": PLAYOUTS})
    assert asked.status_code == 202, asked.text
    done = (await _analysed(http, created.match_id, playouts=PLAYOUTS))[-1]
    assert done["state"] == "done" and done["result"]["moves"]


async def test_an_archived_match_is_analysed_from_the_archive() -> None:
    storage, archive = InMemoryStorage(), InMemoryArchive()
    async with running_service(
        grpc_port=0, http_port=0, timers=False, storage=storage, archive=archive
    ) as running:
        base = f"http://127.0.0.1:{running.http_port}"
        async with (
            httpx.AsyncClient(base_url=base, timeout=30) as http,
            DaifugoClient(f"127.0.0.1:{running.grpc_port}", timeout=20) as client,
        ):
            match_id = await finished_match(client, "classic", 3)
            await archive_now(running.service.store, archive, storage.snapshots(), keep_live_ms=0)
            assert list(archive.objects) == [stream_of(match_id)]
            assert await storage.events.read_as_stored(stream_of(match_id)) == []
            asked = await http.post(f"/matches/{match_id}/analysis", params={"playouts": PLAYOUTS})
            assert asked.status_code == 202, asked.text
            done = (await _analysed(http, match_id, playouts=PLAYOUTS))[-1]
            assert done["state"] == "done" and done["result"]["match_id"] == match_id


async def test_a_job_reads_the_match_a_page_at_a_time(
    served: Running, grpc_client: DaifugoClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job never holds the serving loop for a whole stream (a 300-game table's is a
    quarter of a second or more): it reads the match a page at a time."""
    match_id = await finished_match(grpc_client, "classic", 3)
    monkeypatch.setattr(jobs, "READ_PAGE", 10)
    store = served.service.store
    read_pages, pages = store.read_pages, []

    def watched(*args: Any, **kwargs: Any) -> AsyncIterator[list[Any]]:
        async def each() -> AsyncIterator[list[Any]]:
            async for page in read_pages(*args, **kwargs):
                if args[-1] == jobs.READ_PAGE:  # the job's, not a follower's
                    pages.append(len(page))
                yield page

        return each()

    monkeypatch.setattr(store, "read_pages", watched)
    analyses = jobs.Analyses(MatchQueries(served.service), served.storage.analyses(), False)
    report = await analyses._analyse(await analyses.job_of(match_id, 1, PLAYOUTS))
    assert report["moves"]
    assert max(pages) <= 10 and sum(pages) == await store.version(stream_of(match_id)) + 1
