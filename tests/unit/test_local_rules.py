"""The local rules of docs/RULES.md §3, one by one, then the pairs that can meet in
one play (revolution effects, then flush effects, then turn effects; a
flushing play cancels skip and reverse)."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules import Bomb, Play, Refusal, SetUp, decide, fold, initial_state, rule_set
from service.rules import events as ev
from service.rules.commands import Command
from service.rules.events import Event
from service.rules.legal import legal_actions
from service.rules.notation import parse_mask
from service.rules.state import MatchState
from service.rules.vocabulary import FinishCause, FlushReason, RevolutionCause

from .scenario_helpers import bomb, cards, discard, give, pass_, play, run

G2: dict[str, Any] = {"previous_places": [1, 2, 3, 4], "skip_exchange": True}  # seat 3 was 大貧民


def masks(*hands: str) -> tuple[int, ...]:
    return tuple(parse_mask(cards(hand)) for hand in hands)


def accepted(state: MatchState, command: Command) -> list[Event]:
    decision = decide(state, command)
    assert not isinstance(decision, Refusal), decision
    return decision


# -- 9 gekokujō -------------------------------------------------------------------------


def test_gekokujo_previous_daihinmin_first_ends_the_game_reversed() -> None:
    run("torasobi", ["9H 4S", "QS 6H", "KC 7D", "AD"], [
        play(3, "AD", game_over=True, fallen=[], places={3: 1, 2: 2, 1: 3, 0: 4}),
    ], {"gekokujo": True}, **G2)  # fmt: skip


def test_gekokujo_needs_first_place() -> None:
    run("federation", ["AS", "QS 6H", "JC 7D", "5C KD"], [
        play(3, "5C", turn=0),
        play(0, "AS", turn=1, places={0: 1}),
        pass_(1, turn=2),
        pass_(2, turn=3),
        pass_(3, turn=1, field=[]),
        play(1, "6H", turn=2),
        play(2, "7D", turn=3),
        play(3, "KD", turn=1, game_over=False, places={0: 1, 3: 2}),
    ], {"gekokujo": True}, **G2)  # fmt: skip


def test_gekokujo_a_forbidden_finish_is_no_first_place() -> None:
    run("torasobi", ["9H 4S", "QS 6H", "KC 7D", "2S"], [
        play(3, "2S", turn=0, game_over=False, forbidden=[3], places={3: 4}),
    ], {"gekokujo": True}, **G2)  # fmt: skip


def test_without_gekokujo_miyako_ochi_applies() -> None:
    run("torasobi", ["9H 4S", "QS 6H", "KC 7D", "AD 3C"], [
        play(3, "3C", turn=0),
        pass_(0, turn=1),
        pass_(1, turn=2),
        pass_(2, turn=3, field=[]),
        play(3, "AD", game_over=False, fallen=[0], places={3: 1, 0: 4}),
    ], **G2)  # fmt: skip


# -- 10 eleven-back ---------------------------------------------------------------------


@pytest.mark.parametrize("reading", [True, "strength"])
def test_eleven_back_reverses_strength_until_the_flush(reading: object) -> None:
    run("federation", ["JH 6D QS", "KS 9C 5S", "AD 3C TH"], [
        play(0, "JH", turn=1, eleven_back=True, revolution=False),
        play(1, "KS", reject="not_stronger"),
        play(1, "9C", turn=2, eleven_back=True),
        pass_(2, turn=0),
        pass_(0, turn=1, field=[], eleven_back=False),
        play(1, "5S", turn=2),
        play(2, "3C", reject="not_stronger"),
        play(2, "AD", turn=0),
    ], {"eleven_back": reading}, leader=0)  # fmt: skip


def test_eleven_back_order_reverses_turn_order_until_the_flush() -> None:
    run("federation", ["JH 4D", "QC 5C", "KD 6H", "AS 7S"], [
        play(0, "JH", turn=3, direction=-1, eleven_back=True),
        play(3, "AS", turn=2),
        pass_(2, turn=1),
        pass_(1, turn=0),
        pass_(0, turn=3, field=[], direction=1, eleven_back=False),
        play(3, "7S", turn=0),
    ], {"eleven_back": "order"}, leader=0)  # fmt: skip


def test_eleven_back_order_keeps_the_strength_order() -> None:
    run("federation", ["JH 4D", "9C QC", "KD 6H"], [
        play(0, "JH", turn=2),
        play(2, "6H", reject="not_stronger"),
        play(2, "KD", turn=1),
    ], {"eleven_back": "order"}, leader=0)  # fmt: skip


def test_eleven_back_ignores_a_joker_standing_for_a_jack() -> None:
    run("federation", ["9S TS JK 4D", "TH JH QH 5C", "KC"], [
        play(0, "9S TS JK", as_="JS", turn=1, eleven_back=False),
        play(1, "TH JH QH", turn=2, eleven_back=True),
    ], {"eleven_back": True}, leader=0)  # fmt: skip


def test_eleven_back_is_off_by_default() -> None:
    run("federation", ["JH 4D", "KS 9C", "5C"], [
        play(0, "JH", turn=1, eleven_back=False),
        play(1, "KS", turn=2),
    ], leader=0)  # fmt: skip


# -- 11 queen bomber ----------------------------------------------------------------------


def test_queen_bomber_everyone_discards_the_named_rank() -> None:
    run("torasobi", ["QH 5S KD 9C", "5H JC 4S 7D", "5C 5D 8H"], [
        play(0, "QH", turn=0, waiting_for="queen_bomber", field="QH"),
        bomb(0, "5", turn=1, waiting_for="play", field="QH",
             hands={0: "KD 9C", 1: "JC 4S 7D", 2: "8H"}),
    ], {"queen_bomber": True}, leader=0)  # fmt: skip


def test_queen_bomber_names_one_rank_per_queen() -> None:
    run("federation", ["QH QS 5S 9C KD", "5H 9H 4S", "5C 7D 8H"], [
        play(0, "QH QS", turn=0, waiting_for="queen_bomber"),
        bomb(0, "5", reject="wrong_action"),
        bomb(0, "5 9 4", reject="wrong_action"),
        bomb(0, "5 9", turn=1, hands={0: "KD", 1: "4S", 2: "7D 8H"}),
    ], {"queen_bomber": True}, leader=0)  # fmt: skip


def test_queen_bomber_counts_real_queens_only() -> None:
    run("federation", ["QH QS JK 5S 9C KD", "5H 9H 4S", "5C 7D 8H"], [
        play(0, "QH QS JK", turn=0, waiting_for="queen_bomber"),
        bomb(0, "5 9 4", reject="wrong_action"),
        bomb(0, "5 9", turn=1),
    ], {"queen_bomber": True}, leader=0)  # fmt: skip


def test_queen_bomber_needs_its_rule() -> None:
    run("federation", ["QH 5S 9C", "5H 4S", "5C 7D"], [
        play(0, "QH", turn=1, waiting_for="play"),
        bomb(1, "5", reject="wrong_action"),
    ], leader=0)  # fmt: skip


def test_queen_bomber_empties_several_hands_in_turn_order_from_the_bomber() -> None:
    run("torasobi", ["QH KD", "5S 5H", "9D AS", "5D 5C"], [
        play(0, "QH", turn=0, waiting_for="queen_bomber"),
        bomb(0, "5", turn=2, field="QH", places={1: 1, 3: 2}, hands={2: "9D AS"}),
        pass_(2, turn=0, field=[]),
    ], {"queen_bomber": True}, leader=0)  # fmt: skip


def test_queen_bomber_can_empty_the_bombers_own_hand_first() -> None:
    run("torasobi", ["QH 5C", "KD 9C", "5S 5H", "AS 4D"], [
        play(0, "QH", turn=0, waiting_for="queen_bomber"),
        bomb(0, "5", turn=1, field="QH", places={0: 1, 2: 2}),
        pass_(1, turn=3),
        pass_(3, turn=1, field=[]),
    ], {"queen_bomber": True}, leader=0)  # fmt: skip


def test_queen_bomber_still_bombs_after_the_queen_was_the_last_card() -> None:
    run("torasobi", ["QH", "5S 5H", "KD 9C"], [
        play(0, "QH", turn=0, waiting_for="queen_bomber", places={0: 1}),
        bomb(0, "5", game_over=True, places={0: 1, 1: 2, 2: 3}),
    ], {"queen_bomber": True}, leader=0)  # fmt: skip


# -- 12 sandstorm ------------------------------------------------------------------------


def test_sandstorm_on_stairs() -> None:
    run("torasobi", ["4D 5D 6D 9C", "3H 3S 3C QC", "AS"], [
        play(0, "4D 5D 6D", turn=1),
        play(1, "3H 3S 3C", turn=1, field=[]),
        play(1, "QC", turn=2),
    ], {"sandstorm": True}, leader=0)  # fmt: skip


def test_sandstorm_on_a_single_two() -> None:
    run("federation", ["2D 9C", "3H 3S 3C QC", "AS"], [
        play(0, "2D", turn=1),
        play(1, "3H 3S 3C", turn=1, field=[]),
    ], {"sandstorm": True}, leader=0)  # fmt: skip


def test_sandstorm_ignores_the_suit_lock() -> None:
    run("federation", ["4D 9C", "6D KC", "3H 3S 3C QC"], [
        play(0, "4D", turn=1),
        play(1, "6D", turn=2, suit_lock="D"),
        play(2, "3H 3S 3C", turn=2, field=[], suit_lock=[]),
    ], {"sandstorm": True}, leader=0)  # fmt: skip


def test_sandstorm_as_a_lead_flushes_and_leads_again() -> None:
    run("federation", ["3H 3S 3C QC", "6D KC", "AS"], [
        play(0, "3H 3S 3C", turn=0, field=[]),
        play(0, "QC", turn=1),
    ], {"sandstorm": True}, leader=0)  # fmt: skip


def test_sandstorm_does_not_count_jokers() -> None:
    run("federation", ["KS KH 9C", "3H 3S JK QC", "AS"], [
        play(0, "KS KH", turn=1),
        play(1, "3H 3S JK", reject="shape_mismatch"),
    ], {"sandstorm": True}, leader=0)  # fmt: skip


def test_sandstorm_only_on_ones_own_turn() -> None:
    run("federation", ["KS KH 9C", "5D QC", "3H 3S 3C AS"], [
        play(0, "KS KH", turn=1),
        play(2, "3H 3S 3C", reject="not_your_turn"),
    ], {"sandstorm": True}, leader=0)  # fmt: skip


def test_three_threes_are_a_plain_triple_without_sandstorm() -> None:
    run("federation", ["KS KH 9C", "3H 3S 3C QC", "AS"], [
        play(0, "KS KH", turn=1),
        play(1, "3H 3S 3C", reject="shape_mismatch"),
    ], leader=0)  # fmt: skip


# -- 13 ambulance, 14 rokurokubi ------------------------------------------------------------


@pytest.mark.parametrize(("option", "pair"), [("ambulance", "9S 9H"), ("rokurokubi", "6S 6H")])
def test_pair_flushes_and_its_player_leads(option: str, pair: str) -> None:
    run("federation", ["5S 5H KC", pair + " 4C", "AS AH"], [
        play(0, "5S 5H", turn=1),
        play(1, pair, turn=1, field=[]),
        play(1, "4C", turn=2),
    ], {option: True}, leader=0)  # fmt: skip


@pytest.mark.parametrize(("option", "pair"), [("ambulance", "9S JK"), ("rokurokubi", "6S JK")])
def test_pair_with_a_joker_does_not_flush(option: str, pair: str) -> None:
    run("federation", ["5S 5H KC", pair + " 4C", "AS AH"], [
        play(0, "5S 5H", turn=1),
        play(1, pair, turn=2, field=pair),
    ], {option: True}, leader=0)  # fmt: skip


@pytest.mark.parametrize(
    ("option", "triple"), [("ambulance", "9S 9H 9D"), ("rokurokubi", "6S 6H 6D")]
)
def test_a_triple_is_no_pair(option: str, triple: str) -> None:
    run("federation", ["5S 5H 5D KC", triple + " 4C", "AS AH"], [
        play(0, "5S 5H 5D", turn=1),
        play(1, triple, turn=2, field=triple),
    ], {option: True}, leader=0)  # fmt: skip


# -- 15 four-stop --------------------------------------------------------------------------

FOUR_STOP = {"four_stop": True}


def test_four_stop_everyone_declines_and_the_eight_cut_goes_ahead() -> None:
    run("torasobi", ["8S 6C KD", "JD 9C", "4H 4D TS", "4C 4S QH"], [
        play(0, "8S", turn=1, waiting_for="four_stop", field="8S"),
        pass_(1, turn=2, waiting_for="four_stop"),
        pass_(2, turn=3, waiting_for="four_stop"),
        pass_(3, turn=0, waiting_for="play", field=[]),
    ], FOUR_STOP, leader=0)  # fmt: skip


def test_four_stop_a_pair_of_fours_stops_the_cut_and_leads() -> None:
    run("torasobi", ["8S 6C KD", "JD 9C", "4H 4D TS", "4C 4S QH"], [
        play(0, "8S", turn=1, waiting_for="four_stop"),
        play(0, "6C", reject="not_your_turn"),
        pass_(1, turn=2),
        play(2, "4H 4D", turn=2, waiting_for="play", field=[]),
        play(2, "TS", turn=3),
    ], FOUR_STOP, leader=0)  # fmt: skip


def test_four_stop_answer_refusals() -> None:
    run("torasobi", ["8S 6C KD", "4H JK 9C 4D", "TS", "4C 4S QH"], [
        play(0, "8S", turn=1, waiting_for="four_stop"),
        play(1, "4H JK", reject="wrong_action"),
        play(1, "9C", reject="wrong_action"),
        play(1, "4C 4S", reject="card_not_in_hand"),
        play(1, "4H 4D", turn=1, field=[]),
    ], FOUR_STOP, leader=0)  # fmt: skip


def test_four_stop_answered_by_a_player_who_then_finishes() -> None:
    run("torasobi", ["8S 6C KD", "JD 9C", "4H 4D", "4C 4S QH"], [
        play(0, "8S", turn=1, waiting_for="four_stop"),
        pass_(1, turn=2),
        play(2, "4H 4D", turn=3, waiting_for="play", field=[], places={2: 1}),
    ], FOUR_STOP, leader=0)  # fmt: skip


def test_four_stop_only_answers_a_single_eight() -> None:
    run("torasobi", ["8S 8H KD", "JD 9C", "4H 4D", "4C 4S QH"], [
        play(0, "8S 8H", turn=0, waiting_for="play", field=[]),
    ], FOUR_STOP, leader=0)  # fmt: skip


# -- 16 five-skip ------------------------------------------------------------------------------

FIVE = {"five_skip": True}


def test_five_skip_single_five_skips_one() -> None:
    run("federation", ["5S 9C", "6H KC", "7D QD", "TC AC"], [
        play(0, "5S", turn=2),
    ], FIVE, leader=0)  # fmt: skip


def test_five_skip_pair_of_fives_skips_two() -> None:
    run("federation", ["5S 5H 9C", "6H 6C KC", "7D 7H QD", "TC TD AC"], [
        play(0, "5S 5H", turn=3),
    ], FIVE, leader=0)  # fmt: skip


def test_five_skip_stairs_with_one_five_skip_one() -> None:
    run("federation", ["3S 4S 5S 9C", "6H KC", "7D QD", "TC AC"], [
        play(0, "3S 4S 5S", turn=2),
    ], FIVE, leader=0)  # fmt: skip


def test_five_skip_ignores_a_joker_standing_for_a_five() -> None:
    run("federation", ["4D JK 6D 9C", "6H KC", "7D QD", "TC AC"], [
        play(0, "4D JK 6D", as_="5D", turn=1),
    ], FIVE, leader=0)  # fmt: skip


def test_a_skipped_player_has_not_passed() -> None:
    run("federation", ["5S 9C", "6H KC", "7D QD", "TC AC"], [
        play(0, "5S", turn=2),
        play(2, "7D", turn=3),
        play(3, "TC", turn=0),
        pass_(0, turn=1),
        play(1, "KC", turn=2),
    ], FIVE, leader=0)  # fmt: skip


def test_skipping_round_to_the_last_player_flushes() -> None:
    run("federation", ["5S 5H 9C", "6H KC", "7D QD"], [
        play(0, "5S 5H", turn=0, field=[]),
    ], FIVE, leader=0)  # fmt: skip


def test_five_skip_with_two_players_flushes() -> None:
    run("federation", ["5S 9C", "KD 4H"], [
        play(0, "5S", turn=0, field=[]),
    ], FIVE, leader=0)  # fmt: skip


def test_five_skip_counts_active_players_only() -> None:
    run("torasobi", ["5S 9C", "4H", "7D QD", "TC AC"], [
        play(1, "4H", turn=2, places={1: 1}),
        pass_(2, turn=3),
        pass_(3, turn=0),
        play(0, "5S", turn=3),
    ], FIVE, leader=1)  # fmt: skip


# -- 17 seven-pass ---------------------------------------------------------------------------

SEVEN = {"seven_pass": True}


def test_seven_pass_gives_one_card_per_seven_to_the_next_player() -> None:
    run("federation", ["7D 4C 9H", "KD QC", "AS"], [
        play(0, "7D", turn=0, waiting_for="seven_pass", field="7D"),
        give(0, "4C 9H", reject="wrong_action"),
        give(0, "2C", reject="card_not_in_hand"),
        give(0, "4C", turn=1, waiting_for="play", hands={0: "9H", 1: "KD QC 4C"}),
    ], SEVEN, leader=0)  # fmt: skip


def test_seven_pass_gives_fewer_when_fewer_are_left_and_finishes() -> None:
    run("federation", ["7D 7C 4C", "KD QC", "AS AH"], [
        play(0, "7D 7C", turn=0, waiting_for="seven_pass"),
        give(0, "4C", turn=1, places={0: 1}, hands={1: "KD QC 4C"}),
    ], SEVEN, leader=0)  # fmt: skip


def test_seven_pass_does_nothing_after_the_last_card() -> None:
    run("federation", ["7D", "KD QC", "AS"], [
        play(0, "7D", turn=1, waiting_for="play", places={0: 1}),
    ], SEVEN, leader=0)  # fmt: skip


def test_seven_pass_goes_to_the_next_active_player() -> None:
    run("federation", ["7H 4C 9S", "4H", "5H KD"], [
        play(1, "4H", turn=2, places={1: 1}),
        play(2, "5H", turn=0),
        play(0, "7H", turn=0, waiting_for="seven_pass"),
        give(0, "4C", turn=2, hands={2: "KD 4C"}),
    ], SEVEN, leader=1)  # fmt: skip


def test_seven_pass_ignores_a_joker_standing_for_a_seven() -> None:
    run("federation", ["6D JK 8D 9C", "KD QC", "AS"], [
        play(0, "6D JK 8D", turn=1, waiting_for="play"),
    ], SEVEN, leader=0)  # fmt: skip


# -- 18 ten-discard -----------------------------------------------------------------------

TEN = {"ten_discard": True}


def test_ten_discard_discards_one_card_per_ten() -> None:
    run("federation", ["TD 4C 9H", "JS QC", "AS"], [
        play(0, "TD", turn=0, waiting_for="ten_discard"),
        discard(0, "4C 9H", reject="wrong_action"),
        discard(0, "2C", reject="card_not_in_hand"),
        give(0, "4C", reject="wrong_action"),
        discard(0, "4C", turn=1, waiting_for="play", field="TD",
               hands={0: "9H", 1: "JS QC", 2: "AS"}),
    ], TEN, leader=0)  # fmt: skip


def test_ten_discard_emptied_hand_finishes() -> None:
    run("federation", ["TD TC 4C", "JS JH QC", "AS"], [
        play(0, "TD TC", turn=0, waiting_for="ten_discard"),
        discard(0, "4C", turn=1, places={0: 1}),
    ], TEN, leader=0)  # fmt: skip


def test_ten_discard_does_nothing_after_the_last_card() -> None:
    run("federation", ["TD", "JS QC", "AS"], [
        play(0, "TD", turn=1, waiting_for="play", places={0: 1}),
    ], TEN, leader=0)  # fmt: skip


# -- 19 nine-reverse ---------------------------------------------------------------------

NINE = {"nine_reverse": True}


def test_nine_reverse_and_it_lasts_past_the_flush() -> None:
    run("federation", ["9D 4C", "TS 5S", "JH 6H", "QC KD"], [
        play(0, "9D", turn=3, direction=-1),
        play(3, "QC", turn=2),
        pass_(2, turn=1),
        pass_(1, turn=0),
        pass_(0, turn=3, field=[], direction=-1),
        play(3, "KD", turn=2),
    ], NINE, leader=0)  # fmt: skip


def test_nine_reverse_pair_of_nines_reverses_once() -> None:
    run("federation", ["9D 9C 4C", "TS TH", "JH JD", "QC QD"], [
        play(0, "9D 9C", turn=3, direction=-1),
    ], NINE, leader=0)  # fmt: skip


def test_a_second_nine_restores_the_order() -> None:
    run("federation", ["9D 4C", "TS 5S", "JH 6H", "QC 9C"], [
        play(0, "9D", turn=3, direction=-1),
        play(3, "QC", turn=2),
        pass_(2, turn=1),
        pass_(1, turn=0),
        pass_(0, turn=3, field=[]),
        play(3, "9C", turn=0, direction=1),
    ], NINE, leader=0)  # fmt: skip


def test_nine_reverse_ignores_a_joker_standing_for_a_nine() -> None:
    run("federation", ["7S 8S JK 4C", "TH JH QH", "KD", "AD"], [
        play(0, "7S 8S JK", as_="9S", turn=1, direction=1),
    ], NINE, leader=0)  # fmt: skip


def test_flush_after_a_finisher_follows_the_reversed_direction() -> None:
    run("federation", ["9D 4C", "TS 5S", "JH 6H", "QC"], [
        play(0, "9D", turn=3),
        play(3, "QC", turn=2, places={3: 1}),
        pass_(2, turn=1),
        pass_(1, turn=0),
        pass_(0, turn=2, field=[]),
    ], NINE, leader=0)  # fmt: skip


# -- 20 emperor ---------------------------------------------------------------------------

EMPEROR = {"emperor": True}


def test_emperor_run_in_four_suits_revolts_flushes_and_leads() -> None:
    run("federation", ["4S 5H 6D 7C 9C", "KD 3H", "TH"], [
        play(0, "4S 5H 6D 7C", turn=0, field=[], revolution=True),
        play(0, "9C", turn=1),
    ], EMPEROR, leader=0)  # fmt: skip


def test_emperor_four_of_a_rank_in_all_suits_flushes() -> None:
    run("federation", ["7S 7H 7D 7C 9C", "KD 3H", "TH"], [
        play(0, "7S 7H 7D 7C", turn=0, field=[], revolution=True),
    ], EMPEROR, leader=0)  # fmt: skip


def test_emperor_may_be_played_on_another_field() -> None:
    """Seed 001: an emperor is an absolute meld (絶対役)."""
    run("federation", ["KD 9C", "4S 5H 6D 7C KH", "AS"], [
        play(0, "KD", turn=1),
        play(1, "4S 5H 6D 7C", turn=1, field=[], revolution=True),
    ], EMPEROR, leader=0)  # fmt: skip


@pytest.mark.parametrize(
    ("preset", "lead", "answer"),
    [
        ("federation", ["QC QD"], []),  # a pair
        ("federation", ["3S 4S 5S"], []),  # stairs
        ("federation", ["AS AH AD"], []),  # a triple, stronger than the emperor's ranks
        ("federation", ["8S"], []),  # eight-cut aside: the field is a single
        ("federation", ["4S"], ["5S"]),  # under a suit lock (two plays of ♠)
        ("torasobi", ["4S"], ["5H"]),  # under a number lock
        ("federation", ["6H"], ["KH"]),  # a lock, and a stronger single
    ],
)
def test_emperor_goes_on_any_field(preset: str, lead: list[str], answer: list[str]) -> None:
    """docs/RULES.md §3 #20 Decision: like sandstorm, whatever the field's kind,
    strength or lock, on one's own turn."""
    options = {**EMPEROR, "eight_cut": False}
    hands = [" ".join([*lead, "TD"]), " ".join([*answer, "JD"]), "6S 7H 8D 9C QS"]
    steps = [play(0, " ".join(lead), turn=1)]
    steps.append(play(1, " ".join(answer), turn=2) if answer else pass_(1, turn=2))
    steps.append(play(2, "6S 7H 8D 9C", turn=2, field=[], revolution=True, suit_lock=[],
                      number_lock=False))  # fmt: skip
    run(preset, hands, steps, options, leader=0)


def test_emperor_only_on_ones_own_turn() -> None:
    run("federation", ["KD 9C", "AS JD", "6S 7H 8D 9S QS"], [
        play(2, "6S 7H 8D 9S", reject="not_your_turn"),
        play(0, "KD", turn=1),
        play(2, "6S 7H 8D 9S", reject="not_your_turn"),
        play(1, "AS", turn=2),
        pass_(2, turn=0),
        play(2, "6S 7H 8D 9S", reject="not_your_turn"),  # and passed until the flush
        pass_(0, turn=1, field=[]),
        play(1, "JD", turn=2),
    ], EMPEROR, leader=0)  # fmt: skip


@pytest.mark.parametrize("cards", ["4S 5H 6D JK", "4S 5S 6D 7C", "4S 5H 6D 8C", "AS 2H 3D 4C"])
def test_not_an_emperor(cards: str) -> None:
    run("federation", [cards + " 9C", "KD 3H", "TH"], [
        play(0, cards, reject="invalid_meld"),
    ], EMPEROR, leader=0)  # fmt: skip


def test_four_of_a_kind_without_emperor_does_not_flush() -> None:
    run("federation", ["7S 7H 7D 7C 9C", "KD 3H", "TH"], [
        play(0, "7S 7H 7D 7C", turn=1, field="7S 7H 7D 7C", revolution=True),
    ], leader=0)  # fmt: skip


# -- 21 coup -----------------------------------------------------------------------------------


def test_coup_three_nines_revolt() -> None:
    run("torasobi", ["9S 9H 9D 4C", "KD 3H", "TH"], [
        play(0, "9S 9H 9D", turn=1, revolution=True),
    ], {"coup": True}, leader=0)  # fmt: skip


@pytest.mark.parametrize(("cards", "options"), [("9S 9H JK", {"coup": True}), ("9S 9H 9D", {})])
def test_no_coup(cards: str, options: dict[str, bool]) -> None:
    run("torasobi", [cards + " 4C", "KD 3H", "TH"], [
        play(0, cards, turn=1, revolution=False),
    ], options, leader=0)  # fmt: skip


# -- 22 great revolution ---------------------------------------------------------------------


def test_great_revolution_revolts_and_finishes_at_once() -> None:
    run("federation", ["2S 2H 2D 2C 4D 9C", "5S KD", "6H QD"], [
        play(0, "2S 2H 2D 2C", turn=1, revolution=True, field="2S 2H 2D 2C",
             places={0: 1}, forbidden=[], hands={0: "4D 9C"}),
        pass_(1, turn=2),
        pass_(2, turn=1, field=[]),
    ], {"great_revolution": True}, leader=0)  # fmt: skip


GREAT_EMPEROR = {"great_revolution": True, "emperor": True}


def test_great_revolution_with_emperor_revolts_finishes_then_flushes() -> None:
    """docs/RULES.md §3 #22 Decision: four 2s of four suits are an emperor too; the
    revolution effects come first, then the emperor's flush, and the player who
    left keeps their other cards; the next active player leads."""
    run("federation", ["2S 2H 2D 2C 4D 9C", "5S KD", "6H QD"], [
        play(0, "2S 2H 2D 2C", turn=1, revolution=True, field=[], places={0: 1},
             forbidden=[], hands={0: "4D 9C"}),
        play(1, "KD", turn=2),
    ], GREAT_EMPEROR, leader=0)  # fmt: skip


def test_great_revolution_with_emperor_events_come_in_effect_order() -> None:
    state = initial_state(rule_set("federation", GREAT_EMPEROR), 3)
    state = fold(state, accepted(state, SetUp(masks("2S 2H 2D 2C 4D 9C", "5S KD", "6H QD"), 0)))
    events = accepted(state, Play(0, parse_mask(cards("2S 2H 2D 2C"))))
    assert [type(event) for event in events] == [
        ev.CardsPlayed, ev.RevolutionChanged, ev.PlayerFinished, ev.FieldFlushed,
    ]  # fmt: skip
    assert events[1] == ev.RevolutionChanged(True, RevolutionCause.GREAT_REVOLUTION)
    assert events[2] == ev.PlayerFinished(
        0, 1, False, FinishCause.GREAT_REVOLUTION, parse_mask(["4D", "9C"])
    )
    assert events[3] == ev.FieldFlushed(FlushReason.EMPEROR, 1)


def test_great_revolution_with_emperor_goes_on_any_field() -> None:
    run("federation", ["2S 2H 2D 2C 4D", "KD 5S", "6H QD"], [
        play(1, "KD", turn=2),
        pass_(2, turn=0),
        play(0, "2S 2H 2D 2C", turn=1, revolution=True, field=[], places={0: 1},
             hands={0: "4D"}),
    ], GREAT_EMPEROR, leader=1)  # fmt: skip


def test_great_revolution_alone_keeps_to_the_field_shape() -> None:
    run("federation", ["2S 2H 2D 2C 4D", "KD 5S", "6H QD"], [
        play(1, "KD", turn=2),
        pass_(2, turn=0),
        play(0, "2S 2H 2D 2C", reject="shape_mismatch"),
    ], {"great_revolution": True}, leader=1)  # fmt: skip


def test_great_revolution_with_emperor_as_the_last_cards_is_a_normal_finish() -> None:
    run("classic", ["2S 2H 2D 2C", "5S KD", "6H QD"], [
        play(0, "2S 2H 2D 2C", turn=1, revolution=True, field=[], places={0: 1},
             forbidden=[], hands={0: ""}),
    ], GREAT_EMPEROR, leader=0)  # fmt: skip


def test_great_revolution_with_the_last_cards_is_a_normal_finish() -> None:
    run("classic", ["2S 2H 2D 2C", "5S KD", "6H QD"], [
        play(0, "2S 2H 2D 2C", turn=1, revolution=True, places={0: 1}, forbidden=[]),
    ], {"great_revolution": True}, leader=0)  # fmt: skip


def test_great_revolution_needs_four_real_twos() -> None:
    run("federation", ["2S 2H 2D JK 9C", "5S KD", "6H QD"], [
        play(0, "2S 2H 2D JK", turn=1, revolution=True, places={}),
    ], {"great_revolution": True}, leader=0)  # fmt: skip


# -- 23 omen --------------------------------------------------------------------------------

OMEN = {"omen": True}
AFTER_OMEN = [play(0, "6S 6H 6D", turn=1, revolution=True), pass_(1, turn=2), pass_(2, turn=0)]


def test_omen_three_sixes_revolt() -> None:
    run("federation", ["6S 6H 6D 4C", "KD 3H", "TH"], [
        play(0, "6S 6H 6D", turn=1, revolution=True),
    ], OMEN, leader=0)  # fmt: skip


def test_omen_needs_three_real_sixes() -> None:
    run("federation", ["6S 6H JK 4C", "KD 3H", "TH"], [
        play(0, "6S 6H JK", turn=1, revolution=False),
    ], OMEN, leader=0)  # fmt: skip


def test_after_omen_no_revolution() -> None:
    run("federation", ["6S 6H 6D KS KH KD KC 4C", "QD 3H", "TH"], [
        *AFTER_OMEN,
        play(0, "KS KH KD KC", turn=1, revolution=True),
    ], OMEN, leader=0)  # fmt: skip


def test_after_omen_no_eight_cut() -> None:
    run("federation", ["6S 6H 6D KC 4C", "8S 3H", "TH QD"], [
        *AFTER_OMEN,
        play(0, "KC", turn=1),
        play(1, "8S", turn=2, field="8S"),
    ], OMEN, leader=0)  # fmt: skip


def test_after_omen_no_spade3_return() -> None:
    run("federation", ["6S 6H 6D JK 4C", "3S 9H", "QC"], [
        *AFTER_OMEN,
        play(0, "JK", turn=1),
        play(1, "3S", reject="not_stronger"),
    ], OMEN, leader=0)  # fmt: skip


def test_after_omen_no_local_rule_effects() -> None:
    run("federation", ["6S 6H 6D 5C 4C", "KD 3H", "TH JH"], [
        *AFTER_OMEN,
        play(0, "5C", turn=1),
    ], {**OMEN, "five_skip": True}, leader=0)  # fmt: skip


def test_after_omen_locks_still_apply() -> None:
    run("federation", ["6S 6H 6D 9D 4C", "8D KH", "7S 7D"], [
        *AFTER_OMEN,
        play(0, "9D", turn=1),
        play(1, "8D", turn=2, suit_lock="D"),
        play(2, "7S", reject="suit_locked"),
        play(2, "7D", turn=0),
    ], OMEN, leader=0)  # fmt: skip


def test_after_omen_forbidden_finish_still_applies() -> None:
    run("federation", ["6S 6H 6D 9D KC", "3C", "TH QD"], [
        *AFTER_OMEN,
        play(0, "9D", turn=1),
        play(1, "3C", forbidden=[1], places={1: 3}),
    ], OMEN, leader=0)  # fmt: skip


# -- 24 down number ---------------------------------------------------------------------------

DOWN = {"down_number": True}


def test_down_number_same_suit_one_rank_weaker() -> None:
    run("federation", ["TS 4C", "9S KD", "QD"], [
        play(0, "TS", turn=1),
        play(1, "9S", turn=2, field="9S"),
    ], DOWN, leader=0)  # fmt: skip


@pytest.mark.parametrize("card", ["9H", "7S"])
def test_down_number_needs_same_suit_and_exactly_one_rank(card: str) -> None:
    run("federation", ["TS 4C", card + " KD", "QD"], [
        play(0, "TS", turn=1),
        play(1, card, reject="not_stronger"),
    ], DOWN, leader=0)  # fmt: skip


def test_down_number_follows_the_order_in_force() -> None:
    run("federation", ["9S 4C", "TS JS KD", "QD"], [
        play(0, "9S", turn=1),
        play(1, "JS", reject="not_stronger"),
        play(1, "TS", turn=2),
    ], DOWN, leader=0, revolution=True)  # fmt: skip


def test_down_number_only_on_a_single() -> None:
    run("federation", ["TS TH 4C", "9S 9H KD", "QD"], [
        play(0, "TS TH", turn=1),
        play(1, "9S 9H", reject="not_stronger"),
    ], DOWN, leader=0)  # fmt: skip


def test_down_number_only_on_ones_own_turn() -> None:
    run("federation", ["TS 4C", "KD 3H", "9S QD"], [
        play(0, "TS", turn=1),
        play(2, "9S", reject="not_your_turn"),
    ], DOWN, leader=0)  # fmt: skip


def test_without_down_number_a_weaker_card_does_not_go() -> None:
    run("federation", ["TS 4C", "9S KD", "QD"], [
        play(0, "TS", turn=1),
        play(1, "9S", reject="not_stronger"),
    ], leader=0)  # fmt: skip


# -- 25 lucky seven ----------------------------------------------------------------------------

LUCKY = {"lucky_seven": True}


def test_lucky_seven_finishes_when_the_passes_flush() -> None:
    run("federation", ["7S 7H 7D KC 4H", "9D 5C JC", "TH 6S AS"], [
        play(0, "7S 7H 7D", turn=1, places={}),
        pass_(1, turn=2),
        pass_(2, turn=1, field=[], places={0: 1}, hands={0: "KC 4H"}),
    ], LUCKY, leader=0)  # fmt: skip


def test_lucky_seven_beaten_does_nothing() -> None:
    run("federation", ["7S 7H 7D KC 4H", "9D 9C 9H JC", "TH 6S AS"], [
        play(0, "7S 7H 7D", turn=1),
        play(1, "9D 9C 9H", turn=2),
        pass_(2, turn=0),
        pass_(0, turn=1, field=[], places={}),
    ], LUCKY, leader=0)  # fmt: skip


def test_lucky_seven_needs_three_real_sevens() -> None:
    run("federation", ["7S 7H JK KC 4H", "9D 5C JC", "TH 6S AS"], [
        play(0, "7S 7H JK", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[], places={}),
    ], LUCKY, leader=0)  # fmt: skip


# -- 26 tenpenchi ------------------------------------------------------------------------------

TENPENCHI = {"tenpenchi": True}


def test_tenpenchi_hinmin_swaps_with_fugo() -> None:
    run("torasobi", ["KD 9C", "QS AH 2C", "4S 6D TC", "3C 5D 7H JS"], [
        give(3, "JS 7H", turn=0, hands={1: "4S 6D TC", 2: "QS AH 2C", 3: "3C 5D"}),
    ], TENPENCHI, previous_places=[1, 2, 3, 4])  # fmt: skip


def test_tenpenchi_daihinmin_swaps_with_daifugo_three_players() -> None:
    run("torasobi", ["AS KD 2C", "QS 8H", "4S 5D"], [
        give(2, "2C AS", turn=0, hands={2: "KD", 0: "4S 5D 2C AS"}),
    ], TENPENCHI, previous_places=[1, 2, 3])  # fmt: skip


@pytest.mark.parametrize("low", ["3C 5D JK", "3C 5D JS", "3C 5D 2H"])
def test_tenpenchi_not_with_a_high_card(low: str) -> None:
    run("torasobi", ["AS KD QC", "QS 8H", low], [], TENPENCHI, previous_places=[1, 2, 3],
        final={"hands": {2: low, 0: "AS KD QC"}})  # fmt: skip


def test_tenpenchi_is_skipped_with_skip_exchange() -> None:
    run("torasobi", ["AS KD 2C", "QS 8H", "4S 5D"], [
        play(2, "4S", turn=0, hands={0: "AS KD 2C", 2: "5D"}),
    ], TENPENCHI, previous_places=[1, 2, 3], skip_exchange=True)  # fmt: skip


def test_tenpenchi_is_off_by_default() -> None:
    run("torasobi", ["AS KD 2C", "QS 8H", "4S 5D"], [
        give(2, "5D 4S", turn=0, hands={0: "AS KD 2C 4S 5D"}),
    ], previous_places=[1, 2, 3])  # fmt: skip


# ===========================================================================================
# Pairs of effects in one play (docs/RULES.md §3: revolution, then flush, then turn effects)
# ===========================================================================================


def test_five_skip_and_nine_reverse_in_one_stairs() -> None:
    """The reverse turns the order round; the skip then passes over the next
    player in that order (seat 3), so seat 2 plays."""
    run("federation", ["5S 6S 7S 8S 9S 4C", "TH AD", "JH KD", "QH 2D"], [
        play(0, "5S 6S 7S 8S 9S", turn=2, direction=-1),
    ], {**FIVE, **NINE}, leader=0)  # fmt: skip


def test_seven_pass_after_an_eight_cut_in_classic_stairs() -> None:
    run("classic", ["6S 7S 8S 4C 9H", "KD QC", "AS JD"], [
        play(0, "6S 7S 8S", turn=0, field=[], waiting_for="seven_pass"),
        give(0, "4C", turn=0, waiting_for="play", field=[], hands={0: "9H", 1: "KD QC 4C"}),
        play(0, "9H", turn=1),
    ], SEVEN, leader=0)  # fmt: skip


def test_ten_discard_after_an_eight_cut_in_classic_stairs() -> None:
    run("classic", ["8S 9S TS 4C JH", "KD", "QD"], [
        play(0, "8S 9S TS", turn=0, field=[], waiting_for="ten_discard"),
        discard(0, "4C", turn=0, waiting_for="play", field=[], hands={0: "JH"}),
    ], TEN, leader=0)  # fmt: skip


def test_queen_bomber_after_a_revolting_eight_cut_in_classic_stairs() -> None:
    run("classic", ["8S 9S TS JS QS 5D KC", "5H AD", "5C 2D"], [
        play(0, "8S 9S TS JS QS", turn=0, field=[], revolution=True,
             waiting_for="queen_bomber"),
        bomb(0, "5", turn=0, waiting_for="play", hands={0: "KC", 1: "AD", 2: "2D"}),
    ], {"queen_bomber": True}, leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ["federation", "torasobi"])
def test_eleven_back_with_a_revolution_in_one_play(preset: str) -> None:
    """Both flip the order: strength is normal while the Js are on the field."""
    cards = "JS JH JD JC"
    run(preset, [cards + " 4D", "3S 3H 3D 3C KS KH KD KC", "5C"], [
        play(0, cards, turn=1, revolution=True, eleven_back=True),
        play(1, "3S 3H 3D 3C", reject="not_stronger"),
        play(1, "KS KH KD KC", turn=2, revolution=False),
    ], {"eleven_back": True}, leader=0)  # fmt: skip


def test_eleven_back_during_a_revolution_restores_normal_strength() -> None:
    run("federation", ["JH 4D", "KS 9C", "5C"], [
        play(0, "JH", turn=1, revolution=True, eleven_back=True),
        play(1, "9C", reject="not_stronger"),
        play(1, "KS", turn=2),
    ], {"eleven_back": True}, leader=0, revolution=True)  # fmt: skip


@pytest.mark.parametrize("cards", ["9S 9H 9D 9C", "9S 9H 9D JK"])
def test_coup_and_a_four_card_revolution_revolt_once(cards: str) -> None:
    run("torasobi", [cards + " 4C", "KD 3H", "TH"], [
        play(0, cards, turn=1, revolution=True),
    ], {"coup": True}, leader=0)  # fmt: skip


def test_omen_rule_and_four_sixes_are_a_plain_revolution() -> None:
    run("torasobi", ["6S 6H 6D 6C 4C KD", "8S 3H", "QD"], [
        play(0, "6S 6H 6D 6C", turn=1, revolution=True),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "KD", turn=1),
        play(1, "8S", turn=1, field=[]),
    ], OMEN, leader=0)  # fmt: skip


def test_omen_turns_off_the_great_revolution() -> None:
    run("federation", ["6S 6H 6D KC 4C", "2S 2H 2D 2C 5D 9D", "QD"], [
        *AFTER_OMEN,
        play(0, "KC", turn=1),
        play(1, "5D", turn=2),
        pass_(2, turn=0),
        pass_(0, turn=1, field=[]),
        play(1, "2S 2H 2D 2C", turn=2, revolution=True, places={}),
    ], {**OMEN, "great_revolution": True}, leader=0)  # fmt: skip


def test_omen_turns_off_the_ambulance() -> None:
    run("federation", ["6S 6H 6D KC KD 4C", "9S 9H 5C", "QD QH 3C"], [
        *AFTER_OMEN,
        play(0, "KC KD", turn=1),
        play(1, "9S 9H", turn=2, field="9S 9H"),
    ], {**OMEN, "ambulance": True}, leader=0)  # fmt: skip


def test_lucky_seven_with_seven_pass_finishes_on_the_flush() -> None:
    run("federation", ["7S 7H 7D KC 4H 9D QC", "9C 5C JC", "TH 6S AS"], [
        play(0, "7S 7H 7D", turn=0, waiting_for="seven_pass"),
        give(0, "4H 9D QC", turn=1, hands={0: "KC", 1: "9C 5C JC 4H 9D QC"}),
        pass_(1, turn=2),
        pass_(2, turn=1, field=[], places={0: 1}, hands={0: "KC"}),
    ], {**LUCKY, **SEVEN}, leader=0)  # fmt: skip


def test_lucky_seven_cut_by_eights_does_nothing() -> None:
    run("federation", ["7S 7H 7D KC", "8S 8H 8D 4C", "QD"], [
        play(0, "7S 7H 7D", turn=1),
        play(1, "8S 8H 8D", turn=1, field=[], places={}, hand_sizes={0: 1}),
    ], LUCKY, leader=0)  # fmt: skip


@pytest.mark.parametrize(("option", "pair"), [("ambulance", "9S 9H"), ("rokurokubi", "6S 6H")])
def test_a_flushing_pair_cancels_the_reverse(option: str, pair: str) -> None:
    run("federation", ["5S 5H KC", pair + " 4C", "AS AH", "TD 3C"], [
        play(0, "5S 5H", turn=1),
        play(1, pair, turn=1, field=[], direction=1),
    ], {option: True, **NINE}, leader=0)  # fmt: skip


def test_emperor_cancels_the_reverse() -> None:
    run("federation", ["6S 7H 8D 9C 4C", "KD", "QD", "AD"], [
        play(0, "6S 7H 8D 9C", turn=0, field=[], revolution=True, direction=1),
    ], {**EMPEROR, **NINE}, leader=0)  # fmt: skip


def test_emperor_cancels_the_skip() -> None:
    run("federation", ["5S 6H 7D 8C 4C", "KD", "QD", "AD"], [
        play(0, "5S 6H 7D 8C", turn=0, field=[], revolution=True),
    ], {**EMPEROR, **FIVE}, leader=0)  # fmt: skip


def test_emperor_then_seven_pass() -> None:
    run("federation", ["4S 5H 6D 7C KH 9D", "QS JS", "AD"], [
        play(0, "4S 5H 6D 7C", turn=0, field=[], revolution=True, waiting_for="seven_pass"),
        give(0, "KH", turn=0, waiting_for="play", hands={0: "9D", 1: "QS JS KH"}),
    ], {**EMPEROR, **SEVEN}, leader=0)  # fmt: skip


def test_eight_cut_cancels_the_skip_in_classic_stairs() -> None:
    run("classic", ["5S 6S 7S 8S 4C", "KD", "QD"], [
        play(0, "5S 6S 7S 8S", turn=0, field=[], revolution=True),
    ], FIVE, leader=0)  # fmt: skip


def test_eight_cut_cancels_the_reverse_in_classic_stairs() -> None:
    run("classic", ["7S 8S 9S 4C", "KD", "QD", "AD"], [
        play(0, "7S 8S 9S", turn=0, field=[], direction=1),
        play(0, "4C", turn=1),
    ], NINE, leader=0)  # fmt: skip


def test_down_number_nine_reverses() -> None:
    run("federation", ["TS 4C", "9S KD", "QD 5C", "AH 6C"], [
        play(0, "TS", turn=1),
        play(1, "9S", turn=0, direction=-1),
    ], {**DOWN, **NINE}, leader=0)  # fmt: skip


def test_sandstorm_ignores_the_number_lock() -> None:
    run("torasobi", ["5D KC", "6C 9H", "3H 3S 3C QD"], [
        play(0, "5D", turn=1),
        play(1, "6C", turn=2, number_lock=True),
        play(2, "3H 3S 3C", turn=2, field=[], number_lock=False),
    ], {"sandstorm": True}, leader=0)  # fmt: skip


def test_seven_pass_then_ten_discard_in_one_stairs() -> None:
    run("federation", ["7S 8S 9S TS 4C 5C 6D", "KD QC", "AD"], [
        play(0, "7S 8S 9S TS", turn=0, waiting_for="seven_pass", revolution=False),
        discard(0, "4C", reject="wrong_action"),
        give(0, "4C", turn=0, waiting_for="ten_discard"),
        discard(0, "5C", turn=1, waiting_for="play", hands={0: "6D", 1: "KD QC 4C"}),
    ], {**SEVEN, **TEN}, leader=0)  # fmt: skip


def test_ten_discard_then_queen_bomber_in_one_stairs() -> None:
    run("federation", ["TS JS QS 4C 5D 9H", "5H KD", "5C AD"], [
        play(0, "TS JS QS", turn=0, waiting_for="ten_discard"),
        bomb(0, "5", reject="wrong_action"),
        discard(0, "4C", turn=0, waiting_for="queen_bomber"),
        bomb(0, "5", turn=1, waiting_for="play", hands={0: "9H", 1: "KD", 2: "AD"}),
    ], {**TEN, "queen_bomber": True}, leader=0)  # fmt: skip


def test_nine_reverse_then_seven_pass_goes_the_new_way() -> None:
    run("federation", ["7S 8S 9S 4C 5D", "KD", "QD", "AD JC"], [
        play(0, "7S 8S 9S", turn=0, waiting_for="seven_pass", direction=-1),
        give(0, "4C", turn=3, hands={3: "AD JC 4C", 1: "KD"}),
    ], {**SEVEN, **NINE}, leader=0)  # fmt: skip


def test_five_skip_then_seven_pass() -> None:
    """The cards go to the next player; the turn then skips that player."""
    run("federation", ["5S 6S 7S 4C 9D", "KD QD", "AD JD", "2C TC"], [
        play(0, "5S 6S 7S", turn=0, waiting_for="seven_pass"),
        give(0, "4C", turn=2, hands={1: "KD QD 4C"}),
    ], {**FIVE, **SEVEN}, leader=0)  # fmt: skip


def test_coup_and_nine_reverse_in_one_play() -> None:
    run("torasobi", ["9S 9H 9D 4C", "KD", "QD", "AD"], [
        play(0, "9S 9H 9D", turn=3, revolution=True, direction=-1),
    ], {"coup": True, **NINE}, leader=0)  # fmt: skip


def test_eleven_back_order_and_nine_reverse_cancel_until_the_flush() -> None:
    run("federation", ["9S TS JS 4C", "TH JH QH 5C", "KD 6D", "AD 7D"], [
        play(0, "9S TS JS", turn=1, direction=1, eleven_back=True),
        pass_(1, turn=2),
        pass_(2, turn=3),
        pass_(3, turn=0, field=[], direction=-1, eleven_back=False),
        play(0, "4C", turn=3),
    ], {"eleven_back": "order", **NINE}, leader=0)  # fmt: skip


def test_great_revolution_by_the_previous_daihinmin_is_gekokujo() -> None:
    run("torasobi", ["9H 4S", "QS 6H", "KC 7D", "2S 2H 2D 2C 4D"], [
        play(3, "2S 2H 2D 2C", game_over=True, fallen=[],
             places={3: 1, 2: 2, 1: 3, 0: 4}),
    ], {"great_revolution": True, "gekokujo": True}, **G2)  # fmt: skip


def test_great_revolution_makes_the_previous_daifugo_fall() -> None:
    run("torasobi", ["9H 4S", "QS 6H", "KC 7D", "2S 2H 2D 2C 4D"], [
        play(3, "2S 2H 2D 2C", turn=1, revolution=True, fallen=[0], places={3: 1, 0: 4}),
    ], {"great_revolution": True}, **G2)  # fmt: skip


def test_queen_bomber_finish_makes_the_previous_daifugo_fall() -> None:
    run("torasobi", ["9H 4S", "5S 5H", "KC 7D", "QH 9D"], [
        play(3, "QH", turn=3, waiting_for="queen_bomber"),
        bomb(3, "5", turn=2, fallen=[0], places={1: 1, 0: 4}),
    ], {"queen_bomber": True}, **G2)  # fmt: skip


def test_down_number_then_eight_cut() -> None:
    run("federation", ["9S 4C", "8S KD", "QD"], [
        play(0, "9S", turn=1),
        play(1, "8S", turn=1, field=[]),
        play(1, "KD", turn=2),
    ], DOWN, leader=0)  # fmt: skip


def test_nine_reverse_then_queen_bomber_empties_hands_in_the_new_order() -> None:
    run("federation", ["9S TS JS QS 4C", "5H", "KD 3C", "5D 5C"], [
        play(0, "9S TS JS QS", turn=0, waiting_for="queen_bomber", direction=-1),
        bomb(0, "5", turn=2, places={3: 1, 1: 2}),
    ], {"queen_bomber": True, **NINE}, leader=0)  # fmt: skip


def test_five_skip_still_skips_after_the_last_card() -> None:
    run("federation", ["5S", "6H KC", "7D QD", "TC AC"], [
        play(0, "5S", turn=2, places={0: 1}),
    ], FIVE, leader=0)  # fmt: skip


def test_nine_reverse_still_reverses_after_the_last_card() -> None:
    run("federation", ["9S", "TH KC", "JD QD", "TC AC"], [
        play(0, "9S", turn=3, direction=-1, places={0: 1}),
    ], NINE, leader=0)  # fmt: skip


def test_lucky_seven_finish_makes_the_previous_daifugo_fall() -> None:
    run("torasobi", ["9H 4S", "QS 6H", "AC 2D", "7S 7H 7D KC"], [
        play(3, "7S 7H 7D", turn=0),
        pass_(0, turn=1),
        pass_(1, turn=2),
        pass_(2, turn=1, field=[], places={3: 1, 0: 4}, fallen=[0]),
    ], LUCKY, **G2)  # fmt: skip


def test_gekokujo_ignores_an_earlier_forbidden_finish() -> None:
    run("torasobi", ["9H 4S", "2S", "KC 7D", "5C AD"], [
        play(3, "5C", turn=0),
        pass_(0, turn=1),
        play(1, "2S", turn=2, forbidden=[1], places={1: 4}),
        pass_(2, turn=3),
        pass_(3, turn=0),
        pass_(0, turn=2, field=[]),
        play(2, "7D", turn=3),
        play(3, "AD", game_over=True, places={3: 1, 2: 2, 1: 3, 0: 4}),
    ], {"gekokujo": True}, **G2)  # fmt: skip


def test_four_stop_answers_follow_the_reversed_order() -> None:
    run("torasobi", ["9D 8S KD", "JD 4C 4S", "4H 4D TS", "QH 5C"], [
        play(0, "9D", turn=3, direction=-1),
        pass_(3, turn=2),
        pass_(2, turn=1),
        pass_(1, turn=0, field=[]),
        play(0, "8S", turn=3, waiting_for="four_stop"),
        pass_(3, turn=2, waiting_for="four_stop"),
        play(2, "4H 4D", turn=2, waiting_for="play", field=[]),
    ], {**FOUR_STOP, **NINE}, leader=0)  # fmt: skip


def test_eleven_back_number_lock_follows_the_reversed_strength() -> None:
    run("torasobi", ["JH 4D", "TC 3H", "8H QD 9H"], [
        play(0, "JH", turn=1),
        play(1, "TC", turn=2, number_lock=True),
        play(2, "QD", reject="number_locked"),
        play(2, "8H", reject="number_locked"),
        play(2, "9H", turn=0),
    ], {"eleven_back": True}, leader=0)  # fmt: skip


def test_a_queen_bomber_names_the_ranks_before_the_flush_s_lead_is_judged() -> None:
    """docs/RULES.md §5.6 #23: the leader is chosen once the whole action is done. An
    emperor holding a Q flushes; its federation player still names the ranks, and only
    then, leading with nothing but a joker, is declared a forced forbidden finisher
    (keeping the joker); the next active player leads."""
    rules = {"emperor": True, "queen_bomber": True}
    state = initial_state(rule_set("federation", rules), 3)
    state = fold(state, accepted(state, SetUp(masks("9S TH JD QC JK", "5S KD 3H", "6H 4D 7C"), 0)))
    events = accepted(state, Play(0, parse_mask(cards("9S TH JD QC"))))
    assert not any(isinstance(event, ev.PlayerFinished) for event in events)
    after = fold(state, events)
    assert after.waiting_for == "queen_bomber" and after.turn == 0
    after = fold(after, accepted(after, Bomb(0, (2,))))  # 5s: seat 1's ♠5 is discarded
    assert [seat for seat, _ in after.bottom] == [0] and after.turn == 1
    assert after.hands[0] == parse_mask(["JK"])  # kept, out of play
    assert after.hands[1] == parse_mask(["KD", "3H"])
    assert legal_actions(after)
