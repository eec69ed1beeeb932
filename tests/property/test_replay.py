"""Property 4: replay = live. Folding every event again from the initial
state, event by event with ``evolve`` or in one ``fold``, gives the states the
live match went through; neither touches the state it starts from."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from service.rules import Folded, RuleSet, decide, decide_and_fold, evolve, fold, initial_state

from ._support import examples, play_match, players_counts, rule_sets


@settings(max_examples=examples(80))
@given(rules=rule_sets(), players=players_counts, data=st.data())
def test_replay_equals_live(rules: RuleSet, players: int, data: st.DataObject) -> None:
    match = play_match(data, rules, players)
    initial = initial_state(rules, players)
    assert initial == match.initial

    # one fold of everything
    assert fold(initial, match.events) == match.final

    # event by event, compared with the live state after each command
    state = initial
    for number, step in enumerate(match.steps):
        for event in step.events:
            snapshot = state.copy()
            after = evolve(state, event)
            assert state == snapshot, f"evolve changed its input on {event}"
            state = after
        assert state == step.after, f"after command {number}: {step.command}"

    # a fold from any live state onwards reaches the same end
    cut = data.draw(st.integers(0, len(match.steps) - 1), label="cut")
    rest = [event for step in match.steps[cut:] for event in step.events]
    start = match.steps[cut].before
    snapshot = start.copy()
    assert fold(start, rest) == match.final
    assert start == snapshot, "fold changed the state it started from"


@settings(max_examples=examples(60))
@given(rules=rule_sets(), players=players_counts, data=st.data())
def test_decide_and_fold_gives_the_events_of_decide_and_the_state_of_fold(
    rules: RuleSet, players: int, data: st.DataObject
) -> None:
    match = play_match(data, rules, players)
    for step in match.steps:
        snapshot = step.before.copy()
        folded = decide_and_fold(step.before, step.command)
        assert isinstance(folded, Folded), step.command
        assert folded.events == step.events == decide(step.before, step.command)
        assert folded.state == step.after == fold(step.before, folded.events)
        assert folded.state is not step.before and step.before == snapshot
