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

from service.rules import Deal, Pick, RuleSet, SetUp
from service.rules import events as ev
from service.rules.cards import REAL_CARDS, joker_count
from service.rules.commands import SeatCommand
from service.rules.judging import pickable
from service.rules.legal import legal_actions
from service.rules.state import MatchState
from service.rules.vocabulary import PICKS, Phase, WaitingFor

from ._support import (
    PICK_RULES,
    STEPS_AFTER_LEAVING,
    Chooser,
    Step,
    describe,
    draw_chooser,
    examples,
    game_action_bound,
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
    if state.waiting_for in PICKS:  # else the step does not happen (docs/RULES.md §5.6 #21)
        assert pickable(state), f"{where}: a pick waits with nothing to take: {describe(state)}"
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


def hoarding_chooser(data: st.DataObject) -> Chooser:
    """Random legal play, but every pick takes as many cards as it may: the player
    who would stall a game by taking cards back (docs/RULES.md §5.6 #21)."""
    draw = draw_chooser(data)

    def choose(state: MatchState, legal: list[SeatCommand]) -> SeatCommand:
        picks = [command for command in legal if isinstance(command, Pick)]
        if not picks:
            return draw(state, legal)
        most = max(command.cards.bit_count() for command in picks)
        return draw(state, [command for command in picks if command.cards.bit_count() == most])

    return choose


class GameBound:
    """Counts each game's seat actions and the cards its picks take, and holds them
    to the bounds decision 21 gives (docs/RULES.md §5.6 #21)."""

    def __init__(self, rules: RuleSet, players: int) -> None:
        self.bound = game_action_bound(rules, players)
        self.actions = 0
        self.taken: list[int] = []  # the cards of each pick of this game

    def __call__(self, step: Step) -> None:
        if isinstance(step.command, Deal):
            self.actions, self.taken = 0, []
            return
        self.actions += 1
        assert self.actions <= self.bound, f"a game goes on past {self.bound} actions"
        for event in step.events:
            if isinstance(event, ev.PilePicked) and event.cards:
                real = event.cards & REAL_CARDS
                assert not any(real & before for before in self.taken), (
                    f"{event}: a card taken twice this game"
                )
                self.taken.append(event.cards)
        assert sum(joker_count(cards) for cards in self.taken) <= 2, "a joker taken twice"


@settings(max_examples=examples(40))
@given(rules=rule_sets(), players=players_counts, hoard=st.booleans(), data=st.data())
def test_games_with_every_pick_rule_end_within_the_bound(
    rules: RuleSet, players: int, hoard: bool, data: st.DataObject
) -> None:
    """Decision 21 (docs/RULES.md §5.6): a card a pick took is marked and never
    taken by a pick again. So the picks of one game take at most the 54 cards of
    the deck (the two jokers counted: judging.pickable), and, since every play
    takes at least one card out of the hands and only a pick brings one back,
    a game holds at most 54 + 54 = 108 plays. Each play is followed by at most
    the passes before its flush, one answer window's declines and its steps
    (_support.game_action_bound): with 5 players and no stalemate rule that is
    4 + 108 × 20 = 2,164 seat actions. Random play with salvage, king's march and
    zombie on (and, half the time, every pick taking all it may) ends every
    game within it, and no card is taken twice in a game."""
    rules = rules.with_options(dict.fromkeys(PICK_RULES, True))
    check = GameBound(rules, players)
    choose = hoarding_chooser(data) if hoard else None

    def on_step(step: Step) -> None:
        check(step)
        if step.command is not None and not isinstance(step.command, Deal):
            check_waiting_state(step.after, f"after {step.command}")

    match = play_match(data, rules, players, on_step=on_step, choose=choose)
    assert match.final.phase == Phase.MATCH_OVER
