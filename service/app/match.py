"""A match as the service knows it: the match decider's state (``service.match``)
folded from its stored events, with where its stream stands (version, time, head)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from eventstore import StoredEvent

from ..match import Match as Match  # re-exported: the adapters' name for it
from ..match import MatchEvent, fold
from ..match import match_id_of as match_id_of
from ..match import stream_of as stream_of
from ..rules import MatchState
from .codec import decode

ENDING = frozenset({"MatchEnded", "MatchAbandoned", "SeedRevealed", "MatchSealed"})
"""The events that close a match: after one of them nobody acts and no timer runs
(MatchSealed, the seal, is the last of them)."""
REVEALING = frozenset({"MatchEnded", "MatchAbandoned"})
"""The events after which a match is over and every viewer sees every hidden field
(its seed, revealed with them, would tell anyway)."""


def fold_match(
    match: Match | None,
    stored: Iterable[StoredEvent],
    decoded: Callable[[StoredEvent], MatchEvent] = decode,
) -> Match:
    """``match`` (None: not yet created) after the stored events, in order
    (``decoded``: how to decode them, a service's cache of its own store's events)."""
    last: list[StoredEvent] = []

    def events() -> Iterator[MatchEvent]:
        for item in stored:
            last[:] = (item,)
            yield decoded(item)

    match = fold(match, events())
    return as_of(match, last[0]) if last else match


def as_of(match: Match, last: StoredEvent, game: MatchState | None = None) -> Match:
    """``match`` as of its stored event ``last``: its version, time and chain head (and
    ``game``, the game after it, when the caller knows it without folding)."""
    return replace(
        match,
        game=match.game if game is None else game,
        version=last.seq,
        last_event_ms=last.at,
        head=last.hash,
    )
