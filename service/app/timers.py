"""Turn timers: when a seat's time runs out, the service acts for it.

The replica holding the background lease runs them (background.py). They
follow the global feed (following.py), so they know every timed match wherever its
last action landed, and act with the version they saw as the expected version: when two
replicas time out the same turn (a lease changing hands), one append lands and
the other finds the match moved on. A client that
disconnects never stalls a match, and a timeout that fails (Redis away) is tried
again until the match moves on. Their appends use request ids of the service's
own (``service:timeout:<version>``), which no caller's scoped digest can be.
"""

from __future__ import annotations

import asyncio
import logging

from eventstore import StoredEvent

from .following import Resume
from .match import ENDING, match_id_of, stream_of
from .scanning import SharedScan
from .service import GameService, ServiceError
from .ticking import tick_until_stopped

log = logging.getLogger("daifugo.timers")
RETRY_MS = 1000  # a timeout that failed is tried again this long after
_LAST = {"SeedRevealed", "MatchSealed"}  # a finished match's last events: forget it


class TurnTimers:
    name = "turn timers"

    def __init__(
        self, service: GameService, tick: float = 0.1, scan: SharedScan | None = None
    ) -> None:
        self.service = service
        self.scan = scan  # None: a look of its own
        # the feed is read at the tick's pace: a deadline counts from its event's time,
        # so learning of it a tick late moves nothing, and a busy match's events come in
        # one read per tick rather than two reads per action
        self.tick = self.pace = tick
        self.turn_ms: dict[str, int] = {}
        self.deadlines: dict[str, tuple[int, int]] = {}  # match id -> (deadline ms, version)
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        """Ask ``run`` to return at its next tick. (A flag, not only cancellation:
        a cancellation that lands inside a Redis client call may not come out.)"""
        self._stopping.set()

    async def run(self) -> None:
        await tick_until_stopped(self._stopping, self.tick, self._fire)

    async def start(self) -> Resume:
        """Start where every stream is now, with a deadline for each timed live match.
        Only matches that are neither over nor untimed are folded: a store holds many
        finished ones, and a look at their first and last events tells."""
        store = self.service.store
        scan = await (self.scan or SharedScan(self.service.store)).scan()
        for match_id in scan.live():
            created = await store.read(stream_of(match_id), 0, 1)
            if created and int(created[0].data.get("turn_ms", 0)):
                await self._track(match_id)
            else:
                self.turn_ms[match_id] = 0
        return scan.resume()

    async def _track(self, match_id: str) -> None:
        match = await self.service.load(match_id)
        self.turn_ms[match_id] = match.turn_ms
        if match.turn_ms and match.started and not match.over:
            self.deadlines[match_id] = (match.last_event_ms + match.turn_ms, match.version)

    async def take(self, event: StoredEvent) -> None:
        match_id = match_id_of(event.stream)
        if match_id is None:
            return
        if event.type in _LAST:
            self.turn_ms.pop(match_id, None)
            self.deadlines.pop(match_id, None)
            return
        if event.type == "MatchCreated":
            self.turn_ms[match_id] = int(event.data.get("turn_ms", 0))
        elif match_id not in self.turn_ms:
            await self._track(match_id)
        turn_ms = self.turn_ms.get(match_id, 0)
        if event.type in ENDING:
            self.deadlines.pop(match_id, None)
        elif turn_ms:
            self.deadlines[match_id] = (event.at + turn_ms, event.seq)

    async def _fire(self, now_ms: int) -> None:
        due = [(m, v) for m, (deadline, v) in self.deadlines.items() if deadline <= now_ms]
        for match_id, version in due:
            if self.deadlines.get(match_id, (0, -1))[1] == version:
                del self.deadlines[match_id]
            try:
                await self.service.time_out(match_id, version)
            except ServiceError as error:
                if error.code == "not_found":  # the stream is gone: nothing to time
                    log.warning("timing out %s: no such match any more", stream_of(match_id))
                    continue
                self._retry(match_id, version, now_ms, error)
            except Exception as error:  # Redis away, a bug: never give a turn up for good
                self._retry(match_id, version, now_ms, error)

    def _retry(self, match_id: str, version: int, now_ms: int, error: Exception) -> None:
        """Try the timeout again soon, unless an event since has set a deadline."""
        log.warning(
            "timing out %s at %d failed (%s); trying again in %g s",
            stream_of(match_id),
            version,
            error,
            RETRY_MS / 1000,
        )
        self.deadlines.setdefault(match_id, (now_ms + RETRY_MS, version))
