"""A match as its events make it: its set-up, its seats, its dealing commitment,
how far it is in its life (started, abandoned, seed revealed, sealed) and the rules' state of
its games."""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import MatchState, RuleSet
from ..rules.vocabulary import Phase
from .events import BotKind


@dataclass(frozen=True, slots=True)
class Match:
    match_id: str
    rules: RuleSet
    players: int
    open_seats: bool
    turn_ms: int
    spectator_delay_ms: int
    auto_start: bool
    invites: bool  # open seats are taken with an invite only
    names: tuple[str, ...]
    bots: tuple[BotKind | None, ...]  # per seat: the bot the service plays it with, if any
    bot_pause_ms: int
    client_seeds: tuple[str, ...]
    commitment: str  # sha256 of the dealing seed, from the first event
    started: bool
    seed: str  # hex, once revealed
    game: MatchState
    sealed: bool = False  # MatchSealed is the last event
    abandoned: str = ""  # an AbandonReason once MatchAbandoned ended it, else ""
    rated: bool = False  # its games are rated (MatchCreated.rated)
    lobby: bool = False  # anyone may take an open seat from the lobby (MatchCreated.lobby)
    # Where the match's stream stands: set by whoever folds stored events (the events
    # themselves do not know their seq, time or hash).
    version: int = 0
    last_event_ms: int = 0
    head: str = ""  # the hash of event ``version``: the chain's head

    @property
    def over(self) -> bool:
        """Nobody acts any more: its games are played out, or it was abandoned."""
        return self.game.phase == Phase.MATCH_OVER or bool(self.abandoned)

    @property
    def turn_deadline_ms(self) -> int | None:
        """When the seat to act runs out of time (ms since the epoch), if timed."""
        if not self.turn_ms or self.game.turn is None:
            return None
        return self.last_event_ms + self.turn_ms

    @property
    def seats_free(self) -> tuple[int, ...]:
        return tuple(seat for seat, name in enumerate(self.names) if not name)

    @property
    def awaits_seal(self) -> bool:
        """Over, its seed revealed, and not sealed yet: the seal is all that is left."""
        return self.over and bool(self.seed) and not self.sealed


def initial_state() -> Match | None:
    """Before any event there is no match: only Create is decided on it."""
    return None
