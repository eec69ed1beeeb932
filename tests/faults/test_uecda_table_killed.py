"""A UECda table with ``--uecda-durability game`` (its steps sent without waiting, each
game's all stored before its result and the next deal) when Redis, or the `daifugo
serve` playing it, is killed with SIGKILL in the middle of a game of five official
clients: every game the clients were told was over is in the store, whole, and the
match audits valid; the interrupted game ends there, as abandoned (``table_failed``),
with nothing between its last stored step and ``MatchAbandoned``."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from eventstore import RedisEventStore, RedisServer, StoredEvent
from service.audit import audit_events
from service.match import AbandonReason
from tests.serve_process import ServeProcess
from tests.uecda.support import (
    Recorder,
    build_official_client,
    games_told_over,
    parse_stream,
    run_clients,
)

T = TypeVar("T")
GAMES_BEFORE = 3  # games stored before the kill: it lands well inside the match
SERVE_OPTIONS = ("--uecda-port", "0", "--uecda-games", "1000", "--uecda-turn-seconds", "30")


def started_serve(redis: RedisServer, log: Path) -> tuple[ServeProcess, int]:
    serve = ServeProcess(redis.url, log, *SERVE_OPTIONS).wait_ready()
    found = re.search(r"UECda on (\d+)", serve.log_tail())
    assert found, serve.log_tail()
    return serve, int(found[1])


@contextlib.asynccontextmanager
async def table_of_five(
    tmp_path: Path, port: int, store: RedisEventStore
) -> AsyncIterator[tuple[Recorder, asyncio.Task[list[int]], str]]:
    """Five official clients at one table through a recorder, playing; the match's stream."""
    client = build_official_client(tmp_path)
    if client is None:
        pytest.skip("needs gcc and the official client's source")
    before = set(await store.streams(0, 1000))
    async with Recorder(port).running() as recorder:
        names = [f"k{n}" for n in range(5)]
        playing = asyncio.create_task(run_clients(client, recorder.port, names, timeout=120))
        try:
            stream = await until(lambda: _new_stream(store, before), 20)
            yield recorder, playing, stream
        finally:
            if not playing.done():
                playing.cancel()
            with contextlib.suppress(BaseException):
                await playing


async def _new_stream(store: RedisEventStore, before: set[str]) -> str | None:
    new = [s for s in await store.streams(0, 1000) if s not in before]
    return new[0] if new else None


async def until(look: Callable[[], Awaitable[T | None]], timeout: float) -> T:
    """What ``look()`` gives once it gives something, within ``timeout`` seconds
    (Redis may be down meanwhile: a look that fails is looked again)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        with contextlib.suppress(Exception):
            found = await look()
            if found:
                return found
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting ({look})"
        await asyncio.sleep(0.05)


async def games_stored(store: RedisEventStore, stream: str, at_least: int) -> bool | None:
    return sum(e.type == "GameEnded" for e in await store.read(stream)) >= at_least or None


async def abandoned(store: RedisEventStore, stream: str) -> list[StoredEvent] | None:
    events = await store.read(stream)
    return events if any(e.type == "MatchSealed" for e in events) else None


def assert_ended_as_abandoned(events: list[StoredEvent], told: list[int]) -> None:
    report = audit_events(events)
    assert report.verdict == "valid", report.to_dict()
    kinds = [e.type for e in events]
    at = kinds.index("MatchAbandoned")
    abandonment = events[at]
    assert abandonment.data["reason"] == AbandonReason.TABLE_FAILED
    # nothing between the interrupted game's last stored step and its abandonment,
    # and after it only the seed revealed and the seal
    assert abandonment.data["last_seq"] == abandonment.seq - 1
    assert kinds[at + 1 :] == ["SeedRevealed", "MatchSealed"], kinds[at:]
    assert "MatchEnded" not in kinds
    stored = kinds.count("GameEnded")
    # every game a client was told was over is stored, whole (a game is stored before
    # its result is told; one stored whose result the crash kept from the clients may be)
    assert told and min(told) >= GAMES_BEFORE - 1, told
    assert max(told) <= stored <= min(told) + 1, (told, stored)
    assert kinds[at - 1] != "GameEnded" or stored > max(told), "the game in play was over"


def told_over(recorder: Recorder) -> list[int]:
    return [games_told_over(parse_stream(bytes(data), cut=True)) for data in recorder.received]


async def test_redis_killed_mid_game_ends_the_match_as_abandoned_with_every_told_game_stored(
    redis_server: RedisServer, store: RedisEventStore, tmp_path: Path
) -> None:
    serve, port = started_serve(redis_server, tmp_path / "serve.log")
    try:
        async with table_of_five(tmp_path, port, store) as (recorder, playing, stream):
            await until(lambda: games_stored(store, stream, GAMES_BEFORE), 60)
            redis_server.kill()
            await asyncio.wait_for(playing, 60)  # the table stopped: its clients closed
            await asyncio.sleep(0.5)
            await asyncio.to_thread(redis_server.start)
            # the table, still alive, abandons its match once Redis answers again
            events = await until(lambda: abandoned(store, stream), 30)
        assert serve.alive, serve.log_tail()
        assert_ended_as_abandoned(events, told_over(recorder))
    finally:
        serve.stop()


async def test_serve_killed_mid_game_ends_the_match_as_abandoned_with_every_told_game_stored(
    redis_server: RedisServer, store: RedisEventStore, tmp_path: Path
) -> None:
    serve, port = started_serve(redis_server, tmp_path / "serve.log")
    try:
        async with table_of_five(tmp_path, port, store) as (recorder, playing, stream):
            await until(lambda: games_stored(store, stream, GAMES_BEFORE), 60)
            serve.kill()
            await asyncio.wait_for(playing, 60)
        # another replica takes the background lease and abandons the match whose
        # table died with its process
        other, _ = started_serve(redis_server, tmp_path / "other.log")
        try:
            events = await until(lambda: abandoned(store, stream), 40)
        finally:
            other.stop()
        assert_ended_as_abandoned(events, told_over(recorder))
    finally:
        serve.stop()
