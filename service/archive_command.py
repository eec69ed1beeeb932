"""``daifugo archive status|run|get MATCH_ID``: the operator's view of the archive of
sealed matches (service/app/archiver.py) beside the store it empties. The store is
REDIS_URL's, else the embedded Redis of ``daifugo serve`` (as ``daifugo audit``); the
archive is the folder ``DAIFUGO_ARCHIVE`` names, else ``archive/`` in the data folder."""

from __future__ import annotations

import asyncio
import sys
import time

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from eventstore import (
    Archive,
    EventStoreError,
    RedisEventStore,
    RedisSnapshots,
    RedisStorage,
    redacted_url,
    store_redis_url,
)
from eventstore.archive import configured_archive

from .app import STORE_PREFIX
from .app.archiver import Archiver, archive_now, followers_of
from .app.listings import PART
from .app.match import ENDING, stream_of
from .app.scanning import scan_streams
from .audit import export_jsonl


def run_archive(action: str, keep_live: float, match_id: str) -> int:
    """Exit 0 when done; 1 when a match asked for is nowhere; 2 with no store."""
    archive = configured_archive()
    try:
        with store_redis_url() as url:
            if url is None:
                print("daifugo: no REDIS_URL nor embedded Redis data", file=sys.stderr)
                return 2
            return asyncio.run(_run(action, url, archive, keep_live, match_id))
    except (OSError, RuntimeError, EventStoreError) as error:
        print(f"daifugo: {error}", file=sys.stderr)
        return 2


async def _run(action: str, url: str, archive: Archive, keep_live: float, match_id: str) -> int:
    store = RedisEventStore.from_url(url, prefix=STORE_PREFIX)  # no upcasters: as stored
    store.use_archive(archive)
    try:
        if action == "get":
            events = await store.read(stream_of(match_id))
            if not events:
                print(f"daifugo: no match {match_id!r}", file=sys.stderr)
                return 1
            sys.stdout.write(export_jsonl(events))
            return 0
        if action == "run":
            return await _move(store, archive, round(keep_live * 1000))
        await _status(store, archive, url)
        return 0
    finally:
        await store.close()


async def _move(store: RedisEventStore, archive: Archive, keep_live_ms: int) -> int:
    due = Archiver(store, archive, RedisSnapshots(store), keep_live_ms)
    await due.start()
    now = time.time_ns() // 1_000_000
    count = sum(1 for at in due.due.values() if at <= now)
    columns = (
        TextColumn("archiving"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, transient=True) as progress:
        task = progress.add_task("archiving", total=count)
        moved = await archive_now(
            store,
            archive,
            RedisSnapshots(store),
            keep_live_ms,
            now,
            moved=lambda size: progress.advance(task),
            followers=followers_of(RedisStorage(store)),
        )
    print(
        f"archived {moved.moved.matches} matches, {moved.moved.bytes:,} bytes "
        f"into {archive.where}; {len(moved.due) - moved.unsettled} sealed matches not due "
        f"yet; {moved.unsettled} due but not yet applied by every projection (the service's "
        "followers apply them; run again later)"
    )
    return 0


async def _status(store: RedisEventStore, archive: Archive, url: str) -> None:
    scan = await scan_streams(store)
    live = scan.live()
    ending = sum(1 for type_ in scan.last_types.values() if type_ in ENDING)
    sealed = await store.close_log_size()
    objects, size = await archive.size()
    used = await store.used_memory()
    print(f"store: Redis at {redacted_url(url)}, {used:,} bytes used")
    print(f"  open streams: {len(scan.positions)} (matches live {len(live)}, ending {ending})")
    print(f"  sealed, awaiting the archive (the close log): {sealed}")
    if live:
        oldest = live[0]  # the scan keeps the index's order: oldest first
        first = await store.read(stream_of(oldest), 0, 1)
        age = (time.time_ns() // 1_000_000 - first[0].at) / 1000 if first else 0
        print(f"  oldest live match: {oldest} ({age:,.0f} s old)")
    per = size // objects if objects else 0
    print(f"archive: {archive.where}: {objects} matches, {size:,} bytes ({per:,} per match)")
    segments, listed = await archive.part(PART).size()
    print(f"  the catalog's archived listings: {segments} segments and volumes, {listed:,} bytes")
