"""Following the global feed for the background workers: one reader per process.

Every worker of the lease holder (the projections, the sealer, the turn timers, the bot
seats) wants every event of every stream once, in seq order per stream. ``SharedFeed``
reads and decodes each event once and hands it to each of them, where a reader each
would read, decode and step through every event five times.

What a follower is given: every event past the positions its ``start`` gave, each stream
in seq order, each event once while it takes it. A follower whose ``take`` fails is held
on that stream alone (the others, and its other streams, go on) and given the same event
again a second later, then the ones it missed meanwhile, read from the stream. Nor does
one whose ``start`` is slow or fails hold up the others: the shared read begins once one
has started, and a follower that starts later (again a second after each failure) is
given what the others were given past its start as a held one is, then what comes;
but for the streams it is done with that the others' start named (retired by it, and
archived meanwhile: the shared read never reads the archive, which holds only what
every follower retired).

What a follower keeps costs only the open streams. A sealed stream goes from the store's
index to its close log, numbered in close order; a follower starts from its positions and
its watermark over that log (``Resume``): every stream closed up to that number was taken
through its seal and is neither named nor given again. A projection retires a closed
stream it applied through its seal, its position dropped and its watermark moved in one
write (``RetiresStreams``, every ``PASS_EVERY`` seconds), so a restart never applies it
twice. The archiver moves a match only once every projection's watermark passed it. What
the process itself remembers of streams that left for the archive is forgotten every
``FORGET_EVERY`` seconds.

A projection's state lives in its projection store beside the events (a
``ProjectionStore``, in Redis or in memory), which applies each event's writes with its
checkpoint at once. A projection says only which writes an event makes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from eventstore import (
    PASS_EVERY,
    CheckpointGap,
    Closed,
    EventStore,
    EventStoreError,
    FeedSubscription,
    InMemoryCheckpoints,
    Op,
    ProjectionStore,
    Storage,
    StoredEvent,
    done_with,
)

log = logging.getLogger("daifugo.following")
RETRY_PAUSE = 1.0  # seconds before a failed follower is given its event again
CATCH_UP_PAGE = 500  # events a held follower is given from one read of its stream
FORGET_EVERY = 300.0  # seconds between two forgettings of the streams that left the store
CLOSED_PAGE = 500  # close-log entries read (and retired) at once


@dataclass(frozen=True, slots=True)
class Resume:
    """Where a follower starts: each stream's last seq taken, and its watermark over the
    close log (every stream closed up to that number taken through its seal). A stream
    it neither names nor has within the watermark is followed from its first event."""

    positions: Mapping[str, int]
    watermark: int = 0


class Follower(Protocol):
    """A background worker's part that follows the global feed."""

    name: str
    pace: float  # seconds its view of the feed may lag: the feed is read that often

    async def start(self) -> Resume:
        """Get ready, and say where to start."""
        ...

    async def take(self, event: StoredEvent) -> None:
        """One event. Raising: the same event again later."""
        ...


@runtime_checkable
class PassesEvents(Protocol):
    """A follower whose checkpoints pass the events it needed no write for only with its
    next write: committed on a timer too, so a checkpoint reaches a finished match's seal
    though nothing follows it (the archiver waits for that)."""

    async def commit_passed(self) -> None: ...


@runtime_checkable
class RetiresStreams(Protocol):
    """A follower with a watermark over the close log: it retires the closed streams it
    took through their seals (``ProjectionStore.retire``)."""

    async def retire(self) -> int: ...


@runtime_checkable
class ForgetsStreams(Protocol):
    """A follower that keeps something per stream, given up when a stream leaves."""

    async def forget(self, streams: Sequence[str]) -> None: ...


class SharedFeed:
    """One reader of the global feed for a process's followers (see the module)."""

    def __init__(self, store: EventStore, followers: Sequence[Follower]) -> None:
        self.store = store
        self.followers = list(followers)
        self.pace = min(follower.pace for follower in self.followers)
        # per follower: each stream's last seq taken (given nothing while it is starting)
        self.taken: list[dict[str, int]] = [{} for _ in self.followers]
        self.starting = set(range(len(self.followers)))  # followers not started yet
        self.held: set[tuple[int, str]] = set()  # (follower, stream) whose take failed
        self.watermarks = [0 for _ in self.followers]
        self.read: dict[str, int] = {}  # each stream's last seq the shared read gave
        self._stopping = asyncio.Event()
        self._ready = asyncio.Event()  # a follower has started (or stop): the read may begin
        self._feed: FeedSubscription | None = None
        self._closing: asyncio.Task[None] | None = None

    def stop(self) -> None:
        """Ask ``run`` to return, ending a read that waits. (A flag, not only
        cancellation: a cancellation that lands inside a Redis client call may not
        come out.)"""
        self._stopping.set()
        self._ready.set()
        if self._feed is not None:
            self._closing = asyncio.get_running_loop().create_task(self._feed.aclose())

    async def run(self) -> None:
        """Start every follower, then follow until ``stop``. Each starts on its own, and
        the shared read begins once one has: one that is slow to start, or cannot (a
        projection whose catch-up fails), holds up none of the others (the turn timers)."""
        tasks = [asyncio.create_task(self._start(index)) for index in range(len(self.followers))]
        tasks.append(asyncio.create_task(self._retry_held()))
        # only memory not given back, or a checkpoint behind, while these fail: next time
        tasks.append(asyncio.create_task(self._every(FORGET_EVERY, self.forget_gone)))
        tasks.append(asyncio.create_task(self._every(PASS_EVERY, self.settle)))
        try:
            await self._ready.wait()
            while not self._stopping.is_set():
                try:
                    await self._follow()
                    await self._pause()  # the feed ended (the store closed it): not at once
                except Exception as error:  # Redis away, a bug: the feed never given up
                    if self._stopping.is_set():  # a read that stop() cut short
                        return
                    if isinstance(error, EventStoreError):
                        log.warning("the shared feed was lost (%s); resuming", error)
                    else:  # the lease holder would follow nothing while it held on
                        log.exception("the shared feed failed; resuming")
                    await self._pause()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks, timeout=2.0)

    async def _start(self, index: int) -> None:
        """Start a follower, from where it says, and let the shared read give to it."""
        follower = self.followers[index]
        while not self._stopping.is_set():
            try:
                resume = await follower.start()
                taken = dict(resume.positions)
                # what it retired it has taken through the seal: the read starts from the
                # lowest watermark, so it may find them
                for item in await closed_through(self.store, resume.watermark):
                    taken.setdefault(item.stream, item.last_seq)
            except Exception:  # Redis away, a bug: a follower never given up for good
                log.exception("%s could not start; trying again", follower.name)
                await self._pause()
                continue
            # the streams the shared read holds that this one is done with though it
            # has no position for them: retired, and maybe archived since its watermark
            # was read (the others' start may still name them)
            unknown = [s for s in self.read if s not in taken]
            done = await done_with(self.store, unknown, resume.watermark)
            self.watermarks[index] = resume.watermark
            # what the shared read gave the others past its start meanwhile, it is given
            # from the streams as a held follower is; nothing awaited from here: the next
            # event the shared read gives, it is given too
            self.held.update(
                (index, s)
                for s, seq in self.read.items()
                if taken.get(s, -1) < seq and s not in done
            )
            self.taken[index] = taken
            self.starting.discard(index)
            self._ready.set()
            return

    async def _pause(self) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), RETRY_PAUSE)

    async def _follow(self) -> None:
        # from where the follower furthest behind is, stream by stream: the others
        # pass over what they have taken already
        started = [taken for index, taken in enumerate(self.taken) if index not in self.starting]
        start: dict[str, int] = {}
        for taken in started:
            for stream, seq in taken.items():
                start[stream] = min(seq, start.get(stream, seq))
        for taken in started:
            for stream in start.keys() - taken.keys():
                start[stream] = -1
        self.read = dict(start)
        lowest = min(
            self.watermarks[i] for i in range(len(self.followers)) if i not in self.starting
        )
        self._feed = self.store.subscribe_all(InMemoryCheckpoints(start, lowest), pace=self.pace)
        async with self._feed as feed:
            async for event in feed:
                if self._stopping.is_set():
                    return
                self.read[event.stream] = event.seq
                for index in range(len(self.followers)):
                    await self._give(index, event)

    async def _give(self, index: int, event: StoredEvent) -> None:
        stream, taken = event.stream, self.taken[index]
        last = taken.get(stream, -1)
        if event.seq <= last or (index, stream) in self.held or index in self.starting:
            return
        if event.seq == last + 1:
            try:
                await self.followers[index].take(event)
            except Exception as error:
                self._hold(index, event, error)
                return
            taken[stream] = event.seq
        else:  # cannot happen while the shared read starts where the follower is
            self._hold(index, event, EventStoreError(f"seqs {last + 1}..{event.seq - 1} missed"))

    def _hold(self, index: int, event: StoredEvent, error: Exception) -> None:
        name = self.followers[index].name
        if isinstance(error, EventStoreError):
            log.warning("%s: %s at %d: %s; trying again", name, event.stream, event.seq, error)
        else:  # a follower that fails silently is worse than one that retries
            log.error("%s failed at %s %d", name, event.stream, event.seq, exc_info=error)
        self.held.add((index, event.stream))

    async def _retry_held(self) -> None:
        """Give each held follower what the shared read has given the others on that
        stream, read from the stream, a pause after it failed."""
        while not self._stopping.is_set():
            await self._pause()
            for index, stream in sorted(self.held):
                try:
                    await self._catch_up(index, stream)
                except Exception as error:
                    name = self.followers[index].name
                    log.warning("%s: %s still fails (%s); trying again", name, stream, error)

    async def _catch_up(self, index: int, stream: str) -> None:
        taken = self.taken[index]
        while (last := taken.get(stream, -1)) < self.read.get(stream, -1):
            count = min(self.read[stream] - last, CATCH_UP_PAGE)
            page = await self.store.read(stream, last + 1, count)
            if not page:
                raise EventStoreError(f"{stream} has no events past {last}")
            for event in page:
                await self.followers[index].take(event)
                taken[stream] = event.seq
        # nothing awaited since the loop's check: the shared read gives it the next one
        self.held.discard((index, stream))

    async def _every(self, seconds: float, work: Callable[[], Awaitable[object]]) -> None:
        while not self._stopping.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), seconds)
            if self._stopping.is_set():
                return
            try:
                await work()
            except Exception as error:
                log.warning("%s failed: %s; trying again later", work.__name__, error)

    async def settle(self) -> None:
        """Commit what each started follower passed without a write (``PassesEvents``),
        then retire the closed streams it took through their seals (``RetiresStreams``)."""
        for index, follower in enumerate(self.followers):
            if index in self.starting:
                continue
            if isinstance(follower, PassesEvents):
                await follower.commit_passed()
            if isinstance(follower, RetiresStreams):
                await follower.retire()

    # -- the streams that left the store ------------------------------------------

    async def forget_gone(self) -> list[str]:
        """Forget the streams that left the store (archived): what this process keeps of
        them (the projections retired them before they could leave)."""
        known = sorted(set(self.read).union(*self.taken))
        gone = await gone_from(self.store, known)
        if not gone:
            return gone
        for index, taken in enumerate(self.taken):
            for stream in gone:
                taken.pop(stream, None)
                self.held.discard((index, stream))
        for stream in gone:
            self.read.pop(stream, None)
            if self._feed is not None:
                self._feed.positions.pop(stream, None)
        return gone


async def closed_through(store: EventStore, watermark: int) -> list[Closed]:
    """The close log up to ``watermark``: what a follower with that watermark is done with."""
    found: list[Closed] = []
    while (page := await store.closed_since(found[-1].number if found else 0, CLOSED_PAGE)) and (
        page[0].number <= watermark
    ):
        found += [item for item in page if item.number <= watermark]
    return found


async def retire_closed(
    store: EventStore,
    state: ProjectionStore,
    ops_of: Callable[[Closed], Sequence[Op]] | None = None,
) -> int:
    """Retire the closed streams ``state`` applied through their seals, in close order,
    a page at a time, with ``ops_of`` each; how many went."""
    retired = 0
    while closed := await store.closed_since(await state.watermark(), CLOSED_PAGE):
        done = await state.retire(closed, ops_of)
        retired += done
        if done < len(closed):
            return retired
    return retired


async def gone_from(store: EventStore, streams: Sequence[str]) -> list[str]:
    """Those of ``streams`` the store no longer holds (archived: each had an event, so
    was indexed before it)."""
    held = await store.holds(streams)
    return [stream for stream, here in zip(streams, held, strict=True) if not here]


async def resume_of(
    store: EventStore,
    follower: ForgetsStreams,
    state: ProjectionStore,
    ops_of: Callable[[Closed], Sequence[Op]] | None = None,
) -> Resume:
    """Where a follower with checkpoints in ``state`` starts: the closed streams it took
    through their seals retired first, then its positions but for streams that left the
    store unretired (a store kept before watermarks), which it forgets."""
    await retire_closed(store, state, ops_of)
    positions = await state.positions()
    gone = await gone_from(store, sorted(positions))
    await follower.forget(gone)
    left = set(gone)
    kept = {stream: seq for stream, seq in positions.items() if stream not in left}
    return Resume(kept, await state.watermark())


class FeedProjection:
    """A follower that keeps its state with its checkpoints in its projection store."""

    name = ""  # its projection store's name
    pace = 0.25  # a match's appends meanwhile are read at once

    def __init__(self, storage: Storage) -> None:
        self.store = storage.events
        self.state = storage.projection(self.name)

    def _key(self, suffix: str) -> str:
        return self.state.key(suffix)

    async def _ops(self, event: StoredEvent) -> list[Op]:
        """The writes ``event`` makes (none for most)."""
        raise NotImplementedError

    def kept_for(self, stream: str) -> list[str]:
        """The keys of its own it keeps for ``stream`` alone, none of them read once the
        stream is sealed (what it made of the stream for all, it keeps)."""
        return []

    def retiring(self, closed: Closed) -> list[Op]:
        """Its writes when it retires a closed stream: the keys kept for it alone go."""
        return [("DEL", key) for key in self.kept_for(closed.stream)]

    async def forget(self, streams: Sequence[str]) -> None:
        """Forget streams that left the store: their positions and what it kept for them."""
        keys = [key for stream in streams for key in self.kept_for(stream)]
        await self.state.forget(streams, keys)

    async def start(self) -> Resume:
        """Catch up on its own (after a restart the store may hold much it has not
        applied: the others need not wait on that), and start where that ended."""
        return await self.catch_up()

    async def catch_up(self) -> Resume:
        """Apply everything stored now, then return where it is."""
        async with self.store.subscribe_all(self.state, live=False) as feed:
            async for event in feed:
                await self.apply(event)
        await self.state.commit_passed()
        return await resume_of(self.store, self, self.state, self.retiring)

    async def commit_passed(self) -> None:
        await self.state.commit_passed()

    async def retire(self) -> int:
        return await retire_closed(self.store, self.state, self.retiring)

    async def take(self, event: StoredEvent) -> None:
        try:
            await self.apply(event)
        except CheckpointGap as gap:
            # its checkpoint is behind what it was given (it was reset meanwhile):
            # apply again from the checkpoint on, each event at most once as ever
            log.warning("%s projection: %s; applying again from its checkpoint", self.name, gap)
            last = await self.state.position(event.stream)
            for missed in await self.store.read(event.stream, last + 1, event.seq - last):
                await self.apply(missed)

    async def apply(self, event: StoredEvent) -> bool:
        return await self.state.apply_or_defer(event, await self._ops(event))
