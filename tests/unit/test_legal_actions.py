"""``legal_actions`` agrees with ``decide``: every action it lists is accepted
(sound), and every play ``decide`` accepts is listed (complete), checked by
trying every subset of the hand in positions that exercise the rules."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest

from service.rules import MatchState, Refusal, decide
from service.rules.cards import cards_of, mask_of
from service.rules.commands import Give, Pass, Play
from service.rules.legal import legal_actions

from .scenario_helpers import pass_, play, run

POSITIONS: dict[str, dict[str, Any]] = {
    "federation lead with jokers and stairs": dict(
        preset="federation", hands=["3D 4D 5D JK JK 6S 6H 9C", "4C", "5C"], steps=[], leader=0
    ),
    "single joker on the field": dict(
        preset="federation",
        hands=["JK 9C", "3S 3H 3C 3D 2S 4S", "KC"],
        steps=[play(0, "JK")],
        leader=0,
        options={"sandstorm": True},
    ),
    "suit lock with a joker in hand": dict(
        preset="federation",
        hands=["4D 4S KC", "7D 7S 3H", "9D JK 9C 9H TS TD"],
        steps=[play(0, "4D 4S"), play(1, "7D 7S")],
        leader=0,
    ),
    "torasobi number and suit lock": dict(
        preset="torasobi",
        hands=["5D KC", "6D 3H", "7H 8D 7D JK 9D"],
        steps=[play(0, "5D"), play(1, "6D")],
        leader=0,
    ),
    "classic first lead": dict(
        preset="classic",
        hands=["3D 4D 5D 3C 9S JK", "4C", "5C"],
        steps=[],
    ),
    "stairs field in revolution": dict(
        preset="torasobi",
        hands=["5S 6S 7S 9C", "3D 4D 6D JK 2H AH KH", "QC"],
        steps=[play(0, "5S 6S 7S")],
        leader=0,
        revolution=True,
    ),
    "emperor on a single": dict(
        preset="torasobi",
        hands=["TS 9C", "9S 4H 5S 6D 7C 8S", "QC"],
        steps=[play(0, "TS")],
        leader=0,
        options={"emperor": True},
    ),
    "down number": dict(
        preset="torasobi",
        hands=["TS 9C", "9S 4H 5S 6D 7C 8S JS", "QC"],
        steps=[play(0, "TS")],
        leader=0,
        options={"down_number": True},
    ),
    "four-stop answer": dict(
        preset="torasobi",
        hands=["8S KD", "4H 4D 4C JK", "QH"],
        steps=[play(0, "8S")],
        leader=0,
        options={"four_stop": True},
    ),
    "torasobi passed player again": dict(
        preset="torasobi",
        hands=["4D 9C KS", "5S AH 2H", "6H QD"],
        steps=[play(0, "4D"), pass_(1), play(2, "6H"), play(0, "9C")],
        leader=0,
    ),
}


def position(name: str) -> MatchState:
    spec = dict(POSITIONS[name])
    return run(spec.pop("preset"), spec.pop("hands"), spec.pop("steps"),
               spec.pop("options", None), **spec)  # fmt: skip


def subsets(hand: int) -> list[int]:
    cards = cards_of(hand)
    found = set()
    for size in range(1, len(cards) + 1):
        for chosen in combinations(cards, size):
            found.add(mask_of(chosen))
    return sorted(found)


@pytest.mark.parametrize("name", list(POSITIONS))
def test_every_listed_action_is_accepted(name: str) -> None:
    state = position(name)
    actions = legal_actions(state)
    assert actions
    for action in actions:
        assert not isinstance(decide(state, action), Refusal), action


@pytest.mark.parametrize("name", list(POSITIONS))
def test_every_accepted_play_is_listed(name: str) -> None:
    state = position(name)
    seat = state.turn
    assert seat is not None
    listed = {a.cards for a in legal_actions(state) if isinstance(a, Play)}
    accepted = {
        mask
        for mask in subsets(state.hands[seat])
        if not isinstance(decide(state, Play(seat, mask)), Refusal)
    }
    assert accepted <= listed


@pytest.mark.parametrize("name", list(POSITIONS))
def test_pass_is_listed_exactly_when_accepted(name: str) -> None:
    state = position(name)
    seat = state.turn
    assert seat is not None
    listed = any(isinstance(a, Pass) for a in legal_actions(state))
    assert listed == (not isinstance(decide(state, Pass(seat)), Refusal))


def test_exchange_lists_exactly_the_strongest_gives() -> None:
    state = run("torasobi", ["KC 4D 9H", "AH 5D 6D", "AC AS AD 3S"], [],
                previous_places=[2, 1, 3])  # fmt: skip
    gives = {a.cards for a in legal_actions(state) if isinstance(a, Give)}
    assert gives == {mask_of(c) for c in combinations(cards_of(state.hands[2])[1:], 2)}
