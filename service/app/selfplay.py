"""Whole matches played in-process by bot policies through ``decide`` and
``fold``: the demo until the service runs, benchmarks and property tests."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..match.shuffle import game_deal
from ..rules import Deal, MatchState, Refusal, RuleSet, decide_and_fold, initial_state
from ..rules.commands import SeatCommand
from ..rules.events import Event
from ..rules.legal import legal_actions
from ..rules.views import View, Viewer, build_view
from ..rules.vocabulary import Phase

# A player sees what its seat may see, never the state: the same inputs a bot
# gets over the API.
Policy = Callable[[View, list[SeatCommand]], SeatCommand]


def random_policy(rng: random.Random) -> Policy:
    """Picks uniformly among the legal actions."""

    def choose(view: View, actions: list[SeatCommand]) -> SeatCommand:
        return actions[rng.randrange(len(actions))]

    return choose


@dataclass
class PlayedMatch:
    state: MatchState
    events: list[Event]
    actions: int


def play_match(
    rules: RuleSet,
    players: int,
    seed: bytes,
    policies: Sequence[Policy],
    on_event: Callable[[Event], None] | None = None,
) -> PlayedMatch:
    """Play a whole match: deal each game from ``seed``, then let the seat to
    act choose among its legal actions until the match ends."""
    state = initial_state(rules, players)
    events: list[Event] = []
    actions = 0
    while state.phase != Phase.MATCH_OVER:
        if state.phase in (Phase.BEFORE_DEAL, Phase.GAME_OVER):
            command: Deal | SeatCommand = game_deal(rules, players, seed, state.game_number + 1)
        else:
            legal = legal_actions(state)
            seat = state.turn
            assert seat is not None
            command = policies[seat](build_view(state, Viewer.of_seat(seat)), legal)
            actions += 1
        folded = decide_and_fold(state, command)
        if isinstance(folded, Refusal):
            raise RuntimeError(f"a legal action was refused: {command} -> {folded}")
        state = folded.state
        events += folded.events
        if on_event is not None:
            for event in folded.events:
                on_event(event)
    return PlayedMatch(state, events, actions)
