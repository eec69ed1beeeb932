"""The public position a seat's View shows (``position_of``): it holds no card,
and the engine's judgments of every legal play on it agree with their judgments
on the match's own state, so a client judges plays as the engine does."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from clients.sdk import view_from_message
from service import scenarios
from service.app.selfplay import play_match, random_policy
from service.grpc.gen.daifugo.v1 import match_service_pb2 as pb
from service.grpc.mapping import view_message
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
from service.rules.state import HOLDINGS_FIELDS, POSITION_FIELDS, MatchState, Position
from service.rules.views import SPECTATOR, Viewer, build_view, position_of
from service.rules.vocabulary import Phase


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


SCENARIOS = Path(__file__).parent.parent / "scenarios"
PRESETS = ["federation", "torasobi", "classic", "uecda", "many", "further"]


def test_a_position_holds_every_field_but_the_holdings() -> None:
    assert {"trick", "last_play", "recent_suits", "leisure_seat", "pending"} <= set(POSITION_FIELDS)
    assert not set(POSITION_FIELDS) & set(HOLDINGS_FIELDS)


def same_public_position(state: MatchState, where: object) -> set[str]:
    """Check the acting seat's and a spectator's positions against ``state``; the
    public fields ``state`` holds away from their values before any deal."""
    seat = state.turn if state.turn is not None else 0
    for viewer in (Viewer.of_seat(seat), SPECTATOR):
        position = position_of(build_view(state, viewer), state.rules)
        # a Position has no field for a hand, the blind, the unused or the discarded
        # cards, a king pastor's choice or the stalemate draw
        assert type(position) is Position
        assert not any(hasattr(position, name) for name in HOLDINGS_FIELDS)
        for name in POSITION_FIELDS:
            assert getattr(position, name) == getattr(state, name), (name, viewer, where)
        assert position.waiting_for == state.waiting_for
    before = initial_state(state.rules, state.players)
    return {name for name in POSITION_FIELDS if getattr(state, name) != getattr(before, name)}


MOVED_BY_EVERY_MATCH = {"phase", "trick", "last_play", "last_seat", "pass_run", "pile", "results"}


@pytest.mark.parametrize("preset", PRESETS)
def test_a_views_position_is_the_states_public_position_at_every_step(preset: str) -> None:
    rules = rules_of(preset)
    policies = [random_policy(random.Random(seat)) for seat in range(4)]
    played = play_match(rules, 4, preset.encode(), policies)
    state = initial_state(rules, 4)
    moved = same_public_position(state, "before the deal")
    for event in played.events:
        state = evolve(state, event)
        moved |= same_public_position(state, event)
    assert moved >= MOVED_BY_EVERY_MATCH  # the comparison was not idle


def test_the_scenarios_positions_are_the_states_public_positions() -> None:
    """The scenarios play each rule's rare moments (an omen, a strong eleven-back,
    every pick and step) that random matches seldom reach."""
    moved: set[str] = set()
    for path in sorted(SCENARIOS.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        state = scenarios.start_of(data)
        moved |= same_public_position(state, path.name)
        for number, step in enumerate(data.get("steps", []), start=1):
            decision = scenarios.decision_of(state, step)
            for event in decision if isinstance(decision, list) else ():
                state = evolve(state, event)
                moved |= same_public_position(state, (path.name, number, event))
    # every public field but the table's own (players, rules) moved in some scenario
    assert set(POSITION_FIELDS) - moved <= {"players", "rules", "seating"}


@pytest.mark.parametrize("preset", PRESETS)
def test_a_views_position_is_judged_as_the_state(preset: str) -> None:
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
        assert position.reversed_order == state.reversed_order
        assert position.turn_direction == state.turn_direction
        for action in legal_actions(state):
            if isinstance(action, Play):
                assert judged(position, action) == judged(state, action), action
                compared += 1
    assert compared > 100


@pytest.mark.parametrize("preset", ["uecda", "further"])
def test_a_view_crosses_grpc_whole(preset: str) -> None:
    """The SDK reads back every field of the View the service sends, so a client's
    position over gRPC is the one above."""
    rules = rules_of(preset)
    policies = [random_policy(random.Random(seat)) for seat in range(4)]
    played = play_match(rules, 4, preset.encode(), policies)
    state = initial_state(rules, 4)
    for event in played.events:
        state = evolve(state, event)
        if state.phase == Phase.MATCH_OVER:
            break
        for viewer in (Viewer.of_seat(state.turn or 0), SPECTATOR):
            view = build_view(state, viewer)
            assert view_from_message(view_message(view)) == view, (viewer, event)
            answer = pb.ActResponse()  # filled in place, as the servicer does, alike
            view_message(view, None, answer.view)
            assert answer.view == view_message(view), (viewer, event)
