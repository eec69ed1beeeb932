"""Event streams (SSE) hold their connections for as long as their clients like, and the
connection gate never evicts one (it is being answered). Unbounded, one address held
all its connections with streams (256), and a few addresses every connection the server
had: nobody else's requests or streams got in. Now streams have bounds of their own,
lower than the connections' (per address and in all); past them a new stream is refused
with a reason code and Retry-After, and a stream that ends gives its place back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from eventstore import RedisServer
from tests.serve_process import ServeProcess

from .addresses import from_address

PER_ADDRESS, TOTAL = 4, 8


@pytest.fixture(scope="module")
def served(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServeProcess]:
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    options = ("--http-streams-per-address", str(PER_ADDRESS), "--http-max-streams", str(TOTAL))
    service = ServeProcess(redis_server.url, log, *options).wait_ready()
    try:
        yield service
    finally:
        service.stop()


async def open_stream(client: httpx.AsyncClient, match_id: str) -> httpx.Response:
    """A live stream, its answer's head read (the body is left streaming)."""
    return await client.send(client.build_request("GET", f"/matches/{match_id}/live"), stream=True)


async def first_event(stream: httpx.Response) -> str:
    """The stream's first event line. (Its lines are read with one iterator, kept: an
    iterator left behind closes the connection when it is collected.)"""
    lines = LINES.setdefault(stream, stream.aiter_lines())
    async with asyncio.timeout(30):
        async for line in lines:
            if line.startswith("event:"):
                return line
    raise AssertionError("the stream ended without an event")


LINES: dict[httpx.Response, AsyncIterator[str]] = {}


async def test_streams_from_one_address_cannot_starve_anyone_else(served: ServeProcess) -> None:
    streams: list[httpx.Response] = []
    async with (
        from_address(served, "127.0.0.2") as victim,
        from_address(served, "127.0.0.3") as attacker,
        from_address(served, "127.0.0.4") as second_attacker,
    ):
        made = await victim.post("/matches", json={"preset": "classic", "players": 2, "seat": None})
        assert made.status_code == 201, made.text
        match_id = made.json()["match_id"]
        try:
            # the honest path: a viewer's stream, and its events
            own = await open_stream(victim, match_id)
            streams.append(own)
            assert own.status_code == 200
            assert (await first_event(own)) == "event: MatchCreated"
            # the attack: one address opens streams past its bound
            for _ in range(PER_ADDRESS):
                streams.append(await open_stream(attacker, match_id))
                assert streams[-1].status_code == 200
            refused = await open_stream(attacker, match_id)
            streams.append(refused)  # (closed at the end, were it a stream)
            assert refused.status_code == 429  # (before reading: a stream never ends)
            await refused.aread()
            assert refused.json()["code"] == "too_many_streams"
            assert int(refused.headers["Retry-After"]) > 0
            # its ordinary requests still get in, and so do others' streams and requests
            assert (await attacker.get(f"/matches/{match_id}")).status_code == 200
            assert (await victim.get(f"/matches/{match_id}")).status_code == 200
            another = await open_stream(victim, match_id)
            streams.append(another)
            assert another.status_code == 200
            # a second address fills what is left of the bound in all: then no new stream
            # from anyone, and still every ordinary request
            while sum(stream.status_code == 200 for stream in streams) < TOTAL:
                streams.append(await open_stream(second_attacker, match_id))
                assert streams[-1].status_code == 200
            full = await open_stream(victim, match_id)
            streams.append(full)
            assert full.status_code == 429
            await full.aread()
            assert full.json()["code"] == "streams_full"
            assert (await victim.get(f"/matches/{match_id}")).status_code == 200
            # a stream that ends gives its place back
            for stream in streams[1 : 1 + PER_ADDRESS]:  # the first address's
                await stream.aclose()
            async with asyncio.timeout(30):
                while True:
                    again = await open_stream(attacker, match_id)
                    if again.status_code == 200:
                        streams.append(again)
                        break
                    await again.aclose()
                    await asyncio.sleep(0.1)
            assert (await first_event(again)) == "event: MatchCreated"
        finally:
            LINES.clear()
            for stream in streams:
                await stream.aclose()
    assert served.alive
