"""A process that moves sealed matches to a folder archive as the archiver does
(``Archiver.move``) and stops dead at one step of the move, for its parent to kill -9:

    python -m tests.faults.archive_mover REDIS_URL FOLDER STEP MATCH_ID...

STEP is where it stops in the first match's move: ``renaming`` (the object written to a
temporary file, not renamed over its name), ``written`` (the object in place, not read
back), ``verified`` (read back and equal, nothing dropped), ``dropped`` (the stream's keys
dropped, its close-log and index entries not). It prints ``at STEP`` and waits there forever; the
matches after the first are never reached."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Sequence
from typing import Any
from unittest import mock

from eventstore import FolderArchive, RedisEventStore, RedisSnapshots
from service.app import STORE_PREFIX
from service.app.archiver import Archiver

STEPS = ("renaming", "written", "verified", "dropped")


async def stop_here(step: str) -> None:
    print(f"at {step}", flush=True)
    await asyncio.Event().wait()  # until killed


class StoppingArchive(FolderArchive):
    def __init__(self, folder: str, step: str) -> None:
        super().__init__(folder)
        self.step = step

    async def put(self, stream: str, blob: bytes) -> None:
        await super().put(stream, blob)
        if self.step == "written":
            await stop_here("written")


def stop_before_rename() -> None:
    def replace(source: Any, target: Any) -> None:
        print("at renaming", flush=True)  # the temporary file is whole and on disk
        while True:  # the whole process held here, until killed
            time.sleep(60)

    mock.patch("os.replace", replace).start()  # only this process's


async def main(url: str, folder: str, step: str, match_ids: list[str]) -> None:
    if step not in STEPS:
        raise SystemExit(f"STEP is one of {STEPS}")
    store = RedisEventStore.from_url(url, prefix=STORE_PREFIX)
    archive = StoppingArchive(folder, step)
    store.use_archive(archive)
    if step == "renaming":
        stop_before_rename()
    dropping = store.drop_sealed
    pipeline = store.connector.pipeline

    async def drop_sealed(stream: str) -> bool:
        if step == "verified":
            await stop_here("verified")
        return await dropping(stream)

    async def pipeline_stopping(commands: Sequence[Sequence[Any]]) -> list[Any]:
        if step == "dropped" and commands[0][0] == "ZREM":  # the close log and the index
            await stop_here("dropped")
        return await pipeline(commands)

    store.drop_sealed = drop_sealed  # type: ignore[method-assign]
    store.connector.pipeline = pipeline_stopping  # type: ignore[method-assign]
    archiver = Archiver(store, archive, RedisSnapshots(store), 0)
    for match_id in match_ids:
        await archiver.move(match_id)
    print("moved all", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]))
