"""The public position a seat's View shows (``position_of``): it holds no card,
and the engine's judgments of every legal play on it agree with their judgments
on the match's own state, so a client judges plays as the engine does."""

from __future__ import annotations

import random

import pytest

from service.app.selfplay import play_match, random_policy
from service.rules import initial_state, rule_set
from service.rules.commands import Play
from service.rules.evolve import evolve, runs_counted
from service.rules.judging import (
    ends_eleven_back,
    field_refusal,
    flush_reason,
    four_stop_applies,
    is_forbidden_finish,
    revolution_cause,
    starts_eleven_back,
    starts_number_lock,
    starts_suit_lock,
    starts_two_back,
)
from service.rules.legal import legal_actions
from service.rules.melds import classify
from service.rules.rulesets import RuleSet, all_local_rules_on
from service.rules.state import HOLDINGS_FIELDS, Position
from service.rules.views import Viewer, build_view, position_of
from service.rules.vocabulary import Phase

PUBLIC = (
    "players", "in_force", "phase", "game_number", "previous_places", "results", "turn",
    "field", "field_seat", "passed", "active", "revolution", "eleven_back", "direction",
    "omen", "suit_lock", "suit_run", "suit_run_suits", "number_lock", "number_run",
    "two_back", "color_lock", "partial_lock", "pile",
)  # fmt: skip


def judged(state: Position, play: Play) -> tuple[object, ...]:
    meld = classify(
        play.cards,
        play.jokers_as,
        reversed_order=state.reversed_order,
        stairs_allowed=True,
        emperor_allowed=True,
        past_ends=True,
        joker_suits=state.rules.joker_suits,
    )
    assert meld is not None and state.turn is not None
    after = runs_counted(state, meld)
    return (
        revolution_cause(state, meld),
        flush_reason(state, meld),
        four_stop_applies(state, meld),
        is_forbidden_finish(state, meld),
        starts_eleven_back(state, meld),
        ends_eleven_back(state, meld),
        starts_two_back(state, meld),
        field_refusal(state, meld),
        starts_suit_lock(after),
        after.suit_run_suits,
        starts_number_lock(after),
    )


def rules_of(preset: str) -> RuleSet:
    if preset == "many":
        return rule_set("torasobi", {
            "games_per_set": 3, "sandstorm": True, "ambulance": True, "rokurokubi": True,
            "four_stop": True, "emperor": True, "coup": True, "great_revolution": True,
            "omen": True, "down_number": True, "lucky_seven": True, "eleven_back": "strength",
        })  # fmt: skip
    if preset == "further":  # every local rule of docs/RULES.md §3 and §5 on
        return all_local_rules_on(rule_set("torasobi", {"games_per_set": 3}))
    return rule_set(preset, {"games_per_set": 3})


@pytest.mark.parametrize(
    "preset", ["federation", "torasobi", "classic", "uecda", "many", "further"]
)
def test_a_views_position_holds_no_card_and_is_judged_as_the_state(preset: str) -> None:
    rules = rules_of(preset)
    policies = [random_policy(random.Random(seat)) for seat in range(4)]
    played = play_match(rules, 4, preset.encode(), policies)
    state = initial_state(rules, 4)
    compared = 0
    for event in played.events:
        state = evolve(state, event)
        if state.phase != Phase.IN_GAME or state.turn is None:
            continue
        position = position_of(build_view(state, Viewer.of_seat(state.turn)), rules)
        # a Position has no field for a hand, the blind, the unused or the discarded cards
        assert type(position) is Position and not any(hasattr(position, n) for n in HOLDINGS_FIELDS)
        assert position.trick == 0
        assert position.exchange_steps == () and position.stalemate == ()
        for name in PUBLIC:
            assert getattr(position, name) == getattr(state, name), name
        assert position.reversed_order == state.reversed_order
        assert position.turn_direction == state.turn_direction
        for action in legal_actions(state):
            if isinstance(action, Play):
                assert judged(position, action) == judged(state, action), action
                compared += 1
    assert compared > 100
