"""The deck the legality check hands ``Deal`` for a recorded deal deals exactly
the recorded hands, blind and unused cards, for any deck and table."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from service.audit.deals import deck_of_deal
from service.rules import Deal, Refusal, decide, fold, initial_state, rule_set
from service.rules.dealing import deck_for
from service.rules.events import GameDealt
from service.rules.vocabulary import Phase


@settings(max_examples=60, deadline=None)
@given(
    preset=st.sampled_from(["federation", "torasobi", "classic"]),
    players=st.integers(2, 5),
    jokers=st.integers(0, 2),
    orders=st.lists(st.randoms(use_true_random=False), min_size=2, max_size=2),
)
def test_a_recorded_deal_is_dealt_again(
    preset: str, players: int, jokers: int, orders: list[random.Random]
) -> None:
    state = initial_state(rule_set(preset, {"jokers": jokers}), players)
    for game in range(2):  # a second game leaves out the first one's blind cards
        deck = list(deck_for(state.rules))
        orders[game].shuffle(deck)
        dealt = decide(state, Deal(tuple(deck)))
        assert not isinstance(dealt, Refusal)
        assert isinstance(dealt[0], GameDealt)
        again = deck_of_deal(state, dealt[0])
        assert again is not None
        assert decide(state, Deal(again)) == dealt
        state = fold(state, dealt)
        state.phase = Phase.GAME_OVER  # the test's own copy: skip playing the game out


def test_hands_that_cannot_go_round_the_table() -> None:
    state = initial_state(rule_set("classic"), 3)
    deck = deck_for(state.rules)
    dealt = decide(state, Deal(deck))
    assert not isinstance(dealt, Refusal) and isinstance(dealt[0], GameDealt)
    hands = dealt[0].hands
    lopsided = (hands[0] | hands[1], 0, hands[2])
    assert deck_of_deal(state, GameDealt(1, lopsided, 0)) is None
    assert deck_of_deal(state, GameDealt(1, hands[:2], 0)) is None
