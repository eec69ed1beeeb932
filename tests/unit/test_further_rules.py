"""The further local rules of docs/RULES.md §5, one by one, with a test for each of
their Decisions (§5.3) and clarifications (§5.6)."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from service.rules import Pass, Play, rule_set
from service.rules import events as ev
from service.rules import vocabulary as words
from service.rules.legal import legal_actions
from service.rules.narration import describe
from service.rules.views import event_record

from .scenario_helpers import discard, give, pass_, pick, play, run

G2: dict[str, Any] = {"previous_places": [1, 2, 3, 4], "skip_exchange": True}  # seat 0 was 大富豪
run0 = functools.partial(run, leader=0)  # seat 0 leads the first game


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
    line = describe(event_record(ev.PlayerFell(1, 4, 0, words.FallCause.KYO_OCHI)), 4)
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
    # docs/RULES.md §5 #54, §5.6 #13: declining a four-stop is not the first turn
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


# -- 41 strong eleven-back --------------------------------------------------------------

STRONG = {"eleven_back": True, "strong_eleven_back": True}


def test_strong_eleven_back_outlives_one_flush() -> None:
    run0("torasobi", ["JS JH JD 4C 9S", "KC 5D 3H", "QH 6C TD"], [
        play(0, "JS JH JD", turn=1, eleven_back=True),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[], eleven_back=True),
        play(0, "9S", turn=1),
        play(1, "KC", reject="not_stronger"),
        play(1, "5D", turn=2),
        pass_(2, turn=0),
        pass_(0, turn=1, field=[], eleven_back=False),
    ], STRONG)  # fmt: skip


def test_strong_eleven_back_needs_three_js() -> None:
    run0("torasobi", ["JS JH 4C 9S", "KC 5D 3H", "QH 6C TD"], [
        play(0, "JS JH", turn=1, eleven_back=True),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[], eleven_back=False),
    ], STRONG)  # fmt: skip


def test_strong_eleven_back_a_joker_is_no_j() -> None:
    run0("torasobi", ["JS JH JK 4C 9S", "KC 5D 3H", "QH 6C TD"], [
        play(0, "JS JH JK", turn=1, eleven_back=True),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[], eleven_back=False),
    ], STRONG)  # fmt: skip


def test_strong_eleven_back_does_nothing_without_eleven_back() -> None:
    # Decision (#41): it never stands alone
    run0("torasobi", ["JS JH JD 4C 9S", "KC 5D 3H", "QH 6C TD"], [
        play(0, "JS JH JD", turn=1, eleven_back=False),
    ], {"strong_eleven_back": True})  # fmt: skip


def test_strong_eleven_back_in_the_order_reading_keeps_the_direction() -> None:
    run0("torasobi", ["JS JH JD 4C 9S", "KC 5D 3H", "QH 6C TD", "8C 2D"], [
        play(0, "JS JH JD", turn=3, direction=-1),
        pass_(3, turn=2),
        pass_(2, turn=1),
        pass_(1, turn=0, field=[], direction=-1, eleven_back=True),
        play(0, "4C", turn=3),
    ], {"eleven_back": "order", "strong_eleven_back": True})  # fmt: skip


def test_strong_eleven_back_a_later_j_does_not_shorten_it() -> None:
    # §5.6 #3: a single J in the second trick sets eleven-back, which is in force already
    run0("torasobi", ["JS JH JD 4C QS", "KC 5D JC", "QH 6C TD"], [
        play(0, "JS JH JD", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "QS", turn=1),
        play(1, "JC", turn=2, eleven_back=True),
        pass_(2, turn=0),
        pass_(0, turn=1, field=[], eleven_back=False),
    ], STRONG)  # fmt: skip


def test_strong_eleven_back_ends_at_a_six_return() -> None:
    run0("torasobi", ["JS JH JD 4C 9S", "KC 5D 3H", "QH 6C TD"], [
        play(0, "JS JH JD", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "9S", turn=1),
        pass_(1, turn=2),
        play(2, "6C", turn=0, eleven_back=False),
        pass_(0, turn=1),
        pass_(1, turn=2, field=[], eleven_back=False),
    ], {**STRONG, "six_return": True})  # fmt: skip


# -- 42 six-return -----------------------------------------------------------------------


def test_six_return_ends_eleven_back_judged_under_it() -> None:
    run0("torasobi", ["JH 9C 4S", "6D KS 5H", "7S 5C QD"], [
        play(0, "JH", turn=1, eleven_back=True),
        play(1, "KS", reject="not_stronger"),
        play(1, "6D", turn=2, eleven_back=False),
        play(2, "5C", reject="not_stronger"),
    ], {"eleven_back": True, "six_return": True})  # fmt: skip


def test_six_return_without_eleven_back_does_nothing() -> None:
    run0("torasobi", ["6H 9C 4S", "7D KS 5H", "8S 5C QD"], [
        play(0, "6H", turn=1, eleven_back=False),
        play(1, "KS", turn=2),
    ], {"eleven_back": True, "six_return": True})  # fmt: skip


def test_six_return_a_j_and_a_6_start_eleven_back_when_none_was() -> None:
    # §5.6 #4, #42: stairs 6 to J, a joker standing for the 8 (federation: stairs never cut)
    run0("federation", ["6S 7S JK 9S TS JS 3C", "KC 5D 3H", "QH 6C TD"], [
        play(0, "6S 7S JK 9S TS JS", as_="8S", turn=1, eleven_back=True),
    ], {"eleven_back": True, "six_return": True})  # fmt: skip


def test_six_return_a_j_and_a_6_end_an_eleven_back_in_force() -> None:
    # §5.6 #4: stairs holding a J and a 6 on stairs under eleven-back end it
    run0("federation", ["8D 9D TD JD QD KD 3C", "6S 7S JK 9S TS JS 4C", "QH 6C 5D"], [
        play(0, "8D 9D TD JD QD KD", turn=1, eleven_back=True),
        play(1, "6S 7S JK 9S TS JS", as_="8S", turn=2, eleven_back=False),
    ], {"eleven_back": True, "six_return": True})  # fmt: skip


def test_six_return_order_reading_six_flips_back() -> None:
    # in revolution, where a 6 beats a J
    run0("torasobi", ["JH 9C 4S", "6D KS 5H", "7S 5C QD", "3D 8D"], [
        play(0, "JH", turn=3, direction=-1),
        pass_(3, turn=2),
        pass_(2, turn=1),
        play(1, "6D", turn=2, direction=1, eleven_back=False),
    ], {"eleven_back": "order", "six_return": True}, revolution=True)  # fmt: skip


# -- 43 two-back -------------------------------------------------------------------------


def test_two_back_reverses_until_the_flush() -> None:
    run0("torasobi", ["2S 5C KD", "AH 4D 9H", "3D QC 7H"], [
        play(0, "2S", turn=1, two_back=True),
        play(1, "9H", turn=2, two_back=True),
        play(2, "QC", reject="not_stronger"),
        play(2, "3D", turn=0),
        pass_(0, turn=1),
        pass_(1, turn=2, field=[], two_back=False),
    ], {"two_back": True})  # fmt: skip


def test_two_back_in_revolution_is_the_normal_order() -> None:
    run0("torasobi", ["2S 5C KD", "AH 4D 9H", "3D QC 7H"], [
        play(0, "2S", turn=1, two_back=True, revolution=True),
        play(1, "4D", reject="not_stronger"),
        play(1, "AH", reject="not_stronger"),
    ], {"two_back": True}, revolution=True)  # fmt: skip


def test_two_back_a_second_two_does_not_undo_it() -> None:
    # Decision (#43): set, not toggled
    run0("federation", ["2S 2D 5C", "AH 4D 9H 3S", "3D QC 7H"], [
        play(0, "2S", turn=1, two_back=True),
        play(1, "AH", turn=2),
        play(2, "3D", turn=0),
        play(0, "2D", reject="not_stronger"),
    ], {"two_back": True})  # fmt: skip


def test_two_back_a_joker_is_no_two() -> None:
    run0("torasobi", ["2S JK 5C KD", "AH AD 4D", "3D 3C 7H"], [
        play(0, "2S JK", turn=1, two_back=True),
    ], {"two_back": True})  # fmt: skip


def test_two_back_off_the_order_stays() -> None:
    run0("torasobi", ["2S 5C KD", "AH 4D 9H", "3D QC 7H"], [
        play(0, "2S", turn=1, two_back=False),
        play(1, "9H", reject="not_stronger"),
    ])  # fmt: skip


def test_two_back_forbidden_finish_still_reads_the_revolution() -> None:
    # §5.1 Order in force: "revolution" alone is the game's revolution state; the
    # finishing 2 is judged before the two-back it starts
    run0("torasobi", ["2D", "AH 4D 9H 3S", "3D QC 7H"], [
        play(0, "2D", turn=1, forbidden=[0], two_back=True),
    ], {"two_back": True})  # fmt: skip


# -- 44 to 46 the reverses ---------------------------------------------------------------


@pytest.mark.parametrize(("rule", "play_", "rest"), [
    ("six_reverse", "6S 6H", "3C"), ("queen_reverse", "QS QH", "3C"),
    ("king_reverse", "KS KH", "3C"),
])  # fmt: skip
def test_reverse_flips_once_per_play(rule: str, play_: str, rest: str) -> None:
    # Decision (#44 to #46): a pair flips once, as nine-reverse does
    run0("torasobi", [f"{play_} {rest}", "AH AD 4D", "2D 2C 7H", "9S 9H 8C"], [
        play(0, play_, turn=3, direction=-1),
    ], {rule: True})  # fmt: skip


@pytest.mark.parametrize("rule", ["six_reverse", "queen_reverse", "king_reverse"])
def test_reverse_off_keeps_the_direction(rule: str) -> None:
    run0("torasobi", ["6S QS KS 3C", "AH AD 4D", "2D 2C 7H", "9S 9H 8C"], [
        play(0, "QS", turn=1, direction=1),
    ])  # fmt: skip


def test_reverse_a_joker_is_no_rank() -> None:
    run0("torasobi", ["KS JK 3C", "AH AD 4D", "2D 2C 7H", "9S 9H 8C"], [
        play(0, "KS JK", turn=3, direction=-1),
    ], {"king_reverse": True, "queen_reverse": True})  # fmt: skip


def test_two_reverses_in_one_play_cancel() -> None:
    # Decision (#44 to #46): Q and K in one stairs flip twice
    run0("torasobi", ["JS QS KS 3C", "AH AD 4D", "2D 2C 7H", "9S 9H 8C"], [
        play(0, "JS QS KS", turn=1, direction=1),
    ], {"king_reverse": True, "queen_reverse": True})  # fmt: skip


def test_six_and_nine_reverse_cancel() -> None:
    run0("torasobi", ["6S 7S JK 9S 3C", "AH AD 4D", "2D 2C 7H", "9D 9H 8C"], [
        play(0, "6S 7S JK 9S", as_="8S", turn=1, direction=1, revolution=True),
    ], {"six_reverse": True, "nine_reverse": True})  # fmt: skip


def test_reverse_is_cancelled_by_a_flush() -> None:
    run0("torasobi", ["4S 4C 9D KC", "6H 6D 6S TD", "QH 7D 5C", "JC 3H AH"], [
        play(0, "4S 4C", turn=1),
        play(1, "6H 6D", turn=1, field=[], direction=1),
        play(1, "6S", turn=0, direction=-1),
    ], {"six_reverse": True, "rokurokubi": True})  # fmt: skip


def test_reverse_is_narrated_with_its_rule() -> None:
    record = event_record(ev.DirectionReversed(-1, words.ReverseCause.KING_REVERSE))
    assert describe(record, 4) == "king-reverse: direction reversed"
    assert describe(event_record(ev.DirectionReversed(-1)), 4) == "nine-reverse: direction reversed"


# -- 47, 48 king-skip and ten-skip --------------------------------------------------------


def test_king_skip_skips_one_per_real_k() -> None:
    run0("torasobi", ["KD KC 4S", "AH AS", "5D 5C", "2H 2S 9H"], [
        play(0, "KD KC", turn=3),
        play(1, "AH AS", reject="not_your_turn"),
        play(3, "2H 2S", turn=0),
        pass_(0, turn=1),
        pass_(1, turn=2),
        pass_(2, turn=3, field=[]),
    ], {"king_skip": True})  # fmt: skip


def test_king_skip_a_joker_is_no_k() -> None:
    run0("torasobi", ["KD JK 4S", "AH AS", "5D 5C", "2H 2S 9H"], [
        play(0, "KD JK", turn=2),
    ], {"king_skip": True})  # fmt: skip


def test_ten_skip_skips_after_the_discard() -> None:
    run0("torasobi", ["TS 4D 6C KH", "JD 5C", "QH 7D"], [
        play(0, "TS", turn=0, waiting_for="ten_discard"),
        discard(0, "4D", turn=2, waiting_for="play", discard_pile=["4D"]),
        play(2, "QH", turn=0),
        pass_(0, turn=1),
        pass_(1, turn=2, field=[], discard_pile=["4D", "TS", "QH"]),
    ], {"ten_skip": True, "ten_discard": True})  # fmt: skip


def test_skips_of_several_rules_add_up() -> None:
    # Decision (#47, #48): stairs T-J-Q-K (federation: no revolt) skip two
    run0("federation", ["TS JS QS KS 3C", "AH AD 4D", "2D 2C 7H", "9S 9H 8C", "5C 6C"], [
        play(0, "TS JS QS KS", turn=3),
    ], {"king_skip": True, "ten_skip": True})  # fmt: skip


def test_skips_count_in_the_direction_left_by_the_reverses() -> None:
    run0("torasobi", ["KS 3C", "AH AD 4D", "2D 2C 7H", "9S 9H 8C"], [
        play(0, "KS", turn=2, direction=-1),
    ], {"king_skip": True, "king_reverse": True})  # fmt: skip


def test_skips_pass_over_a_passed_player_without_a_skip() -> None:
    # §5.6 #11 (federation: a pass holds until the flush)
    run0("federation", ["4S KS 3C", "5H AD 4D", "2D 2C 7H", "9S 9H 8C"], [
        play(0, "4S", turn=1),
        pass_(1, turn=2),
        play(2, "7H", turn=3),
        pass_(3, turn=0),
        play(0, "KS", turn=0, field=[]),
    ], {"king_skip": True})  # fmt: skip


def test_a_flush_cancels_skips() -> None:
    run0("torasobi", ["KS KH 3C", "AH AD 4D", "2D 2C 7H", "9S 9H 8C"], [
        play(0, "KS KH", turn=3),
    ], {"king_skip": True})  # fmt: skip


def test_skips_are_narrated_with_their_rules() -> None:
    record = event_record(ev.PlayersSkipped((1, 2), ("king_skip", "ten_skip")))
    assert describe(record, 4) == "king-skip + ten-skip: seat 1, seat 2 skipped"


def test_views_show_two_back_and_the_discard_pile() -> None:
    from service.rules.views import SPECTATOR, build_view

    state = run0("torasobi", ["2S 5C KD", "AH 4D 9H", "3D QC 7H"], [
        play(0, "2S", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "5C", turn=1),
    ], {"two_back": True})  # fmt: skip
    view = build_view(state, SPECTATOR)
    assert view.discard_pile == ("2S",) and not view.two_back


# -- 27 to 29 five-, six- and seven-cut ----------------------------------------------------


def test_five_cut_in_revolution_flushes() -> None:
    run0("torasobi", ["9H 6C KD 2S", "5D 5H 9C QS", "4S JH 8C TD"], [
        play(0, "9H", turn=1),
        play(1, "5D", turn=1, field=[], revolution=True),
        play(1, "9C", turn=2),
    ], {"five_cut": True}, revolution=True)  # fmt: skip


def test_five_cut_not_in_normal_order() -> None:
    run0("torasobi", ["4H 6C KD 2S", "5D 5H 9C QS", "4S JH 8C TD"], [
        play(0, "4H", turn=1),
        play(1, "5D", turn=2, field=["5D"]),
    ], {"five_cut": True})  # fmt: skip


def test_six_cut_a_play_that_starts_the_revolution_does_not_cut() -> None:
    # Decision (#27 to #29, when)
    run0("torasobi", ["6S 6H 6D JK KC 4D", "6C TH 3S", "9D QH 5C"], [
        play(0, "6S 6H 6D JK", turn=1, revolution=True, field=["6S", "6H", "6D", "JK"]),
    ], {"six_cut": True})  # fmt: skip


def test_six_cut_a_counter_revolution_cuts() -> None:
    run0("torasobi", ["6S 6H 6D 6C KC 4D", "TH 3S", "9D QH 5C"], [
        play(0, "6S 6H 6D 6C", turn=0, revolution=False, field=[]),
    ], {"six_cut": True}, revolution=True)  # fmt: skip


@pytest.mark.parametrize(("preset", "cards_", "cuts"), [
    ("federation", "5S JK", True), ("federation", "5S 6S 7S", False),
    ("torasobi", "5S 6S 7S", False), ("classic", "5S 6S 7S", True),
    ("torasobi", "JK", False), ("federation", "JK", False),
])  # fmt: skip
def test_five_cut_reads_the_presets_eight_cut(preset: str, cards_: str, cuts: bool) -> None:
    # Decision (#27 to #29, which plays cut); §5.6 #17: a real 5 is needed
    expect: dict[str, Any] = {"field": []} if cuts else {"turn": 1}
    run0(preset, [f"{cards_} 9C", "QD KD AD 4C", "TH 3S 8H 9H"], [
        play(0, cards_, as_="5H" if cards_ == "5S JK" else None, **expect),
    ], {"five_cut": True}, revolution=True)  # fmt: skip


def test_five_cut_is_no_forbidden_finish() -> None:
    # Decision (#27 to #29, finishing)
    run0("federation", ["5D", "QD KD 4C", "TH 3S 8H"], [
        play(0, "5D", forbidden=[], places={0: 1}, field=[]),
    ], {"five_cut": True}, revolution=True)  # fmt: skip


def test_eight_cut_still_cuts_in_revolution() -> None:
    run0("torasobi", ["8D 9C", "QD KD 4C", "TH 3S 8H"], [
        play(0, "8D", turn=0, field=[]),
    ], {"five_cut": True, "six_cut": True, "seven_cut": True}, revolution=True)  # fmt: skip


def test_seven_cut_with_lucky_seven_finishes() -> None:
    run0("torasobi", ["7S 7H 7D 4C KH", "9C 5D QS", "TH 6S AH"], [
        play(0, "7S 7H 7D", turn=1, field=[], places={0: 1}),
    ], {"seven_cut": True, "lucky_seven": True}, revolution=True)  # fmt: skip


def test_an_omen_play_is_no_six_cut() -> None:
    # Decision (omen): its own §5 effects do not apply; nor does a cut after it
    run0("torasobi", ["6S 6H 6D 9C 7D", "TD KD 4C", "QH 5S 8H"], [
        play(0, "6S 6H 6D", turn=1, revolution=False, field=["6S", "6H", "6D"]),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
    ], {"six_cut": True, "omen": True}, revolution=True)  # fmt: skip


# -- 30 spade-2 return ------------------------------------------------------------------


def test_spade2_return_in_revolution_under_a_lock() -> None:
    # Decision (#30, #31, #33, locks)
    run0("torasobi", ["9H 4C", "4H 3D", "JK 2S 5C", "2D 7S"], [
        play(0, "9H", turn=1),
        play(1, "4H", turn=2, suit_lock=["H"]),
        play(2, "JK", turn=3),
        play(3, "2D", reject="not_stronger"),
        pass_(3, turn=0),
        pass_(0, turn=1),
        pass_(1, turn=2, field=[]),
    ], {"spade2_return": True}, revolution=True)  # fmt: skip


def test_spade2_return_answers_the_joker_and_flushes() -> None:
    run0("torasobi", ["9H 4C", "JK 3D", "2S 5C"], [
        play(0, "9H", turn=1),
        play(1, "JK", turn=2),
        play(2, "2S", turn=2, field=[]),
    ], {"spade2_return": True}, revolution=True)  # fmt: skip


def test_spade2_return_not_in_normal_order() -> None:
    # Decision (#30, #33, which order)
    run0("torasobi", ["9H 4C", "JK 3D", "2S 5C"], [
        play(0, "9H", turn=1),
        play(1, "JK", turn=2),
        play(2, "2S", reject="not_stronger"),
    ], {"spade2_return": True})  # fmt: skip


def test_spade3_return_still_works_in_reversed_order() -> None:
    run0("torasobi", ["9H 4C", "JK 3D", "2S 3S 5C"], [
        play(0, "9H", turn=1),
        play(1, "JK", turn=2),
        play(2, "3S", turn=2, field=[]),
    ], {"spade2_return": True}, revolution=True)  # fmt: skip


def test_spade2_return_is_in_the_legal_actions() -> None:
    state = run0("torasobi", ["9H 4C", "JK 3D", "2S 5C"], [
        play(0, "9H", turn=1),
        play(1, "JK", turn=2),
    ], {"spade2_return": True}, revolution=True)  # fmt: skip
    assert [a.cards for a in legal_actions(state) if hasattr(a, "cards")] == [1 << 51]


# -- 31 triple-three return ----------------------------------------------------------------


def test_triple_three_return_on_a_joker_flushes() -> None:
    run0("torasobi", ["KD 7C JK", "3S 3H 3D 9C 4S", "AH 6D TC"], [
        play(0, "JK", turn=1),
        play(1, "3S 3H 3D", turn=1, field=[]),
    ], {"triple_three_return": True})  # fmt: skip


def test_triple_three_return_needs_three_real_threes() -> None:
    # Decision (#31, #36, #51, exact size)
    run0("torasobi", ["KD 7C JK", "3S 3H JK 9C 4S", "AH 6D TC"], [
        play(0, "JK", turn=1),
        play(1, "3S 3H JK", reject="not_stronger"),
    ], {"triple_three_return": True})  # fmt: skip


def test_triple_three_return_off_is_not_stronger() -> None:
    run0("torasobi", ["KD 7C JK", "3S 3H 3D 9C 4S", "AH 6D TC"], [
        play(0, "JK", turn=1),
        play(1, "3S 3H 3D", reject="not_stronger"),
    ])  # fmt: skip


def test_triple_three_return_is_in_the_legal_actions() -> None:
    state = run0("torasobi", ["KD 7C JK", "3S 3H 3D 9C 4S", "AH 6D TC"], [
        play(0, "JK", turn=1),
    ], {"triple_three_return": True})  # fmt: skip
    plays = [a.cards for a in legal_actions(state) if hasattr(a, "cards")]
    assert 0b1101 in plays  # 3D 3H 3S


# -- 32 joker return --------------------------------------------------------------------


def test_joker_return_does_not_flush() -> None:
    # Decision (#32)
    run0("torasobi", ["JK 9H 5S", "JK 2D QC", "3S 7D KH"], [
        play(0, "JK", turn=1),
        play(1, "2D", reject="not_stronger"),
        play(1, "JK", turn=2, field=["JK"]),
        play(2, "KH", reject="not_stronger"),
        play(2, "3S", turn=2, field=[]),
    ], {"joker_return": True})  # fmt: skip


def test_joker_return_off_a_joker_may_not_go_on_a_joker() -> None:
    run0("torasobi", ["JK 9H 5S", "JK 2D QC", "3S 7D KH"], [
        play(0, "JK", turn=1),
        play(1, "JK", reject="not_stronger"),
    ])  # fmt: skip


def test_triple_three_return_on_the_second_joker() -> None:
    run0("torasobi", ["JK 9H 5S", "JK 2D QC", "3S 3H 3D KH"], [
        play(0, "JK", turn=1),
        play(1, "JK", turn=2),
        play(2, "3S 3H 3D", turn=2, field=[]),
    ], {"joker_return": True, "triple_three_return": True})  # fmt: skip


# -- 33 assassination -------------------------------------------------------------------


def test_assassination_a_three_on_a_two_under_a_lock() -> None:
    run0("torasobi", ["9S 6D KC", "2S 4H TD", "3H 4C JD"], [
        play(0, "9S", turn=1),
        play(1, "2S", turn=2, suit_lock=["S"]),
        play(2, "4C", reject="suit_locked"),
        play(2, "3H", turn=2, field=[], suit_lock=[]),
    ], {"assassination": True})  # fmt: skip


def test_assassination_in_reversed_order_a_two_on_a_three() -> None:
    run0("torasobi", ["9S 6D KC", "3S 4H TD", "2H 4C JD"], [
        play(0, "9S", turn=1),
        play(1, "3S", turn=2),
        play(2, "2H", turn=2, field=[]),
    ], {"assassination": True}, revolution=True)  # fmt: skip


def test_assassination_off_is_not_stronger() -> None:
    run0("torasobi", ["9S 6D KC", "2C 4H TD", "3H 4C JD"], [
        play(0, "9S", turn=1),
        play(1, "2C", turn=2),
        play(2, "3H", reject="not_stronger"),
    ])  # fmt: skip


def test_assassination_under_a_number_lock() -> None:
    run0("torasobi", ["KS 6D", "AH 4H TD", "2D 4C JD", "3C 5C"], [
        play(0, "KS", turn=1),
        play(1, "AH", turn=2, number_lock=True),
        play(2, "2D", turn=3),
        play(3, "3C", turn=3, field=[]),
    ], {"assassination": True})  # fmt: skip


def test_assassination_needs_real_cards() -> None:
    run0("torasobi", ["9S 6D KC", "JK 4H TD", "3H 4C JD"], [
        play(0, "9S", turn=1),
        play(1, "JK", turn=2),
        play(2, "3H", reject="not_stronger"),
    ], {"assassination": True})  # fmt: skip


def test_assassination_is_in_the_legal_actions() -> None:
    state = run0("torasobi", ["9S 6D KC", "2S 4H TD", "3H 4C JD"], [
        play(0, "9S", turn=1),
        play(1, "2S", turn=2),
    ], {"assassination": True})  # fmt: skip
    assert any(getattr(a, "cards", 0) == 1 << 2 for a in legal_actions(state))  # 3H


# -- 35 finish flush --------------------------------------------------------------------


def _events_of(preset: str, hands: list[str], steps: list[Any], options: dict[str, Any],
               last: Any, **start: Any) -> list[ev.Event]:  # fmt: skip
    """The events of ``last`` after ``steps``."""
    from service.rules import decide
    from service.rules.notation import parse_mask

    state = run0(preset, hands, steps, options, **start)
    command = Play(last[0], parse_mask(last[1].split()))
    decision = decide(state, command)
    assert isinstance(decision, list), decision
    return decision


def test_finish_flush_the_next_active_player_leads() -> None:
    run0("torasobi", ["5S QD 7C", "KH", "9C 4D JS", "TC 6H"], [
        play(0, "5S", turn=1),
        play(1, "KH", turn=2, field=[], places={1: 1}, discard_pile=["5S", "KH"]),
    ], {"finish_flush": True})  # fmt: skip


def test_finish_flush_a_forbidden_finish_flushes_too() -> None:
    run0("torasobi", ["5S QD 7C", "2H", "9C 4D JS", "TC 6H"], [
        play(0, "5S", turn=1),
        play(1, "2H", turn=2, field=[], forbidden=[1]),
    ], {"finish_flush": True})  # fmt: skip


def test_finish_flush_off_the_trick_goes_on() -> None:
    run0("torasobi", ["5S QD 7C", "KH", "9C 4D JS", "TC 6H"], [
        play(0, "5S", turn=1),
        play(1, "KH", turn=2, field=["KH"]),
    ])  # fmt: skip


def test_finish_flush_after_a_seven_pass_give() -> None:
    # Decision (#35): once the action's steps are done
    run0("torasobi", ["5S QD 7C", "7H 4S", "9C 4D JS", "TC 6H"], [
        play(0, "5S", turn=1),
        play(1, "7H", turn=1, waiting_for="seven_pass", field=["7H"]),
        give(1, "4S", turn=2, field=[], places={1: 1}),
    ], {"finish_flush": True, "seven_pass": True})  # fmt: skip


def test_finish_flush_after_a_bomb_the_bomber_leads() -> None:
    # Decision (#35): a bomb that empties another hand gives the lead to the bomber
    from .scenario_helpers import bomb

    run0("torasobi", ["5S QD 7C", "9H", "9C 4D JS", "TC 6H"], [
        play(0, "QD", turn=0, waiting_for="queen_bomber"),
        bomb(0, "9", turn=0, field=[], places={1: 1}),
    ], {"finish_flush": True, "queen_bomber": True})  # fmt: skip


def test_finish_flush_an_eight_cut_finish_flushes_once() -> None:
    events = _events_of("torasobi", ["5S QD 7C", "8H", "9C 4D JS", "TC 6H"], [
        play(0, "5S", turn=1),
    ], {"finish_flush": True}, (1, "8H"))  # fmt: skip
    assert [e.reason for e in events if isinstance(e, ev.FieldFlushed)] == ["eight_cut"]


def test_finish_flush_cancels_the_play_s_reverse() -> None:
    run0("torasobi", ["5S QD 7C", "9H", "9C 4D JS", "TC 6H"], [
        play(0, "5S", turn=1),
        play(1, "9H", turn=2, field=[], direction=1),
    ], {"finish_flush": True, "nine_reverse": True})  # fmt: skip


def test_finish_flush_not_at_the_game_s_end() -> None:
    run0("torasobi", ["5S", "9H 3C"], [
        play(0, "5S", game_over=True, field=["5S"]),
    ], {"finish_flush": True})  # fmt: skip


def test_finish_flush_is_narrated() -> None:
    record = event_record(ev.FieldFlushed(words.FlushReason.FINISH_FLUSH, 2))
    assert describe(record, 4) == "finish-flush: field flushed, seat 2 leads"


# -- 36 nanasan revolution ----------------------------------------------------------------


def test_nanasan_three_real_sevens_revolt() -> None:
    run0("torasobi", ["7S 7H 7D 9C", "KD 5D QS", "JC 3D 6S"], [
        play(0, "7S 7H 7D", turn=1, revolution=True),
    ], {"nanasan_revolution": True})  # fmt: skip


def test_nanasan_a_joker_in_place_of_a_seven_does_not() -> None:
    # Decision (#31, #36, #51, exact size)
    run0("torasobi", ["7S 7H JK 9C", "KD 5D QS", "JC 3D 6S"], [
        play(0, "7S 7H JK", turn=1, revolution=False),
    ], {"nanasan_revolution": True})  # fmt: skip


def test_nanasan_in_revolution_is_a_counter_revolution() -> None:
    run0("torasobi", ["7S 7H 7D 9C", "KD 5D QS", "JC 3D 6S"], [
        play(0, "7S 7H 7D", turn=1, revolution=False),
    ], {"nanasan_revolution": True}, revolution=True)  # fmt: skip


def test_nanasan_off_three_sevens_are_a_triple() -> None:
    run0("torasobi", ["7S 7H 7D 9C", "KD 5D QS", "JC 3D 6S"], [
        play(0, "7S 7H 7D", turn=1, revolution=False),
    ])  # fmt: skip


def test_nanasan_is_cancelled_by_an_omen() -> None:
    run0("torasobi", ["6S 6H 6D 9C 4C", "7S 7H 7D 5D", "JC 3D QS"], [
        play(0, "6S 6H 6D", turn=1, revolution=True),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "9C", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "4C", turn=1),
    ], {"nanasan_revolution": True, "omen": True})  # fmt: skip


# -- 37 joker revolution ------------------------------------------------------------------


def test_joker_revolution_both_jokers_revolt() -> None:
    run("torasobi", ["9S 4C QH", "JK JK 5D 9H", "KD 6H TC"], [
        play(1, "JK JK", turn=2, revolution=True),
    ], {"joker_revolution": True}, leader=1)  # fmt: skip


def test_joker_revolution_whatever_they_stand_for() -> None:
    # Decision (#37), §5.6 #16: still the strongest pair
    run("torasobi", ["9S 9C QH", "JK JK 5D 9H", "KD 6H TC"], [
        play(1, "JK JK", turn=2, revolution=True),
        pass_(2, turn=0),
        play(0, "9S 9C", reject="not_stronger"),
    ], {"joker_revolution": True}, leader=1)  # fmt: skip


def test_joker_revolution_off_no_revolt() -> None:
    run("torasobi", ["9S 4C QH", "JK JK 5D 9H", "KD 6H TC"], [
        play(1, "JK JK", turn=2, revolution=False),
    ], leader=1)  # fmt: skip


def test_joker_revolution_in_revolution_counters() -> None:
    run("torasobi", ["9S 4C QH", "JK JK 5D 9H", "KD 6H TC"], [
        play(1, "JK JK", turn=2, revolution=False),
    ], {"joker_revolution": True}, leader=1, revolution=True)  # fmt: skip


# -- 38 colour lock ---------------------------------------------------------------------


def test_color_lock_two_red_plays_lock_red() -> None:
    run0("torasobi", ["5H KS 4C", "9D JS 3C", "JC QH 6S"], [
        play(0, "5H", turn=1, color_lock=None),
        play(1, "9D", turn=2, color_lock="red", suit_lock=[]),
        play(2, "JC", reject="suit_locked"),
        play(2, "QH", turn=0, color_lock="red"),
    ], {"color_lock": True})  # fmt: skip


def test_color_lock_black() -> None:
    run0("federation", ["5S KH 4D", "9C JH 3D", "JD QS 6H"], [
        play(0, "5S", turn=1),
        play(1, "9C", turn=2, color_lock="black"),
        play(2, "JD", reject="suit_locked"),
        play(2, "QS", turn=0),
    ], {"color_lock": True})  # fmt: skip


def test_color_lock_off_nothing_locks() -> None:
    run0("torasobi", ["5H KS 4C", "9D JS 3C", "JC QH 6S"], [
        play(0, "5H", turn=1),
        play(1, "9D", turn=2, color_lock=None),
        play(2, "JC", turn=0),
    ])  # fmt: skip


def test_color_lock_a_joker_breaks_the_run_and_may_be_played_under_it() -> None:
    # Decision (#38, #39, run counts)
    run0("torasobi", ["5H KS 4C", "9D JK 3C", "JC QH 6S", "8D 2H"], [
        play(0, "5H", turn=1),
        play(1, "JK", turn=2, color_lock=None),
    ], {"color_lock": True})  # fmt: skip
    run0("torasobi", ["5H KS KC", "9D JK 3C 3S", "JC QH 6S", "AD 2H"], [
        play(0, "5H", turn=1),
        play(1, "9D", turn=2, color_lock="red"),
        pass_(2, turn=3),
        play(3, "AD", turn=0),
        pass_(0, turn=1),
        play(1, "JK", turn=2, color_lock="red"),
    ], {"color_lock": True})  # fmt: skip


def test_color_lock_classic_needs_three_plays() -> None:
    run0("classic", ["5H KS 4C 3D", "9D JS 3C", "JC QH 6S"], [
        play(0, "5H", turn=1),
        play(1, "9D", turn=2, color_lock=None),
        play(2, "QH", turn=0, color_lock="red"),
        play(0, "KS", reject="suit_locked"),
    ], {"color_lock": True, "d3_start": False})  # fmt: skip


def test_color_lock_beside_the_suit_lock() -> None:
    run0("torasobi", ["5H KS 4C", "9H JS 3C", "JD QH 6S"], [
        play(0, "5H", turn=1),
        play(1, "9H", turn=2, color_lock="red", suit_lock=["H"]),
        play(2, "JD", reject="suit_locked"),
    ], {"color_lock": True})  # fmt: skip


def test_color_lock_holds_after_an_omen() -> None:
    # Decision (omen): the locks still apply
    run0("torasobi", ["6S 6C 6D 4C QC", "9S 3S", "AC KC", "JH 2H"], [
        play(0, "6S 6C 6D", turn=1, revolution=True),
        pass_(1, turn=2),
        pass_(2, turn=3),
        pass_(3, turn=0, field=[]),
        play(0, "QC", turn=1),
        play(1, "9S", turn=2, color_lock="black"),
    ], {"color_lock": True, "omen": True})  # fmt: skip


def test_color_lock_is_narrated() -> None:
    assert describe(event_record(ev.ColorLocked(words.Color.RED)), 3) == "colour lock: red"


# -- 39 partial lock --------------------------------------------------------------------


def test_partial_lock_on_the_shared_suit() -> None:
    run0("torasobi", ["4S 4H KC", "7S 7D 2H", "9H 9D JS JC"], [
        play(0, "4S 4H", turn=1, suit_lock=[]),
        play(1, "7S 7D", turn=2, suit_lock=["S"], partial_lock=True),
        play(2, "9H 9D", reject="suit_locked"),
        play(2, "JS JC", turn=0, suit_lock=["S"], partial_lock=True),
        pass_(0, turn=1),
        pass_(1, turn=2, field=[], suit_lock=[], partial_lock=False),
    ], {"partial_lock": True})  # fmt: skip


def test_partial_lock_needs_the_suit_lock() -> None:
    run0("torasobi", ["4S 4H KC", "7S 7D 2H", "9H 9D JS JC"], [
        play(0, "4S 4H", turn=1),
        play(1, "7S 7D", turn=2, suit_lock=[], partial_lock=False),
        play(2, "9H 9D", turn=0),
    ], {"partial_lock": True, "suit_lock": False})  # fmt: skip


def test_partial_lock_a_joker_fills_a_missing_suit() -> None:
    run0("torasobi", ["4S 4H KC", "7S 7D 2H", "9H JK JS JC"], [
        play(0, "4S 4H", turn=1),
        play(1, "7S 7D", turn=2, partial_lock=True),
        play(2, "9H JK", turn=0),
    ], {"partial_lock": True})  # fmt: skip


def test_partial_lock_a_joker_s_reading_is_ignored() -> None:
    # §5.6 #18: two locked suits, one joker: one suit is still missing
    run0("torasobi", ["4S 4H 4D KC", "7S 7H 7C 2H", "9D 9C JK JS"], [
        play(0, "4S 4H 4D", turn=1),
        play(1, "7S 7H 7C", turn=2, suit_lock=["S", "H"], partial_lock=True),
        play(2, "9D 9C JK", as_="9S", reject="suit_locked"),
    ], {"partial_lock": True})  # fmt: skip


def test_partial_lock_a_joker_play_starts_none() -> None:
    run0("torasobi", ["4S 4H KC", "7S JK 2H", "9H 9D JS JC"], [
        play(0, "4S 4H", turn=1),
        play(1, "7S JK", turn=2, suit_lock=[], partial_lock=False),
    ], {"partial_lock": True})  # fmt: skip


def test_partial_lock_does_not_tighten() -> None:
    # Decision (#39, no tightening)
    run0("torasobi", ["4S 4H KS KH", "7S 7D 2H", "9S 9H JS JC"], [
        play(0, "4S 4H", turn=1),
        play(1, "7S 7D", turn=2, suit_lock=["S"]),
        play(2, "9S 9H", turn=0, suit_lock=["S"], partial_lock=True),
        play(0, "KS KH", turn=1, suit_lock=["S"], partial_lock=True),
    ], {"partial_lock": True})  # fmt: skip


def test_partial_lock_alike_sets_start_the_suit_lock() -> None:
    run0("torasobi", ["4S 4H KC", "7S 7H 2D", "9H 9D JS JC"], [
        play(0, "4S 4H", turn=1),
        play(1, "7S 7H", turn=2, suit_lock=["S", "H"], partial_lock=False),
    ], {"partial_lock": True})  # fmt: skip


def test_partial_lock_classic_needs_three_plays() -> None:
    run0("classic", ["4S 4H KC KS 3D", "7S 7D 2H", "9S 9C JH JC"], [
        play(0, "4S 4H", turn=1),
        play(1, "7S 7D", turn=2, partial_lock=False),
        play(2, "9S 9C", turn=0, suit_lock=["S"], partial_lock=True),
        play(0, "KC KS", turn=1),
    ], {"partial_lock": True, "d3_start": False})  # fmt: skip


def test_partial_lock_is_narrated() -> None:
    record = event_record(ev.SuitLocked(0b1000, partial=True))
    assert describe(record, 3) == "partial lock: S"


# -- 40 queen release -------------------------------------------------------------------


def test_queen_release_ends_the_lock_and_every_run() -> None:
    run0("torasobi", ["5H KH 4C", "9H 6D", "QH KD 3S"], [
        play(0, "5H", turn=1),
        play(1, "9H", turn=2, suit_lock=["H"]),
        play(2, "KD", reject="suit_locked"),
        play(2, "QH", turn=0, suit_lock=[], number_lock=False),
        play(0, "KH", turn=1, suit_lock=[], number_lock=False),
    ], {"queen_release": True})  # fmt: skip


def test_queen_release_without_a_lock_is_an_ordinary_play() -> None:
    # §5.6 #2: a Q play that starts a lock when none was in force keeps it
    run0("torasobi", ["5H KH 4C", "QH 6D", "9C KD 3S"], [
        play(0, "5H", turn=1),
        play(1, "QH", turn=2, suit_lock=["H"]),
    ], {"queen_release": True})  # fmt: skip


def test_queen_release_ends_a_number_lock() -> None:
    run0("torasobi", ["TH 4C 5C", "JS 6D", "QD KD 3S"], [
        play(0, "TH", turn=1),
        play(1, "JS", turn=2, number_lock=True),
        play(2, "QD", turn=0, number_lock=False),
    ], {"queen_release": True})  # fmt: skip


def test_queen_release_ends_colour_and_partial_locks() -> None:
    run0("torasobi", ["5H KS 4C", "9D JS 3C", "QH 6S 6C"], [
        play(0, "5H", turn=1),
        play(1, "9D", turn=2, color_lock="red"),
        play(2, "QH", turn=0, color_lock=None),
        play(0, "KS", turn=1),
    ], {"queen_release": True, "color_lock": True})  # fmt: skip
    run0("torasobi", ["4S 4H KC", "7S 7D 2H", "QS QC JS JC"], [
        play(0, "4S 4H", turn=1),
        play(1, "7S 7D", turn=2, partial_lock=True),
        play(2, "QS QC", turn=0, suit_lock=[], partial_lock=False),
    ], {"queen_release": True, "partial_lock": True})  # fmt: skip


def test_queen_release_a_joker_is_no_queen() -> None:
    run0("torasobi", ["5H KH 4C", "9H 6D", "JK KD 3S"], [
        play(0, "5H", turn=1),
        play(1, "9H", turn=2, suit_lock=["H"]),
        play(2, "JK", turn=0, suit_lock=["H"]),
    ], {"queen_release": True})  # fmt: skip


def test_queen_release_off_the_lock_stays() -> None:
    run0("torasobi", ["5H KH 4C", "9H 6D", "QH KD 3S"], [
        play(0, "5H", turn=1),
        play(1, "9H", turn=2),
        play(2, "QH", turn=0, suit_lock=["H"]),
    ])  # fmt: skip


def test_queen_release_is_narrated() -> None:
    record = event_record(ev.LocksReleased(words.EndCause.QUEEN_RELEASE))
    assert describe(record, 3) == "queen-release: every lock ends"


# -- 34 eight-cut return ----------------------------------------------------------------

ECR = {"eight_cut_return": True}


def test_eight_cut_return_the_window_reopens_after_an_answer() -> None:
    run0("torasobi", ["8S 6C KD", "8H 9C 4D", "4H TS 3H", "8D QH 5C"], [
        play(0, "8S", turn=1, waiting_for="eight_cut_return"),
        play(1, "9C", reject="wrong_action"),
        play(1, "8H", turn=2, waiting_for="eight_cut_return", field=["8H"]),
        pass_(2, turn=3),
        pass_(3, turn=0),
        play(0, "6C", reject="wrong_action"),
        pass_(0, turn=1, waiting_for="play", field=[]),
    ], ECR)  # fmt: skip


def test_eight_cut_return_answers_are_real_eights_of_the_size() -> None:
    # Decision (#34, answers and four-stop): a pair of 8s answers 8S JK
    run0("torasobi", ["8S JK 6C", "8H 8C 8D", "4H TS 3H"], [
        play(0, "8S JK", turn=1, waiting_for="eight_cut_return"),
        play(1, "8H", reject="wrong_action"),
        play(1, "8H 8C 8D", reject="wrong_action"),
        play(1, "8H 8C", turn=2, field=["8H", "8C"]),
    ], ECR)  # fmt: skip


def test_eight_cut_return_a_joker_is_no_answer() -> None:
    run0("torasobi", ["8S 8D 6C", "8H JK 4D", "4H TS 3H"], [
        play(0, "8S 8D", turn=1),
        play(1, "8H JK", reject="wrong_action"),
    ], ECR)  # fmt: skip


def test_eight_cut_return_unheld_eights() -> None:
    run0("torasobi", ["8S 6C", "9H 4D", "4H TS 3H"], [
        play(0, "8S", turn=1),
        play(1, "8H", reject="card_not_in_hand"),
    ], ECR)  # fmt: skip


def test_eight_cut_return_stairs_open_no_window() -> None:
    run0("classic", ["6S 7S 8S 4C", "8H 9C 4D", "4H TS 3H"], [
        play(0, "6S 7S 8S", turn=0, field=[], waiting_for="play"),
    ], {**ECR, "d3_start": False})  # fmt: skip


def test_eight_cut_return_a_player_who_passed_is_asked() -> None:
    # Decision (#34, who answers): federation, where a pass holds until the flush
    run0("federation", ["4S 8S 6C", "5H 8H 4D", "7H TS 3H"], [
        play(0, "4S", turn=1),
        pass_(1, turn=2),
        play(2, "7H", turn=0),
        play(0, "8S", turn=1, waiting_for="eight_cut_return"),
        play(1, "8H", turn=2, waiting_for="eight_cut_return"),
    ], ECR)  # fmt: skip


def test_eight_cut_return_with_four_stop_one_window() -> None:
    run0("torasobi", ["8S 6C", "4H 4D 8H", "8D TS 3H"], [
        play(0, "8S", turn=1, waiting_for="four_stop"),
        play(1, "8H", turn=2, waiting_for="four_stop", field=["8H"]),
        pass_(2, turn=0),
        pass_(0, turn=1, field=[]),
    ], {**ECR, "four_stop": True})  # fmt: skip
    run0("torasobi", ["8S 6C", "4H 4D 8H", "8D TS 3H"], [
        play(0, "8S", turn=1, waiting_for="four_stop"),
        play(1, "4H 4D", turn=1, field=[]),
    ], {**ECR, "four_stop": True})  # fmt: skip


def test_eight_cut_return_off_the_cut_flushes() -> None:
    run0("torasobi", ["8S 6C KD", "8H 9C 4D", "4H TS 3H"], [
        play(0, "8S", turn=0, field=[], waiting_for="play"),
    ])  # fmt: skip


def test_eight_cut_return_legal_actions() -> None:
    state = run0("torasobi", ["8S 8D 6C", "8H 8C 4D", "4H TS 3H"], [
        play(0, "8S 8D", turn=1),
    ], ECR)  # fmt: skip
    assert len(legal_actions(state)) == 2  # pass, or the pair of 8s


def test_salvage_after_a_flush_of_a_three() -> None:
    run0("torasobi", ["KD 9C JK 5H", "2S 4C 7D", "3S 6H QC"], [
        play(0, "KD", turn=1),
        play(1, "2S", turn=2),
        pass_(2, turn=0),
        pass_(0, turn=1, field=[], discard_pile=["KD", "2S"]),
        play(1, "4C", turn=2),
        pass_(2, turn=0),
        play(0, "JK", turn=1),
        pass_(1, turn=2),
        play(2, "3S", turn=2, waiting_for="salvage"),
        pick(2, "3S", reject="card_not_in_hand"),
        pick(2, "KD 2S", reject="wrong_action"),
        pick(2, "2S", waiting_for="play", hands={2: "6H QC 2S"}),
    ], {"salvage": True})  # fmt: skip


def test_salvage_everyone_passed_on_a_three() -> None:
    run0("torasobi", ["KD 3D 9C", "4C 7D", "5S 6H QC"], [
        play(0, "KD", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "3D", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[], waiting_for="salvage"),
        pick(0, "KD", turn=0, waiting_for="play", hands={0: "9C KD"}, discard_pile=["3D"]),
    ], {"salvage": True})  # fmt: skip


def test_salvage_nothing_to_take_no_step() -> None:
    run0("torasobi", ["3D 9C", "4C 7D", "5S 6H QC"], [
        play(0, "3D", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[], waiting_for="play"),
    ], {"salvage": True})  # fmt: skip


def test_salvage_takes_none() -> None:
    run0("torasobi", ["KD 3D 9C", "4C 7D", "5S 6H QC"], [
        play(0, "KD", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "3D", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, waiting_for="salvage"),
        pick(0, "", turn=0, waiting_for="play", discard_pile=["KD", "3D"]),
    ], {"salvage": True})  # fmt: skip


def test_salvage_off_no_pick() -> None:
    run0("torasobi", ["KD 3D 9C", "4C 7D", "5S 6H QC"], [
        play(0, "KD", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "3D", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, waiting_for="play"),
        pick(0, "KD", reject="wrong_action"),
    ])  # fmt: skip


def test_salvage_a_finished_player_does_not_pick() -> None:
    # Decision (#49, #50)
    run0("torasobi", ["KD 3D", "4C 7D", "5S 6H QC"], [
        play(0, "KD", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "3D", turn=1, places={0: 1}),
        pass_(1, turn=2),
        pass_(2, turn=1, field=[], waiting_for="play"),
    ], {"salvage": True})  # fmt: skip


def test_salvage_after_a_finish_flush() -> None:
    # §5.6 #10: the finishing play holds no 3, the one it flushes does not count
    run0("torasobi", ["KD 3D 9C", "4C 5D", "5S 6H QC"], [
        play(0, "KD", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "3D", turn=1),
        play(1, "4C", turn=2),
        pass_(2, turn=0),
        pass_(0, turn=1, field=[], waiting_for="play"),
    ], {"salvage": True, "finish_flush": True})  # fmt: skip


# -- 50 king's march --------------------------------------------------------------------


def test_kings_march_takes_up_to_k() -> None:
    run0("torasobi", ["5S KD KC 9H 4C", "7C 4D AS", "TH 6S JD"], [
        play(0, "5S", turn=1),
        play(1, "7C", turn=2),
        pass_(2, turn=0),
        play(0, "9H", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "KD KC", turn=0, waiting_for="kings_march"),
        pick(1, "5S", reject="not_your_turn"),
        pick(0, "5S 7C 9H", reject="wrong_action"),
        pick(0, "AS", reject="card_not_in_hand"),
        pick(0, "5S 7C", turn=1, hands={0: "4C 5S 7C"}, discard_pile=["9H"]),
    ], {"kings_march": True})  # fmt: skip


def test_kings_march_not_when_the_play_empties_the_hand() -> None:
    run0("torasobi", ["5S KD", "7C 4D AS", "TH 6S JD"], [
        play(0, "5S", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "KD", turn=1, places={0: 1}, waiting_for="play"),
    ], {"kings_march": True})  # fmt: skip


def test_kings_march_an_empty_pile_no_step() -> None:
    run0("torasobi", ["KD 5S", "7C 4D AS", "TH 6S JD"], [
        play(0, "KD", turn=1, waiting_for="play"),
    ], {"kings_march": True})  # fmt: skip


def test_kings_march_a_joker_is_no_king() -> None:
    run0("torasobi", ["5S KD JK 4C", "7C 4D AS", "TH 6S JD"], [
        play(0, "5S", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "KD JK", turn=0, waiting_for="kings_march"),
        pick(0, "5S 5S", reject="bad_request"),
    ], {"kings_march": True})  # fmt: skip


def test_kings_march_legal_picks() -> None:
    state = run0("torasobi", ["5S KD KC 9H 4C", "7C 4D AS", "TH 6S JD"], [
        play(0, "5S", turn=1),
        play(1, "7C", turn=2),
        pass_(2, turn=0),
        play(0, "9H", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "KD KC", turn=0, waiting_for="kings_march"),
    ], {"kings_march": True})  # fmt: skip
    assert len(legal_actions(state)) == 1 + 3 + 3  # none, one or two of 5S 7C 9H


def test_zombie_the_card_goes_to_the_next_player() -> None:
    run0("torasobi", ["KS KH 9D 4C", "3H 3S 3C QC 6D", "AS AD 5H"], [
        play(0, "KS KH", turn=1),
        play(1, "3H 3S 3C", turn=1, waiting_for="zombie", field=[]),
        pick(1, "3S", reject="card_not_in_hand"),
        pick(1, "KS", waiting_for="play", hands={1: "QC 6D", 2: "AS AD 5H KS"}),
    ], {"zombie": True, "sandstorm": True})  # fmt: skip


def test_zombie_even_when_the_play_empties_the_hand() -> None:
    # Decision (#49, #50): for #51 the card goes to someone else
    run0("torasobi", ["4C 9D KS", "3H 3S 3C 5D", "AS AD 5H 6S"], [
        play(0, "4C", turn=1),
        play(1, "5D", turn=2),
        pass_(2, turn=0),
        pass_(0, turn=1, field=[]),
        play(1, "3H 3S 3C", turn=1, waiting_for="zombie", places={1: 1}),
        pick(1, "4C", turn=2, waiting_for="play", hands={2: "AS AD 5H 6S 4C"}),
    ], {"zombie": True})  # fmt: skip


def test_zombie_needs_three_real_threes() -> None:
    run0("torasobi", ["4C 9D KS", "3H 3S JK 5D 7C", "AS AD 5H 6S"], [
        play(0, "4C", turn=1),
        play(1, "5D", turn=2),
        pass_(2, turn=0),
        pass_(0, turn=1, field=[]),
        play(1, "3H 3S JK", turn=2, waiting_for="play"),
    ], {"zombie": True})  # fmt: skip


# -- 52 king pastor ---------------------------------------------------------------------


def test_king_pastor_every_card_moves_at_once() -> None:
    run0("torasobi", ["KD 4C 9S", "7H QC 3D", "AS 5D JH"], [
        play(0, "KD", turn=0, waiting_for="king_pastor"),
        give(1, "7H", reject="not_your_turn"),
        give(0, "4C 9S", reject="wrong_action"),
        give(0, "4C", turn=1, hands={0: "4C 9S"}),
        give(1, "3D", turn=2),
        give(2, "4C", reject="card_not_in_hand"),
        give(2, "5D", turn=1, waiting_for="play",
             hands={0: "9S 5D", 1: "7H QC 4C", 2: "AS JH 3D"}),
    ], {"king_pastor": True})  # fmt: skip


def test_king_pastor_goes_the_way_of_the_reverse() -> None:
    # Decision (#52): the next player in the direction left by the play's reverses
    run0("torasobi", ["KD 4C 9S", "7H QC 3D", "AS 5D JH"], [
        play(0, "KD", turn=0, waiting_for="king_pastor", direction=-1),
        give(0, "4C", turn=2),
        give(2, "5D", turn=1),
        give(1, "3D", turn=2, waiting_for="play",
             hands={0: "9S 3D", 1: "7H QC 5D", 2: "AS JH 4C"}),
    ], {"king_pastor": True, "king_reverse": True})  # fmt: skip


def test_king_pastor_after_the_k_player_finished_the_next_starts() -> None:
    run0("torasobi", ["KD", "7H QC 3D", "AS 5D JH", "6C 8D"], [
        play(0, "KD", turn=1, waiting_for="king_pastor", places={0: 1}),
        give(1, "3D", turn=2),
        give(2, "5D", turn=3),
        give(3, "6C", waiting_for="play", hand_sizes={1: 3, 2: 3, 3: 2}),
    ], {"king_pastor": True})  # fmt: skip


def test_king_pastor_a_choice_is_hidden_from_the_others() -> None:
    from service.rules.views import Viewer, visible_record

    record = visible_record(ev.CardChosen(1, 1), Viewer.of_seat(2), revealed=False)
    assert record["cards"] is None and record["cards_count"] == 1
    assert visible_record(ev.CardChosen(1, 1), Viewer.of_seat(1), revealed=False)["cards"]


def test_picks_are_narrated() -> None:
    record = event_record(ev.PilePicked(1, 1 << 43, 2, words.WaitingFor.ZOMBIE))
    assert describe(record, 3) == "seat 1 takes KS from the discard pile for seat 2 (zombie)"
    record = event_record(ev.EightCutReturnOffered((1, 2)))
    assert describe(record, 3) == "eight-cut return offered to seat 1, seat 2 (8s)"


# -- later decisions 21 and 25 (docs/RULES.md §5, Later decisions) ----------------------


def _salvaged_joker(rules: dict[str, Any] | None = None) -> Any:
    """Seat 0 salvages the joker, plays it back (nobody beats it) and salvages again:
    the joker lies in the pile again, marked."""
    return run0("torasobi", ["KD 3D 9C 5H", "JK 4C 7D 6S", "3S TH QC 8C"], [
        play(0, "KD", turn=1),
        play(1, "JK", turn=2),
        pass_(2, turn=0),
        pass_(0, turn=1, field=[]),
        play(1, "4C", turn=2),
        pass_(2, turn=0),
        play(0, "9C", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "3D", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, waiting_for="salvage"),
        pick(0, "JK", turn=0, waiting_for="play", hands={0: "5H JK"}),
        play(0, "JK", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
    ], {"salvage": True, **(rules or {})})  # fmt: skip


def test_a_marked_joker_back_in_the_pile_is_never_picked_again() -> None:
    # Later decision 21, with the jokers counted (docs/RULES.md §5)
    from service.rules.judging import pickable
    from service.rules.notation import parse_mask
    from service.rules.views import SPECTATOR, build_view

    state = _salvaged_joker()
    assert state.pile == parse_mask(["KD", "JK", "4C", "9C", "3D"])
    assert state.marked == parse_mask(["JK"])
    assert not pickable(state) & parse_mask(["JK"])
    view = build_view(state, SPECTATOR)
    assert view.marked == ("JK",) and view.discard_pile_marked == ("JK",)


def test_views_show_the_discarded_cards_while_the_game_goes_on() -> None:
    # Later decision 25: ten-discarded cards are face up in every view, not only at the end
    from service.rules.views import SPECTATOR, Viewer, build_view

    state = run0("federation", ["TS 4D 6C KS", "QD 7C JH", "AH 9S 3C"], [
        play(0, "TS", turn=0, waiting_for="ten_discard"),
        discard(0, "4D", turn=1, discard_pile=["4D"]),
    ], {"ten_discard": True})  # fmt: skip
    for viewer in (SPECTATOR, Viewer.of_seat(1), Viewer.of_seat(0)):
        assert build_view(state, viewer).out_of_play == ("4D",), viewer


def test_a_lapsed_pick_is_narrated() -> None:
    record = event_record(ev.PickLapsed(2, words.WaitingFor.KINGS_MARCH))
    assert describe(record, 3) == "seat 2's kings-march lapses: no card may be taken"
