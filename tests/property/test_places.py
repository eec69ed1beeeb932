"""Property 3: the places at each game end are a permutation of 1..n, and
while a game runs no two seats that have left share a place."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from service.rules import RuleSet, evolve
from service.rules.events import GameEnded, PlayerFell, PlayerFinished

from ._support import Step, examples, play_match, players_counts, rule_sets


@settings(max_examples=examples(90))
@given(rules=rule_sets(), players=players_counts, data=st.data())
def test_places_are_a_permutation(rules: RuleSet, players: int, data: st.DataObject) -> None:
    everyone = list(range(1, players + 1))
    endings: list[tuple[int, ...]] = []

    def check_step(step: Step) -> None:
        state = step.before
        for event in step.events:
            state = evolve(state, event)
            placed = state.places()
            assert len(set(placed.values())) == len(placed), f"shared place: {placed}"
            assert all(1 <= place <= players for place in placed.values()), placed
            if isinstance(event, PlayerFinished | PlayerFell):
                assert 1 <= event.place <= players, event
                assert placed[event.seat] == event.place, (event, placed)
            if isinstance(event, GameEnded):
                assert sorted(event.places) == everyone, event
                assert state.places() == dict(enumerate(event.places))
                endings.append(event.places)

    match = play_match(data, rules, players, on_step=check_step)
    assert len(endings) == rules.games_per_set
    assert match.final.results == tuple(endings)
