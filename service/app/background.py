"""The work one replica does for all of them: the projections (results, the match
catalog), the seals a dead writer left undone, the turn timers, the abandonment of
idle matches and of matches whose UECda table died, and the service's bot seats, run
while this replica holds the lease, stopped when it loses it. They follow the global
feed through one shared reader (following.py). Any replica reads what the projections
wrote; only the holder writes."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from eventstore import Archive, Storage
from eventstore.deadlines import Deadlines

from .archiver import KEEP_LIVE_MS, Archiver, followers_of
from .bot_seats import BotFactory, BotSeats
from .catalog import CatalogProjection
from .following import Follower, SharedFeed
from .idle import IdleMatches
from .lapsed_tables import LapsedTables
from .listings import ArchivedListings
from .projections import ResultsProjection
from .quotas import QuotaRelease
from .ratings import RatingsRecorder
from .scanning import SharedScan
from .sealer import Sealer
from .service import GameService
from .timers import TurnTimers

log = logging.getLogger("daifugo.background")
RENEW_EVERY = 1.0  # seconds; the lease lives 5: a dead holder is replaced within about 6


class Worker(Protocol):
    async def run(self) -> None: ...

    def stop(self) -> None: ...


class Background:
    def __init__(
        self,
        service: GameService,
        storage: Storage,
        timers: bool = True,
        make_bot: BotFactory | None = None,
        idle_ms: int = 0,
        bot_min_pause: float = 0.0,
        table_deadlines: Deadlines | None = None,
        archive: Archive | None = None,
        keep_live_ms: int = KEEP_LIVE_MS,
    ) -> None:
        """``storage``: where the lease and the projections' state live (beside the
        events ``service`` appends); ``idle_ms``: abandon a match nobody acted in for this
        long (0: never); ``bot_min_pause``: the least a bot seat waits before each action
        (bot_seats.py); ``table_deadlines``: abandon a match whose adapter table's
        deadline there lapsed (lapsed_tables.py; None: never); ``archive``: where sealed
        matches go ``keep_live_ms`` after their seal (archiver.py; None: they stay)."""
        self.archive = archive
        self.keep_live_ms = keep_live_ms
        self.table_deadlines = table_deadlines
        self.service = service
        self.storage = storage
        self.timers = timers
        self.idle_ms = idle_ms
        self.bot_min_pause = bot_min_pause
        self.make_bot = make_bot  # None: this replica plays no bot seats
        # one replica at a time does this work (eventstore/lease.py)
        self.lease = storage.lease("background")
        self._stopping = asyncio.Event()
        self._running: list[tuple[Worker, asyncio.Task[None]]] = []

    @property
    def leading(self) -> bool:
        return bool(self._running)

    def stop(self) -> None:
        """Ask ``run`` to stop the work and give the lease up. (A flag, not only
        cancellation: a cancellation that lands inside a Redis call may not come out.)"""
        self._stopping.set()

    async def run(self) -> None:
        try:
            while not self._stopping.is_set():
                try:
                    holding = await self.lease.claim()
                except Exception as error:  # the store away (any of its errors): keep as it is
                    log.warning("cannot renew the background lease: %s", error)
                    holding = self.leading
                if holding and not self.leading:
                    self._start()
                elif not holding and self.leading:
                    log.info("another replica holds the background lease: stopping here")
                    await self._stop_work()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), RENEW_EVERY)
        finally:
            await self._stop_work()
            with contextlib.suppress(Exception):  # it lapses by itself anyway
                await self.lease.release()

    def _start(self) -> None:
        scan = SharedScan(self.service.store)  # the store looked at once for the three
        sealer = Sealer(self.service, scan=scan)
        followers: list[Follower] = [
            ResultsProjection(self.storage),
            CatalogProjection(
                self.storage, ArchivedListings.beside(self.archive) if self.archive else None
            ),
            RatingsRecorder(self.storage),
            sealer,
        ]
        workers: list[Worker] = [sealer]
        if self.service.quotas is not None:
            followers.append(QuotaRelease(self.service.quotas, scan))
        if self.timers:
            timers = TurnTimers(self.service, scan=scan)
            followers.append(timers)
            workers.append(timers)
        if self.idle_ms:
            idle = IdleMatches(self.service, self.idle_ms, scan=scan)
            followers.append(idle)
            workers.append(idle)
        if self.make_bot is not None:
            bots = BotSeats(self.service, self.make_bot, scan=scan, min_pause=self.bot_min_pause)
            followers.append(bots)
            workers.append(bots)
        if self.table_deadlines is not None:
            workers.append(LapsedTables(self.service, self.table_deadlines))
        if self.archive is not None:
            snapshots = self.storage.snapshots()
            archiver = Archiver(
                self.service.store,
                self.archive,
                snapshots,
                self.keep_live_ms,
                scan=scan,
                followers=followers_of(self.storage),
            )
            followers.append(archiver)
            workers.append(archiver)
        workers.append(SharedFeed(self.storage.events, followers))
        self._running = [(worker, asyncio.create_task(worker.run())) for worker in workers]

    async def _stop_work(self) -> None:
        running, self._running = self._running, []
        for worker, _ in running:
            worker.stop()
        await stop_tasks([task for _, task in running], timeout=5.0)


async def stop_tasks(tasks: list[asyncio.Task[None]], timeout: float) -> None:
    """Wait for ``tasks`` (asked to stop) to end, cancelling them again and again while
    one runs on: a cancellation that lands inside a Redis client call may not come out."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    pending = {task for task in tasks if not task.done()}
    if pending:
        _, pending = await asyncio.wait(pending, timeout=min(0.2, timeout))  # by themselves
    while pending and loop.time() < deadline:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=0.2)
    if pending:
        log.warning("%d background tasks did not stop", len(pending))
