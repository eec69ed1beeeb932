"""Melds and beating the field (docs/RULES.md §1 Melds, Beating the field).

Positions use `federation` (stairs on, stairs never revolt, no number lock)
unless a test says otherwise; suits alternate so that no suit lock starts."""

from __future__ import annotations

from .scenario_helpers import pass_, play, run

# -- single and group ----------------------------------------------------------


def test_single_must_be_stronger_not_equal() -> None:
    run("federation", ["5S 9C", "5H 6H", "KD"], [
        play(0, "5S", turn=1),
        play(1, "5H", reject="not_stronger"),
        play(1, "6H", turn=2, field="6H"),
    ], leader=0)  # fmt: skip


def test_pair_beats_by_rank_and_needs_two_cards() -> None:
    run("federation", ["5S 5H 9C", "7D 7C 6H", "KD"], [
        play(0, "5S 5H", turn=1, field="5S 5H"),
        play(1, "6H", reject="shape_mismatch"),
        play(1, "7D 7C", turn=2),
    ], leader=0)  # fmt: skip


def test_cards_of_different_ranks_are_no_group() -> None:
    run("federation", ["5S 6H 9C", "4D", "KD"], [
        play(0, "5S 6H", reject="invalid_meld"),
        play(0, "5S 6H 9C", reject="invalid_meld"),
    ], leader=0)  # fmt: skip


def test_triple_must_meet_a_triple() -> None:
    run("federation", ["5S 5H 5D 9C", "7D 7C 7H 8S 8C", "KD"], [
        play(0, "5S 5H 5D", turn=1),
        play(1, "8S 8C", reject="shape_mismatch"),
        play(1, "7D 7C 7H", turn=2, field="7D 7C 7H"),
    ], leader=0)  # fmt: skip


def test_group_of_five_with_a_joker() -> None:
    run("federation", ["5S 5H 5D 5C JK 9C", "7D 7C 7H 7S 4D", "KD"], [
        play(0, "5S 5H 5D 5C JK", turn=1, field="5S 5H 5D 5C JK", revolution=True),
        play(1, "7D 7C 7H 7S", reject="shape_mismatch"),
    ], leader=0)  # fmt: skip


def test_joker_completes_a_pair_of_its_partner_rank() -> None:
    run("federation", ["6S JK 9C", "5D 5C 7H 7S", "KD"], [
        play(0, "6S JK", turn=1, field="6S JK"),
        play(1, "5D 5C", reject="not_stronger"),
        play(1, "7H 7S", turn=2),
    ], leader=0)  # fmt: skip


def test_all_joker_pair_is_the_strongest_pair() -> None:
    run("federation", ["JK JK 9C", "2D 2C", "AS AH"], [
        play(0, "JK JK", turn=1, field="JK JK"),
        play(1, "2D 2C", reject="not_stronger"),
    ], leader=0)  # fmt: skip


def test_all_joker_pair_beats_a_pair_of_twos() -> None:
    run("federation", ["2D 2C 9C", "JK JK 4S", "AS AH"], [
        play(0, "2D 2C", turn=1),
        play(1, "JK JK", turn=2, field="JK JK"),
    ], leader=0)  # fmt: skip


def test_all_joker_pair_stays_strongest_in_revolution() -> None:
    run("federation", ["JK JK 9C", "3D 3C", "AS AH"], [
        play(0, "JK JK", turn=1),
        play(1, "3D 3C", reject="not_stronger"),
    ], leader=0, revolution=True)  # fmt: skip


# -- single joker ---------------------------------------------------------------


def test_single_joker_beats_a_two() -> None:
    run("federation", ["2S 9C", "JK 4H", "KD"], [
        play(0, "2S", turn=1),
        play(1, "JK", turn=2, field="JK"),
    ], leader=0)  # fmt: skip


def test_single_joker_beats_a_three_in_revolution() -> None:
    run("federation", ["3H 9C", "JK 4H", "KD"], [
        play(0, "3H", turn=1),
        play(1, "JK", turn=2, field="JK"),
    ], leader=0, revolution=True)  # fmt: skip


def test_nothing_but_spade3_goes_on_a_single_joker() -> None:
    run("federation", ["JK 9C", "JK 2S 3H 4H 4D", "KD"], [
        play(0, "JK", turn=1),
        play(1, "2S", reject="not_stronger"),
        play(1, "JK", reject="not_stronger"),
        play(1, "3H", reject="not_stronger"),
        play(1, "4H 4D", reject="not_stronger"),
    ], leader=0)  # fmt: skip


# -- stairs ------------------------------------------------------------------------


def test_stairs_of_three_one_suit() -> None:
    run("federation", ["3D 4D 5D 9C", "4S 5S 6S 7H", "KD"], [
        play(0, "3D 4D 5D", turn=1, field="3D 4D 5D", revolution=False),
        play(1, "4S 5S 6S", turn=2, field="4S 5S 6S"),
    ], leader=0)  # fmt: skip


def test_stairs_need_one_suit() -> None:
    run("federation", ["3D 4S 5D 9C", "4D", "KD"], [
        play(0, "3D 4S 5D", reject="invalid_meld"),
    ], leader=0)  # fmt: skip


def test_stairs_need_consecutive_ranks() -> None:
    run("federation", ["3D 5D 6D 9C", "4D", "KD"], [
        play(0, "3D 5D 6D", reject="invalid_meld"),
    ], leader=0)  # fmt: skip


def test_two_cards_in_a_row_are_no_meld() -> None:
    run("federation", ["3D 4D 9C", "4S", "KD"], [
        play(0, "3D 4D", reject="invalid_meld"),
    ], leader=0)  # fmt: skip


def test_stairs_are_no_meld_when_stairs_are_off() -> None:
    run("federation", ["3D 4D 5D 9C", "4S", "KD"], [
        play(0, "3D 4D 5D", reject="invalid_meld"),
        play(0, "3D", turn=1),
    ], {"stairs": False}, leader=0)  # fmt: skip


def test_k_a_2_connect() -> None:
    run("federation", ["KS AS 2S 9C", "4D", "5D"], [
        play(0, "KS AS 2S", turn=1, field="KS AS 2S"),
    ], leader=0)  # fmt: skip


def test_2_3_do_not_connect() -> None:
    run("federation", ["AS 2S 3S 4S 9C", "4D", "5D"], [
        play(0, "AS 2S 3S", reject="invalid_meld"),
        play(0, "2S 3S 4S", reject="invalid_meld"),
    ], leader=0)  # fmt: skip


SPADES = "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2S"


def test_stairs_of_thirteen_are_a_meld() -> None:
    run("federation", [SPADES + " 9C", "4D", "5D"], [
        play(0, SPADES, turn=1, field=SPADES),
    ], leader=0)  # fmt: skip


def test_stairs_of_fourteen_are_no_meld() -> None:
    run("federation", [SPADES + " JK 9C", "4D", "5D"], [
        play(0, SPADES + " JK", reject="invalid_meld"),
    ], leader=0)  # fmt: skip


def test_twelve_and_a_joker_make_stairs_of_thirteen() -> None:
    twelve = "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"
    run("federation", [twelve + " JK 9C", "4D", "5D"], [
        play(0, twelve + " JK", turn=1),
    ], leader=0)  # fmt: skip


def test_stairs_beat_by_their_weakest_card_overlap_allowed() -> None:
    run("federation", ["3D 4D 5D 9C", "3S 4S 5S 4H 5H 6H", "KD"], [
        play(0, "3D 4D 5D", turn=1),
        play(1, "3S 4S 5S", reject="not_stronger"),
        play(1, "4H 5H 6H", turn=2),
    ], leader=0)  # fmt: skip


def test_stairs_must_meet_stairs_of_the_same_size() -> None:
    run("federation", ["3D 4D 5D 9C", "6S 7S 8S 9S 5H 5C JK", "KD"], [
        play(0, "3D 4D 5D", turn=1),
        play(1, "6S 7S 8S 9S", reject="shape_mismatch"),
        play(1, "5H 5C JK", reject="shape_mismatch"),
    ], leader=0)  # fmt: skip


def test_stairs_in_revolution_beat_by_weakest_card_in_reversed_order() -> None:
    run("federation", ["5S 6S 7S 9C", "6H 7H 8H 4D 5D 6D", "KC"], [
        play(0, "5S 6S 7S", turn=1),
        play(1, "6H 7H 8H", reject="not_stronger"),
        play(1, "4D 5D 6D", turn=2),
    ], leader=0, revolution=True)  # fmt: skip


# -- jokers in stairs ----------------------------------------------------------


def test_joker_fills_a_gap_first() -> None:
    """Seed 003: 7D 9D JK is 7-8-9."""
    run("federation", ["7D 9D JK 3C", "7S 8S 9S 8H 9H TH", "KC"], [
        play(0, "7D 9D JK", turn=1),
        play(1, "7S 8S 9S", reject="not_stronger"),
        play(1, "8H 9H TH", turn=2),
    ], leader=0)  # fmt: skip


def test_joker_extends_the_strong_end_by_default() -> None:
    """Seed 003: 4D 5D JK is 4-5-6, so 4-5-6 does not beat it (3-4-5 would)."""
    run("federation", ["4D 5D JK 3C", "4S 5S 6S 7S", "KC"], [
        play(0, "4D 5D JK", turn=1),
        play(1, "4S 5S 6S", reject="not_stronger"),
        play(1, "5S 6S 7S", turn=2),
    ], leader=0)  # fmt: skip


def test_two_jokers_extend_upwards_by_default() -> None:
    """Seed 003: 4D 5D JK JK is 4-5-6-7."""
    run("federation", ["4D 5D JK JK 3C", "4S 5S 6S 7S 8S", "KC"], [
        play(0, "4D 5D JK JK", turn=1, revolution=False),
        play(1, "4S 5S 6S 7S", reject="not_stronger"),
        play(1, "5S 6S 7S 8S", turn=2),
    ], leader=0)  # fmt: skip


def test_joker_extends_down_in_revolution_by_default() -> None:
    """In revolution 3-4-5 is stronger than 4-5-6, so 4D 5D JK reads 3-4-5."""
    run("federation", ["4D 5D JK 9C", "3S 4S 5S", "KC"], [
        play(0, "4D 5D JK", turn=1),
        play(1, "3S 4S 5S", reject="not_stronger"),
    ], leader=0, revolution=True)  # fmt: skip


def test_joker_extends_down_when_the_top_is_two() -> None:
    run("federation", ["AD 2D JK 9C", "KS AS 2S", "KC"], [
        play(0, "AD 2D JK", turn=1, field="AD 2D JK"),
        play(1, "KS AS 2S", reject="not_stronger"),
    ], leader=0)  # fmt: skip


def test_joker_read_as_the_top_makes_k_a_2() -> None:
    run("federation", ["KD AD JK 9C", "KS AS 2S", "KC"], [
        play(0, "KD AD JK", turn=1),
        play(1, "KS AS 2S", reject="not_stronger"),
    ], leader=0)  # fmt: skip


def test_explicit_joker_reading_at_the_low_end() -> None:
    run("federation", ["4D 5D JK 9C", "4S 5S 6S", "KC"], [
        play(0, "4D 5D JK", as_="3D", turn=1),
        play(1, "4S 5S 6S", turn=2),
    ], leader=0)  # fmt: skip


def test_explicit_joker_reading_at_the_high_end() -> None:
    run("federation", ["4D 5D JK 9C", "4S 5S 6S", "KC"], [
        play(0, "4D 5D JK", as_="6D", turn=1),
        play(1, "4S 5S 6S", reject="not_stronger"),
    ], leader=0)  # fmt: skip


def test_explicit_joker_reading_that_does_not_fit_is_invalid() -> None:
    run("federation", ["4D 5D JK 9C", "4S", "KC"], [
        play(0, "4D 5D JK", as_="7D", reject="invalid_meld"),
        play(0, "4D 5D JK", as_="6S", reject="invalid_meld"),
        play(0, "4D 5D JK", as_="5D", reject="invalid_meld"),
        play(0, "4D 5D JK", as_="3D 6D", reject="invalid_meld"),
        play(0, "4D 5D JK", as_="JK", reject="invalid_meld"),
    ], leader=0)  # fmt: skip


def test_explicit_reading_of_a_group_joker_must_be_its_rank() -> None:
    run("federation", ["5D JK 9C", "4S", "KC"], [
        play(0, "5D JK", as_="6D", reject="invalid_meld"),
        play(0, "5D JK", as_="5S", turn=1, field="5D JK"),
    ], leader=0)  # fmt: skip


def test_one_rank_with_jokers_is_a_group_never_stairs() -> None:
    """Seed 003: leading 5D JK JK is a triple of fives."""
    run("federation", ["5D JK JK 9C", "4S 4H 4C 6D 7D 8D 6S 6H 6C", "KC"], [
        play(0, "5D JK JK", turn=1),
        play(1, "6D 7D 8D", reject="shape_mismatch"),
        play(1, "4S 4H 4C", reject="not_stronger"),
        play(1, "6S 6H 6C", turn=2),
    ], leader=0)  # fmt: skip


def test_one_rank_with_jokers_cannot_be_read_as_stairs() -> None:
    run("federation", ["5D JK JK 9C", "4S", "KC"], [
        play(0, "5D JK JK", as_="6D 7D", reject="invalid_meld"),
    ], leader=0)  # fmt: skip


def test_leading_is_free() -> None:
    run("federation", ["2S 9C", "3D 4D 5D 6H", "KC"], [
        play(0, "2S", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "9C", turn=1, field="9C"),
    ], leader=0)  # fmt: skip


def test_emperor_is_no_meld_without_its_rule() -> None:
    run("torasobi", ["4S 5H 6D 7C 9C", "3D", "KC"], [
        play(0, "4S 5H 6D 7C", reject="invalid_meld"),
    ], leader=0)  # fmt: skip


def test_a_joker_may_stand_for_a_card_another_player_holds() -> None:
    run("federation", ["4D 5D JK 9C", "6D 5S JH", "KC"], [
        play(0, "4D 5D JK", as_="6D", turn=1, field="4D 5D JK"),
    ], leader=0)  # fmt: skip


def test_jokers_fill_the_gap_then_extend_down_in_revolution() -> None:
    """4D 6D JK JK in revolution: the gap (5) first, then 3 (3-4-5-6)."""
    run("federation", ["4D 6D JK JK 9C", "3S 4S 5S 6S", "KC"], [
        play(0, "4D 6D JK JK", turn=1),
        play(1, "3S 4S 5S 6S", reject="not_stronger"),
    ], leader=0, revolution=True)  # fmt: skip
