"""Events of a match that are not the rules': how it was set up, seated,
committed to its dealing seed, timed, how the seed was revealed and the match
sealed, or abandoned. ``MatchEvent`` is every event a match's stream holds, the
rules' too."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, get_args

from ..rules import events as rules_events
from ..rules.vocabulary import WaitingFor


class BotKind(StrEnum):
    """The service's own bots, which a match's creator or host may seat."""

    RANDOM = "random"
    GREEDY = "greedy"
    STRONGER = "stronger"
    EXPERT = "expert"  # searches each play (clients/expert.py), in a process pool


def bot_name(kind: BotKind, seat: int) -> str:
    """The name a bot's seat is given."""
    return f"{kind.value} bot {seat}"


@dataclass(frozen=True, slots=True)
class MatchCreated:
    match_id: str
    preset: str
    options: dict[str, Any]  # the whole rule set, every option (RuleSet.options())
    players: int
    open_seats: bool
    turn_ms: int  # 0: no turn timer (times are whole ms: floats hash differently by language)
    spectator_delay_ms: int = 0
    bot_pause_ms: int = 0  # how long the service's bots wait before each action
    auto_start: bool = False  # deal as soon as the last open seat is taken
    # sha256 hex of the dealing seed: committed in the first event, before any client seed
    seed_commitment: str = ""
    # its open seats are taken with an invite only (a table opened over REST): no
    # JoinMatch takes one
    invites: bool = False
    # its games are rated: every seat is a registered player or one of our bots
    rated: bool = False
    # its open seats are listed in the lobby, where anyone may take one without an
    # invite (a REST table opened "anyone can join"); invite-only tables are not
    lobby: bool = False


@dataclass(frozen=True, slots=True)
class SeatJoined:
    seat: int
    name: str
    client_seed: str = ""  # hex; mixed into every deal
    bot: BotKind | None = None  # the service plays this seat; None: a client holds its token
    player: str = ""  # the registered player's id (service.app.players); "": none


@dataclass(frozen=True, slots=True)
class MatchStarted:
    """Play begins: the shuffle and the client seeds every deal mixes in."""

    seed_commitment: str  # sha256 hex of the seed, the one MatchCreated committed to
    shuffle_version: str
    client_seeds: tuple[str, ...] = ()  # hex, in the order they are mixed in


@dataclass(frozen=True, slots=True)
class TurnTimedOut:
    """The seat's time ran out; the service acts for it in the same append."""

    seat: int
    waiting_for: WaitingFor


class AbandonReason(StrEnum):
    """Why a match ended before its games did."""

    IDLE = "idle"  # nobody acted for the service's idle limit
    TABLE_FAILED = "table_failed"  # a UECda table's append failed: its play cannot go on


@dataclass(frozen=True, slots=True)
class MatchAbandoned:
    """The match ends here, its games unfinished: nobody acts after it, and the
    service reveals its seed and seals it as it does a match that was played out.
    Games that ended before it stand; the one in play counts for nobody."""

    reason: AbandonReason
    last_seq: int  # the seq of the last event stored before it: where the match stopped
    detail: str = ""  # the service's words on it (at most MAX_ABANDON_DETAIL characters)


@dataclass(frozen=True, slots=True)
class SeedRevealed:
    seed: str  # hex


@dataclass(frozen=True, slots=True)
class MatchSealed:
    """A match's last event, after SeedRevealed: the service's signed seal over the
    head of every event before it (a ``service.records`` Seal as JSON)."""

    seal: dict[str, Any]


LifecycleEvent = (
    MatchCreated
    | SeatJoined
    | MatchStarted
    | TurnTimedOut
    | MatchAbandoned
    | SeedRevealed
    | MatchSealed
)

# what each record's "type" names, derived from the union as the rules' EVENT_TYPES
LIFECYCLE_EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in get_args(LifecycleEvent)}

MatchEvent = rules_events.Event | LifecycleEvent
