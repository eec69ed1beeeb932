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
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eventstore import StoredEvent

from ..rules.state import MatchState as RulesState
from ..rules.views import AUDITOR, SPECTATOR, View, build_view
from .catalog import MatchState
from .errors import ServiceError
from .match import Match, fold_match, stream_of
from .service import GameService

# ids the service hands out (keyring: 16 hex digits); anything else cannot exist
_MATCH_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")
NEVER_DELAYED = frozenset({"MatchCreated", "SeatJoined"})


@dataclass(frozen=True, slots=True)
class Spectated:
    """A match as it is now, the last seq a spectator may see of it now, and the state
    it is in as far as they see (an event held back may have started it)."""

    match: Match
    visible: int
    state: MatchState

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
        raise ServiceError("not_found", f"no match {match_id!r}")
    return match_id


def last_visible(stored: Sequence[StoredEvent], cutoff_ms: int) -> int:
    """The last seq of the prefix a delayed spectator sees (a prefix: one
    event held back holds back every later one, whatever its clock says)."""
    last = -1
    for event in stored:
        if event.type not in NEVER_DELAYED and event.at > cutoff_ms:
            break
        last = event.seq
    return last


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
        cutoff = now_ms() - match.spectator_delay_ms
        if not match.spectator_delay_ms or match.over or match.last_event_ms <= cutoff:
            return Spectated(match, match.version, state_of(match))
        stored = await self._read(match_id, 0, match.version)
        visible = last_visible(stored, cutoff)
        # held back, so not over (the end shows everything): started if that is shown
        started = any(event.type == "MatchStarted" for event in stored[: visible + 1])
        return Spectated(match, visible, "live" if started else "open")

    async def now(self, match_id: str) -> tuple[Spectated, Match]:
        """The match as a spectator may see it now."""
        seen = await self.spectate(match_id)
        return seen, await self._visible_match(seen)

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
                "not_found", f"no event {seq} to see yet (the last is {seen.visible})"
            )
        match = await self._match_at(match_id, seq)
        over = seen.match.over
        view = build_view(match.game, AUDITOR if over else SPECTATOR, match_over=over)
        return StateSeen(seen, match, view)

    async def record(self, match_id: str) -> RecordSeen:
        """The match's visible events (every one, revealed, once it is over)."""
        seen = await self.spectate(match_id)
        stored = await self._read(match_id, 0, seen.visible)
        over = seen.match.over
        events = [self.service.visible(item, SPECTATOR, over) for item in stored]
        return RecordSeen(seen, await self._visible_match(seen), stored, events)

    async def finished_log(self, match_id: str) -> list[StoredEvent]:
        """Every stored event of a match that is over (to audit); match_not_over before:
        its seed is still secret."""
        seen = await self.spectate(match_id)
        if not seen.match.over:
            raise ServiceError("match_not_over", "a match is audited once it is over")
        return await self._read(match_id, 0, seen.match.version)

    async def _read(self, match_id: str, first: int, last: int) -> list[StoredEvent]:
        """Stored events ``first``..``last`` (inclusive) of a match."""
        if last < first:
            return []
        return await self.service.store.read(stream_of(match_id), first, last - first + 1)

    async def _match_at(self, match_id: str, seq: int) -> Match:
        """The match folded from its events 0..``seq``."""
        stored = await self._read(match_id, 0, seq)
        return fold_match(None, stored, self.service.decoded.decode)

    async def _visible_match(self, seen: Spectated) -> Match:
        if seen.current:
            return seen.match
        return await self._match_at(seen.match.match_id, seen.visible)
