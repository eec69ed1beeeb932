"""The judgments a client asks of the engine instead of knowing a rule itself
(docs/RULES.md §3, §5): which cards ask for a pick again, how many cards a play
passes on or discards, what returns a single joker. Each holds on the match's
state and on the public position a seat's view shows alike."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from service import scenarios
from service.rules import rule_set
from service.rules.cards import parse_card, rank_mask
from service.rules.evolve import fold
from service.rules.judging import (
    field_refusal,
    joker_returners,
    number_lock_admits,
    pick_triggers,
    seven_pass_count,
    suit_lock_admits,
    ten_discard_count,
)
from service.rules.melds import TOP_RANK, Kind, Meld, classify, rank_strength
from service.rules.notation import parse_mask
from service.rules.state import MatchState, Position
from service.rules.views import Viewer, build_view, position_of
from service.rules.vocabulary import RefusalCode, WaitingFor

SCENARIOS = Path(__file__).parent.parent / "scenarios"
CLIENTS = Path(__file__).parent.parent.parent / "clients"


def waiting_states(name: str, step: WaitingFor) -> list[MatchState]:
    """The states of scenario ``name`` that wait for ``step``."""
    data = json.loads((SCENARIOS / name).read_text(encoding="utf-8"))
    state = scenarios.start_of(data)
    found = []
    for entry in data["steps"]:
        decision = scenarios.decision_of(state, entry)
        if isinstance(decision, list):
            state = fold(state, decision)
            if state.waiting_for is step:
                found.append(state)
    return found


@pytest.mark.parametrize(
    ("name", "step", "rank"),
    [
        ("torasobi-salvage.json", WaitingFor.SALVAGE, "3"),
        ("torasobi-kings-march.json", WaitingFor.KINGS_MARCH, "K"),
        ("torasobi-zombie.json", WaitingFor.ZOMBIE, "3"),
    ],
)
def test_a_pick_names_the_cards_that_ask_for_it_again(
    name: str, step: WaitingFor, rank: str
) -> None:
    states = waiting_states(name, step)
    assert states, f"{name} never waits for {step}"
    for state in states:
        assert state.turn is not None
        expected = rank_mask(parse_card(f"{rank}S") >> 2)
        assert pick_triggers(state) == expected
        position = position_of(build_view(state, Viewer.of_seat(state.turn)), state.rules)
        assert pick_triggers(position) == expected


def test_no_pick_is_asked_for_when_none_is_waited_for() -> None:
    data = json.loads((SCENARIOS / "torasobi-salvage.json").read_text(encoding="utf-8"))
    state = scenarios.start_of(data)
    assert state.waiting_for is WaitingFor.PLAY and pick_triggers(state) == 0


def meld(codes: str) -> Meld:
    found = classify(
        parse_mask(codes.split()),
        (),
        reversed_order=False,
        stairs_allowed=True,
        emperor_allowed=True,
        past_ends=True,
    )
    assert found is not None
    return found


def test_sevens_pass_and_tens_discard_one_card_each_while_their_rule_is_on() -> None:
    on = rule_set("torasobi", {"seven_pass": True, "ten_discard": True}).switched_on()
    off = rule_set("torasobi", {"seven_pass": False, "ten_discard": False}).switched_on()
    sevens, tens, mixed = meld("7S 7H"), meld("TS TH TD"), meld("7S JK")
    assert (seven_pass_count(on, sevens), ten_discard_count(on, sevens)) == (2, 0)
    assert (seven_pass_count(on, tens), ten_discard_count(on, tens)) == (0, 3)
    assert seven_pass_count(on, mixed) == 1  # a joker passes nothing
    assert seven_pass_count(off, sevens) == ten_discard_count(off, tens) == 0


def test_the_spade_three_returns_a_joker_only_under_its_rule() -> None:
    for spade3_return in (True, False):
        rules = rule_set("torasobi", {"spade3_return": spade3_return})
        state = scenarios.start_of(
            {"rules": {"preset": "torasobi", "options": {"spade3_return": spade3_return}},
             "players": 2, "start": {"hands": [["3S", "4D"], ["5D", "6D"]]}}
        )  # fmt: skip
        assert state.rules == rules
        expected = 1 << parse_card("3S") if spade3_return else 0
        assert joker_returners(state) == expected


def test_the_bots_hold_no_rank_of_the_rules() -> None:
    """A rank with a meaning (3s salvage, 4s stop a cut…) is the engine's to name."""
    for name in ("bots.py", "strategy.py"):
        tree = ast.parse((CLIENTS / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    assert not alias.name.startswith(("RANK_", "SPADE_")), (name, alias.name)


@pytest.mark.parametrize("reversed_order", [False, True])
def test_a_ranks_strength_is_its_singles_and_groups(reversed_order: bool) -> None:
    for rank in range(13):
        for suits in (0b0001, 0b0011, 0b0111):
            group = Meld(Kind.GROUP, suits << rank * 4, suits.bit_count(), rank, rank, suits, 0)
            assert rank_strength(rank, reversed_order) == group.strength(reversed_order)
    joker = Meld(Kind.SINGLE, 0, 1, TOP_RANK, TOP_RANK, 0, 1)
    assert rank_strength(TOP_RANK, reversed_order) == joker.strength(reversed_order)


def _locked_position(**locks: object) -> Position:
    """A federation position with a single real 3 on the field, under ``locks``."""
    rules = rule_set("federation")
    position = Position(rules, 4, rules.switched_on())
    position.field = classify(1 << 0, (), reversed_order=False)  # a real 3
    for name, value in locks.items():
        setattr(position, name, value)
    return position


@pytest.mark.parametrize("lock", range(1, 16))
def test_the_suit_lock_admits_a_single_exactly_when_the_field_takes_it(lock: int) -> None:
    position = _locked_position(suit_lock=lock)
    for suit in range(4):
        single = classify(1 << (4 * 5 + suit), (), reversed_order=False)  # a real 8
        assert single is not None
        refusal = field_refusal(position, single)
        refused = refusal is not None and refusal[0] is RefusalCode.SUIT_LOCKED
        assert suit_lock_admits(lock, 1 << suit) is not refused, (lock, suit)


def test_the_number_lock_admits_a_single_exactly_when_the_field_takes_it() -> None:
    position = _locked_position(number_lock=True)
    assert position.field is not None
    to_beat = position.field.strength(False)
    for rank in range(1, 13):
        single = classify(1 << (4 * rank), (), reversed_order=False)
        assert single is not None
        refusal = field_refusal(position, single)
        admitted = number_lock_admits(single.strength(False), to_beat)
        assert admitted is (refusal is None), rank
