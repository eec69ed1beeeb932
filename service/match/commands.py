"""Commands of a match's life: what its creator, its joiners, its host, its seats,
its timer, its dealer and its caretaker (abandoning it) ask the match decider to do.

Everything a decision needs comes in the command: the service's secrets (the
dealing seed, its commitment, a signed seal) as much as a caller's choices, so
the decider stays pure. Seeds travel as bytes; the events carry them in hex."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..rules.commands import Deal, SeatCommand
from .shuffle import SHUFFLE_VERSION


@dataclass(frozen=True, slots=True)
class Create:
    """Open a match. A closed match seats every seat at once (``client_seeds``: one per
    seat at most, in seat order); ``bots`` seats the service's bots (seat, BotKind)."""

    match_id: str
    preset: str
    options: dict[str, Any]  # overrides of the preset's options
    players: int
    seed_commitment: str  # sha256 hex of the service's secret dealing seed
    open_seats: bool = False
    turn_ms: int = 0  # 0: no turn timer
    spectator_delay_ms: int = 0
    bot_pause_ms: int = 0
    auto_start: bool = False  # with open seats: start once the last is taken
    invites: bool = False  # with open seats: each taken with its invite only
    client_seeds: tuple[bytes, ...] = ()
    bots: tuple[tuple[int, str], ...] = ()
    rated: bool = False  # every seat a registered player (or a bot): its games are rated
    lobby: bool = False  # with open seats: anyone may take one from the lobby, no invite


@dataclass(frozen=True, slots=True)
class Join:
    """Take a seat of an open match: ``seat`` None, the next free one (no invite table
    gives its seats so); a named seat, with its invite (or by its creator). ``bot``: the
    service seats one of its bots, named after its kind."""

    name: str = ""  # "": "seat N"
    client_seed: bytes = b""  # mixed into every deal
    seat: int | None = None
    bot: str = ""
    player: str = ""  # the registered player's id, checked by the service (its key)


@dataclass(frozen=True, slots=True)
class Start:
    """Begin play. With the dealing ``seed`` the first game is dealt in the same
    decision; without it the deal comes as a DealGame of its own."""

    seed_commitment: str  # what MatchStarted names: sha256 hex of the seed
    seed: bytes = b""
    shuffle_version: str = SHUFFLE_VERSION


@dataclass(frozen=True, slots=True)
class Act:
    """A seat's command to the rules. With the dealing ``seed``, an action that ends a
    game deals the next, and one that ends the match reveals the seed."""

    command: SeatCommand
    seed: bytes = b""


@dataclass(frozen=True, slots=True)
class TimeOut:
    """The seat to act ran out of time: the service acts for it as the rules say
    (``timeout_action``). ``seed`` as for Act."""

    seed: bytes = b""


@dataclass(frozen=True, slots=True)
class DealGame:
    """Chance: deal the next game (the deal a seed gives, or one read off a log)."""

    deal: Deal


@dataclass(frozen=True, slots=True)
class AbandonMatch:
    """End the match before its games are done (``reason``: an AbandonReason), at any
    point of its life before its end. ``last_seq``: the seq of the last event stored
    before it; ``seed`` as for Act: with it, the seed is revealed in the same decision."""

    reason: str
    last_seq: int
    detail: str = ""
    seed: bytes = b""


@dataclass(frozen=True, slots=True)
class Reveal:
    """Publish the dealing seed once the match is over."""

    seed: bytes


@dataclass(frozen=True, slots=True)
class Seal:
    """Close the match with the service's signed seal (a ``service.records`` Seal)."""

    seal: dict[str, Any] = field(default_factory=dict)


MatchCommand = Create | Join | Start | Act | TimeOut | DealGame | AbandonMatch | Reveal | Seal
