"""Matches whose adapter table (UECda) died with its process end as abandoned.

A UECda table's clients cannot resume a game on another process: when the process that
plays a table stops (killed, cut off from Redis) the match is over for them. Each process
pushes its live tables' deadlines back every second (``TABLE_DEADLINES``, the adapter's
``UecdaServer``); the replica holding the background lease appends ``MatchAbandoned``
(reason ``table_failed``) to a match whose deadline lapsed, at wherever its stream
stopped, then forgets it. A table that stopped while its process lives (an append
failed) abandons its match itself; both doing it append it once
(``GameService.abandon``)."""

from __future__ import annotations

import asyncio
import logging

from eventstore.deadlines import Deadlines

from ..match import AbandonReason
from .service import GameService, ServiceError
from .ticking import tick_until_stopped

log = logging.getLogger("daifugo.tables")
TABLE_DEADLINES = "tables"  # the deadlines' name in the store
RENEW_MS = 1000  # a living process pushes its tables' deadlines back this often,
LAPSE_MS = 5000  # this far ahead: a process silent this long is taken for dead
ABANDONED_DETAIL = "the process playing its table stopped"


class LapsedTables:
    name = "lapsed tables"

    def __init__(self, service: GameService, deadlines: Deadlines, tick: float = 1.0) -> None:
        self.service = service
        self.deadlines = deadlines
        self.tick = tick
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        self._stopping.set()

    async def run(self) -> None:
        await tick_until_stopped(self._stopping, self.tick, self.abandon_lapsed)

    async def abandon_lapsed(self, now_ms: int) -> None:
        """Abandon every match whose table's deadline lapsed by ``now_ms``."""
        try:
            lapsed = await self.deadlines.lapsed(now_ms)
        except Exception as error:  # Redis away: the next tick looks again
            log.warning("cannot read the tables' deadlines: %s", error)
            return
        for match_id in lapsed:
            try:
                outcome = await self.service.abandon(
                    match_id, AbandonReason.TABLE_FAILED, ABANDONED_DETAIL
                )
            except ServiceError as error:
                if error.code != "not_found":
                    log.warning("abandoning %s failed (%s); trying again", match_id, error)
                    continue
                outcome = None  # no such match: nothing to abandon
            except Exception as error:  # Redis away: the next tick tries again
                log.warning("abandoning %s failed (%s); trying again", match_id, error)
                continue
            if outcome is not None:
                log.warning("match %s abandoned: %s", match_id, ABANDONED_DETAIL)
            try:
                await self.deadlines.forget(match_id)
            except Exception as error:
                log.warning("forgetting the table of %s failed (%s)", match_id, error)
