"""Property 7: no view leaks a card before the match ends.

For every viewer (each seat, the spectator), after every event of a random
match, ``build_view`` and ``visible_record`` (not revealed) show no card the
viewer may not know. What a viewer may know, per game:

* the cards played on the field, and every discard (public: they go face up
  into the discard pile, docs/RULES.md §5.1);
* for a seat, every card that has been in its own hand this game: dealt,
  received by exchange, seven-pass or tenpenchi, and so also the cards it gave
  away, discarded or left the game with.

Everything else (other hands, the blind and unused cards, other seats'
seven-pass and leftover cards) must not show, nor the order a
stalemate would rank the players by (uecda). A record is judged
when its event happens: it is a pure function of the event, so it shows the
same later, when a viewer may only know more. Joker readings (``as``) name
stand-in cards, not held ones, and are not judged. The auditor's view must
refuse until the match is over, and then show everything."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.rules import RuleSet, SetUp, evolve
from service.rules import events as ev
from service.rules.cards import (
    JOKER_BIT,
    RANKS,
    REAL_CARDS,
    SUITS,
    add_cards,
    format_mask,
    joker_count,
    parse_card,
)
from service.rules.state import MatchState
from service.rules.views import (
    AUDITOR,
    SPECTATOR,
    Viewer,
    ViewNotOpen,
    build_view,
    visible_record,
)
from service.rules.vocabulary import Phase

from ._support import (
    Match,
    examples,
    play_match,
    play_set_up_game,
    players_counts,
    rule_sets,
    small_set_ups,
)

NOT_JUDGED = frozenset(
    {"jokers_as", "field_jokers_as", "last_play_jokers_as", "low", "high", "rank"}
)


def is_card_code(value: object) -> bool:
    return isinstance(value, str) and (
        value == "JK" or (len(value) == 2 and value[0] in RANKS and value[1] in SUITS)
    )


def shown_cards(value: Any, key: str = "") -> Iterator[tuple[str, int]]:
    """Every card list (as a mask) or lone card code inside a record or view."""
    if key in NOT_JUDGED:
        return
    if isinstance(value, dict):
        for name, item in value.items():
            yield from shown_cards(item, str(name))
    elif isinstance(value, list | tuple):
        if value and all(is_card_code(item) for item in value):
            mask = 0
            for item in value:
                card = parse_card(item)
                mask = add_cards(mask, JOKER_BIT if card == 52 else 1 << card)
            yield key, mask
        else:
            for item in value:
                yield from shown_cards(item, key)
    elif is_card_code(value):
        card = parse_card(value)
        yield key, JOKER_BIT if card == 52 else 1 << card


class Knowledge:
    """What each viewer may know in the current game (index ``players`` is
    the spectator)."""

    def __init__(self, players: int, jokers: int) -> None:
        self.players = players
        self.jokers = jokers
        self.reset(None)

    def reset(self, state: MatchState | None) -> None:
        self.public_real = 0
        self.public_jokers = 0
        self.held_real = [0] * self.players
        self.held_jokers = [0] * self.players
        if state is not None:
            self.observe_hands(state, (0,) * self.players)

    def observe_hands(self, state: MatchState, before: tuple[int, ...]) -> None:
        for seat, hand in enumerate(state.hands):
            self.held_real[seat] |= hand & REAL_CARDS
            gained = joker_count(hand) - joker_count(before[seat])
            if gained > 0:
                self.held_jokers[seat] += gained

    def make_public(self, cards: int) -> None:
        self.public_real |= cards & REAL_CARDS
        self.public_jokers += joker_count(cards)

    def allows(self, viewer: int, cards: int) -> bool:
        real = self.public_real
        jokers = self.public_jokers
        if viewer < self.players:
            real |= self.held_real[viewer]
            jokers += self.held_jokers[viewer]
        return cards & REAL_CARDS & ~real == 0 and joker_count(cards) <= min(jokers, self.jokers)


def viewers(players: int) -> list[tuple[int, Viewer]]:
    return [(seat, Viewer.of_seat(seat)) for seat in range(players)] + [(players, SPECTATOR)]


def check_shown(knowledge: Knowledge, index: int, shown: Any, what: str) -> None:
    for key, cards in shown_cards(shown):
        assert knowledge.allows(index, cards), (
            f"{what}: {key}={format_mask(cards)} shows cards it may not know"
        )


def check_match(match: Match) -> None:
    players = match.players
    knowledge = Knowledge(players, match.rules.jokers)
    with pytest.raises(ViewNotOpen):
        build_view(match.initial, AUDITOR)
    for number, step in enumerate(match.steps):
        state = step.before
        for event in step.events:
            before = state.hands
            state = evolve(state, event)
            if isinstance(event, ev.GameDealt):
                knowledge.reset(state)
            else:
                knowledge.observe_hands(state, before)
            if isinstance(event, ev.CardsPlayed):
                knowledge.make_public(event.cards)
            if isinstance(event, ev.CardsDiscarded):
                knowledge.make_public(event.cards)
            if state.phase == Phase.MATCH_OVER:
                break
            with pytest.raises(ViewNotOpen):
                build_view(state, AUDITOR)
            replayed = build_view(state, AUDITOR, match_over=True)  # once it has ended
            assert replayed.hands == tuple(tuple(format_mask(hand)) for hand in state.hands)
            assert replayed.blind == tuple(format_mask(state.blind))
            for index, viewer in viewers(players):
                where = f"command {number} ({step.command}), {type(event).__name__}, {viewer}"
                record = visible_record(event, viewer, revealed=False)
                check_shown(knowledge, index, record, f"record of {where}")
                if isinstance(event, ev.GameDealt):  # the draw a stalemate ranks by
                    assert not record["stalemate"], where
                view = build_view(state, viewer)
                assert view.hands is None and view.blind is None, where
                assert view.unused is None, where
                # ten-discarded and bombed cards are face up (docs/RULES.md §5.6 #25)
                assert view.out_of_play == tuple(format_mask(state.out)), where
                own = state.hands[index] if index < players else None
                assert view.hand == (None if own is None else tuple(format_mask(own))), where
                check_shown(knowledge, index, view.to_dict(), f"view after {where}")


@settings(max_examples=examples(35))
@given(rules=rule_sets(), players=players_counts, data=st.data())
def test_views_leak_no_cards(rules: RuleSet, players: int, data: st.DataObject) -> None:
    match = play_match(data, rules, players)
    check_match(match)
    # the match is over: the auditor sees every card
    final = match.final
    audit = build_view(final, AUDITOR)
    assert audit.hands is not None and audit.blind is not None
    assert audit.hands == tuple(tuple(format_mask(hand)) for hand in final.hands)
    assert audit.blind == tuple(format_mask(final.blind))


@settings(max_examples=examples(150))
@given(position=small_set_ups(), data=st.data())
def test_views_of_small_positions_leak_no_cards(
    position: tuple[RuleSet, int, SetUp], data: st.DataObject
) -> None:
    """Small hands from SetUp: later games with exchanges, tenpenchi swaps and
    quick finishes come up far more often than in whole dealt matches."""
    rules, players, set_up = position
    check_match(play_set_up_game(data, rules, players, set_up))
