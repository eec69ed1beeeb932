"""Card notation (docs/RULES.md §1 Cards): codes, ``10S`` and lower case accepted,
canonical output, clear errors for bad codes; bad notation in a step is
``bad_request`` (docs/RULES.md §7 refusal codes)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.rules.cards import (
    JOKER,
    CardCodeError,
    cards_of,
    format_card,
    format_mask,
    mask_codes,
    parse_card,
    parse_rank,
)
from service.rules.commands import Play
from service.rules.notation import format_command, parse_mask, parse_ranks, seat_command
from service.rules.refusals import Refused
from service.scenarios import ScenarioError, run_scenario

from .scenario_helpers import game, pass_, play, run

RANKS = "3456789TJQKA2"
SUITS = "SHDC"
ALL_CODES = [rank + suit for rank in RANKS for suit in SUITS]


def test_every_card_code_round_trips() -> None:
    assert [format_card(parse_card(code)) for code in ALL_CODES] == ALL_CODES
    assert len({parse_card(code) for code in ALL_CODES}) == 52


def test_joker_code_is_jk() -> None:
    assert format_card(parse_card("JK")) == "JK"
    assert parse_card("jk") == parse_card("JK") == JOKER


@pytest.mark.parametrize(
    ("code", "canonical"),
    [("10S", "TS"), ("10s", "TS"), ("10h", "TH"), ("ts", "TS"), ("3d", "3D"), ("aC", "AC"),
     ("qh", "QH"), ("2s", "2S"), ("Jd", "JD")],
)  # fmt: skip
def test_parser_accepts_ten_as_10_and_lower_case(code: str, canonical: str) -> None:
    assert format_card(parse_card(code)) == canonical


@pytest.mark.parametrize("code", ["1S", "11S", "TX", "", "3", "3DD", "ZZ", "J", "1OS", "S3", "JKR"])
def test_bad_card_codes_raise_an_error_naming_the_code(code: str) -> None:
    with pytest.raises(CardCodeError) as error:
        parse_card(code)
    assert repr(code) in str(error.value)


def test_jokers_are_identical_in_a_hand() -> None:
    assert parse_mask(["JK", "3D"]) == parse_mask(["3d", "jk"])
    assert sorted(format_mask(parse_mask(["JK", "jk"]))) == ["JK", "JK"]


def test_output_is_canonical() -> None:
    assert sorted(format_mask(parse_mask(["10s", "3d", "jk", "aH"]))) == ["3D", "AH", "JK", "TS"]


def test_a_mask_codes_weakest_first_and_jokers_last() -> None:
    hand = parse_mask(["JK", "2S", "3C", "3D", "TS", "jk", "AH"])
    assert mask_codes(hand) == ("3D", "3C", "TS", "AH", "2S", "JK", "JK")
    assert format_mask(hand) == list(mask_codes(hand))
    assert mask_codes(0) == ()


@given(st.integers(0, (1 << 54) - 1) | st.integers(-(1 << 60), 1 << 60))
def test_the_mask_table_gives_what_formatting_each_card_gives(mask: int) -> None:
    # the order is the API's (tests, clients read it): cards_of's, card by card
    assert mask_codes(mask) == tuple(format_card(card) for card in cards_of(mask))


@pytest.mark.parametrize(
    "codes", [["3D", "3D"], ["3D", "3d"], ["TS", "10S"], ["JK", "JK", "JK"], ["XX"], "3D", [3]]
)
def test_bad_card_lists_are_bad_request(codes: object) -> None:
    with pytest.raises(Refused) as error:
        parse_mask(codes)  # type: ignore[arg-type]
    assert error.value.refusal.code == "bad_request"


@pytest.mark.parametrize(("code", "rank"), [("10", "T"), ("t", "T"), ("a", "A"), ("2", "2")])
def test_rank_codes(code: str, rank: str) -> None:
    assert RANKS[parse_rank(code)] == rank


@pytest.mark.parametrize("ranks", [["1"], ["JK"], ["11"], ["5", "5"], ["5", "t", "10"]])
def test_bad_rank_lists_are_bad_request(ranks: list[str]) -> None:
    with pytest.raises(Refused) as error:
        parse_ranks(ranks)
    assert error.value.refusal.code == "bad_request"


def test_describe_uses_canonical_codes_and_joker_readings() -> None:
    command = seat_command(2, "play", ["4d", "5D", "jk"], jokers_as=["6d"])
    assert isinstance(command, Play)
    assert format_command(command) == "seat 2 play 4D 5D JK as 6D"


# -- notation inside a scenario ----------------------------------------------


def test_scenario_accepts_10s_and_lower_case_and_reports_canonical_cards() -> None:
    run(
        "federation",
        ["10s 3d", "jh 4c", "qd 5h"],
        [
            play(0, ["10s"], turn=1, field="TS", hands={0: "3D"}),
            play(1, ["jh"], turn=2, field="JH"),
            play(2, ["QD"], turn=0, field="qd"),
        ],
        leader=0,
    )


@pytest.mark.parametrize(
    "bad",
    [
        play(0, ["3X"], reject="bad_request"),
        play(0, ["3D", "3D"], reject="bad_request"),
        play(0, ["3D", "3d"], reject="bad_request"),
        play(0, [], reject="bad_request"),
        play(7, ["3D"], reject="bad_request"),
        {"seat": 0, "play": ["3D"], "pass": True, "reject": "bad_request"},
        {"seat": 0, "reject": "bad_request"},
        {"seat": "0", "play": ["3D"], "reject": "bad_request"},
        {"seat": 0, "pass": False, "reject": "bad_request"},
        {"seat": 0, "bomb": ["X"], "reject": "bad_request"},
        {"seat": 0, "play": "3D", "reject": "bad_request"},
    ],
)
def test_bad_notation_in_a_step_is_bad_request(bad: dict[str, object]) -> None:
    run("federation", ["3D 9S", "4D", "5H"], [bad, play(0, "3D", turn=1)], leader=0)


def test_a_wrong_expectation_fails_the_scenario() -> None:
    """The helpers really check: a false expectation raises ScenarioError."""
    with pytest.raises(ScenarioError, match="turn differs"):
        run("federation", ["3D 9S", "4D", "5H"], [play(0, "3D", turn=2)], leader=0)
    with pytest.raises(ScenarioError, match="expected reject"):
        run("federation", ["3D 9S", "4D", "5H"], [play(0, "3D", reject="not_stronger")], leader=0)
    with pytest.raises(ScenarioError, match="refused"):
        run("federation", ["3D 9S", "4D", "5H"], [play(1, "4D")], leader=0)


def test_unknown_or_repeated_cards_in_start_hands_are_not_a_scenario() -> None:
    with pytest.raises(ScenarioError):
        run("federation", ["3D 1S", "4D", "5H"], [pass_(0)], leader=0)
    with pytest.raises(ScenarioError):
        run_scenario(game("federation", ["3D", "3D", "5H"], [], leader=0))


def test_three_jokers_over_start_hands_are_not_a_scenario() -> None:
    with pytest.raises(ScenarioError):
        run("federation", ["3D JK JK", "JK", "5H"], [], leader=0)
