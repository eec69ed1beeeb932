"""Sealed matches leave the live store for the archive once they have been sealed for
``keep_live`` (eventstore/archive.py: written, read back and compared, then dropped with
their snapshots and their place in the close log). It runs on the replica holding the
background lease: at start it reads every sealed match still in the store from the
close log, then takes each seal from the feed. A move cut short (a crash, the store or
the archive away) is done again from the start the next time: every step of it can be
repeated.

A match moves only once every projection that follows the feed (the results, the
catalog, the ratings recorder: ``FOLLOWERS``) has its watermark over the close log at
the match's number or past it: a stream that left is never given to a follower again,
so one that had not applied it (down longer than ``keep_live``, or still catching up
after a restart) would miss it for good. Until then the match stays, due again a few
seconds later."""

from __future__ import annotations

import asyncio
import heapq
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from eventstore import (
    CLOSING_TYPE,
    Archive,
    EventStore,
    EventStoreError,
    ProjectionStore,
    Snapshots,
    Storage,
    StoredEvent,
)
from eventstore.archive import move_to_archive

from .catalog import NAME as CATALOG
from .following import CLOSED_PAGE, Resume
from .match import match_id_of, stream_of
from .projections import NAME as RESULTS
from .ratings import NAME as RATINGS
from .scanning import SharedScan
from .ticking import tick_until_stopped

log = logging.getLogger("daifugo.archiver")
KEEP_LIVE_MS = 24 * 3600 * 1000  # a day: the default --keep-live
RETRY_MS = 60_000
MOVES_AT_ONCE = 8  # archive_now's moves in flight
UNSETTLED_RETRY_MS = 5_000  # a passed event's checkpoint is committed within PASS_EVERY
# the projections whose checkpoints must be at a match's seal before it moves
FOLLOWERS = (RESULTS, CATALOG, RATINGS)


@dataclass
class Moved:
    matches: int = 0
    bytes: int = 0


class Archiver:
    name = "archiver"
    pace = 5.0  # a move is due a day after the seal: its feed may lag

    def __init__(
        self,
        store: EventStore,
        archive: Archive,
        snapshots: Snapshots,
        keep_live_ms: int = KEEP_LIVE_MS,
        tick: float = 1.0,
        scan: SharedScan | None = None,
        followers: Sequence[ProjectionStore] = (),
    ) -> None:
        """``followers``: the projections whose watermarks must pass a match before it
        moves (``followers_of``)."""
        self.store = store
        self.followers = list(followers)
        self.numbers: dict[str, int] = {}  # match id -> its number in the close log
        self._settled_through = 0  # the lowest watermark of the followers, last read
        self.archive = archive
        self.snapshots = snapshots
        self.keep_live_ms = keep_live_ms
        self.tick = tick
        self.scan = scan
        self.due: dict[str, int] = {}  # match id -> when it may leave, ms
        self._order: list[tuple[int, str]] = []  # (when, match id), a heap: a day of seals
        self.moved = Moved()
        self.unsettled = 0  # due matches archive_now left: a follower had not applied them
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        self._stopping.set()

    async def run(self) -> None:
        await tick_until_stopped(self._stopping, self.tick, self.move_due)

    async def start(self) -> Resume:
        """Every sealed match in the store (the close log) is due ``keep_live`` after
        its seal; a match sealed after the scan comes from the feed."""
        scan = await (self.scan or SharedScan(self.store)).scan()
        after = 0
        while closed := await self.store.closed_since(after, CLOSED_PAGE):
            after = closed[-1].number
            last = await self.store.last_events([item.stream for item in closed])
            for item, event in zip(closed, last, strict=True):
                match_id = match_id_of(item.stream)
                if match_id is not None and event is not None:
                    self.numbers[match_id] = item.number
                    self._plan(match_id, event.at + self.keep_live_ms)
        return scan.resume()

    def _plan(self, match_id: str, at: int) -> None:
        self.due[match_id] = at
        heapq.heappush(self._order, (at, match_id))

    def due_by(self, now_ms: int) -> list[str]:
        """The matches due by ``now_ms``, soonest first (each once)."""
        found: list[str] = []
        while self._order and self._order[0][0] <= now_ms:
            at, match_id = heapq.heappop(self._order)
            if self.due.get(match_id) == at and match_id not in found:
                found.append(match_id)
        return found

    async def take(self, event: StoredEvent) -> None:
        match_id = match_id_of(event.stream)
        if match_id is not None and event.type == CLOSING_TYPE:
            self._plan(match_id, event.at + self.keep_live_ms)

    async def settled(self, match_id: str) -> bool:
        """Whether every follower's watermark has passed the match (retired: applied
        through its seal). One the close log does not hold yet (a cluster's seal whose
        close a crash cut short, until a sweep makes it) is not; one the store no longer
        holds has nothing left to apply."""
        number = self.numbers.get(match_id)
        if number is None:
            stream = stream_of(match_id)
            [found] = await self.store.close_numbers([stream])
            if found is None:
                [held] = await self.store.holds([stream])
                return not held
            number = self.numbers[match_id] = found
        if number > self._settled_through and self.followers:
            marks = [await follower.watermark() for follower in self.followers]
            self._settled_through = min(marks)
        return not self.followers or number <= self._settled_through

    async def move_due(self, now_ms: int) -> None:
        self._settled_through = 0  # read again: a projection rebuilt starts from 0
        for index, match_id in enumerate(due := self.due_by(now_ms)):
            if self._stopping.is_set():  # the rest stay due
                for left in due[index:]:
                    self._plan(left, self.due[left])
                return
            try:
                if not await self.settled(match_id):
                    self._plan(match_id, now_ms + UNSETTLED_RETRY_MS)
                    continue
                await self.move(match_id)
            except (EventStoreError, OSError) as error:
                log.warning("archiving %s failed: %s; trying again", match_id, error)
                self._plan(match_id, now_ms + RETRY_MS)
                continue
            self.due.pop(match_id, None)
            self.numbers.pop(match_id, None)

    async def move(self, match_id: str) -> int:
        """Move one sealed match; the archived object's size (0: moved before)."""
        stream = stream_of(match_id)
        size = await move_to_archive(self.store, self.archive, stream)
        await self.snapshots.drop(stream)
        self.moved.matches += 1
        self.moved.bytes += size
        return size


def followers_of(storage: Storage) -> list[ProjectionStore]:
    """The projection stores of the projections that follow the feed (``FOLLOWERS``)."""
    return [storage.projection(name) for name in FOLLOWERS]


async def archive_now(
    store: EventStore,
    archive: Archive,
    snapshots: Snapshots,
    keep_live_ms: int,
    now_ms: int | None = None,
    moved: Callable[[int], None] | None = None,
    at_once: int = MOVES_AT_ONCE,
    followers: Sequence[ProjectionStore] = (),
) -> Archiver:
    """Move every match sealed ``keep_live_ms`` before ``now_ms`` (default: now) that
    ``followers`` have applied through its seal, once (``daifugo archive run``, the
    benchmarks), ``at_once`` at a time (their writes' waits on the archive overlap); the
    archiver says what it moved, and how many it left for the followers (``unsettled``).
    ``moved``: told each match's object size as it is moved (a progress bar)."""
    archiver = Archiver(store, archive, snapshots, keep_live_ms, followers=followers)
    await archiver.start()
    now = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    due = iter(archiver.due_by(now))

    async def mover() -> None:
        for match_id in due:  # one iterator shared: each match moved by one mover
            if not await archiver.settled(match_id):
                archiver.unsettled += 1  # stays due
                continue
            size = await archiver.move(match_id)
            archiver.due.pop(match_id)
            archiver.numbers.pop(match_id, None)
            if moved is not None:
                moved(size)

    try:
        async with asyncio.TaskGroup() as movers:
            for _ in range(at_once):
                movers.create_task(mover())
    except* Exception as failed:  # the first failure, as one mover would raise it
        raise failed.exceptions[0] from None
    return archiver
