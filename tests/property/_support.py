"""Shared strategies and a match driver for the property tests.

Every random choice goes through Hypothesis (``st.data()``): the rule set, the
player count, each deck order and each action (an index into
``legal_actions``), so a failing match shrinks and replays like any example.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import Phase as HypothesisPhase
from hypothesis import strategies as st

from service.rules import (
    LOCAL_RULES,
    Deal,
    MatchState,
    Refusal,
    RuleSet,
    SetUp,
    decide,
    fold,
    initial_state,
    rule_set,
)
from service.rules.cards import (
    JOKER,
    JOKER_MASK_BY_COUNT,
    REAL_CARDS,
    add_card,
    format_mask,
    joker_count,
    mask_of,
    rank_of,
)
from service.rules.commands import Command, SeatCommand
from service.rules.dealing import deck_for
from service.rules.events import Event
from service.rules.legal import legal_actions
from service.rules.vocabulary import Phase, WaitingFor

RANK_T = 7  # ranks 3..T are 0..7
# whole matches shrink very slowly: report a failing example as found
NO_SHRINK = (HypothesisPhase.explicit, HypothesisPhase.reuse, HypothesisPhase.generate)
PRESET_NAMES = ("federation", "torasobi", "classic", "uecda")
BOOLEAN_RULES = tuple(name for name in LOCAL_RULES if name != "eleven_back")
# the only steps that outlast a player whose play emptied the hand: the queen bomb's
# ranks, and the zombie's pick for the next player (docs/RULES.md §5 #51)
STEPS_AFTER_LEAVING = (WaitingFor.QUEEN_BOMBER, WaitingFor.ZOMBIE)


def examples(count: int) -> int:
    """``count`` scaled by ``PROPERTY_SCALE`` (e.g. 10 for a long soak run)."""
    return max(1, int(count * float(os.environ.get("PROPERTY_SCALE", "1"))))


def _env_without() -> frozenset[str]:
    """Rules kept off in every test, for chasing one bug while another is
    open: ``PROPERTY_WITHOUT=down_number,emperor``."""
    names = frozenset(os.environ.get("PROPERTY_WITHOUT", "").split(",")) - {""}
    unknown = names - set(BOOLEAN_RULES)
    assert not unknown, f"PROPERTY_WITHOUT names unknown rules: {sorted(unknown)}"
    return names


@st.composite
def rule_sets(
    draw: st.DrawFn, max_games: int = 3, without: frozenset[str] = frozenset()
) -> RuleSet:
    """Any preset, each local rule (docs/RULES.md §3, §5) on or off, eleven_back in all
    three readings, 1..``max_games`` games per set, and 2, 1 or 0 jokers.
    The rules named in ``without`` stay off."""
    preset = draw(st.sampled_from(PRESET_NAMES), label="preset")
    everything_on = draw(st.booleans(), label="all local rules on")
    options: dict[str, Any] = {
        name: True if everything_on else draw(st.booleans(), label=name) for name in BOOLEAN_RULES
    }
    options.update(dict.fromkeys(without | _env_without(), False))
    options["eleven_back"] = draw(st.sampled_from([False, "strength", "order"]), label="eleven")
    options["games_per_set"] = draw(st.integers(1, max_games), label="games_per_set")
    options["jokers"] = draw(st.sampled_from([2, 1, 0]), label="jokers")
    return rule_set(preset, options)


players_counts = st.integers(2, 5)


def deck_orders(rules: RuleSet) -> st.SearchStrategy[tuple[int, ...]]:
    """Any order of the deck; now and then the sorted deck cut at some card,
    which deals runs of a rank or a suit (quads, stairs, revolutions)."""
    deck = deck_for(rules)
    shuffled = st.permutations(deck).map(tuple)
    cut = st.integers(0, len(deck) - 1).map(lambda at: (*deck[at:], *deck[:at]))
    return st.one_of(shuffled, cut)


def deals(rules: RuleSet, players: int) -> st.SearchStrategy[Deal]:
    """A Deal: a deck order, and the dealer's other draws where the rules use
    them (the seating, the seat dealt first, the stalemate order)."""
    seats = st.permutations(range(players)).map(tuple)
    nothing: st.SearchStrategy[tuple[int, ...]] = st.just(())
    return st.builds(
        Deal,
        deck_orders(rules),
        seats if rules.seat_change_every else nothing,
        st.integers(0, players - 1) if rules.deal_from_daifugo else st.just(0),
        seats if rules.stalemate_passes else nothing,
    )


def whole_deck(rules: RuleSet) -> int:
    mask = 0
    for card in deck_for(rules):
        mask = add_card(mask, card)
    return mask


@dataclass
class Step:
    """One accepted command: the state before, the events, the state after."""

    before: MatchState
    command: Command
    events: list[Event]
    after: MatchState


@dataclass
class Match:
    rules: RuleSet
    players: int
    steps: list[Step]
    actions: int

    @property
    def initial(self) -> MatchState:
        return self.steps[0].before

    @property
    def final(self) -> MatchState:
        return self.steps[-1].after

    @property
    def events(self) -> list[Event]:
        return [event for step in self.steps for event in step.events]

    def states(self) -> Iterator[MatchState]:
        """Every state between commands, the initial one included."""
        yield self.initial
        for step in self.steps:
            yield step.after


PICK_RULES = ("salvage", "kings_march", "zombie")  # docs/RULES.md §5 #49 to #51


def plays_bound(rules: RuleSet) -> int:
    """An upper bound on the plays of one game. Every play takes at least one card out
    of the hands, and only a pick (docs/RULES.md §5 #49 to #51) brings one back in:
    a seven-pass, a king pastor's give and an exchange only move cards between
    hands. A card a pick took is marked and never picked again (§5.6 #21), and the
    jokers are counted so (``judging.pickable``), so a game's picks take at most
    the deck's 54 cards back: 54 + 54 plays."""
    return 54 * (2 if rules.switched_on() & frozenset(PICK_RULES) else 1)


def game_action_bound(rules: RuleSet, players: int) -> int:
    """An upper bound on the seat actions of one game: at most 4 exchange gives,
    and ``plays_bound`` plays, each followed by at most: the passes before the
    flush (players-1, or where the leader may pass fewer than the stalemate's
    passes in a row), the declines of one answer window (players-1: an answer is
    a play), and its steps: a seven-pass, a ten-discard, a bomb, a king's-march
    pick, a zombie pick, a salvage pick at its flush and a king-pastor give per
    player."""
    passes = max(players - 1, rules.stalemate_passes)
    per_play = 1 + passes + (players - 1) + 6 + players
    return 4 + plays_bound(rules) * per_play


def action_bound(rules: RuleSet, players: int) -> int:
    """An upper bound on the seat actions of a whole match (``game_action_bound``
    for each game of the set)."""
    return rules.games_per_set * game_action_bound(rules, players)


Chooser = Callable[[MatchState, list[SeatCommand]], SeatCommand]


def draw_chooser(data: st.DataObject) -> Chooser:
    def choose(state: MatchState, legal: list[SeatCommand]) -> SeatCommand:
        return legal[data.draw(st.integers(0, len(legal) - 1), label="action")]

    return choose


def decide_accepted(state: MatchState, command: Command) -> list[Event]:
    """``decide`` for a command that must be accepted; checks it is pure."""
    snapshot = state.copy()
    decision = decide(state, command)
    assert state == snapshot, f"decide changed its input state on {command}"
    assert not isinstance(decision, Refusal), f"{command} was refused: {decision}"
    return decision


def play_match(
    data: st.DataObject,
    rules: RuleSet,
    players: int,
    on_step: Callable[[Step], None] | None = None,
    choose: Chooser | None = None,
) -> Match:
    """A whole match: each deck order drawn, each action drawn among the legal
    ones (or chosen by ``choose``), until the match is over (or the action bound
    is broken)."""
    state = initial_state(rules, players)
    choose = draw_chooser(data) if choose is None else choose
    bound = action_bound(rules, players)
    steps: list[Step] = []
    actions = 0
    while state.phase != Phase.MATCH_OVER:
        command: Command
        if state.phase in (Phase.BEFORE_DEAL, Phase.GAME_OVER):
            command = data.draw(deals(rules, players), label="deal")
        else:
            assert state.phase == Phase.IN_GAME, state.phase
            legal = legal_actions(state)
            assert legal, f"nobody may act in {describe(state)}"
            command = choose(state, legal)
            actions += 1
            assert actions <= bound, f"no end after {bound} actions"
        events = decide_accepted(state, command)
        after = fold(state, events)
        step = Step(state, command, events, after)
        steps.append(step)
        if on_step is not None:
            on_step(step)
        state = after
    return Match(rules, players, steps, actions)


def play_set_up_game(
    data: st.DataObject,
    rules: RuleSet,
    players: int,
    set_up: SetUp,
    on_state: Callable[[MatchState], None] | None = None,
    on_step: Callable[[Step], None] | None = None,
) -> Match:
    """One game from a SetUp position, each action drawn among the legal ones,
    until the game is over. ``on_state`` sees each state where a seat acts,
    ``on_step`` each accepted command (the SetUp first)."""
    state = initial_state(rules, players)
    events = decide_accepted(state, set_up)
    steps = [Step(state, set_up, events, fold(state, events))]
    if on_step is not None:
        on_step(steps[-1])
    state = steps[-1].after
    choose = draw_chooser(data)
    bound = action_bound(rules.with_options({"games_per_set": 1}), players)
    while state.phase == Phase.IN_GAME:
        legal = legal_actions(state)
        assert legal, f"nobody may act in {describe(state)}"
        if on_state is not None:
            on_state(state)
        command = choose(state, legal)
        events = decide_accepted(state, command)
        steps.append(Step(state, command, events, fold(state, events)))
        if on_step is not None:
            on_step(steps[-1])
        state = steps[-1].after
        assert len(steps) <= bound, f"no end after {bound} actions"
    return Match(rules, players, steps, len(steps) - 1)


HAND_SIZES = st.integers(2, 6)


@st.composite
def small_set_ups(
    draw: st.DrawFn,
    without: frozenset[str] = frozenset(),
    hand_sizes: st.SearchStrategy[int] = HAND_SIZES,
) -> tuple[RuleSet, int, SetUp]:
    """A SetUp with ``hand_sizes`` cards per seat (2–6 unless told), a random
    leader, revolution and game number (with previous places, so exchanges and
    tenpenchi happen too)."""
    rules = draw(rule_sets(max_games=3, without=without))
    players = draw(players_counts, label="players")
    deck = list(draw(deck_orders(rules), label="deck"))
    sizes = draw(st.lists(hand_sizes, min_size=players, max_size=players), label="sizes")
    game_number = draw(st.integers(1, 3), label="game_number")
    previous = None
    low_seat = None
    if game_number > 1:
        order = draw(st.permutations(range(1, players + 1)), label="previous places")
        previous = tuple(order)
        if draw(st.booleans(), label="low hand for the last (tenpenchi)"):
            low_seat = previous.index(players)
    if low_seat is not None:
        # ranks 3..T only: deal that seat first, from the low cards
        low = [card for card in deck if card != JOKER and rank_of(card) <= RANK_T]
        first = low[: sizes[low_seat]]
        rest = [card for card in deck if card not in first or card == JOKER]
        deck = first + rest
        sizes = [sizes[low_seat], *sizes[:low_seat], *sizes[low_seat + 1 :]]
        seats = [low_seat, *(seat for seat in range(players) if seat != low_seat)]
    else:
        seats = list(range(players))
    hands = [0] * players
    offset = 0
    for seat, size in zip(seats, sizes, strict=True):
        hands[seat] = mask_of(deck[offset : offset + size])
        offset += size
    leader = draw(st.none() | st.integers(0, players - 1), label="leader")
    command = SetUp(
        hands=tuple(hands),
        leader=leader,
        revolution=draw(st.booleans(), label="revolution"),
        game_number=game_number,
        previous_places=previous,
        skip_exchange=draw(st.booleans(), label="skip_exchange"),
    )
    return rules, players, command


def subsets(mask: int) -> Iterator[int]:
    """Every non-empty sub-mask of ``mask`` (jokers by count, canonical)."""
    real = mask & REAL_CARDS
    jokers = joker_count(mask)
    sub = real
    while True:
        for used in range(jokers + 1):
            candidate = sub | JOKER_MASK_BY_COUNT[used]
            if candidate:
                yield candidate
        if sub == 0:
            return
        sub = (sub - 1) & real


def card_count(mask: int) -> int:
    return (mask & REAL_CARDS).bit_count() + joker_count(mask)


def describe(state: MatchState) -> str:
    """A short account of a state for assertion messages."""
    field = state.field
    return (
        f"{state!r} hands={[format_mask(h) for h in state.hands]}"
        f" field={format_mask(field.mask) if field else None}"
        f" kind={field.kind if field else None} as={field.jokers_as if field else None}"
        f" field_seat={state.field_seat} revolution={state.revolution}"
        f" eleven_back={state.eleven_back!r} direction={state.direction}"
        f" suit_lock={state.suit_lock} number_lock={state.number_lock}"
        f" omen={state.omen} passed={state.passed:b} active={state.active:b}"
        f" pending={state.pending} four_stop={state.four_stop}"
    )
