"""Each preset's reading of the shared rules (docs/RULES.md §2 table and §1)."""

from __future__ import annotations

import pytest

from .scenario_helpers import give, pass_, play, run

ALL = ("federation", "torasobi", "classic")

# -- revolution ------------------------------------------------------------------


@pytest.mark.parametrize("preset", ALL)
def test_quad_revolts_and_a_second_quad_reverts(preset: str) -> None:
    run(preset, ["9S 9H 9D 9C KC", "5S 5H 5D 5C 4H", "QD"], [
        play(0, "9S 9H 9D 9C", turn=1, revolution=True),
        play(1, "5S 5H 5D 5C", turn=2, revolution=False),
    ], leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ALL)
def test_quad_with_a_joker_revolts(preset: str) -> None:
    run(preset, ["9S 9H 9D JK KC", "4H", "QD"], [
        play(0, "9S 9H 9D JK", turn=1, revolution=True),
    ], leader=0)  # fmt: skip


def test_federation_stairs_of_four_do_not_revolt() -> None:
    run("federation", ["4D 5D 6D 7D KC", "4H", "QS"], [
        play(0, "4D 5D 6D 7D", turn=1, revolution=False),
    ], leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ["torasobi", "classic"])
def test_stairs_of_four_revolt(preset: str) -> None:
    run(preset, ["4D 5D 6D 7D KC", "4H", "QS"], [
        play(0, "4D 5D 6D 7D", turn=1, revolution=True),
    ], leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ["torasobi", "classic"])
def test_stairs_of_four_with_a_joker_revolt(preset: str) -> None:
    run(preset, ["4D 5D JK 7D KC", "4H", "QS"], [
        play(0, "4D 5D JK 7D", turn=1, revolution=True),
    ], leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ["torasobi", "classic"])
def test_stairs_of_three_do_not_revolt(preset: str) -> None:
    run(preset, ["4D 5D 6D KC", "4H", "QS"], [
        play(0, "4D 5D 6D", turn=1, revolution=False),
    ], leader=0)  # fmt: skip


def test_revolution_is_off_when_its_option_is_off() -> None:
    run("federation", ["9S 9H 9D 9C KC", "4H", "QD"], [
        play(0, "9S 9H 9D 9C", turn=1, revolution=False),
    ], {"revolution": False}, leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ALL)
def test_revolution_outlasts_the_flush(preset: str) -> None:
    run(preset, ["9S 9H 9D 9C KC", "4H AH", "QD"], [
        play(0, "9S 9H 9D 9C", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[], revolution=True),
        play(0, "KC", turn=1),
        play(1, "AH", reject="not_stronger"),
        play(1, "4H", turn=2, revolution=True),
    ], leader=0)  # fmt: skip


def test_in_revolution_three_is_strongest_and_two_weakest() -> None:
    run("federation", ["4D 9C", "2S 3H 5H", "QD"], [
        play(0, "4D", turn=1),
        play(1, "2S", reject="not_stronger"),
        play(1, "5H", reject="not_stronger"),
        play(1, "3H", turn=2),
    ], leader=0, revolution=True)  # fmt: skip


# -- eight-cut ---------------------------------------------------------------------


@pytest.mark.parametrize("preset", ALL)
def test_single_eight_flushes_and_its_player_leads(preset: str) -> None:
    run(preset, ["4D 9C", "8S KH", "QD"], [
        play(0, "4D", turn=1),
        play(1, "8S", turn=1, field=[]),
        play(1, "KH", turn=2, field="KH"),
    ], leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ALL)
def test_pair_of_eights_cuts(preset: str) -> None:
    run(preset, ["4D 4C 9C", "8S 8H KH", "QD"], [
        play(0, "4D 4C", turn=1),
        play(1, "8S 8H", turn=1, field=[]),
    ], leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ["federation", "torasobi"])
def test_eight_with_a_joker_cuts(preset: str) -> None:
    run(preset, ["4D 4C 9C", "8S JK KH", "QD"], [
        play(0, "4D 4C", turn=1),
        play(1, "8S JK", turn=1, field=[]),
    ], leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ["federation", "torasobi"])
def test_stairs_holding_an_eight_do_not_cut(preset: str) -> None:
    run(preset, ["7S 8S 9S KC", "9H TH JH", "QD"], [
        play(0, "7S 8S 9S", turn=1, field="7S 8S 9S"),
        play(1, "9H TH JH", turn=2),
    ], leader=0)  # fmt: skip


def test_classic_stairs_holding_a_real_eight_cut() -> None:
    run("classic", ["7S 8S 9S KC", "9H TH JH", "QD"], [
        play(0, "7S 8S 9S", turn=0, field=[]),
    ], leader=0)  # fmt: skip


def test_classic_joker_standing_for_an_eight_does_not_cut() -> None:
    run("classic", ["7S JK 9S KC", "9H TH JH", "QD"], [
        play(0, "7S JK 9S", turn=1, field="7S JK 9S"),
    ], leader=0)  # fmt: skip


def test_classic_joker_explicitly_read_as_eight_does_not_cut() -> None:
    run("classic", ["6S 7S JK KC", "9H TH JH", "QD"], [
        play(0, "6S 7S JK", as_="8S", turn=1, field="6S 7S JK"),
    ], leader=0)  # fmt: skip


def test_no_eight_cut_when_its_option_is_off() -> None:
    run("torasobi", ["4D 9C", "8S KH", "QD"], [
        play(0, "4D", turn=1),
        play(1, "8S", turn=2, field="8S"),
    ], {"eight_cut": False}, leader=0)  # fmt: skip


# -- spade-3 return ---------------------------------------------------------------


@pytest.mark.parametrize("preset", ALL)
def test_spade3_returns_a_single_joker_and_flushes(preset: str) -> None:
    run(preset, ["JK 9C", "3S KH", "QD"], [
        play(0, "JK", turn=1),
        play(1, "3S", turn=1, field=[]),
        play(1, "KH", turn=2),
    ], leader=0)  # fmt: skip


def test_spade3_return_works_in_revolution() -> None:
    run("federation", ["JK 9C", "3S KH", "QD"], [
        play(0, "JK", turn=1),
        play(1, "3S", turn=1, field=[], revolution=True),
    ], leader=0, revolution=True)  # fmt: skip


def test_spade3_return_works_under_another_suits_lock() -> None:
    run("federation", ["4H 3S 9C", "6H KC", "JK QD"], [
        play(0, "4H", turn=1),
        play(1, "6H", turn=2, suit_lock="H"),
        play(2, "JK", turn=0),
        play(0, "3S", turn=0, field=[], suit_lock=[]),
    ], leader=0)  # fmt: skip


def test_spade3_does_not_return_a_joker_inside_a_pair() -> None:
    run("federation", ["5S JK 9C", "3S KH", "QD"], [
        play(0, "5S JK", turn=1),
        play(1, "3S", reject="shape_mismatch"),
    ], leader=0)  # fmt: skip


def test_no_spade3_return_when_its_option_is_off() -> None:
    run("federation", ["JK 9C", "3S KH", "QD"], [
        play(0, "JK", turn=1),
        play(1, "3S", reject="not_stronger"),
    ], {"spade3_return": False}, leader=0)  # fmt: skip


# -- suit lock --------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["federation", "torasobi"])
def test_two_singles_of_one_suit_lock(preset: str) -> None:
    run(preset, ["4D 9D 9C", "6D KH", "QD QC"], [
        play(0, "4D", turn=1, suit_lock=[]),
        play(1, "6D", turn=2, suit_lock="D"),
        play(2, "QC", reject="suit_locked"),
        play(2, "QD", turn=0, field="QD"),
    ], leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ["federation", "torasobi"])
def test_two_pairs_with_one_suit_set_lock_both_suits(preset: str) -> None:
    run(preset, ["4D 4S KC", "7D 7S 3H", "9H 9C 9D 9S JK"], [
        play(0, "4D 4S", turn=1),
        play(1, "7D 7S", turn=2, suit_lock="DS"),
        play(2, "9H 9C", reject="suit_locked"),
        play(2, "9D 9C", reject="suit_locked"),
        play(2, "9D 9S", turn=0, suit_lock="DS"),
    ], leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ["federation", "torasobi"])
def test_stairs_of_one_suit_in_a_row_lock(preset: str) -> None:
    run(preset, ["3D 4D 5D KC", "6D 7D 8D 3H", "9S TS JS 9D TD JD"], [
        play(0, "3D 4D 5D", turn=1),
        play(1, "6D 7D 8D", turn=2, suit_lock="D"),
        play(2, "9S TS JS", reject="suit_locked"),
        play(2, "9D TD JD", turn=0),
    ], leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ["federation", "torasobi"])
def test_joker_fills_a_missing_suit_under_a_lock(preset: str) -> None:
    run(preset, ["4D 4S KC", "7D 7S 3H", "9D JK 9C 4H"], [
        play(0, "4D 4S", turn=1),
        play(1, "7D 7S", turn=2, suit_lock="DS"),
        play(2, "9C JK", reject="suit_locked"),
        play(2, "9D JK", turn=0, suit_lock="DS"),
    ], leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ["federation", "torasobi"])
def test_a_play_with_a_joker_neither_starts_a_lock_nor_counts(preset: str) -> None:
    run(preset, ["4D 4S KC", "7D JK 3H", "9D 9S 4H", "JH JC 5C"], [
        play(0, "4D 4S", turn=1),
        play(1, "7D JK", turn=2, suit_lock=[]),
        play(2, "9D 9S", turn=3, suit_lock=[]),
        play(3, "JH JC", turn=0, suit_lock=[]),
    ], leader=0)  # fmt: skip


def test_the_lock_ends_with_the_flush() -> None:
    run("federation", ["4D 9C", "6D 5S", "QH"], [
        play(0, "4D", turn=1),
        play(1, "6D", turn=2, suit_lock="D"),
        pass_(2, turn=0),
        pass_(0, turn=1, field=[], suit_lock=[]),
        play(1, "5S", turn=2, suit_lock=[]),
    ], leader=0)  # fmt: skip


def test_classic_two_plays_of_one_suit_do_not_lock() -> None:
    run("classic", ["3D 7C 9C", "6D KH", "QD"], [
        play(0, "3D", turn=1),
        play(1, "6D", turn=2, suit_lock=[]),
        play(2, "QD", turn=0, suit_lock="D"),
        play(0, "7C", reject="suit_locked"),
    ], leader=0)  # fmt: skip


def test_classic_three_plays_of_one_suit_lock() -> None:
    """Seed 003: ♢3 → ♢6 → ♢7 locks ♢."""
    run("classic", ["3D 9C 9D", "6D KH", "7D QC"], [
        play(0, "3D", turn=1),
        play(1, "6D", turn=2),
        play(2, "7D", turn=0, suit_lock="D"),
        play(0, "9C", reject="suit_locked"),
        play(0, "9D", turn=1),
    ], leader=0)  # fmt: skip


def test_classic_interrupted_run_does_not_lock() -> None:
    run("classic", ["3D 9D", "6D KH", "7H QC", "8D JD"], [
        play(0, "3D", turn=1),
        play(1, "6D", turn=2),
        play(2, "7H", turn=3, suit_lock=[]),
        play(3, "JD", turn=0, suit_lock=[]),
    ], leader=0)  # fmt: skip


def test_classic_single_joker_may_be_played_under_a_lock() -> None:
    """Seed 003: ♢3 → ♢5 → ♢6 (lock) → JOKER."""
    run("classic", ["3D 9C", "5D KH", "6D QC", "JK 4S"], [
        play(0, "3D", turn=1),
        play(1, "5D", turn=2),
        play(2, "6D", turn=3, suit_lock="D"),
        play(3, "JK", turn=0, field="JK"),
    ], leader=0)  # fmt: skip


def test_classic_play_with_a_joker_resets_the_run() -> None:
    """Seed 003: [♢4♠4] → [♢7♠7] → [♢9 JOKER]: no lock, the count is 0."""
    run("classic", ["4D 4S KC", "7D 7S 3H", "9D JK 5C", "TH TC 6C"], [
        play(0, "4D 4S", turn=1),
        play(1, "7D 7S", turn=2),
        play(2, "9D JK", turn=3, suit_lock=[]),
        play(3, "TH TC", turn=0, suit_lock=[]),
    ], leader=0)  # fmt: skip


def test_classic_group_with_a_joker_under_the_lock_keeps_it() -> None:
    """Seed 003: [♢4♠4] → [♢7♠7] → [♢9♠9] (lock) → [♢10 JOKER], the lock stays."""
    run("classic", ["4D 4S KC", "7D 7S 3H", "9D 9S 5C", "TD JK TH TC", "JH JC JD JS"], [
        play(0, "4D 4S", turn=1),
        play(1, "7D 7S", turn=2),
        play(2, "9D 9S", turn=3, suit_lock="DS"),
        play(3, "TH TC", reject="suit_locked"),
        play(3, "TD JK", turn=4, suit_lock="DS"),
        play(4, "JH JC", reject="suit_locked"),
        play(4, "JD JS", turn=0, suit_lock="DS"),
    ], leader=0)  # fmt: skip


# -- number lock ------------------------------------------------------------------


def test_federation_has_no_number_lock() -> None:
    run("federation", ["5D KC", "6C 3H", "9H QD"], [
        play(0, "5D", turn=1),
        play(1, "6C", turn=2, number_lock=False),
        play(2, "9H", turn=0),
    ], leader=0)  # fmt: skip


def test_torasobi_one_step_up_starts_the_number_lock() -> None:
    run("torasobi", ["5D 8S KC", "6C 3H", "8H 7H QD"], [
        play(0, "5D", turn=1),
        play(1, "6C", turn=2, number_lock=True),
        play(2, "8H", reject="number_locked"),
        play(2, "7H", turn=0, number_lock=True),
        play(0, "KC", reject="number_locked"),
        play(0, "8S", turn=0, field=[], number_lock=False),
    ], leader=0)  # fmt: skip


def test_torasobi_number_lock_never_stops_a_single_joker() -> None:
    run("torasobi", ["5D KC", "6C 3H", "JK QD"], [
        play(0, "5D", turn=1),
        play(1, "6C", turn=2, number_lock=True),
        play(2, "JK", turn=0, field="JK"),
    ], leader=0)  # fmt: skip


def test_torasobi_number_lock_follows_the_order_in_force() -> None:
    run("torasobi", ["QD KC", "JC 3H", "9H TH 4D"], [
        play(0, "QD", turn=1),
        play(1, "JC", turn=2, number_lock=True),
        play(2, "9H", reject="number_locked"),
        play(2, "TH", turn=0),
    ], leader=0, revolution=True)  # fmt: skip


def test_torasobi_number_lock_on_pairs() -> None:
    run("torasobi", ["5S 5H KC", "6D 6C 3H", "8S 8H 7S 7H"], [
        play(0, "5S 5H", turn=1),
        play(1, "6D 6C", turn=2, number_lock=True, suit_lock=[]),
        play(2, "8S 8H", reject="number_locked"),
        play(2, "7S 7H", turn=0),
    ], leader=0)  # fmt: skip


def test_torasobi_stairs_do_not_start_a_number_lock() -> None:
    run("torasobi", ["3D 4D 5D KC", "4S 5S 6S 3H", "9H TH JH"], [
        play(0, "3D 4D 5D", turn=1),
        play(1, "4S 5S 6S", turn=2, number_lock=False),
        play(2, "9H TH JH", turn=0),
    ], leader=0)  # fmt: skip


def test_torasobi_no_lock_after_a_bigger_step() -> None:
    run("torasobi", ["5D KC", "7C 3H", "9H QD"], [
        play(0, "5D", turn=1),
        play(1, "7C", turn=2, number_lock=False),
        play(2, "9H", turn=0),
    ], leader=0)  # fmt: skip


def test_classic_two_steps_up_do_not_lock() -> None:
    run("classic", ["3D KC", "4H 3H", "7S QD"], [
        play(0, "3D", turn=1),
        play(1, "4H", turn=2, number_lock=False),
        play(2, "7S", turn=0, number_lock=False),
    ], leader=0)  # fmt: skip


def test_classic_three_steps_up_lock() -> None:
    """Seed 003: ♢3 → ♡4 → ♠5, then only a 6 or a joker."""
    run("classic", ["3D 7D 6D KC", "4H JK", "5S QD"], [
        play(0, "3D", turn=1),
        play(1, "4H", turn=2),
        play(2, "5S", turn=0, number_lock=True),
        play(0, "7D", reject="number_locked"),
        play(0, "6D", turn=1),
        play(1, "JK", turn=2, field="JK"),
    ], leader=0)  # fmt: skip


def test_number_lock_off_by_option() -> None:
    run("torasobi", ["5D KC", "6C 3H", "9H QD"], [
        play(0, "5D", turn=1),
        play(1, "6C", turn=2, number_lock=False),
        play(2, "9H", turn=0),
    ], {"number_lock": False}, leader=0)  # fmt: skip


# -- both locks (激しばり) ----------------------------------------------------------


def test_torasobi_both_locks() -> None:
    run("torasobi", ["5D KC", "6D 3H", "7H 8D 7D"], [
        play(0, "5D", turn=1),
        play(1, "6D", turn=2, suit_lock="D", number_lock=True),
        play(2, "7H", reject="suit_locked"),
        play(2, "8D", reject="number_locked"),
        play(2, "7D", turn=0),
    ], leader=0)  # fmt: skip


def test_classic_both_locks_seed_example() -> None:
    """Seed 003: [♢4♠4] → [♢5♠5] → [♢6♠6]: only [♢7♠7], [♢7 JK], [♠7 JK]."""
    run("classic", ["4D 4S KC", "5D 5S 3H", "6D 6S 9C", "7D 7S 7H 8D 8S JK"], [
        play(0, "4D 4S", turn=1),
        play(1, "5D 5S", turn=2),
        play(2, "6D 6S", turn=3, suit_lock="DS", number_lock=True),
        play(3, "7H 7S", reject="suit_locked"),
        play(3, "8D 8S", reject="number_locked"),
        play(3, "7D JK", turn=0, field="7D JK"),
    ], leader=0)  # fmt: skip


# -- forbidden finish: federation -------------------------------------------------


def test_federation_finishing_pair_with_a_joker_is_forbidden() -> None:
    run("federation", ["4D 9C", "5S JK", "QD"], [
        play(1, "5S JK", turn=2, field="5S JK", forbidden=[1], places={1: 3}),
    ], leader=1)  # fmt: skip


def test_federation_finishing_eight_is_forbidden_and_still_cuts() -> None:
    run("federation", ["4D 9C", "8S", "QD KD"], [
        play(0, "4D", turn=1),
        play(1, "8S", turn=2, field=[], forbidden=[1], places={1: 3}),
    ], leader=0)  # fmt: skip


def test_federation_finishing_spade3_return_is_forbidden() -> None:
    run("federation", ["JK 9C", "3S", "QD KD"], [
        play(0, "JK", turn=1),
        play(1, "3S", turn=2, field=[], forbidden=[1], places={1: 3}),
    ], leader=0)  # fmt: skip


def test_federation_finishing_three_in_revolution_is_forbidden() -> None:
    run("federation", ["4D 9C", "3C", "QD KD"], [
        play(0, "4D", turn=1),
        play(1, "3C", turn=2, forbidden=[1], places={1: 3}),
    ], leader=0, revolution=True)  # fmt: skip


def test_federation_finishing_two_in_revolution_is_a_finish() -> None:
    run("federation", ["4D 9C", "2C", "QD KD"], [
        play(1, "2C", turn=2, forbidden=[], places={1: 1}),
    ], leader=1, revolution=True)  # fmt: skip


def test_federation_finishing_stairs_holding_an_eight_is_a_finish() -> None:
    run("federation", ["3D 4D 5D 9C", "7S 8S 9S", "QD KD"], [
        play(0, "3D 4D 5D", turn=1),
        play(1, "7S 8S 9S", turn=2, forbidden=[], places={1: 1}, field="7S 8S 9S"),
    ], leader=0)  # fmt: skip


def test_federation_finishing_pair_holding_spade3_is_a_finish() -> None:
    run("federation", ["4D 9C", "3S 3H", "QD KD"], [
        play(1, "3S 3H", turn=2, forbidden=[], places={1: 1}),
    ], leader=1)  # fmt: skip


def test_forbidden_finish_is_judged_before_the_play_quad_of_threes() -> None:
    run("federation", ["4D 9C", "3S 3H 3D 3C", "QD KD"], [
        play(1, "3S 3H 3D 3C", turn=2, revolution=True, forbidden=[], places={1: 1}),
    ], leader=1)  # fmt: skip


def test_forbidden_finish_is_judged_before_the_play_quad_of_twos() -> None:
    run("federation", ["4D 4H 4S 4C 9C", "2S 2H 2D 2C", "QD KD"], [
        play(0, "4D 4H 4S 4C", turn=1, revolution=False),
        play(1, "2S 2H 2D 2C", turn=2, revolution=True, forbidden=[1], places={1: 3}),
    ], leader=0, revolution=True)  # fmt: skip


def test_a_forbidden_finishing_play_stays_on_the_field() -> None:
    run("federation", ["4D 9C", "2S", "JK KD"], [
        play(0, "4D", turn=1),
        play(1, "2S", turn=2, field="2S", forbidden=[1]),
        play(2, "KD", reject="not_stronger"),
        play(2, "JK", turn=0, field="JK"),
    ], leader=0)  # fmt: skip


def test_no_forbidden_finish_when_its_option_is_off() -> None:
    run("federation", ["4D 9C", "2S", "QD KD"], [
        play(0, "4D", turn=1),
        play(1, "2S", turn=2, forbidden=[], places={1: 1}),
    ], {"forbidden_finish": False}, leader=0)  # fmt: skip


# -- forbidden finish: torasobi ---------------------------------------------------


@pytest.mark.parametrize(
    ("last", "revolution"), [("2C", False), ("3C", True), ("8C", False), ("JK", False)]
)
def test_torasobi_forbidden_last_single(last: str, revolution: bool) -> None:
    run("torasobi", ["4H 9C", last, "QD KD"], [
        play(0, "4H", turn=1),
        play(1, last, forbidden=[1], places={1: 3}),
    ], leader=0, revolution=revolution)  # fmt: skip


@pytest.mark.parametrize(("last", "revolution"), [("2C", True), ("3S", False), ("AC", False)])
def test_torasobi_allowed_last_single(last: str, revolution: bool) -> None:
    run("torasobi", ["4H 9C", last, "QD KD"], [
        play(1, last, turn=2, forbidden=[], places={1: 1}),
    ], leader=1, revolution=revolution)  # fmt: skip


@pytest.mark.parametrize("last", ["2S 2C", "5S JK", "KS AS 2S", "8S 8C"])
def test_torasobi_last_cards_not_alone_are_a_finish(last: str) -> None:
    run("torasobi", ["4H 9C", last, "QD KD"], [
        play(1, last, forbidden=[], places={1: 1}),
    ], leader=1)  # fmt: skip


@pytest.mark.parametrize("reading", [True, "order"])
def test_torasobi_last_single_jack_is_forbidden_with_eleven_back(reading: object) -> None:
    run("torasobi", ["4H 9C", "JC", "QD KD"], [
        play(0, "4H", turn=1),
        play(1, "JC", forbidden=[1], places={1: 3}),
    ], {"eleven_back": reading}, leader=0)  # fmt: skip


def test_torasobi_last_single_jack_is_a_finish_without_eleven_back() -> None:
    run("torasobi", ["4H 9C", "JC", "QD KD"], [
        play(0, "4H", turn=1),
        play(1, "JC", forbidden=[], places={1: 1}),
    ], leader=0)  # fmt: skip


# -- forbidden finish: classic ----------------------------------------------------


@pytest.mark.parametrize(
    ("last", "revolution"),
    [("7S 8S 9S", False), ("5S JK", False), ("2S", False), ("3S 3C", True), ("8C", False)],
)
def test_classic_forbidden_last_play(last: str, revolution: bool) -> None:
    run("classic", ["4H 9C", last, "QD KD"], [
        play(1, last, forbidden=[1], places={1: 3}),
    ], leader=1, revolution=revolution)  # fmt: skip


@pytest.mark.parametrize(("last", "revolution"), [("2S", True), ("3S", False), ("KS KH", False)])
def test_classic_allowed_last_play(last: str, revolution: bool) -> None:
    run("classic", ["4H 9C", last, "QD KD"], [
        play(1, last, forbidden=[], places={1: 1}),
    ], leader=1, revolution=revolution)  # fmt: skip


def test_classic_spade3_returning_a_joker_is_forbidden() -> None:
    run("classic", ["JK 9C", "3S", "QD KD"], [
        play(0, "JK", turn=1),
        play(1, "3S", turn=2, field=[], forbidden=[1], places={1: 3}),
    ], leader=0)  # fmt: skip


# -- forced forbidden finish (federation) ------------------------------------------


def test_federation_leader_holding_only_forbidden_cards_is_forbidden_at_once() -> None:
    run("federation", ["2S JK", "4D 9C", "QD KD"], [
        play(0, "2S", reject="not_your_turn"),
        play(1, "4D", turn=2),
    ], leader=0, final={"forbidden": [0], "places": {0: 3}})  # fmt: skip


def test_federation_forced_forbidden_after_a_flush_next_player_leads() -> None:
    run("federation", ["5S 2S", "4H 9C", "3C KD"], [
        play(0, "5S", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=1, field=[], forbidden=[0], places={0: 3}, hands={0: "2S"}),
        play(1, "9C", turn=2),
    ], leader=0)  # fmt: skip


@pytest.mark.parametrize(
    ("hand", "revolution"),
    [("8S 8H", False), ("3S", False), ("3H 3S", True), ("2D JK 8C 3S", False)],
)
def test_federation_forced_forbidden_hands(hand: str, revolution: bool) -> None:
    run("federation", [hand, "4D 9C", "QD KD"], [
        play(1, "4D", turn=2),
    ], leader=0, revolution=revolution, final={"forbidden": [0]})  # fmt: skip


@pytest.mark.parametrize(("hand", "revolution"), [("2S 9C", False), ("2S 2H", True)])
def test_federation_leader_with_a_playable_card_is_not_forced(hand: str, revolution: bool) -> None:
    run("federation", [hand, "4D 9H", "QD KD"], [
        play(1, "4D", reject="not_your_turn"),
    ], leader=0, revolution=revolution, final={"forbidden": [], "turn": 0})  # fmt: skip


@pytest.mark.parametrize("preset", ["torasobi", "classic"])
def test_no_forced_forbidden_finish_outside_federation(preset: str) -> None:
    run(preset, ["2S 2H", "4D 9C", "QD KD"], [
        play(0, "2S 2H", turn=1),
    ], leader=0)  # fmt: skip


def test_torasobi_leader_with_only_twos_finishes_with_a_pair() -> None:
    run("torasobi", ["2S 2H", "4D 9C", "QD KD"], [
        play(0, "2S 2H", turn=1, forbidden=[], places={0: 1}),
    ], leader=0)  # fmt: skip


# -- bottom ordering ------------------------------------------------------------------

GAME2 = ["AS KH 4D", "2S 2H", "TH TD", "5C 5H JS"]


def _forbidden_then_fallen() -> list[dict[str, object]]:
    return [
        play(3, "5C 5H", turn=0),
        pass_(0, turn=1),
        play(1, "2S 2H", turn=2, forbidden=[1], places={1: 4}),
        pass_(2, turn=3),
        pass_(3, turn=2, field=[]),
        play(2, "TH TD", fallen=[0], game_over=True),
    ]


def test_classic_newest_bottom_event_takes_the_last_place() -> None:
    run("classic", GAME2, _forbidden_then_fallen(), previous_places=[1, 2, 3, 4],
        skip_exchange=True, final={"places": {2: 1, 3: 2, 1: 3, 0: 4}})  # fmt: skip


def test_torasobi_newest_bottom_event_takes_the_last_place() -> None:
    run("torasobi", ["AS KH 4D", "2S", "TH", "5C JS 9S"], [
        play(3, "5C", turn=0),
        pass_(0, turn=1),
        play(1, "2S", turn=2, forbidden=[1], places={1: 4}),
        pass_(2, turn=3),
        pass_(3, turn=0),
        pass_(0, turn=2, field=[]),
        play(2, "TH", fallen=[0], game_over=True),
    ], previous_places=[1, 2, 3, 4], skip_exchange=True,
        final={"places": {2: 1, 3: 2, 1: 3, 0: 4}})  # fmt: skip


def test_federation_forbidden_finishers_rank_below_a_fallen_daifugo() -> None:
    run("federation", GAME2, _forbidden_then_fallen(), previous_places=[1, 2, 3, 4],
        skip_exchange=True, final={"places": {2: 1, 3: 2, 0: 3, 1: 4}})  # fmt: skip


@pytest.mark.parametrize("preset", ["federation", "classic"])
def test_fallen_first_then_forbidden_takes_the_last_place(preset: str) -> None:
    run(preset, ["AS KH 4D", "TH TD", "2S 2H", "5C 5H JS"], [
        play(3, "5C 5H", turn=0),
        pass_(0, turn=1),
        play(1, "TH TD", turn=2, places={1: 1, 0: 4}, fallen=[0]),
        play(2, "2S 2H", forbidden=[2], game_over=True),
    ], previous_places=[1, 2, 3, 4], skip_exchange=True,
        final={"places": {1: 1, 3: 2, 0: 3, 2: 4}})  # fmt: skip


FIVE = ["4D 9C", "2S", "JK", "3S", "5C 6C"]


def _three_forbidden() -> list[dict[str, object]]:
    return [
        play(0, "4D", turn=1),
        play(1, "2S", turn=2, places={1: 5}),
        play(2, "JK", turn=3),
        play(3, "3S", turn=4, field=[], forbidden=[1, 2, 3]),
    ]


def test_federation_first_forbidden_finisher_takes_the_worst_place() -> None:
    run("federation", FIVE, _three_forbidden(), leader=0,
        final={"places": {3: 3, 2: 4, 1: 5}})  # fmt: skip


def test_classic_earlier_forbidden_finishers_move_up() -> None:
    run("classic", FIVE, _three_forbidden(), leader=0,
        final={"places": {1: 3, 2: 4, 3: 5}})  # fmt: skip


# -- passing ----------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["federation", "classic"])
def test_a_passed_player_is_skipped_until_the_flush(preset: str) -> None:
    run(preset, ["4D 9C KS", "5S AH", "6H QD"], [
        play(0, "4D", turn=1),
        pass_(1, turn=2),
        play(2, "6H", turn=0),
        play(0, "9C", turn=2),
        play(1, "AH", reject="not_your_turn"),
        pass_(2, turn=0, field=[]),
        play(0, "KS", turn=1),
        play(1, "AH", turn=2),
    ], leader=0)  # fmt: skip


def test_torasobi_a_passed_player_may_play_again() -> None:
    run("torasobi", ["4D 9C KS", "5S AH", "6H QD"], [
        play(0, "4D", turn=1),
        pass_(1, turn=2),
        play(2, "6H", turn=0),
        play(0, "9C", turn=1),
        play(1, "AH", turn=2, field="AH"),
    ], leader=0)  # fmt: skip


def test_torasobi_flush_when_everyone_passes_in_a_row() -> None:
    run("torasobi", ["4D 9C KS", "5S AH", "6H QD"], [
        play(0, "4D", turn=1),
        pass_(1, turn=2),
        play(2, "6H", turn=0),
        pass_(0, turn=1),
        pass_(1, turn=2, field=[]),
    ], leader=0)  # fmt: skip


@pytest.mark.parametrize("preset", ALL)
def test_the_leader_may_not_pass(preset: str) -> None:
    run(preset, ["4D 9C", "5S AH", "6H QD"], [
        pass_(0, reject="cannot_pass"),
        play(0, "9C", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        pass_(0, reject="cannot_pass"),
    ], leader=0)  # fmt: skip


# -- first lead -------------------------------------------------------------------------


def test_classic_first_lead_must_hold_the_d3() -> None:
    run("classic", ["3D 3C 9S", "5S AH", "6H QD"], [
        play(0, "9S", reject="must_include_d3"),
        play(0, "3C", reject="must_include_d3"),
        play(0, "3D 3C", turn=1, field="3D 3C"),
    ])  # fmt: skip


def test_classic_first_lead_may_be_stairs_with_the_d3() -> None:
    run("classic", ["3D 4D 5D 9S", "5S AH", "6H QD"], [
        play(0, "3D 4D 5D", turn=1),
    ])  # fmt: skip


def test_classic_without_a_dealt_d3_the_first_lead_is_free() -> None:
    run("classic", ["9S 4D", "3C AH", "6H QD"], [
        play(1, "AH", turn=2, field="AH"),
    ], final={"turn": 2})  # fmt: skip


def test_classic_only_the_first_play_must_hold_the_d3() -> None:
    run("classic", ["3D 3C 9S", "5S AH", "6H QD"], [
        play(0, "3D", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "9S", turn=1),
    ])  # fmt: skip


def test_classic_second_game_has_no_d3_rule() -> None:
    run("classic", ["5S AH", "3D 9S", "6H QD"], [
        play(1, "9S", turn=2),
    ], previous_places=[1, 3, 2], skip_exchange=True)  # fmt: skip


@pytest.mark.parametrize("preset", ["federation", "torasobi"])
def test_d3_holder_leads_without_the_d3_rule(preset: str) -> None:
    run(preset, ["5S AH", "3D 9S", "6H QD"], [
        play(1, "9S", turn=2),
    ])  # fmt: skip


def test_give_outside_an_exchange_is_wrong_action() -> None:
    run("federation", ["5S AH", "3D 9S", "6H QD"], [
        give(1, "9S", reject="wrong_action"),
    ])  # fmt: skip


def test_federation_forced_forbidden_finishers_in_a_row() -> None:
    run("federation", ["2S", "JK", "4D 9C", "QD KD"], [
        play(2, "4D", turn=3),
    ], leader=0, final={"forbidden": [0, 1], "places": {0: 4, 1: 3}})  # fmt: skip


def test_a_flushing_last_play_hands_the_lead_to_the_next_player() -> None:
    run("torasobi", ["8S 8H", "4D 9C", "QD KD"], [
        play(0, "8S 8H", turn=1, field=[], places={0: 1}, forbidden=[]),
    ], leader=0)  # fmt: skip


def test_federation_finishing_eight_is_no_eight_cut_when_cuts_are_off() -> None:
    run("federation", ["4D 9C", "8S", "QD KD"], [
        play(0, "4D", turn=1),
        play(1, "8S", turn=2, field="8S", forbidden=[], places={1: 1}),
    ], {"eight_cut": False}, leader=0)  # fmt: skip


def test_classic_finishing_eight_is_forbidden_even_without_cuts() -> None:
    run("classic", ["4D 9C", "8S", "QD KD"], [
        play(0, "4D", turn=1),
        play(1, "8S", turn=2, field="8S", forbidden=[1], places={1: 3}),
    ], {"eight_cut": False}, leader=0)  # fmt: skip


def test_federation_eights_are_not_forced_when_cuts_are_off() -> None:
    run("federation", ["8S 8H", "4D 9C", "QD KD"], [
        play(0, "8S 8H", turn=1, forbidden=[], places={0: 1}),
    ], {"eight_cut": False}, leader=0)  # fmt: skip


def test_federation_forced_forbidden_next_leader_in_the_reversed_order() -> None:
    run("federation", ["9D 2S", "TS 5S", "JH 6H", "QC KD"], [
        play(0, "9D", turn=3, direction=-1),
        pass_(3, turn=2),
        pass_(2, turn=1),
        pass_(1, turn=3, field=[], forbidden=[0], places={0: 4}),
    ], {"nine_reverse": True}, leader=0)  # fmt: skip


def test_previous_daifugo_already_forbidden_does_not_fall_again() -> None:
    run("federation", ["2S 2H", "TH TD", "QC 7S", "5C 5H JS"], [
        play(3, "5C 5H", turn=0),
        play(0, "2S 2H", turn=1, forbidden=[0], places={0: 4}),
        pass_(1, turn=2),
        pass_(2, turn=3),
        pass_(3, turn=1, field=[]),
        play(1, "TH TD", turn=2, fallen=[], forbidden=[0], places={1: 1, 0: 4}),
    ], previous_places=[1, 2, 3, 4], skip_exchange=True)  # fmt: skip
