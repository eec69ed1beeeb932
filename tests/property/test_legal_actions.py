"""Property 6: ``legal_actions`` is sound and complete.

Sound: every listed action is accepted by ``decide``, and none is listed
twice. Complete: from small SetUp positions (2–6 cards a seat), at every
state of the game, every subset of the acting seat's hand that ``decide``
accepts as a Play (with the default joker reading or any reading that could
fit) is listed by its card mask, and its effect (the events, joker readings
aside) is the effect of a listed play of that mask; every accepted pass,
give, discard and bomb is listed. In whole matches, random plays, gives,
discards and bombs that ``decide`` accepts are listed too."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations, product

from hypothesis import event, given, settings
from hypothesis import strategies as st

from service.rules import (
    Bomb,
    Discard,
    Give,
    Pass,
    Play,
    Refusal,
    RuleSet,
    SetUp,
    decide,
    fold,
    initial_state,
    rule_set,
)
from service.rules import events as ev
from service.rules.cards import (
    REAL_CARDS,
    cards_of,
    joker_count,
    make_card,
    mask_of,
    parse_cards,
    reading_card,
)
from service.rules.commands import SeatCommand
from service.rules.legal import legal_actions
from service.rules.melds import ranks_in
from service.rules.state import MatchState
from service.rules.vocabulary import Phase, WaitingFor

from ._support import (
    NO_SHRINK,
    Step,
    card_count,
    decide_accepted,
    describe,
    examples,
    play_match,
    play_set_up_game,
    players_counts,
    rule_sets,
    small_set_ups,
    subsets,
)

# above this many cards in the acting hand only soundness is checked
MAX_COMPLETE = 8


def joker_readings(cards: int) -> list[tuple[int, ...]]:
    """The default reading, and every reading ``classify`` could take: each
    joker as a card of the group's rank, or of the stairs' suit (past the ends
    too)."""
    jokers = joker_count(cards)
    present = ranks_in(cards & REAL_CARDS)
    if not jokers or not present:
        return [()]
    suits = 0
    for _, suit_set in present:
        suits |= suit_set
    if len(present) == 1:
        stand_ins = [make_card(present[0][0], suit) for suit in range(4)]
    elif suits.bit_count() == 1:
        # -1 and 13: below the 3 and above the 2, where the rules allow it
        stand_ins = [reading_card(rank, suits.bit_length() - 1) for rank in range(-1, 14)]
    else:
        return [()]
    return [(), *product(stand_ins, repeat=jokers)]


def effect(events: list[ev.Event]) -> tuple[ev.Event, ...]:
    """The events of a play, with the joker reading it named taken out."""
    return tuple(
        replace(event, jokers_as=()) if isinstance(event, ev.CardsPlayed) else event
        for event in events
    )


def accepted(state: MatchState, command: SeatCommand) -> list[ev.Event] | None:
    decision = decide(state, command)
    return None if isinstance(decision, Refusal) else decision


def check_sound(state: MatchState, legal: list[SeatCommand]) -> None:
    assert len(set(legal)) == len(legal), f"an action listed twice in {describe(state)}"
    for action in legal:
        decide_accepted(state, action)


def check_complete(state: MatchState, legal: list[SeatCommand]) -> None:
    seat = state.turn
    assert seat is not None
    hand = state.hands[seat]
    where = describe(state)

    listed_plays: dict[int, set[tuple[ev.Event, ...]]] = {}
    for action in legal:
        if isinstance(action, Play):
            listed_events = decide_accepted(state, action)
            listed_plays.setdefault(action.cards, set()).add(effect(listed_events))
    for cards in subsets(hand):
        for reading in joker_readings(cards):
            command = Play(seat, cards, reading)
            taken = accepted(state, command)
            if taken is None:
                continue
            assert cards in listed_plays, f"{command} is accepted, not listed, in {where}"
            assert effect(taken) in listed_plays[cards], (
                f"{command} is accepted with an effect no listed play has, in {where}"
            )

    assert (accepted(state, Pass(seat)) is not None) == (Pass(seat) in legal), where

    for make in (Give, Discard):
        listed = {a.cards for a in legal if isinstance(a, make)}
        chosen = {cards for cards in subsets(hand) if accepted(state, make(seat, cards))}
        assert chosen == listed, f"{make.__name__}: accepted {chosen}, listed {listed} in {where}"

    listed_bombs = {tuple(sorted(a.ranks)) for a in legal if isinstance(a, Bomb)}
    sizes = range(1, 5) if state.waiting_for == WaitingFor.QUEEN_BOMBER else range(1, 2)
    taken_bombs = {
        ranks
        for size in sizes
        for ranks in combinations(range(13), size)
        if accepted(state, Bomb(seat, ranks))
    }
    assert taken_bombs == listed_bombs, f"bombs: {taken_bombs} vs {listed_bombs} in {where}"


# -- small positions: every subset of the hand --------------------------------


def walk_small_position(position: tuple[RuleSet, int, SetUp], data: st.DataObject) -> None:
    rules, players, set_up = position

    def check(state: MatchState) -> None:
        legal = legal_actions(state)
        check_sound(state, legal)
        assert state.turn is not None
        if card_count(state.hands[state.turn]) <= MAX_COMPLETE:
            event(f"complete: {state.waiting_for}")
            check_complete(state, legal)

    play_set_up_game(data, rules, players, set_up, on_state=check)


@settings(max_examples=examples(60), phases=NO_SHRINK)
@given(position=small_set_ups(), data=st.data())
def test_legal_actions_are_sound_and_complete(
    position: tuple[RuleSet, int, SetUp], data: st.DataObject
) -> None:
    walk_small_position(position, data)


# -- whole matches: random commands that decide accepts are listed -------------

READINGS = st.lists(st.integers(0, 52), max_size=2).map(tuple)
RANK_LISTS = st.lists(st.integers(0, 12), min_size=1, max_size=4, unique=True)
KINDS = st.sampled_from(["play", "play as", "give", "discard", "bomb"])
# strategies are built once per hand size: building them per state is slow
_PICKS = {
    size: st.lists(st.integers(0, size - 1), min_size=1, max_size=min(6, size), unique=True)
    for size in range(1, 60)
}


def draw_random_command(data: st.DataObject, state: MatchState) -> SeatCommand:
    """A random play (random joker reading or none), give, discard or bomb
    from the acting seat's hand."""
    seat = state.turn
    assert seat is not None
    cards = cards_of(state.hands[seat])
    kind = data.draw(KINDS, label="kind")
    if kind == "bomb":
        return Bomb(seat, tuple(data.draw(RANK_LISTS, label="ranks")))
    chosen = mask_of(cards[i] for i in data.draw(_PICKS[len(cards)], label="cards"))
    if kind == "play as":
        return Play(seat, chosen, data.draw(READINGS, label="as"))
    if kind == "give":
        return Give(seat, chosen)
    if kind == "discard":
        return Discard(seat, chosen)
    return Play(seat, chosen)


def command_key(command: SeatCommand) -> tuple[object, ...]:
    if isinstance(command, Bomb):
        return (Bomb, tuple(sorted(command.ranks)))
    return (type(command), getattr(command, "cards", None))


def check_random_commands(rules: RuleSet, players: int, data: st.DataObject) -> None:
    def probe(step: Step) -> None:
        state = step.before
        if state.phase != Phase.IN_GAME or state.turn is None or not state.hands[state.turn]:
            return
        for _ in range(2):
            command = draw_random_command(data, state)
            if accepted(state, command) is not None:
                listed = {command_key(action) for action in legal_actions(state)}
                assert command_key(command) in listed, (
                    f"{command} is accepted, not listed, in {describe(state)}"
                )

    play_match(data, rules, players, on_step=probe)


@settings(max_examples=examples(30), phases=NO_SHRINK)
@given(rules=rule_sets(), players=players_counts, data=st.data())
def test_accepted_commands_are_listed(rules: RuleSet, players: int, data: st.DataObject) -> None:
    check_random_commands(rules, players, data)


# -- once-missing plays, as minimal examples -----------------------------------


def after_lead(options: dict[str, object], hands: list[str], lead: str) -> MatchState:
    """Two players, federation with ``options``; seat 1 leads ``lead``."""
    rules = rule_set("federation", options)
    masks = tuple(mask_of(parse_cards(hand.split())) for hand in hands)
    state = initial_state(rules, 2)
    state = fold(state, decide_accepted(state, SetUp(masks, leader=1)))
    return fold(state, decide_accepted(state, Play(1, mask_of(parse_cards(lead.split())))))


def test_a_sandstorm_on_a_stronger_triple_is_listed() -> None:
    state = after_lead({"sandstorm": True}, ["3D 3C 3H", "6D 6C 6H 7S"], "6D 6C 6H")
    sandstorm = Play(0, mask_of(parse_cards(["3D", "3C", "3H"])))
    decide_accepted(state, sandstorm)
    assert sandstorm in legal_actions(state)


def test_an_emperor_quad_on_a_stronger_quad_is_listed() -> None:
    options: dict[str, object] = {"emperor": True, "revolution": False}
    state = after_lead(options, ["3D 3C 3H 3S", "6D 6C 6H JK 7S"], "6D 6C 6H JK")
    emperor = Play(0, mask_of(parse_cards(["3D", "3C", "3H", "3S"])))
    decide_accepted(state, emperor)
    assert emperor in legal_actions(state)
