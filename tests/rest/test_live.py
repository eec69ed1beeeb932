"""Live events as Server-Sent Events: resumable with nothing missed or
repeated, pushed as they happen, a seat's own view with its token, and the
spectator delay honoured."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from clients.sdk import DaifugoClient
from service.app import queries
from service.app.service import visible
from service.rest import live
from service.rules.views import SPECTATOR, Viewer
from service.runtime import Running

from ..service_support import isolated_service
from .support import advance, finished_match, new_match, read_sse, stored


async def test_resuming_with_last_event_id_misses_and_repeats_nothing(
    served: Running, http: httpx.AsyncClient, grpc_client: DaifugoClient
) -> None:
    match_id = await finished_match(grpc_client)
    everything = await stored(served, match_id)
    last = everything[-1].seq
    first = await read_sse(http, f"/matches/{match_id}/live", count=10)
    assert [event["id"] for event in first] == list(range(10))
    rest = await read_sse(
        http, f"/matches/{match_id}/live", headers={"Last-Event-ID": "9"}, until_seq=last
    )
    received = first + rest
    assert [event["id"] for event in received] == list(range(last + 1))
    assert [event["data"] for event in received] == [
        visible(item, SPECTATOR, True) for item in everything
    ]
    assert [event["event"] for event in received] == [item.type for item in everything]
    # ?from= is the first seq wanted; Last-Event-ID (a reconnecting browser) wins over it
    from_five = await read_sse(http, f"/matches/{match_id}/live?from=5", count=3)
    assert [event["id"] for event in from_five] == [5, 6, 7]
    both = await read_sse(
        http, f"/matches/{match_id}/live?from=5", headers={"Last-Event-ID": "20"}, count=1
    )
    assert both[0]["id"] == 21


async def test_new_events_are_pushed_as_they_are_stored(
    served: Running, http: httpx.AsyncClient
) -> None:
    created = await new_match(served, "classic", 3)
    before = await served.service.load(created.match_id)
    reading = asyncio.create_task(
        read_sse(http, f"/matches/{created.match_id}/live", until_seq=before.version + 1)
    )
    await asyncio.sleep(0.2)  # connected (not required: nothing would be missed anyway)
    after = await advance(served, created, 1)
    received = await reading
    everything = await stored(served, created.match_id)
    assert after.version > before.version
    assert [event["data"] for event in received] == [
        visible(item, SPECTATOR, False) for item in everything[: before.version + 2]
    ]


async def test_a_seat_token_streams_that_seats_view_at_once(
    served: Running, http: httpx.AsyncClient
) -> None:
    created = await new_match(served, "classic", 3, delay=3600)
    match = await served.service.load(created.match_id)
    headers = {"Authorization": f"Bearer {created.seat_tokens[1]}"}
    received = await read_sse(
        http, f"/matches/{created.match_id}/live", headers=headers, until_seq=match.version
    )
    everything = await stored(served, created.match_id)
    assert [event["data"] for event in received] == [
        visible(item, Viewer.of_seat(1), False) for item in everything
    ]
    dealt = next(event["data"] for event in received if event["event"] == "GameDealt")
    assert [hand is not None for hand in dealt["hands"]] == [False, True, False]

    wrong = await http.get(
        f"/matches/{created.match_id}/live", headers={"Authorization": "Bearer " + "n" * 43}
    )
    assert wrong.status_code == 403 and wrong.json()["code"] == "permission_denied"
    nope = await http.get(
        f"/matches/{created.match_id}/live", headers={"Authorization": "Bearer nope"}
    )
    assert nope.status_code == 401 and nope.json()["code"] == "unauthenticated"
    odd = await http.get(f"/matches/{created.match_id}/live", headers={"Authorization": "Basic x"})
    assert odd.status_code == 401 and odd.json()["code"] == "unauthenticated"


async def test_a_spectator_sees_events_only_once_they_are_old_enough(
    served: Running, http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = await new_match(served, "classic", 3, delay=3600)  # an hour
    match = await advance(served, created, 3)
    everything = await stored(served, created.match_id)
    setup = [item.seq for item in everything if item.type in ("MatchCreated", "SeatJoined")]
    url = f"/matches/{created.match_id}"

    # now: only who sits where, everywhere a spectator looks
    now = (await http.get(url)).json()
    assert now["version"] == setup[-1] and now["spectator_delay_ms"] == 3_600_000
    assert now["view"]["phase"] == "before_deal"
    page = (await http.get(f"{url}/events")).json()
    assert [event["seq"] for event in page["events"]] == setup and page["next"] is None
    assert (await http.get(f"{url}/state", params={"seq": setup[-1] + 1})).status_code == 404
    streamed = await read_sse(http, f"{url}/live", quiet=1.0)
    assert [event["id"] for event in streamed] == setup

    # an hour after the events of the first play: up to them, and no further
    played = next(item for item in everything if item.type == "CardsPlayed")
    later = [item for item in everything if item.at > played.at]
    clock = played.at + 3_600_000
    monkeypatch.setattr(queries, "now_ms", lambda: clock)
    visible_now = max(item.seq for item in everything if item.at <= played.at)
    assert (await http.get(url)).json()["version"] == visible_now
    page = (await http.get(f"{url}/events")).json()
    assert [event["seq"] for event in page["events"]] == list(range(visible_now + 1))
    monkeypatch.setattr(live, "KEEPALIVE", 0.2)  # keep-alives while it waits: none counted
    streamed = await read_sse(http, f"{url}/live", quiet=1.0)
    assert [event["id"] for event in streamed] == list(range(visible_now + 1))
    if later:
        assert visible_now < match.version

    # two hours on: everything
    monkeypatch.setattr(queries, "now_ms", lambda: clock + 3_600_000)
    assert (await http.get(url)).json()["version"] == match.version
    streamed = await read_sse(http, f"{url}/live", until_seq=match.version)
    assert [event["id"] for event in streamed] == list(range(match.version + 1))


async def test_an_idle_stream_gets_keep_alive_comments(
    served: Running, http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = await new_match(served, "classic", 3)
    version = (await served.service.load(created.match_id)).version
    monkeypatch.setattr(live, "KEEPALIVE", 0.1)
    lines: list[str] = []

    async def read() -> None:
        path = f"/matches/{created.match_id}/live"
        async with http.stream("GET", path, headers={"Last-Event-ID": str(version)}) as response:
            async for line in response.aiter_lines():
                lines.append(line)
                if line.startswith(":"):
                    return

    await asyncio.wait_for(read(), 30)
    assert lines == [": keep-alive"]


async def test_open_streams_end_cleanly_when_the_service_stops() -> None:
    async with isolated_service(None, grpc_port=0, http_port=0, timers=False) as running:
        created = await new_match(running, "classic", 3)
        base = f"http://127.0.0.1:{running.http_port}"
        client = httpx.AsyncClient(base_url=base, timeout=30)
        response = await client.send(
            client.build_request("GET", f"/matches/{created.match_id}/live"), stream=True
        )
        assert response.status_code == 200
        lines = response.aiter_lines()
        assert (await anext(lines)).startswith("id: 0")
    received = [line async for line in lines]  # it ends, whole: no error
    await response.aclose()
    await client.aclose()
    assert received[0] == "event: MatchCreated" and received[1].startswith('data: {"seq":0')
