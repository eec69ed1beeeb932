"""Four loops of anonymous reads of a long match (its state at a random seq, the match,
its record) from one address kept the serving loop busy: an honest player's action took
twice as long (bench.attacks row B). Now each caller's network has a read rate with a
burst; past it a read is refused (429 rate_limited, Retry-After) before it touches the
store, while other addresses, and the caller's own actions, go on."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from clients.sdk import DaifugoClient
from eventstore import RedisServer
from tests.serve_process import ServeProcess

from .addresses import from_address

RATE, BURST = 5, 20


@pytest.fixture(scope="module")
def served(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServeProcess]:
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    options = ("--http-reads-per-second", str(RATE), "--http-read-burst", str(BURST))
    service = ServeProcess(redis_server.url, log, *options).wait_ready()
    try:
        yield service
    finally:
        service.stop()


async def test_reads_past_the_rate_are_refused_and_nobody_else_s_are(
    served: ServeProcess, client: DaifugoClient
) -> None:
    created = await client.create_match("classic", seats=4)
    match_id = created.match_id
    reads = [f"/matches/{match_id}", f"/matches/{match_id}/state?seq=0"]
    reads += [f"/matches/{match_id}/events", f"/matches/{match_id}/record"]
    async with from_address(served, "127.0.0.7") as reader:
        answers = await asyncio.gather(*(reader.get(reads[n % 4]) for n in range(3 * BURST)))
        statuses = [answer.status_code for answer in answers]
        assert statuses.count(200) >= BURST  # the burst, and what the rate gave meanwhile
        refused = [answer for answer in answers if answer.status_code == 429]
        assert len(refused) >= BURST // 2, statuses
        assert {answer.json()["code"] for answer in refused} == {"rate_limited"}
        assert all(int(answer.headers["Retry-After"]) >= 1 for answer in refused)
        # another address is not slowed by this one's reads
        async with from_address(served, "127.0.0.8") as other:
            assert (await other.get(reads[0])).status_code == 200
            assert (await other.get("/matches")).status_code == 200
        # the list is a read too (a page reads up to 200 listings); the presets are not.
        # Many at once: what the rate gave back meanwhile (a loaded machine) is a few
        listed = await asyncio.gather(*(reader.get("/matches") for _ in range(2 * BURST)))
        assert 429 in [answer.status_code for answer in listed]
        assert (await reader.get("/presets")).status_code == 200
        # the rate comes back: a read a second later is served
        await asyncio.sleep(1.2)
        assert (await reader.get(reads[0])).status_code == 200
