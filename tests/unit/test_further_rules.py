"""The further local rules of RULES.md §5, one by one, with a test for each of
their Decisions (§5.3) and clarifications (§5.6)."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules import Pass, rule_set
from service.rules import events as ev
from service.rules.legal import legal_actions
from service.rules.narration import describe
from service.rules.views import event_record

from .scenario_helpers import give, pass_, play, run

G2: dict[str, Any] = {"previous_places": [1, 2, 3, 4], "skip_exchange": True}  # seat 0 was 大富豪


# -- 53 kyo-ochi ------------------------------------------------------------------------


def test_kyo_ochi_the_fugo_falls_when_the_daifugo_stays_first() -> None:
    run("federation", ["9H", "AD 4C", "QC 5H", "TD 3C"], [
        play(3, "3C", turn=0),
        play(0, "9H", turn=2, places={0: 1, 1: 4}, fallen=[1]),
    ], {"kyo_ochi": True}, **G2)  # fmt: skip


def test_kyo_ochi_works_with_miyako_ochi_off() -> None:
    # §5.6 #12
    run("torasobi", ["9H", "AD 4C", "QC 5H", "TD 3C"], [
        play(3, "3C", turn=0),
        play(0, "9H", turn=2, places={0: 1, 1: 4}, fallen=[1]),
    ], {"kyo_ochi": True, "miyako_ochi": False}, **G2)  # fmt: skip


def test_kyo_ochi_needs_four_players() -> None:
    # Decision (#53): with three players there is no 富豪
    run("torasobi", ["9H", "AD 4C", "TD 3C"], [
        play(2, "3C", turn=0),
        play(0, "9H", turn=1, places={0: 1}, fallen=[]),
    ], {"kyo_ochi": True}, previous_places=[1, 2, 3], skip_exchange=True)  # fmt: skip


def test_kyo_ochi_off_nobody_falls() -> None:
    run("torasobi", ["9H", "AD 4C", "QC 5H", "TD 3C"], [
        play(3, "3C", turn=0),
        play(0, "9H", turn=1, places={0: 1}, fallen=[]),
    ], **G2)  # fmt: skip


def test_kyo_ochi_not_in_the_first_game() -> None:
    run("torasobi", ["9H", "AD 4C", "QC 5H", "TD 3C"], [
        play(3, "3C", turn=0),
        play(0, "9H", turn=1, places={0: 1}, fallen=[]),
    ], {"kyo_ochi": True}, leader=3)  # fmt: skip


def test_kyo_ochi_a_forbidden_finish_keeps_the_fugo() -> None:
    # a normal finish only: a forbidden finisher takes no 1st place
    run("torasobi", ["2H", "AD 4C", "QC 5H", "TD 3C"], [
        play(3, "3C", turn=0),
        play(0, "2H", turn=1, forbidden=[0], places={0: 4}, fallen=[]),
    ], {"kyo_ochi": True}, **G2)  # fmt: skip


def test_kyo_ochi_the_fugo_already_gone_does_not_fall() -> None:
    run("torasobi", ["9H KS", "2D", "QC 5H", "TD 3C 4S"], [
        play(3, "3C", turn=0),
        play(0, "9H", turn=1),
        play(1, "2D", turn=2, forbidden=[1], places={1: 4}),
        pass_(2, turn=3),
        pass_(3, turn=0),
        pass_(0, turn=2, field=[]),
        play(2, "5H", turn=3),
        play(3, "TD", turn=0),
        play(0, "KS", places={0: 1, 1: 4}, fallen=[]),
    ], {"kyo_ochi": True}, **G2)  # fmt: skip


def test_kyo_ochi_others_finishing_first_is_miyako_ochi() -> None:
    run("torasobi", ["9H 4S", "QS 6H", "KC 7D", "3C"], [
        play(3, "3C", game_over=False, places={3: 1, 0: 4}, fallen=[0]),
    ], {"kyo_ochi": True}, **G2)  # fmt: skip


def test_kyo_ochi_is_not_switched_off_by_an_omen() -> None:
    # §5.6 #12: the omen at seat 3 does not stop the fall
    run("torasobi", ["9H 4D", "AD 4C", "QC 5H", "6S 6H 6D KC 3S"], [
        play(3, "6S 6H 6D", turn=0, revolution=True),
        pass_(0, turn=1),
        pass_(1, turn=2),
        pass_(2, turn=3, field=[]),
        play(3, "KC", turn=0),
        play(0, "9H", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=3),
        pass_(3, turn=0, field=[]),
        play(0, "4D", turn=2, places={0: 1, 1: 4}, fallen=[1]),
    ], {"kyo_ochi": True, "omen": True}, **G2)  # fmt: skip


def test_kyo_ochi_is_narrated() -> None:
    rules = rule_set("torasobi", {"kyo_ochi": True})
    assert rules.kyo_ochi
    line = describe(event_record(ev.PlayerFell(1, 4, 0, "kyo_ochi")), 4)
    assert line == "seat 1 falls to 4th (大貧民): kyo-ochi"
    line = describe(event_record(ev.PlayerFell(0, 4)), 4)
    assert line == "seat 0 falls to 4th (大貧民): miyako-ochi"


# -- 54 daifugo's leisure ---------------------------------------------------------------


def test_leisure_the_daifugo_must_pass_on_their_first_turn() -> None:
    run("federation", ["AH 9C", "QS 6D", "TH 5C", "7D 2H"], [
        play(3, "7D", turn=0),
        play(0, "AH", reject="wrong_action"),
        play(0, "KH", reject="wrong_action"),  # not held: the obligation comes first
        pass_(0, turn=1),
        play(1, "QS", turn=2),
    ], {"daifugo_leisure": True}, **G2)  # fmt: skip


def test_leisure_only_the_first_turn() -> None:
    run("torasobi", ["AH 9C 4H", "QS 6D", "TH 5C", "7D 2H"], [
        play(3, "7D", turn=0),
        pass_(0, turn=1),
        play(1, "QS", turn=2),
        pass_(2, turn=3),
        pass_(3, turn=0),
        play(0, "AH", turn=1),
    ], {"daifugo_leisure": True}, **G2)  # fmt: skip


def test_leisure_lapses_on_a_lead() -> None:
    # Decision (#54): a lead cannot be passed, so the rule lapses
    run("torasobi", ["AH 9C 4H", "QS 6D", "TH 5C", "7D 2H"], [
        pass_(0, reject="cannot_pass"),
        play(0, "4H", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=3),
        play(3, "7D", turn=0),
        play(0, "9C", turn=1),
    ], {"daifugo_leisure": True}, leader=0, **G2)  # fmt: skip


def test_leisure_not_in_the_first_game() -> None:
    run("torasobi", ["AH 9C", "QS 6D", "TH 5C", "7D 2H"], [
        play(3, "7D", turn=0),
        play(0, "AH", turn=1),
    ], {"daifugo_leisure": True}, leader=3)  # fmt: skip


def test_leisure_off_the_daifugo_plays() -> None:
    run("torasobi", ["AH 9C", "QS 6D", "TH 5C", "7D 2H"], [
        play(3, "7D", turn=0),
        play(0, "AH", turn=1),
    ], **G2)  # fmt: skip


def test_leisure_an_answer_window_is_not_a_turn() -> None:
    # RULES.md §5 #54, §5.6 #13: declining a four-stop is not the first turn
    run("torasobi", ["AH 9C", "QS 6D", "TH 5C", "8D 7D 3S"], [
        play(3, "8D", turn=0, waiting_for="four_stop"),
        pass_(0, turn=1),
        pass_(1, turn=2),
        pass_(2, turn=3, field=[]),
        play(3, "7D", turn=0),
        play(0, "AH", reject="wrong_action"),
        pass_(0, turn=1),
    ], {"daifugo_leisure": True, "four_stop": True}, **G2)  # fmt: skip


def test_leisure_being_skipped_is_not_a_turn() -> None:
    # §5.6 #13: a five-skip passes over the 大富豪, who must still pass later
    run("torasobi", ["AH 9C", "QS 7S", "TH 5C", "5D 7D 2H"], [
        play(3, "5D", turn=1),
        play(1, "7S", turn=2),
        play(2, "TH", turn=3),
        pass_(3, turn=0),
        play(0, "AH", reject="wrong_action"),
        pass_(0, turn=1),
    ], {"daifugo_leisure": True, "five_skip": True}, **G2)  # fmt: skip


def test_leisure_legal_actions_are_the_pass_alone() -> None:
    state = run("torasobi", ["AH 9C", "QS 6D", "TH 5C", "7D 2H"], [
        play(3, "7D", turn=0),
    ], {"daifugo_leisure": True}, **G2)  # fmt: skip
    assert legal_actions(state) == [Pass(0)]


def test_leisure_after_the_exchange() -> None:
    # §5.6 #13: exchange gives do not count; 大富豪 gives first, then must pass
    run("torasobi", ["AH 9C 4S", "QS 6D", "TH 5C", "7D 2H JK"], [
        give(3, "2H JK", turn=0),
        give(0, "4S 9C", turn=2),
        give(2, "TH", turn=1),
        give(1, "6D", turn=3),
        play(3, "7D", turn=0),
        play(0, "AH", reject="wrong_action"),
        pass_(0, turn=1),
    ], {"daifugo_leisure": True}, previous_places=[1, 2, 3, 4])  # fmt: skip


# -- 55 d3 start -----------------------------------------------------------------------


def test_d3_start_on_in_torasobi() -> None:
    run("torasobi", ["3D 3C 9H", "5S JD", "7C QH"], [
        play(0, "9H", reject="must_include_d3"),
        play(0, "3D 3C", turn=1),
    ], {"d3_start": True})  # fmt: skip


def test_d3_start_is_classic_by_default_and_may_be_turned_off() -> None:
    assert rule_set("classic").d3_start
    assert not rule_set("torasobi").d3_start and not rule_set("federation").d3_start
    run("classic", ["3D 3C 9H", "5S JD", "7C QH"], [
        play(0, "9H", turn=1),
    ], {"d3_start": False})  # fmt: skip


def test_d3_start_reads_the_option_by_its_older_name() -> None:
    assert not rule_set("classic", {"first_lead_must_include_d3": False}).d3_start


def test_d3_start_only_the_first_game() -> None:
    # Decision (#55)
    run("torasobi", ["3D 3C 9H", "5S JD", "7C QH"], [
        play(0, "9H", turn=1),
    ], {"d3_start": True}, leader=0, previous_places=[3, 2, 1], skip_exchange=True)  # fmt: skip


def test_d3_start_only_when_the_leader_holds_it() -> None:
    run("torasobi", ["4D 3C 9H", "5S JD", "7C QH 3D"], [
        play(0, "9H", turn=1),
    ], {"d3_start": True}, leader=0)  # fmt: skip


def test_d3_start_a_joker_standing_for_it_does_not_count() -> None:
    # §5.6 #14
    run("torasobi", ["3D 3C JK", "5S JD", "7C QH"], [
        play(0, "3C JK", as_="3D", reject="must_include_d3"),
        play(0, "3D 3C JK", turn=1),
    ], {"d3_start": True})  # fmt: skip


def test_d3_start_does_not_change_who_leads() -> None:
    state = run("torasobi", ["4D 3C 9H", "5S JD 3D", "7C QH"], [], {"d3_start": True})
    assert state.turn == 1
    assert all(play_.cards & 1 for play_ in legal_actions(state))


def test_further_rules_are_listed_among_the_local_rules() -> None:
    from service.rules import LOCAL_RULES

    for name in ("kyo_ochi", "daifugo_leisure", "d3_start"):
        assert name in LOCAL_RULES


@pytest.mark.parametrize("name", ["kyo_ochi", "daifugo_leisure", "d3_start"])
def test_further_rules_are_off_unless_said(name: str) -> None:
    for preset in ("federation", "torasobi", "uecda"):
        assert not getattr(rule_set(preset), name)
    assert getattr(rule_set("torasobi", {name: True}), name)
