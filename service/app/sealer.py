"""Every ended match gets its seal. The process that wrote a match's end seals it at
once; should it die in between, the replica holding the background lease finds the
match ended and unsealed (its last event SeedRevealed) and seals it: at start, by
looking at every stream's last event, and then from the feed, after a grace period
that leaves the writer time to do it first."""

from __future__ import annotations

import asyncio
import logging

from eventstore import EventStoreError, StoredEvent

from .following import Resume
from .match import match_id_of
from .scanning import SharedScan
from .service import GameService, ServiceError
from .ticking import tick_until_stopped

log = logging.getLogger("daifugo.sealer")
UNSEALED_LAST = "SeedRevealed"  # the last event of an ended match that has no seal yet
GRACE_MS = 1000


class Sealer:
    name = "sealer"
    pace = 0.25  # a seal is due a second after the end anyway

    def __init__(
        self,
        service: GameService,
        tick: float = 0.2,
        grace_ms: int = GRACE_MS,
        scan: SharedScan | None = None,
    ) -> None:
        self.service = service
        self.scan = scan  # None: a look of its own
        self.tick = tick
        self.grace_ms = grace_ms
        self.due: dict[str, int] = {}  # match id -> when to seal it, ms
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        self._stopping.set()

    async def run(self) -> None:
        await tick_until_stopped(self._stopping, self.tick, self._seal_due)

    async def start(self) -> Resume:
        """Every stream's position now; ended unsealed matches are due at once."""
        scan = await (self.scan or SharedScan(self.service.store)).scan()
        for match_id, type_ in scan.last_types.items():
            if type_ == UNSEALED_LAST:
                self.due[match_id] = 0
        return scan.resume()

    async def take(self, event: StoredEvent) -> None:
        match_id = match_id_of(event.stream)
        if match_id is not None and event.type == UNSEALED_LAST:
            self.due[match_id] = event.at + self.grace_ms

    async def _seal_due(self, now_ms: int) -> None:
        for match_id in [match for match, at in self.due.items() if at <= now_ms]:
            try:
                if await self.service.seal(match_id):
                    log.info("sealed match %s, which its writer left unsealed", match_id)
            except (ServiceError, EventStoreError) as error:
                log.warning("sealing %s failed: %s; trying again", match_id, error)
                self.due[match_id] = now_ms + self.grace_ms
                continue
            self.due.pop(match_id, None)
