"""Where every open stream of the store stands: what the background workers (the sealer,
the turn timers, the bot seats) start from before they follow the global feed. A look at
each stream's last event tells a finished match without folding it.

The look is made a page of streams at a time, each page's last events in one round trip,
and once for the workers that start together: a store holds every match ever played, and
until the workers have started no turn timer runs."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from eventstore import EventStore

from .following import Resume
from .match import ENDING, match_id_of

SCAN_PAGE = 500  # streams whose last events are read in one round trip


@dataclass(frozen=True, slots=True)
class StoreScan:
    positions: dict[str, int]  # each open stream's last seq (-1: none)
    last_types: dict[str, str]  # each match's last event's type, by match id (none: not named)
    watermark: int  # the close log's top before the look: every stream closed by then

    def resume(self) -> Resume:
        """Where a worker starting from the scan follows from."""
        return Resume(self.positions, self.watermark)

    def live(self) -> list[str]:
        """The matches that are not over."""
        return [match_id for match_id, type_ in self.last_types.items() if type_ not in ENDING]


async def scan_streams(store: EventStore, page: int = SCAN_PAGE) -> StoreScan:
    """The open streams; a stream sealed meanwhile is either among them or closed past
    the watermark, which is read first (what a follower is given is in following.py)."""
    watermark = await store.close_count()
    positions: dict[str, int] = {}
    last_types: dict[str, str] = {}
    offset = 0
    while True:
        streams = await store.streams(offset, page)
        for stream, last in zip(streams, await store.last_events(streams), strict=True):
            positions[stream] = -1 if last is None else last.seq
            match_id = match_id_of(stream)
            if last is not None and match_id is not None:
                last_types[match_id] = last.type
        if len(streams) < page:
            return StoreScan(positions, last_types, watermark)
        offset += len(streams)


class SharedScan:
    """One scan for the workers that start together: a worker that asks while a scan is
    being made is given that one; one that asks later (a retried start) gets a new one."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._lock = asyncio.Lock()
        self._scan: StoreScan | None = None
        self._made_at = 0.0  # loop time the scan was finished

    async def scan(self) -> StoreScan:
        loop = asyncio.get_running_loop()
        asked_at = loop.time()
        async with self._lock:
            if self._scan is None or self._made_at < asked_at:
                self._scan = await scan_streams(self.store)
                self._made_at = loop.time()
            return self._scan
