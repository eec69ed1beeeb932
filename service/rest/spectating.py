"""What a spectator may see of a match, and when.

While a match is live a spectator sees no hand, blind or unused card (the
rules' views and event filter see to that) and, when the match has a
spectator delay, only the events stored at least that long ago (by their
stored ``at``): the match as it was then. Setting-up events (who sits where)
are never delayed. Once the match is over everything is shown, at once.

A replay of a finished match shows the full deal at every step: the view of
the state at seq N with every hand, blind and unused card open (``open_view``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from eventstore import StoredEvent

from ..app.catalog import MatchState
from ..app.match import Match, fold_match, stream_of
from ..app.service import GameService, ServiceError
from ..rules.cards import format_mask
from ..rules.state import MatchState as RulesState
from ..rules.views import AUDITOR, SPECTATOR, View, build_view

# ids the service hands out (keyring: 16 hex digits); anything else cannot exist
_MATCH_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")
NEVER_DELAYED = frozenset({"MatchCreated", "SeatJoined"})


@dataclass(frozen=True, slots=True)
class Spectated:
    """A match as it is now, and the last seq a spectator may see of it now."""

    match: Match
    visible: int

    @property
    def state(self) -> MatchState:
        return state_of(self.match)

    @property
    def current(self) -> bool:
        """Whether the spectator sees the match as it is now (no event held back)."""
        return self.visible == self.match.version


def now_ms() -> int:
    """The server's clock (ms since the epoch), the one stored ``at`` is on."""
    return time.time_ns() // 1_000_000


def state_of(match: Match) -> MatchState:
    if match.over:
        return "finished"
    return "live" if match.started else "open"


def checked_id(match_id: str) -> str:
    if not _MATCH_ID.fullmatch(match_id):
        raise ServiceError("not_found", f"no match {match_id!r}")
    return match_id


async def spectate(service: GameService, match_id: str) -> Spectated:
    """The match now; ServiceError(not_found) for an unknown id."""
    match = await service.load(checked_id(match_id))
    delay = match.spectator_delay_ms
    if not delay or match.over:
        return Spectated(match, match.version)
    cutoff = now_ms() - delay
    if match.last_event_ms <= cutoff:
        return Spectated(match, match.version)
    stored = await read(service, match_id, 0, match.version)
    return Spectated(match, last_visible(stored, cutoff))


def last_visible(stored: Sequence[StoredEvent], cutoff_ms: int) -> int:
    """The last seq of the prefix a delayed spectator sees (a prefix: one
    event held back holds back every later one, whatever its clock says)."""
    last = -1
    for event in stored:
        if event.type not in NEVER_DELAYED and event.at > cutoff_ms:
            break
        last = event.seq
    return last


async def read(service: GameService, match_id: str, first: int, last: int) -> list[StoredEvent]:
    """Stored events ``first``..``last`` (inclusive) of a match."""
    if last < first:
        return []
    return await service.store.read(stream_of(match_id), first, last - first + 1)


async def match_at(service: GameService, match_id: str, seq: int) -> Match:
    """The match folded from its events 0..``seq``."""
    return fold_match(None, await read(service, match_id, 0, seq), service.decoded.decode)


async def spectator_match(service: GameService, seen: Spectated) -> Match:
    """The match as the spectator may see it now."""
    if seen.current:
        return seen.match
    return await match_at(service, seen.match.match_id, seen.visible)


def spectator_view(state: RulesState) -> View:
    """A spectator's view: no hands until the match is over, then all of them."""
    return build_view(state, SPECTATOR)


def open_view(state: RulesState) -> View:
    """The state with every card shown: for replaying a match that is over,
    at any point of it (the rules open the auditor's view only at the end)."""
    view = build_view(state, SPECTATOR)
    if view.hands is not None:
        return view  # the end: already everything
    return replace(
        view,
        viewer=str(AUDITOR),
        hands=tuple(tuple(format_mask(hand)) for hand in state.hands),
        blind=tuple(format_mask(state.blind)),
        unused=tuple(format_mask(state.unused)),
        out_of_play=tuple(format_mask(state.out)),
    )
