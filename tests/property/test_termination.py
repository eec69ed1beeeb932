"""Property 1: every match played by random legal actions ends.

The match driver refuses to go past ``action_bound`` seat actions, and at
every state of a game in progress some action must be legal (a game where
nobody may act never ends)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from service.rules import RuleSet
from service.rules.legal import legal_actions
from service.rules.vocabulary import Phase

from ._support import STEPS_AFTER_LEAVING, examples, play_match, players_counts, rule_sets


@settings(max_examples=examples(100))
@given(rules=rule_sets(), players=players_counts, data=st.data())
def test_matches_end_within_the_bound(rules: RuleSet, players: int, data: st.DataObject) -> None:
    match = play_match(data, rules, players)
    final = match.final
    assert final.phase == Phase.MATCH_OVER
    assert final.game_number == rules.games_per_set
    assert len(final.results) == rules.games_per_set
    assert legal_actions(final) == []
    for state in match.states():
        if state.phase == Phase.IN_GAME:
            assert state.turn is not None
            assert 0 <= state.turn < players
            if not state.is_active(state.turn):
                left = state.waiting_for in STEPS_AFTER_LEAVING and not state.hands[state.turn]
                assert left, f"seat {state.turn} acts but has left"
