"""Property 2: cards are conserved after every event.

Hands (the cards a player keeps on leaving included) + the cards on the field
this trick + the discard pile (flushed and discarded cards, less those picked
back, docs/RULES.md §5.1) + blind + unused cards are the whole deck of the rule
set, with no card in two places."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from service.rules import RuleSet, evolve
from service.rules.cards import REAL_CARDS, format_mask, joker_count
from service.rules.state import MatchState
from service.rules.vocabulary import Phase

from ._support import Step, examples, play_match, players_counts, rule_sets, whole_deck


def places_of_cards(state: MatchState) -> dict[str, int]:
    places = {f"hand {seat}": hand for seat, hand in enumerate(state.hands)}
    places.update(trick=state.trick, pile=state.pile, blind=state.blind, unused=state.unused)
    return places


def check_conserved(state: MatchState, deck: int, where: str) -> None:
    places = places_of_cards(state)
    seen = 0
    for name, mask in places.items():
        assert mask >= 0 and not mask >> 54, f"{where}: {name} holds no cards ({mask:#x})"
        overlap = seen & mask & REAL_CARDS
        assert not overlap, f"{where}: {format_mask(overlap)} also in {name}"
        seen |= mask & REAL_CARDS
    jokers = sum(joker_count(mask) for mask in places.values())
    assert jokers == joker_count(deck), f"{where}: {jokers} jokers, deck has {joker_count(deck)}"
    missing = deck & REAL_CARDS & ~seen
    extra = seen & ~deck
    assert not missing, f"{where}: {format_mask(missing)} vanished"
    assert not extra, f"{where}: {format_mask(extra)} are not in the deck"


@settings(max_examples=examples(90))
@given(rules=rule_sets(), players=players_counts, data=st.data())
def test_cards_are_conserved_after_every_event(
    rules: RuleSet, players: int, data: st.DataObject
) -> None:
    deck = whole_deck(rules)

    def check_step(step: Step) -> None:
        state = step.before
        for index, event in enumerate(step.events):
            state = evolve(state, event)
            if state.phase != Phase.BEFORE_DEAL:
                check_conserved(state, deck, f"after {type(event).__name__} #{index}")

    play_match(data, rules, players, on_step=check_step)
