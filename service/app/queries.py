"""What spectators and replayers read of a match, and when: the queries REST answers
(the match now, its events page by page, the match at any seq, its record, a finished
match's log), so no adapter reads the store or folds events itself.

While a match is live a spectator sees no hand, blind or unused card (the
rules' views and event filter see to that) and, when the match has a
spectator delay, only the events stored at least that long ago (by their
stored ``at``): the match as it was then. Setting-up events (who sits where)
are never delayed. Once the match is over everything is shown, at once.

A replay of a finished match shows the full deal at every step: the auditor's
view of the state at seq N, every hand, blind and unused card open.

Every state here comes from the match's snapshots (``snapshots``): a read folds at
most ``snapshots.EVERY`` events, however long the match, and a delayed match is read
from the last snapshot its spectators may see, so the work does not tell how much is
held back.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from eventstore import StoredEvent

from ..rules.state import MatchState as RulesState
from ..rules.views import AUDITOR, SPECTATOR, View, build_view
from .catalog import MatchState
from .errors import MatchRefusalCode, ServiceCode, ServiceError
from .match import Match, stream_of
from .service import GameService
from .snapshots import NEVER_DELAYED as NEVER_DELAYED  # re-exported: the live stream's too

# ids the service hands out (keyring: 16 hex digits); anything else cannot exist
_MATCH_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")


@dataclass(frozen=True, slots=True)
class Spectated:
    """A match as it is now, the last seq a spectator may see of it now, the state it is
    in as far as they see (an event held back may have started it), and the match as
    they see it (after event ``visible``)."""

    match: Match
    visible: int
    state: MatchState
    shown: Match

    @property
    def current(self) -> bool:
        """Whether the spectator sees the match as it is now (no event held back)."""
        return self.visible == self.match.version


@dataclass(frozen=True, slots=True)
class EventsSeen:
    """A page of a match's events as a spectator may see them, and the seq of the next
    page (None: nothing more is visible now)."""

    seen: Spectated
    events: list[dict[str, Any]]
    next_seq: int | None


@dataclass(frozen=True, slots=True)
class StateSeen:
    """The match after event ``seq`` and its spectator's view (every card open once
    the match is over)."""

    seen: Spectated
    match: Match
    view: View


@dataclass(frozen=True, slots=True)
class RecordSeen:
    """What a spectator may see of a match's record now: the match (as of the last
    visible seq), its stored events, and those events as the spectator sees them."""

    seen: Spectated
    match: Match
    stored: list[StoredEvent]
    events: list[dict[str, Any]]


def now_ms() -> int:
    """The server's clock (ms since the epoch), the one stored ``at`` is on."""
    return time.time_ns() // 1_000_000


def state_of(match: Match) -> MatchState:
    if match.abandoned:
        return "abandoned"
    if match.over:
        return "finished"
    return "live" if match.started else "open"


def checked_id(match_id: str) -> str:
    if not _MATCH_ID.fullmatch(match_id):
        raise ServiceError(MatchRefusalCode.NOT_FOUND, f"no match {match_id!r}")
    return match_id


def spectator_view(state: RulesState) -> View:
    """A spectator's view: no hands until the match is over, then all of them."""
    return build_view(state, SPECTATOR)


class MatchQueries:
    """Spectators' and replayers' reads over the game service's store and folds. Every
    answer is what a spectator may see now; ServiceError(not_found) for an unknown id."""

    def __init__(self, service: GameService) -> None:
        self.service = service

    async def spectate(self, match_id: str) -> Spectated:
        """The match now, and how far a spectator may see it."""
        match = await self.service.load(checked_id(match_id))
        if not match.spectator_delay_ms or match.over:
            return Spectated(match, match.version, state_of(match), match)
        # from the last snapshot they may see, even when nothing is held back: the same
        # work whatever is held back
        cutoff = now_ms() - match.spectator_delay_ms
        shown = (await self.service.snapshots.visible_by(match_id, cutoff)).match
        if shown.version >= match.version:  # (events stored since the load are not shown)
            return Spectated(match, match.version, state_of(match), match)
        # held back, so not over (the end shows everything): started if that is shown
        return Spectated(match, shown.version, "live" if shown.started else "open", shown)

    async def now(self, match_id: str) -> tuple[Spectated, Match]:
        """The match as a spectator may see it now."""
        seen = await self.spectate(match_id)
        return seen, seen.shown

    async def events(self, match_id: str, from_seq: int, limit: int) -> EventsSeen:
        """Up to ``limit`` events from ``from_seq``, as a spectator sees them."""
        seen = await self.spectate(match_id)
        last = min(seen.visible, from_seq + limit - 1)
        stored = await self._read(match_id, from_seq, last)
        revealed = seen.match.over
        events = [self.service.visible(item, SPECTATOR, revealed) for item in stored]
        more = bool(stored) and stored[-1].seq < seen.visible
        return EventsSeen(seen, events, stored[-1].seq + 1 if more else None)

    async def state_at(self, match_id: str, seq: int) -> StateSeen:
        """The match folded from events 0..``seq``; not_found past what is visible."""
        seen = await self.spectate(match_id)
        if seq > seen.visible:
            raise ServiceError(
                MatchRefusalCode.NOT_FOUND,
                f"no event {seq} to see yet (the last is {seen.visible})",
            )
        match = await self._match_at(seen, seq)
        over = seen.match.over
        view = build_view(match.game, AUDITOR if over else SPECTATOR, match_over=over)
        return StateSeen(seen, match, view)

    async def record(self, match_id: str) -> RecordSeen:
        """The match's visible events (every one, revealed, once it is over)."""
        seen = await self.spectate(match_id)
        stored = await self._read(match_id, 0, seen.visible)
        over = seen.match.over
        events = [self.service.visible(item, SPECTATOR, over) for item in stored]
        return RecordSeen(seen, seen.shown, stored, events)

    async def finished_log(self, match_id: str) -> list[StoredEvent]:
        """Every stored event of a match that is over (to audit); match_not_over before:
        its seed is still secret."""
        seen = await self.spectate(match_id)
        if not seen.match.over:
            raise ServiceError(ServiceCode.MATCH_NOT_OVER, "a match is audited once it is over")
        return await self._read(match_id, 0, seen.match.version)

    async def _read(self, match_id: str, first: int, last: int) -> list[StoredEvent]:
        """Stored events ``first``..``last`` (inclusive) of a match."""
        if last < first:
            return []
        return await self.service.store.read(stream_of(match_id), first, last - first + 1)

    async def _match_at(self, seen: Spectated, seq: int) -> Match:
        """The match after its event ``seq``: from its snapshots, at most
        ``snapshots.EVERY`` events folded."""
        if seq == seen.visible:
            return seen.shown
        return await self.service.snapshots.match_at(seen.match.match_id, seq)
