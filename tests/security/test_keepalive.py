"""A spectator of a delayed match must not learn when a hidden action happened. Were
keep-alives timed from the last thing the stream did, an action would shift them (an
action at 4 s turned the next keep-alive from 15 s to 19 s); on a fixed schedule they
fall on the same multiples of the period on the clock, whatever happens."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterator

import httpx
import pytest

from eventstore import RedisEventStore, RedisServer, RedisStorage
from service.app.keyring import Keyring
from service.app.service import GameService, MatchOptions
from tests.serve_process import ServeProcess

PERIOD = 1.5  # seconds between keep-alives (--sse-keepalive)
LATE = 0.3 * PERIOD  # how far off a busy machine may put a keep-alive that is on schedule


@pytest.fixture(scope="module")
def served(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServeProcess]:
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    options = ("--sse-keepalive", str(PERIOD))
    service = ServeProcess(redis_server.url, log, *options).wait_ready()
    try:
        yield service
    finally:
        service.stop()


def _off_schedule(moment: float, first: float) -> float:
    """How far ``moment`` is from the schedule the ``first`` keep-alive set."""
    phase = (moment - first) % PERIOD
    return min(phase, PERIOD - phase)


async def _wait_for(condition: object, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.01)


async def test_keep_alives_do_not_move_when_a_hidden_action_happens(
    served: ServeProcess, store: RedisEventStore, http: httpx.AsyncClient
) -> None:
    # a match whose spectators see events an hour late, made as the service makes one
    service = GameService(store, Keyring(await RedisStorage(store).server_key().load()))
    created = await service.create(
        MatchOptions("classic", 3, {}, games_per_set=1, spectator_delay=3600)
    )
    keepalives: list[float] = []
    seen: list[int] = []

    async def watch() -> None:
        async with http.stream("GET", f"/matches/{created.match_id}/live") as response:
            assert response.status_code == 200
            async for line in response.aiter_lines():
                if line.startswith(": keep-alive"):
                    keepalives.append(time.time())
                    if len(keepalives) == 6:
                        return
                elif line.startswith("id:"):
                    seen.append(int(line.removeprefix("id:")))

    watcher = asyncio.create_task(watch())
    try:
        # the honest path: the setup is shown at once, and keep-alives keep a schedule
        setup = (await service.load(created.match_id)).version
        await _wait_for(lambda: len(keepalives) >= 2, "no keep-alives")
        assert seen == list(range(setup + 1))
        first = keepalives[0]
        assert all(_off_schedule(moment, first) < LATE for moment in keepalives), keepalives
        # the host starts the match halfway between two keep-alives: the start, the deal
        # and all that follows are hidden for an hour
        halfway = keepalives[-1] + 1.5 * PERIOD
        await asyncio.sleep(halfway - time.time())
        acted = time.time()
        await service.start(created.match_id, created.host_token)
        assert (await service.load(created.match_id)).version > setup
        await asyncio.wait_for(watcher, 60)
    finally:
        watcher.cancel()
    after = [moment for moment in keepalives if moment > acted]
    assert len(after) >= 2, (acted, keepalives)
    # the keep-alives after it fall where they would have without it
    assert all(_off_schedule(moment, first) < LATE for moment in after), (acted, keepalives)
    gaps = [later - earlier for earlier, later in itertools.pairwise(keepalives)]
    assert all(gap > PERIOD - LATE for gap in gaps), gaps  # none extra, at the action
    assert seen == list(range(setup + 1))  # and the start itself is not shown
