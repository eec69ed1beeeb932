"""The live streams of one audience share one reader (service/rest/broadcast.py): every
spectator gets the very same bytes, a seat's stream is never shared with a spectator's,
the spectator delay holds live events as it holds stored ones, and a stream whose client
stopped reading holds up nobody and is ended with its reason once it falls behind."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import httpx
import pytest

from service.app.service import visible
from service.rest import broadcast, live
from service.rest.broadcast import Audience, Broadcasts, encoded
from service.rules.views import SPECTATOR, Viewer
from service.runtime import Running

from .support import advance, new_match, read_sse, stored


async def _raw_until(http: httpx.AsyncClient, path: str, seq: int) -> bytes:
    """The body of a live stream, as sent, up to and with event ``seq``."""
    body = b""
    async with http.stream("GET", path) as response:
        assert response.status_code == 200
        async for chunk in response.aiter_raw():
            body += chunk
            if f"id: {seq}\n".encode() in body:
                return body
    raise AssertionError(f"the stream ended before {seq}")


def _events_upto(body: bytes, seq: int) -> bytes:
    """The events of a stream body up to and with ``seq``, as sent (the keep-alives may
    fall anywhere between them, so they are left out)."""
    kept = []
    for message in body.split(b"\n\n"):
        if message.startswith(b":"):
            continue
        kept.append(message + b"\n\n")
        if message.startswith(f"id: {seq}\n".encode()):
            return b"".join(kept)
    raise AssertionError(f"no event {seq} in {body!r}")


async def test_many_spectators_get_the_same_bytes(served: Running, http: httpx.AsyncClient) -> None:
    created = await new_match(served, "classic", 3)
    before = await served.service.load(created.match_id)
    path = f"/matches/{created.match_id}/live"
    target = before.version + 6
    watchers = [asyncio.create_task(_raw_until(http, path, target)) for _ in range(20)]
    await asyncio.sleep(0.3)  # most are in before the events (nothing is missed anyway)
    after = await advance(served, created, 12)
    assert after.version >= target
    bodies = await asyncio.wait_for(asyncio.gather(*watchers), 60)
    everything = await stored(served, created.match_id)
    expected = b"".join(encoded(visible(item, SPECTATOR, False)) for item in everything)
    assert {_events_upto(body, target) for body in bodies} == {_events_upto(expected, target)}
    # one more from 0 while the broadcast is on: the store up to its window, then the window
    late = await asyncio.wait_for(_raw_until(http, path, after.version), 60)
    assert _events_upto(late, after.version) == _events_upto(expected, after.version)


async def test_a_seat_and_a_spectator_watching_at_once_each_see_their_own(
    served: Running, http: httpx.AsyncClient
) -> None:
    created = await new_match(served, "classic", 3, start=False)
    version = (await served.service.load(created.match_id)).version
    path = f"/matches/{created.match_id}/live"
    seat = {"Authorization": f"Bearer {created.seat_tokens[1]}"}
    dealt = version + 2  # MatchStarted, GameDealt
    watching = [
        asyncio.create_task(read_sse(http, path, until_seq=dealt)),
        asyncio.create_task(read_sse(http, path, headers=seat, until_seq=dealt)),
    ]
    await asyncio.sleep(0.3)
    await served.service.start(created.match_id, created.host_token)
    spectator, seated = await asyncio.wait_for(asyncio.gather(*watching), 60)
    everything = await stored(served, created.match_id)
    assert [event["data"] for event in spectator] == [
        visible(item, SPECTATOR, False) for item in everything[: dealt + 1]
    ]
    assert [event["data"] for event in seated] == [
        visible(item, Viewer.of_seat(1), False) for item in everything[: dealt + 1]
    ]
    hands = [
        next(event["data"]["hands"] for event in received if event["event"] == "GameDealt")
        for received in (spectator, seated)
    ]
    assert hands[0] == [None, None, None]
    assert [hand is not None for hand in hands[1]] == [False, True, False]


async def test_live_events_are_held_for_the_spectator_delay(
    served: Running, http: httpx.AsyncClient
) -> None:
    created = await new_match(served, "classic", 3, delay=1.0)
    before = await served.service.load(created.match_id)
    path = f"/matches/{created.match_id}/live"
    arrivals: dict[int, float] = {}

    async def watch(until: int) -> None:
        async with http.stream("GET", path, headers={"Last-Event-ID": str(before.version)}) as r:
            async for line in r.aiter_lines():
                if line.startswith("id: "):
                    arrivals[int(line[4:])] = time.time() * 1000
                    if int(line[4:]) >= until:
                        return

    after = await advance(served, created, 1)
    await asyncio.wait_for(watch(after.version), 60)
    everything = await stored(served, created.match_id)
    assert sorted(arrivals) == list(range(before.version + 1, after.version + 1))
    for item in everything[before.version + 1 :]:
        assert arrivals[item.seq] >= item.at + 1000, (item.seq, arrivals[item.seq] - item.at)


async def test_a_stream_that_is_not_read_holds_up_nobody_and_ends_once_behind(
    served: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(broadcast, "WINDOW", 8)
    service, closing, broadcasts = served.service, asyncio.Event(), Broadcasts()
    created = await new_match(served, "classic", 3)
    version = (await service.load(created.match_id)).version
    audience = Audience(created.match_id, SPECTATOR, 0, False, 3600.0)

    def stream(start: int) -> AsyncIterator[bytes]:
        shared = broadcasts.of(service, audience, version + 1, closing)
        return live._messages(shared, start, closing, live._Schedule(audience.period))

    stalled = stream(version + 1)
    reader = stream(version + 1)
    first = await advance(served, created, 1)
    assert f"id: {first.version}\n".encode() in await anext(stalled)  # then it reads no more
    received = b""

    async def read(until: int) -> None:
        nonlocal received
        while f"id: {until}\n".encode() not in received:
            received += await anext(reader)

    after = await advance(served, created, 12)
    assert after.version - first.version > 8  # more than the window
    await asyncio.wait_for(read(after.version), 30)
    everything = await stored(served, created.match_id)
    assert received == b"".join(
        encoded(visible(item, SPECTATOR, False)) for item in everything[version + 1 :]
    )
    # the stalled one reads on: it was left behind, so it ends, saying why
    rest = [message async for message in stalled]
    assert rest == [live._DROPPED] and rest[0].startswith(b": this stream fell too far behind")
    await reader.aclose()
    closing.set()
