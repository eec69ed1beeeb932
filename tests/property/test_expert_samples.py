"""The expert's samples never contradict what its seat saw.

Stronger bots play a match (the preset, the seat watched, the deals and the
sampling seed drawn by Hypothesis); at each of the watched seat's turns its
knowledge is worked out as the expert does, from its views and its own actions
alone (``Memory``). Then:

* the true hands fit that knowledge (it claims nothing false: the ceiling the
  exchange implies, the cards it gave, the unseen pool);
* every sample fits it too: the seat's own hand exactly, every hand's size, no
  card on the field or in the discard pile, the cards it gave in the receiver's
  hand unless played since, no lower player holding a card stronger than the
  exchange let it keep, ♢3 with the seat the first lead went to for holding it;
* and a sample is a state the engine plays on: the seat's legal actions in it are
  the ones it has in the match.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from clients.bots import StrongerBot
from clients.expert import Memory, sample_hands, sampled_state
from clients.strategy import Table
from service.match.shuffle import game_deal
from service.rules import Folded, decide_and_fold, initial_state, rule_set
from service.rules.cards import REAL_CARDS, add_cards, joker_count
from service.rules.legal import legal_actions
from service.rules.views import Viewer, build_view
from service.rules.vocabulary import Phase

from ._support import examples

PRESETS = ("federation", "torasobi", "uecda", "classic")


@settings(max_examples=examples(12))
@given(
    preset=st.sampled_from(PRESETS),
    players=st.integers(4, 5),
    watched=st.integers(0, 4),
    seed=st.binary(min_size=4, max_size=8),
    sampling=st.integers(0, 2**32),
)
def test_samples_fit_what_the_seat_saw(
    preset: str, players: int, watched: int, seed: bytes, sampling: int
) -> None:
    watched %= players
    rules = rule_set(preset).with_options({"games_per_set": 3})
    bots = [StrongerBot(rules) for _ in range(players)]
    memory = Memory()
    rng = random.Random(sampling)
    state = initial_state(rules, players)
    checked = 0
    while state.phase != Phase.MATCH_OVER:
        if state.phase != Phase.IN_GAME:
            folded = decide_and_fold(state, game_deal(rules, players, seed, state.game_number + 1))
            assert isinstance(folded, Folded)
            state = folded.state
            continue
        seat = state.turn
        assert seat is not None
        legal = legal_actions(state)
        view = build_view(state, Viewer.of_seat(seat))
        action = bots[seat].choose(view, legal)
        if seat == watched:
            position = Table.for_view(view, rules).position(view)
            memory.observe(view, position)
            knowledge = memory.knowledge(view, position)
            assert knowledge.consistent(state.hands), "the truth contradicts the knowledge"
            for _ in range(3):
                hands, rest = sample_hands(knowledge, rng)
                assert knowledge.consistent(hands)
                assert hands[seat] == state.hands[seat]
                assert [h.bit_count() for h in hands] == [h.bit_count() for h in state.hands]
                public = add_cards(state.pile, state.trick)
                assert all(hand & public & REAL_CARDS == 0 for hand in hands), "a public card"
                jokers = sum(joker_count(hand) for hand in hands) + joker_count(public)
                assert jokers <= rules.jokers
                sample = sampled_state(position, hands, rest, rng)
                assert legal_actions(sample) == legal
            memory.chose(view, position, action)
            checked += 1
        folded = decide_and_fold(state, action)
        assert isinstance(folded, Folded)
        state = folded.state
    assert checked
