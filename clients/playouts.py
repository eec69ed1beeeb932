"""Playouts: a game played to its end from a known state, every seat deciding by
a rollout policy from the position and the seat's own hand (``policies``' fast
ones, or the stronger bot's ``strategy.Decision``). Compiled with the engine
(hatch_build.py): the expert runs about a thousand a move.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Final

from service.rules.commands import SeatCommand
from service.rules.decider import Folded, decide_and_fold
from service.rules.legal import legal_actions
from service.rules.state import MatchState
from service.rules.vocabulary import Phase

from .policies import greedy_decide, planning_decide, rollout_decide
from .strategy import Weights, decision_for

MAX_PLAYOUT_ACTIONS: Final = 5000  # far beyond any game's length: a guard, never reached in play


class Rollout(StrEnum):
    """The policy every seat of a playout decides by."""

    GREEDY = "greedy"  # policies.greedy_decide
    SHEDDING = "shedding"  # policies.rollout_decide: keeps groups, holds strong cards
    PLANNING = "planning"  # policies.planning_decide: shedding, and plans to go out
    STRONGER = "stronger"  # strategy.Decision: the stronger bot's own choice


class PlayoutError(Exception):
    """A playout met a refusal or ran past its guard: a bug, never a result."""


def play_out(state: MatchState) -> tuple[MatchState, int]:
    """``state`` played on until its game ends (the state then: places in
    ``results[-1]``), and the actions that took; unchanged when no game is in play."""
    steps = 0
    while state.phase == Phase.IN_GAME:
        seat = state.turn
        if seat is None:
            raise PlayoutError("a game in play with nobody to act")
        legal = legal_actions(state)
        state = apply(state, greedy_decide(state, state.hands[seat], legal, True))
        steps += 1
        if steps > MAX_PLAYOUT_ACTIONS:
            raise PlayoutError("a playout did not end")
    return state, steps


def play_out_for(state: MatchState, seat: int) -> tuple[MatchState, int]:
    """``state`` played on until ``seat``'s place in the game is known: it went out
    in order (its place stays), or the game ended. Cheaper than ``play_out``."""
    steps = 0
    while state.phase == Phase.IN_GAME and seat not in state.finished:
        turn = state.turn
        if turn is None:
            raise PlayoutError("a game in play with nobody to act")
        legal = legal_actions(state)
        state = apply(state, greedy_decide(state, state.hands[turn], legal, True))
        steps += 1
        if steps > MAX_PLAYOUT_ACTIONS:
            raise PlayoutError("a playout did not end")
    return state, steps


def apply(state: MatchState, command: SeatCommand) -> MatchState:
    """The state after ``command``, which must be legal there."""
    folded = decide_and_fold(state, command)
    if not isinstance(folded, Folded):
        raise PlayoutError(f"a playout's action was refused: {command!r} -> {folded}")
    return folded.state


def place_after(state: MatchState, seat: int) -> int:
    """The place ``seat`` took in the game ``play_out`` ended, or (``play_out_for``)
    the place it went out in."""
    if state.phase == Phase.IN_GAME:
        return state.finished.index(seat) + 1
    return state.results[-1][seat]


def play_out_with(state: MatchState, seat: int | None, rollout: Rollout) -> tuple[MatchState, int]:
    """``play_out_for`` (``play_out`` when ``seat`` is None) with every seat
    deciding by ``rollout``."""
    if rollout == Rollout.GREEDY:
        return play_out(state) if seat is None else play_out_for(state, seat)
    steps = 0
    while state.phase == Phase.IN_GAME and (seat is None or seat not in state.finished):
        turn = state.turn
        if turn is None:
            raise PlayoutError("a game in play with nobody to act")
        legal = legal_actions(state)
        if rollout == Rollout.STRONGER:
            state = apply(state, stronger_decide(state, turn, legal))
        elif rollout == Rollout.PLANNING:
            state = apply(state, planning_decide(state, state.hands[turn], legal))
        else:
            state = apply(state, rollout_decide(state, state.hands[turn], legal))
        steps += 1
        if steps > MAX_PLAYOUT_ACTIONS:
            raise PlayoutError("a playout did not end")
    return state, steps


STRONGER_WEIGHTS: Final = Weights()


def stronger_decide(state: MatchState, seat: int, actions: Sequence[SeatCommand]) -> SeatCommand:
    """The stronger bot's choice for ``seat``, from the position and its own hand."""
    if len(actions) == 1:
        return actions[0]
    sizes = tuple(hand.bit_count() for hand in state.hands)
    return decision_for(state, state.hands[seat], seat, sizes, STRONGER_WEIGHTS).decide(actions)
