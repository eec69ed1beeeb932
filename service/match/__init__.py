"""A match's life as a pure decider, composed with the rules': create, seat,
start, the deals, play, abandonment, the seed's reveal and the seal. ``decide(match, command)
-> events | Refusal``, ``evolve(match, event) -> match``, ``initial_state()``.
Imports only the rules and the standard library's pure modules, and does no I/O
(a test enforces both): the service decides with it, the auditor replays with it."""

from .commands import (
    AbandonMatch,
    Act,
    Create,
    DealGame,
    Join,
    MatchCommand,
    Reveal,
    Seal,
    Start,
    TimeOut,
)
from .decider import Evolved, MatchDecision, decide, decide_and_evolve
from .events import (
    AbandonReason,
    BotKind,
    LifecycleEvent,
    MatchAbandoned,
    MatchCreated,
    MatchEvent,
    MatchSealed,
    MatchStarted,
    SeatJoined,
    SeedRevealed,
    TurnTimedOut,
)
from .evolve import evolve, fold
from .records import from_record, match_id_of, stream_of, to_record
from .state import Match, initial_state

__all__ = [
    "AbandonMatch",
    "AbandonReason",
    "Act",
    "BotKind",
    "Create",
    "DealGame",
    "Evolved",
    "Join",
    "LifecycleEvent",
    "Match",
    "MatchAbandoned",
    "MatchCommand",
    "MatchCreated",
    "MatchDecision",
    "MatchEvent",
    "MatchSealed",
    "MatchStarted",
    "Reveal",
    "Seal",
    "SeatJoined",
    "SeedRevealed",
    "Start",
    "TimeOut",
    "TurnTimedOut",
    "decide",
    "decide_and_evolve",
    "evolve",
    "fold",
    "from_record",
    "initial_state",
    "match_id_of",
    "stream_of",
    "to_record",
]
