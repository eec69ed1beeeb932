"""Property 8: a live game never waits for a seat that cannot act.

Whenever the game waits (after the last event of each action), it is over, or
the seat it waits for has at least one legal action. Inside one action the
state passes through steps nobody acts in (a hand emptied by a discard, just
before its finish), so those are not judged. Every active seat then holds a
card (but a short lower hand waiting for its cards back), and the seat to act
has not left the game (but a queen bomber whose play emptied their hand): the
cards a player keeps on leaving (docs/RULES.md §1) are never in a legal action.

Set-ups with short hands (one card included) make exchanges meet hands smaller
than their count (the lower player gives all they hold, the upper one gives
back as many); whole dealt matches bring every preset's exchanges and effects."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from service.rules import RuleSet, SetUp
from service.rules.legal import legal_actions
from service.rules.state import MatchState
from service.rules.vocabulary import Phase, WaitingFor

from ._support import (
    STEPS_AFTER_LEAVING,
    Step,
    describe,
    examples,
    play_match,
    play_set_up_game,
    players_counts,
    rule_sets,
    small_set_ups,
)

# one or two cards a seat half the time: short exchanges come up often
SHORT_HANDS = st.one_of(st.integers(1, 2), st.integers(1, 6))


def check_waiting_state(state: MatchState, where: str) -> None:
    if state.phase == Phase.BEFORE_DEAL or state.game_over:
        return
    assert legal_actions(state), f"{where}: nobody may act in {describe(state)}"
    if (
        state.waiting_for != WaitingFor.EXCHANGE
    ):  # a short lower hand waits empty for its cards back
        empty = [s for s in range(state.players) if state.is_active(s) and not state.hands[s]]
        assert not empty, f"{where}: seats {empty} are in the game with no card: {describe(state)}"
    seat = state.turn
    assert seat is not None
    if not state.is_active(seat):
        assert state.waiting_for in STEPS_AFTER_LEAVING and not state.hands[seat], (
            f"{where}: seat {seat} has left and is to act: {describe(state)}"
        )


class Checker:
    """Checks the state after each command, numbering the commands."""

    def __init__(self) -> None:
        self.commands = 0

    def __call__(self, step: Step) -> None:
        where = f"after command {self.commands} ({step.command}, {step.events})"
        self.commands += 1
        check_waiting_state(step.after, where)


@settings(max_examples=examples(300))
@given(position=small_set_ups(hand_sizes=SHORT_HANDS), data=st.data())
def test_short_hands_never_leave_a_game_stuck(
    position: tuple[RuleSet, int, SetUp], data: st.DataObject
) -> None:
    rules, players, set_up = position
    play_set_up_game(data, rules, players, set_up, on_step=Checker())


@settings(max_examples=examples(40))
@given(rules=rule_sets(), players=players_counts, data=st.data())
def test_dealt_matches_never_leave_a_game_stuck(
    rules: RuleSet, players: int, data: st.DataObject
) -> None:
    play_match(data, rules, players, on_step=Checker())
