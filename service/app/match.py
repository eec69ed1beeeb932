"""A match as the service knows it: its set-up, its seats, its dealing
commitment and the rules' state, all folded from its stored events."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from eventstore import EventStore, StoredEvent

from ..rules import MatchState, RuleSet, fold, initial_state
from ..rules import events as rules_events
from ..rules.rulesets import rule_set
from ..rules.state import MATCH_OVER
from .codec import MatchEvent, decode
from .match_events import (
    MatchCreated,
    MatchSealed,
    MatchStarted,
    SeatJoined,
    SeedRevealed,
    TurnTimedOut,
)


def stream_of(match_id: str) -> str:
    """The event stream of a match (its Redis keys share the ``{m:<id>}`` slot)."""
    return f"m:{match_id}"


ENDING = frozenset({"MatchEnded", "SeedRevealed", "MatchSealed"})
"""The events that close a match: after one of them nobody acts and no timer runs
(MatchSealed, the seal, is the last of them)."""


async def live_streams(
    store: EventStore, stopping: asyncio.Event
) -> tuple[dict[str, int], list[str]]:
    """Where every stream of the store is now, and the match streams among them that are
    not over (a look at each one's last event tells, without folding the finished ones):
    what a background worker starts from before it follows the global feed."""
    positions: dict[str, int] = {}
    live: list[str] = []
    offset, page = 0, 500
    while (streams := await store.streams(offset, page)) and not stopping.is_set():
        offset += len(streams)
        for stream in streams:
            version = positions[stream] = await store.version(stream)
            if not stream.startswith("m:") or version < 0:
                continue
            last = await store.read(stream, version, 1)
            if not (last and last[0].type in ENDING):
                live.append(stream)
    return positions, live


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
    bots: tuple[str, ...]  # per seat: the BotKind the service plays it with, or ""
    bot_pause_ms: int
    client_seeds: tuple[str, ...]
    commitment: str  # sha256 of the dealing seed, from the first event
    started: bool
    seed: str
    game: MatchState
    version: int
    last_event_ms: int
    head: str = ""  # the hash of event ``version``: the chain's head
    sealed: bool = False  # MatchSealed is the last event

    @property
    def over(self) -> bool:
        return self.game.phase == MATCH_OVER

    @property
    def seats_free(self) -> tuple[int, ...]:
        return tuple(seat for seat, name in enumerate(self.names) if not name)


def created(event: MatchCreated, at: int) -> Match:
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
        bots=("",) * event.players,
        bot_pause_ms=event.bot_pause_ms,
        client_seeds=(),
        commitment=event.seed_commitment,
        started=False,
        seed="",
        game=initial_state(rules, event.players),
        version=0,
        last_event_ms=at,
    )


def fold_match(
    match: Match | None,
    stored: Iterable[StoredEvent],
    decoded: Callable[[StoredEvent], MatchEvent] = decode,
) -> Match:
    """``match`` (None: not yet created) after the stored events, in order
    (``decoded``: how to decode them, a service's cache of its own store's events)."""
    pending: list[rules_events.Event] = []
    last: StoredEvent | None = None
    for item in stored:
        last = item
        event = decoded(item)
        if isinstance(event, MatchCreated):
            match = created(event, item.at)
            continue
        if match is None:
            raise ValueError(f"{item.stream} does not start with MatchCreated")
        if type(event).__name__ in rules_events.EVENT_TYPES:
            pending.append(event)  # type: ignore[arg-type]
            continue
        if pending:
            match = replace(match, game=fold(match.game, pending))
            pending = []
        match = _apply_match_event(match, event)
    if match is None:
        raise ValueError("no events")
    if pending:
        match = replace(match, game=fold(match.game, pending))
    if last is not None:
        match = replace(match, version=last.seq, last_event_ms=last.at, head=last.hash)
    return match


def _apply_match_event(match: Match, event: object) -> Match:
    if isinstance(event, SeatJoined):
        names = list(match.names)
        names[event.seat] = event.name
        bots = list(match.bots)
        bots[event.seat] = event.bot
        seeds = match.client_seeds + ((event.client_seed,) if event.client_seed else ())
        return replace(match, names=tuple(names), bots=tuple(bots), client_seeds=seeds)
    if isinstance(event, MatchStarted):
        # logs from before the commitment moved into MatchCreated carry it only here
        commitment = match.commitment or event.seed_commitment
        return replace(match, commitment=commitment, started=True, client_seeds=event.client_seeds)
    if isinstance(event, SeedRevealed):
        return replace(match, seed=event.seed)
    if isinstance(event, TurnTimedOut):
        return match
    if isinstance(event, MatchSealed):
        return replace(match, sealed=True)
    raise ValueError(f"not a match event: {event!r}")
