"""``evolve(match, event) -> match``: a match after one of its events, never
refusing (every fact it needs is in the event). The rules' events go to the rules'
``evolve``; ``fold`` hands a run of them over at once (one copy of the game state)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import assert_never

from ..rules import events as rules_events
from ..rules import fold as fold_game
from ..rules import initial_state as initial_game
from ..rules.rulesets import rule_set
from .events import (
    LIFECYCLE_EVENT_TYPES,
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
from .state import Match

_LIFECYCLE = frozenset(LIFECYCLE_EVENT_TYPES.values())


def evolve(match: Match | None, event: MatchEvent) -> Match:
    return fold(match, (event,))


def fold(match: Match | None, events: Iterable[MatchEvent]) -> Match:
    """``match`` (None: not created yet) after ``events``, in order. ValueError when
    they do not make a match (no MatchCreated first)."""
    pending: list[rules_events.Event] = []
    for event in events:
        if type(event) not in _LIFECYCLE:
            pending.append(event)  # type: ignore[arg-type]
            continue
        if pending:
            match = _with_game(match, pending)
            pending = []
        match = _apply(match, event)  # type: ignore[arg-type]
    if pending:
        match = _with_game(match, pending)
    if match is None:
        raise ValueError("no events")
    return match


def created(event: MatchCreated) -> Match:
    """The match a MatchCreated opens (RuleSetError if it names no rule set)."""
    rules = rule_set(event.preset).with_options(
        {name: value for name, value in event.options.items() if name != "preset"}
    )
    return Match(
        match_id=event.match_id,
        rules=rules,
        players=event.players,
        open_seats=event.open_seats,
        turn_ms=event.turn_ms,
        spectator_delay_ms=event.spectator_delay_ms,
        auto_start=event.auto_start,
        invites=event.invites,
        names=("",) * event.players if event.open_seats else ("host",) * event.players,
        bots=(None,) * event.players,
        bot_pause_ms=event.bot_pause_ms,
        client_seeds=(),
        commitment=event.seed_commitment,
        started=False,
        seed="",
        game=initial_game(rules, event.players),
        rated=event.rated,
        lobby=event.lobby,
    )


def _with_game(match: Match | None, events: list[rules_events.Event]) -> Match:
    if match is None:
        raise ValueError("the events do not start with MatchCreated")
    return replace(match, game=fold_game(match.game, events))


def _apply(match: Match | None, event: LifecycleEvent) -> Match:
    if isinstance(event, MatchCreated):
        return created(event)  # (the decider never makes a second one)
    if match is None:
        raise ValueError("the events do not start with MatchCreated")
    return _after(match, event)


def _after(match: Match, event: LifecycleEvent) -> Match:
    match event:
        case MatchCreated():
            return created(event)
        case SeatJoined():
            names = list(match.names)
            names[event.seat] = event.name
            bots = list(match.bots)
            bots[event.seat] = event.bot
            seeds = match.client_seeds + ((event.client_seed,) if event.client_seed else ())
            return replace(match, names=tuple(names), bots=tuple(bots), client_seeds=seeds)
        case MatchStarted():
            # logs from before the commitment moved into MatchCreated carry it only here
            commitment = match.commitment or event.seed_commitment
            return replace(
                match, commitment=commitment, started=True, client_seeds=event.client_seeds
            )
        case TurnTimedOut():
            return match
        case MatchAbandoned():
            return replace(match, abandoned=event.reason)
        case SeedRevealed():
            return replace(match, seed=event.seed)
        case MatchSealed():
            return replace(match, sealed=True)
        case _:
            assert_never(event)
