"""The archive move killed (kill -9, a real process) at each of its steps: with the
object half written, written but not read back, verified but not dropped, dropped but
still in the close log. What the kill left is checked, then the real ``daifugo archive
run`` finishes the move: the match is in the archive once, whole (its JSONL export byte
for byte what it was), gone from Redis, and the match the killed mover never reached
is moved too. Nothing lost, nothing twice."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eventstore import FolderArchive, RedisEventStore, RedisServer, RedisStorage
from eventstore.archive import unpack
from service.app.match import stream_of
from service.audit import export_jsonl

from ..sealed import sealed_match
from ..service_support import applied_by_the_projections
from .archive_mover import STEPS

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0  # seconds a child may take to reach its step (a loaded machine)


async def mover_killed_at(step: str, url: str, folder: Path, match_ids: list[str]) -> None:
    command = [sys.executable, "-m", "tests.faults.archive_mover", url, str(folder), step]
    child = subprocess.Popen([*command, *match_ids], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(child.stdout.readline), WAIT)
        assert line == f"at {step}\n"
    finally:
        child.kill()  # SIGKILL
        child.wait()
    assert child.returncode == -9


def archive_run(url: str, folder: Path) -> str:
    env = {**os.environ, "REDIS_URL": url, "DAIFUGO_ARCHIVE": str(folder)}
    command = [sys.executable, "-m", "service.cli", "archive", "run", "--keep-live", "0"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("step", STEPS)
async def test_a_move_killed_at_any_step_is_finished_by_the_next_run(
    step: str, redis_server: RedisServer, store: RedisEventStore, tmp_path: Path
) -> None:
    first, second = await sealed_match(store), await sealed_match(store)
    streams = [stream_of(first), stream_of(second)]
    stored = [await store.read_as_stored(stream) for stream in streams]
    exported = [export_jsonl(await store.read(stream)) for stream in streams]
    folder = tmp_path / "archive"
    archive = FolderArchive(folder)

    await applied_by_the_projections(RedisStorage(store), streams)
    await mover_killed_at(step, redis_server.url, folder, [first, second])

    left = await archive.get(streams[0])
    in_redis = await store.read_as_stored(streams[0])
    [held] = await store.holds([streams[0]])  # in the close log
    match step:
        case "renaming":  # a temporary file only: no object under the match's name
            assert left is None and in_redis == stored[0] and held
            assert [p.name.startswith(".put-") for p in folder.iterdir()] == [True]
            two_hours_ago = time.time() - 2 * 3600  # no write in progress: cut short
            for path in folder.iterdir():
                os.utime(path, (two_hours_ago, two_hours_ago))
        case "written" | "verified":  # in both places for now
            assert left is not None and unpack(streams[0], left) == stored[0]
            assert in_redis == stored[0] and held
        case "dropped":  # gone from Redis but for its close-log entry
            assert left is not None and unpack(streams[0], left) == stored[0]
            assert in_redis == [] and held
    assert await archive.get(streams[1]) is None  # never reached
    assert await store.read_as_stored(streams[1]) == stored[1]

    assert "archived 2 matches" in await asyncio.to_thread(archive_run, redis_server.url, folder)

    assert sorted(await archive.names()) == sorted(streams)  # each once
    assert not [p for p in folder.iterdir() if p.name.startswith(".put-")]  # nothing left
    assert await store.holds(streams) == [False, False]
    assert await store.closed_since(0) == []
    for stream, events, export in zip(streams, stored, exported, strict=True):
        assert await store.read_as_stored(stream) == []
        assert await store.connector.execute("EXISTS", *store.keys.snapshots(stream)) == 0
        blob = await archive.get(stream)
        assert blob is not None and unpack(stream, blob) == events
        reader = RedisEventStore.from_url(redis_server.url, prefix=store.keys.prefix)
        reader.use_archive(archive)
        try:
            assert export_jsonl(await reader.read(stream)) == export  # byte for byte
            assert (await reader.verify(stream)).ok
        finally:
            await reader.close()
    # and a run again finds nothing to do, and changes nothing
    assert "archived 0 matches" in await asyncio.to_thread(archive_run, redis_server.url, folder)
    assert sorted(await archive.names()) == sorted(streams)
