"""Idle matches end as abandoned: a match in which nobody has acted for the idle limit
(nobody joined its open seats, nobody started it, the seat to act left) gets
``MatchAbandoned`` (reason ``idle``), its seed revealed and its seal, so that it leaves
the live list, its bots and timers stop, and what it holds is sealed like any match.

The replica holding the background lease runs it (background.py), following the global
feed as the turn timers do. Every event counts as someone acting, the service's bots'
too (a table of bots plays on, bounded by the bot quotas), but for the turn timer's: a
timed table whose players all left would otherwise pass for them until its games end.
The abandonment is appended at the version the worker saw idle, so an action that
lands first wins, and two replicas abandoning one match append it once
(``GameService.abandon``). After a restart a match's idle time counts from its last
event, whoever wrote it."""

from __future__ import annotations

import asyncio
import logging

from eventstore import StoredEvent

from ..match import AbandonReason
from .following import Resume
from .match import ENDING, match_id_of, stream_of
from .scanning import SCAN_PAGE, SharedScan
from .service import TIMEOUT_REQUEST, GameService, ServiceError
from .ticking import tick_until_stopped

log = logging.getLogger("daifugo.idle")
RETRY_MS = 5000  # an abandonment that failed (Redis away) is tried again this long after


class IdleMatches:
    name = "idle matches"

    def __init__(
        self,
        service: GameService,
        idle_ms: int,
        tick: float = 1.0,
        scan: SharedScan | None = None,
    ) -> None:
        self.service = service
        self.idle_ms = idle_ms
        self.scan = scan  # None: a look of its own
        self.tick = self.pace = tick  # idle limits are minutes: a second late is on time
        # match id -> (when someone last acted, ms; the version then)
        self.last_acted: dict[str, tuple[int, int]] = {}
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        self._stopping.set()

    async def run(self) -> None:
        await tick_until_stopped(self._stopping, self.tick, self.abandon_idle)

    async def start(self) -> Resume:
        """Where every stream is now; each live match idle since its last event."""
        store = self.service.store
        scan = await (self.scan or SharedScan(store)).scan()
        live = scan.live()
        for first in range(0, len(live), SCAN_PAGE):
            page = live[first : first + SCAN_PAGE]
            for match_id, last in zip(
                page, await store.last_events([stream_of(m) for m in page]), strict=True
            ):
                if last is not None:
                    self.last_acted[match_id] = (last.at, last.seq)
        return scan.resume()

    async def take(self, event: StoredEvent) -> None:
        match_id = match_id_of(event.stream)
        if match_id is None:
            return
        if event.type in ENDING:
            self.last_acted.pop(match_id, None)
        elif event.request_id.startswith(TIMEOUT_REQUEST):
            # the timer acting is nobody acting: the idle time runs on from before it
            since = self.last_acted.get(match_id, (event.at, event.seq))[0]
            self.last_acted[match_id] = (since, event.seq)
        else:
            self.last_acted[match_id] = (event.at, event.seq)

    async def abandon_idle(self, now_ms: int) -> None:
        """Abandon every match nobody has acted in for the idle limit by ``now_ms``."""
        due = [
            (match_id, version)
            for match_id, (acted, version) in self.last_acted.items()
            if acted + self.idle_ms <= now_ms
        ]
        for match_id, version in due:
            detail = f"nobody acted for {self.idle_ms / 1000:g} s"
            try:
                outcome = await self.service.abandon(match_id, AbandonReason.IDLE, detail, version)
            except ServiceError as error:
                if error.code != "not_found":
                    raise
                log.warning("abandoning %s: no such match any more", stream_of(match_id))
                self.last_acted.pop(match_id, None)
                continue
            except Exception as error:  # Redis away, a bug: try again, never give up on it
                log.warning("abandoning idle match %s failed (%s); trying again", match_id, error)
                self.last_acted[match_id] = (now_ms - self.idle_ms + RETRY_MS, version)
                continue
            if outcome is not None:
                log.info("abandoned match %s: %s", match_id, detail)
            # abandoned, or it moved on (its newer events set its time) or had ended
            if self.last_acted.get(match_id, (0, -1))[1] == version:
                del self.last_acted[match_id]
