"""`daifugo bench scale`: many finished matches, archived. Prints, per N, Redis's memory
empty, filled and after archiving (with the catalog's and the results' projections of
every match, which retire each once it is sealed; the catalog's listings go to segments
in the archive), the takeover scan's time and a follower's sweep's CPU before and after, the
archiving throughput, a whole match's read from Redis and from the archive, and a
replay over REST (its events, then its state at every 16th seq, in-process through the
REST app) of live and archived matches in turn; then the archive's bytes per match per
preset and player count, with what the bytes are, and what a trained zstd dictionary
would save.

    daifugo bench scale [--sizes 10000,100000,1000000] [--batch 100000] [--samples 200]

The matches are generated directly: one match per preset and player count is played
through the real service (in memory, one game, every seat acting its first legal
action), and its events are written again under N stream ids, one append each (so the
chains are the stores' own; each copy names itself in its MatchCreated, as the service
reads it; the copies' seals sign the template's head, which the archive does not check).
A copy is one append, so one request id: its object is smaller than a played match's
(the per-preset table is of played ones). A private redis-server (no AOF) runs for each
N. The first ``--batch`` is filled, then the catalog and the results applied to it (each
catching up, in turn), for the figures "filled" (memory, the scan, the sweep, the live
reads and replays). Then the rest run as a service's parts do, side by side: a process
fills the next batch while another follows the feed with the catalog and the results
(one shared read, settling every few seconds: each match retired once applied through
its seal), and this one archives each match its followers have retired, as the
service's archiver waits for them. At most two batches are in Redis at once (a million
at once would need about 45 GB). "After archiving" is of all N.

The global feed (a hint per append, trimmed to its cap of 100,000 entries) is filled to
its cap first, as a played service's is within its first thousand matches (about 140
appends a match; a copy here is one), so that it is the same at every N; its size is
printed apart.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import dataclasses
import functools
import multiprocessing
import secrets
import statistics
import tempfile
import time
from collections.abc import Sequence
from multiprocessing.synchronize import Event as EventType

import httpx
import msgspec
import zstandard

from eventstore import (
    InMemoryEventStore,
    NewEvent,
    RedisEventStore,
    RedisServer,
    RedisSnapshots,
    RedisStorage,
    StoredEvent,
)
from eventstore.archive import ZSTD_LEVEL, FolderArchive, columns, pack, packed_id, unpack
from service.app.archiver import MOVES_AT_ONCE, Archiver, archive_now
from service.app.catalog import NAME as CATALOG
from service.app.catalog import CatalogProjection
from service.app.following import SharedFeed
from service.app.keyring import Keyring
from service.app.listings import PART, ArchivedListings, segment_of
from service.app.match import stream_of
from service.app.projections import ResultsProjection
from service.app.scanning import scan_streams
from service.app.service import GameService, MatchOptions
from service.app.signing import ephemeral_signer
from service.rest.app import RestSettings, create_app
from service.rest.read_rate import ReadRate
from service.rules.commands import SeatCommand
from service.rules.legal import legal_actions

PRESETS = ("classic", "federation", "torasobi")


def for_seat(command: SeatCommand, seat: int) -> SeatCommand:
    return dataclasses.replace(command, seat=seat)


async def template(preset: str, players: int) -> list[StoredEvent]:
    """One real match of one game, played to its seal."""
    store = InMemoryEventStore()
    service = GameService(store, Keyring(secrets.token_bytes(32)))
    made = await service.create(MatchOptions(preset, players, {}, games_per_set=1))
    await service.start(made.match_id, made.host_token)
    while not (match := await service.load(made.match_id)).over:
        seat = match.game.turn
        assert seat is not None
        command = legal_actions(match.game)[0]
        token = made.seat_tokens[seat]
        await service.act(made.match_id, token, functools.partial(for_seat, command))
    for _ in range(100):
        if (await service.load(made.match_id)).sealed:
            break
        await asyncio.sleep(0.01)
    events = await store.read_as_stored(stream_of(made.match_id))
    await service.fanout.close()
    return events


def breakdown(events: Sequence[StoredEvent]) -> dict[str, int]:
    """The packed columns' sizes before compression, and the object's after."""
    encode = msgspec.msgpack.encode
    return {
        "events": len(events),
        "types": len(encode([e.type for e in events])),
        "request_ids": len(encode(packed_ids(events))),
        "times": len(encode([e.at for e in events])),
        "data": len(encode([e.data for e in events])),
        "packed": len(pack(events)),
    }


def packed_ids(events: Sequence[StoredEvent]) -> list[str | bytes]:
    """The request ids as packed: each once, the store's own as 16 bytes."""
    ids: list[str | bytes] = []
    last = ""
    for event in events:
        ids.append("" if event.request_id == last else packed_id(event.request_id))
        last = event.request_id
    return ids


def names_of(first: int, count: int) -> list[str]:
    return [f"bench{index:07d}" for index in range(first, first + count)]


async def fill(store: RedisEventStore, events: Sequence[StoredEvent], names: list[str]) -> None:
    records = [NewEvent(e.type, e.data, e.schema) for e in events]
    created = events[0].data

    def copy(name: str) -> list[NewEvent]:  # its MatchCreated names it, as the service reads
        return [NewEvent(events[0].type, {**created, "match_id": name}), *records[1:]]

    for start in range(0, len(names), 200):
        page = names[start : start + 200]
        await asyncio.gather(*(store.append(stream_of(name), copy(name), -1) for name in page))


async def follow_every_match(storage: RedisStorage, archive: FolderArchive) -> None:
    """The catalog and the results applied to every match, as the service's followers
    do (and, after archiving, started again: they forget what left)."""
    catalog = CatalogProjection(storage, ArchivedListings.beside(archive))
    for projection in (ResultsProjection(storage), catalog):
        await projection.catch_up()


async def warm_feed(store: RedisEventStore, stream: str) -> None:
    """The global feed at its cap, as a service's is after its first thousand matches
    (a hint an append, about 140 a match): so the memory after archiving is the same at
    every N. Hints before a follower's start are never read (it starts from the top)."""
    for start in range(0, store.feed_maxlen, 1000):
        hint = ("XADD", store.keys.feed, "MAXLEN", "~", store.feed_maxlen, "*", "s", stream, "v", 0)
        await store.connector.pipeline([hint] * min(1000, store.feed_maxlen - start))


def fill_names(url: str, events: Sequence[StoredEvent], first: int, count: int) -> None:
    """``fill`` in a process of its own (the pipeline's filler)."""

    async def filling() -> None:
        store = RedisEventStore.from_url(url, prefix="daifugo")
        try:
            await fill(store, events, names_of(first, count))
        finally:
            await store.close()

    asyncio.run(filling())


def follow_live(url: str, folder: str, stop: EventType) -> None:
    """The catalog and the results following the feed in a process of their own, one
    shared read as the service's (settling every PASS_EVERY s), until ``stop``."""

    async def following() -> None:
        store = RedisEventStore.from_url(url, prefix="daifugo")
        storage = RedisStorage(store)
        archive = FolderArchive(f"{folder}/archive")
        store.use_archive(archive)
        catalog = CatalogProjection(storage, ArchivedListings.beside(archive))
        feed = SharedFeed(store, [ResultsProjection(storage), catalog])
        running = asyncio.create_task(feed.run())
        try:
            while not stop.is_set():
                await asyncio.sleep(0.2)
            await feed.settle()
        finally:
            feed.stop()
            await running
            await store.close()

    asyncio.run(following())


async def pipelined(
    url: str,
    folder: str,
    store: RedisEventStore,
    sizes: tuple[int, int, int, int],
    events: Sequence[StoredEvent],
) -> tuple[float, int]:
    """Every match archived, the first batch being in and followed: the next batch is
    filled (a process) while the followers (another) apply the last and this process
    archives what they have retired, as a service's archiver waits for its followers.
    Each batch's end prints Redis's memory; the archiving's time (s) and the matches
    moved. ``sizes``: N, the batch, the matches moved already, Redis's memory empty."""
    spawn = multiprocessing.get_context("spawn")
    stop = spawn.Event()
    follower = spawn.Process(target=follow_live, args=(url, folder, stop), daemon=True)
    follower.start()
    storage = RedisStorage(store)
    archive = FolderArchive(f"{folder}/archive")
    watermarks = [storage.projection(name) for name in (ResultsProjection.name, CATALOG)]
    n, batch, moved, empty = sizes
    archive_s, filled = 0.0, min(n, batch)
    loop = asyncio.get_running_loop()
    try:
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn) as filler:
            while moved < n:
                target, filling = filled, None  # what is in now is archived while more fills
                if filled < n:
                    count = min(batch, n - filled)
                    filling = loop.run_in_executor(filler, fill_names, url, events, filled, count)
                    filled += count
                began = time.perf_counter()
                while moved < target:  # what the followers have retired, as it comes
                    mover = await archive_now(
                        store, archive, RedisSnapshots(store), 0, followers=watermarks
                    )
                    moved += mover.moved.matches
                    if not mover.moved.matches:
                        await asyncio.sleep(1.0)
                archive_s += time.perf_counter() - began
                if filling is not None:
                    await filling
                if n > batch:  # a long run says how it goes, and what it has shown so far
                    over = (await store.used_memory() - empty) / (1024 * 1024)
                    print(
                        f"  {moved:,} archived, {filled - moved:,} more filled: Redis "
                        f"{over:+.2f} MB over empty",
                        flush=True,
                    )
    finally:
        stop.set()
        follower.join()
    return archive_s, moved


async def counted_everywhere(storage: RedisStorage, players: int) -> tuple[int, int]:
    """The matches the ranking counts (its games over the seats of one) and those the
    list shows (its live index and its segments): each N when nothing was applied
    twice nor lost."""
    ranking = await ResultsProjection(storage).ranking(0, 1000)
    catalog = CatalogProjection(storage).state
    segments = await catalog.hash(catalog.key("segments"))
    listed = sum(sum(segment_of(text).counts.values()) for text in segments.values())
    # the listings not in a segment yet: fewer than a segment's
    listed += len(await catalog.members_before(catalog.key("idx:all"), None, 100_000))
    return sum(standing.games for standing in ranking) // players, listed


async def bytes_of(store: RedisEventStore, pattern: str) -> int:
    """What the keys matching ``pattern`` take in Redis, by MEMORY USAGE."""
    client = await store.raw_client()
    keys = [key async for key in client.scan_iter(match=pattern, count=1000)]
    sizes = await store.connector.pipeline([("MEMORY", "USAGE", key) for key in keys])
    return sum(int(size or 0) for size in sizes)


async def sweep_cpu(storage: RedisStorage) -> tuple[float, float]:
    """A sweep of the store by a follower where the results projection is (its positions
    of the open streams, its watermark over the close log: every match retired, nothing
    to give): its CPU in this process and its time, s."""
    checkpoints = storage.projection(ResultsProjection.name)
    wall, cpu = time.perf_counter(), time.process_time()
    async with storage.events.subscribe_all(checkpoints, live=False) as feed:
        async for _ in feed:
            raise AssertionError("a follower that applied every match is given nothing")
    return time.process_time() - cpu, time.perf_counter() - wall


async def rest_replays(
    store: RedisEventStore,
    archive: FolderArchive,
    live: Sequence[str],
    archived: Sequence[str],
    last: int,
) -> tuple[list[float], list[float]]:
    """Each match replayed over REST by a service that never read it, a live one and an
    archived one in turn (so both meet the same load): its events, then its state at
    every 16th seq and at its end; seconds per match, of the live ones and the archived."""
    storage = RedisStorage(store)
    signer = ephemeral_signer()
    service = GameService(
        store, Keyring(secrets.token_bytes(32)), signer, None, storage.snapshots()
    )
    # one caller, the benchmark itself: no read rate
    unbounded = RestSettings(reads=ReadRate(per_second=0))
    app = create_app(
        service,
        CatalogProjection(storage, ArchivedListings.beside(archive)),
        ResultsProjection(storage),
        signer.key_set(),
        unbounded,
    )
    times: tuple[list[float], list[float]] = ([], [])
    try:
        # in this loop, as the store's connections (Litestar's ASGI types are its own)
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            for pair in zip(live, archived, strict=True):
                for kept, match_id in zip(times, pair, strict=True):
                    began = time.perf_counter()
                    events = await client.get(f"/matches/{match_id}/events")
                    assert events.status_code == 200, events.text
                    for seq in [*range(0, last, 16), last]:
                        url = f"/matches/{match_id}/state"
                        state = await client.get(url, params={"seq": seq})
                        assert state.status_code == 200, state.text
                    kept.append(time.perf_counter() - began)
    finally:
        await service.snapshots.close()
        await service.fanout.close()
    return times


async def one_size(n: int, batch: int, events: Sequence[StoredEvent], samples: int) -> None:
    last_seq = len(events) - 1
    first = min(n, batch)
    with (
        tempfile.TemporaryDirectory() as folder,
        RedisServer(f"{folder}/redis", appendonly=False).start() as server,
    ):
        store = RedisEventStore.from_url(server.url, prefix="daifugo")
        storage = RedisStorage(store)
        archive = FolderArchive(f"{folder}/archive")
        store.use_archive(archive)
        try:
            empty = await store.used_memory()
            await warm_feed(store, stream_of(names_of(0, 1)[0]))
            began = time.perf_counter()
            await fill(store, events, names_of(0, first))
            filled_s = time.perf_counter() - began
            began = time.perf_counter()
            await follow_every_match(storage, archive)
            followed_s = time.perf_counter() - began
            filled = await store.used_memory()
            began = time.perf_counter()
            await scan_streams(store)
            scan_before = time.perf_counter() - began
            sweep_before = await sweep_cpu(storage)
            sampled = [f"bench{i:07d}" for i in range(0, first, max(1, first // samples))]
            live = [stream_of(name) for name in sampled]
            live_reads = [await timed_read(store, stream) for stream in live]
            # half the sample archived first, replayed over REST in turn with the other half
            early = Archiver(store, archive, RedisSnapshots(store), 0)
            for match_id in sampled[1::2]:
                await early.move(match_id)
            store.archived = None
            store.use_archive(archive)  # nothing unpacked yet: each read from the folder
            live_replays, archived_replays = await rest_replays(
                store, archive, sampled[0::2], sampled[1::2], last_seq
            )
            archive_s, moved = await pipelined(
                server.url, folder, store, (n, batch, early.moved.matches, empty), events
            )
            after = await store.used_memory()
            counted = await counted_everywhere(storage, int(events[0].data["players"]))
            catalog = await bytes_of(store, f"{store.keys.prefix}:{{cp:catalog}}:*")
            descriptors = await storage.projection("catalog").hash(
                storage.projection("catalog").key("segments")
            )
            feed = await bytes_of(store, store.keys.feed)
            began = time.perf_counter()
            await scan_streams(store)
            scan_after = time.perf_counter() - began
            sweep_after = await sweep_cpu(storage)
            store.archived = None
            store.use_archive(archive)  # nothing unpacked yet: each read from the folder
            archived_reads = [await timed_read(store, stream) for stream in live]
            objects, size = await archive.size()
            segments, segment_bytes = await archive.part(PART).size()
        finally:
            await store.close()
    mb = 1024 * 1024
    print(
        f"N = {n:,} matches of {len(events)} events, {batch:,} at a time (the first "
        f"filled in {filled_s:.1f} s, the catalog and results applied in {followed_s:.1f} s)"
    )
    print(
        f"  Redis used_memory: empty {empty / mb:.2f} MB, first batch filled "
        f"{filled / mb:.1f} MB ({(filled - empty) / first:,.0f} B/match); all archived "
        f"{after / mb:.2f} MB ({(after - empty) / mb:+.2f} MB over empty; "
        f"{(after - empty - feed) / mb:+.2f} MB but for the global feed's {feed / mb:.2f} MB), "
        f"of which the catalog {catalog / mb:.2f} MB ({len(descriptors)} descriptors of "
        "segments and volumes)"
    )
    print(f"  the ranking counts {counted[0]:,} matches, the list shows {counted[1]:,}")
    print(
        f"  takeover scan: {scan_before * 1000:.0f} ms filled, {scan_after * 1000:.1f} ms "
        "after archiving"
    )
    print(
        f"  a follower's sweep: {sweep_before[0] * 1000:.0f} ms CPU ({sweep_before[1] * 1000:.0f}"
        f" ms) filled, {sweep_after[0] * 1000:.1f} ms CPU ({sweep_after[1] * 1000:.1f} ms) "
        "after archiving"
    )
    print(
        f"  archiving: {moved:,} matches in {archive_s:.1f} s ({moved / archive_s:,.0f}/s, "
        f"{MOVES_AT_ONCE} at once, as the followers retire them, the next batch filling); "
        f"archive {objects:,} objects, {size / objects:,.0f} B/match; "
        f"{segments:,} listing segments and volumes, {segment_bytes / objects:,.0f} B/match"
    )
    p50_live = statistics.median(live_reads) * 1000
    p50_archived = statistics.median(archived_reads) * 1000
    print(
        f"  whole-match read p50: live {p50_live:.2f} ms, archived {p50_archived:.2f} ms "
        f"({p50_archived / p50_live:.2f}x), {len(live)} matches each"
    )
    replay_live = statistics.median(live_replays) * 1000
    replay_archived = statistics.median(archived_replays) * 1000
    steps = len(range(0, last_seq, 16)) + 2
    print(
        f"  REST replay p50 ({steps} requests): live {replay_live:.1f} ms, archived "
        f"{replay_archived:.1f} ms ({replay_archived / replay_live:.2f}x), "
        f"{len(live_replays)} matches each"
    )


async def timed_read(store: RedisEventStore, stream: str) -> float:
    began = time.perf_counter()
    events = await store.read(stream)
    assert events
    return time.perf_counter() - began


async def run(sizes: Sequence[int], batch: int, samples: int) -> None:
    print("archive bytes per match (one game), by preset and players:")
    header = f"{'preset':<11}{'players':>8}{'events':>8}{'packed B':>10}"
    print(f"  {header}   its columns before compression (B)")
    templates: dict[tuple[str, int], list[StoredEvent]] = {}
    for preset in PRESETS:
        for players in (3, 4, 5):
            events = await template(preset, players)
            templates[preset, players] = events
            parts = breakdown(events)
            raw = ", ".join(f"{k} {v:,}" for k, v in parts.items() if k not in ("events", "packed"))
            print(f"  {preset:<11}{players:>8}{parts['events']:>8}{parts['packed']:>10,}   {raw}")
    sample = templates["federation", 4]
    plain = len(zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(columns(sample)))
    print(
        f"  federation/4 without the trained dictionary: {plain:,} B, with it "
        f"{len(pack(sample)):,} B"
    )
    unpack(sample[0].stream, pack(sample))
    for n in sizes:
        await one_size(n, batch, templates["federation", 4], samples)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="daifugo bench scale")
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--batch", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    asyncio.run(run(sizes, args.batch, args.samples))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
