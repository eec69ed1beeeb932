"""The ``uecda`` preset (docs/RULES.md §6): each way it differs from §1, and each
of its Decisions, through the same decider the service uses."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from service.match.shuffle import game_deal, shuffled
from service.rules import Deal, MatchState, Pass, Refusal, decide, fold, initial_state, rule_set
from service.rules import events as ev
from service.rules.cards import DECK, format_card, parse_reading
from service.rules.commands import Command, Play
from service.rules.dealing import deck_for
from service.rules.legal import legal_actions
from service.rules.narration import describe as describe_event
from service.rules.notation import format_command, parse_mask, seat_command
from service.rules.records import from_record, to_record
from service.rules.refusals import Refused
from service.rules.views import SPECTATOR, Viewer, build_view, visible_record

from .scenario_helpers import give, pass_, play, run

FIVE_QUIET = ["3S", "4H", "5D", "6C", "7S"]  # seats that never need to act


def new_match(players: int = 5, **options: Any) -> MatchState:
    return initial_state(rule_set("uecda", options), players)


def apply(state: MatchState, command: Command) -> tuple[MatchState, list[ev.Event]]:
    decision = decide(state, command)
    assert not isinstance(decision, Refusal), decision
    return fold(state, decision), decision


def play_out(state: MatchState, rng: random.Random) -> MatchState:
    """Random legal actions until the game is over."""
    while state.phase == "in_game":
        actions = legal_actions(state)
        state, _ = apply(state, actions[rng.randrange(len(actions))])
    return state


# -- the deck and the deal -------------------------------------------------------


def test_one_joker_and_53_cards() -> None:
    rules = rule_set("uecda")
    assert rules.jokers == 1
    assert deck_for(rules) == DECK[:53]


def test_five_players_get_11_11_11_10_10_from_the_seat_dealt_first() -> None:
    state, events = apply(new_match(), Deal(DECK[:53], deal_start=3))
    dealt = events[0]
    assert isinstance(dealt, ev.GameDealt) and dealt.deal_start == 3
    sizes = [hand.bit_count() for hand in state.hands]
    assert sizes == [10, 10, 10, 11, 11] or sizes[3] == 11  # seat 3, then 4 and 0
    assert [sizes[seat] for seat in (3, 4, 0, 1, 2)] == [11, 11, 11, 10, 10]


def test_the_deal_follows_the_seating_drawn() -> None:
    seating = (2, 0, 4, 1, 3)
    state, _ = apply(new_match(), Deal(DECK[:53], seating=seating, deal_start=4))
    assert state.seating == seating
    # 4 first, then 1 and 3 round the table; 2 and 0 get one card fewer
    assert [state.hands[seat].bit_count() for seat in (4, 1, 3, 2, 0)] == [11, 11, 11, 10, 10]


def test_later_games_are_dealt_from_the_daifugo_and_seats_change_every_three() -> None:
    rng = random.Random(7)
    draws = [random.Random(n).sample(range(5), 5) for n in range(10)]
    state = new_match(games_per_set=7)
    seatings = []
    for number in range(1, 8):
        deal = Deal(tuple(rng.sample(DECK[:53], 53)), tuple(draws[number]), number % 5)
        state, events = apply(state, deal)
        dealt = events[0]
        assert isinstance(dealt, ev.GameDealt)
        seatings.append(dealt.seating)
        if number > 1:
            daifugo = state.previous_places.index(1)  # type: ignore[union-attr]
            assert dealt.deal_start == daifugo
        else:
            assert dealt.deal_start == 1
        start = dealt.seating.index(dealt.deal_start)
        firsts = [dealt.seating[(start + k) % 5] for k in range(3)]
        assert all(dealt.hands[seat].bit_count() == 11 for seat in firsts)
        state = play_out(state, rng)
    # drawn before games 1, 4 and 7, kept in between
    assert seatings[0] == seatings[1] == seatings[2] == tuple(draws[1])
    assert seatings[3] == seatings[4] == seatings[5] == tuple(draws[4])
    assert seatings[6] == tuple(draws[7])


def test_turns_go_round_the_seating() -> None:
    seating = (0, 3, 1, 4, 2)
    state, _ = apply(new_match(), Deal(DECK[:53], seating=seating))
    seen = []
    while len(seen) < 5 and state.phase == "in_game":
        seen.append(state.turn)
        state, _ = apply(state, Pass(state.turn))  # type: ignore[arg-type]
    start = seating.index(seen[0])
    assert seen == [seating[(start + k) % 5] for k in range(5)]


def test_a_deal_with_a_seating_that_is_not_one_is_refused() -> None:
    decision = decide(new_match(), Deal(DECK[:53], seating=(0, 0, 1, 2, 3)))
    assert isinstance(decision, Refusal) and decision.code == "bad_request"
    decision = decide(new_match(), Deal(DECK[:53], deal_start=5))
    assert isinstance(decision, Refusal) and decision.code == "bad_request"


def test_ranks_reset_every_hundred_games_here_every_two() -> None:
    rng = random.Random(3)
    state = new_match(games_per_set=3, rank_reset_every=2)
    previous = []
    for _ in range(3):
        state, events = apply(state, Deal(tuple(rng.sample(DECK[:53], 53))))
        dealt = events[0]
        assert isinstance(dealt, ev.GameDealt)
        previous.append(dealt.previous_places)
        assert any(isinstance(e, ev.ExchangeStarted) for e in events) == (
            dealt.previous_places is not None
        )
        state = play_out(state, rng)
    assert previous[0] is None and previous[1] is not None and previous[2] is None
    assert rule_set("uecda").rank_reset_every == 100


# -- who leads -------------------------------------------------------------------------


def test_the_d3_holder_leads_and_need_not_play_it() -> None:
    run("uecda", ["3D 9S", "4H KH", "5C"], [
        play(0, "9S", turn=1),
    ])  # fmt: skip


def test_the_d3_holder_after_the_exchange_leads() -> None:
    # QS and 9S are taken from 大貧民 seat 0; 大富豪 seat 1 gives ♢3 back: 0 leads
    run("uecda", ["3H 9S QS", "3D 4D 5C", "7H 8H"], [
        give(1, "3D 4D", turn=0, waiting_for="play", hands={"0": "3D 4D 3H", "1": "5C 9S QS"}),
    ], previous_places=[3, 1, 2])  # fmt: skip


# -- the trick -------------------------------------------------------------------------


def test_the_trick_ends_only_when_the_last_player_has_passed_too() -> None:
    run("uecda", ["3D 9S", "4H KH", "5C QC"], [
        play(0, "9S", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field="9S"),  # asked again on its own play
        pass_(0, turn=0, field=[]),  # then it leads
    ])  # fmt: skip


def test_the_last_player_may_play_on_its_own_play() -> None:
    run("uecda", ["3D 9S KS", "4H", "5C"], [
        play(0, "9S", turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0),
        play(0, "KS", turn=0, field="KS", places={}),
    ])  # fmt: skip


def test_a_passed_player_is_skipped_until_the_flush() -> None:
    run("uecda", ["3D 6S 9S", "4H 5H", "5C AC"], [
        play(0, "6S", turn=1),
        pass_(1, turn=2),
        play(2, "AC", turn=0),
        pass_(0, turn=2),  # 1 passed already
        play(1, "5H", reject="not_your_turn"),
    ])  # fmt: skip


def test_after_the_last_player_went_out_the_next_seat_leads() -> None:
    run("uecda", ["3D 4D", "KS", "5C 6C", "7H 8H"], [
        play(0, "4D", turn=1),
        play(1, "KS", turn=2, places={"1": 1}),
        pass_(2, turn=3),
        pass_(3, turn=0),
        pass_(0, turn=2, field=[]),
    ])  # fmt: skip


def test_the_leader_may_pass_and_the_next_seat_leads() -> None:
    run("uecda", ["3D 9S", "4H KH", "5C QC"], [
        pass_(0, turn=1, field=[]),
        play(1, "4H", turn=2),
        play(2, "QC", turn=1),  # 0 passed in this trick
    ])  # fmt: skip


def test_when_every_player_passes_on_an_empty_field_the_first_leads_again() -> None:
    state = run("uecda", ["3D 9S", "4H KH", "5C QC"], [
        pass_(0, turn=1),
        pass_(1, turn=2),
        pass_(2, turn=0, field=[]),
        play(0, "9S", turn=1),  # the passes cleared
    ])  # fmt: skip
    assert state.passed == 0


def test_the_other_presets_leader_still_may_not_pass() -> None:
    run("federation", ["3D 9S", "4H KH"], [pass_(0, reject="cannot_pass")])


def test_the_leader_pass_is_a_legal_action() -> None:
    state = run("uecda", ["3D 9S", "4H KH"], [])
    assert Pass(0) in legal_actions(state)


# -- the exchange ----------------------------------------------------------------------


def test_the_lower_players_strongest_cards_are_taken_joker_first_spades_over_hearts() -> None:
    # 大貧民 seat 4 holds JK and two 2s: JK and 2S go; 貧民 seat 3: AS before AH
    hands = ["3D 4D 5D", "3C 4C 5C", "3H 4H 5H", "AS AH 6S", "JK 2S 2H 7S"]
    run("uecda", hands, [
        give(0, "3D 4D", turn=1, hands={"0": "5D JK 2S", "4": "2H 7S 3D 4D"}),
        give(1, "3C", turn=4, waiting_for="play", hands={"1": "4C 5C AS", "3": "AH 6S 3C"}),
    ], previous_places=[1, 2, 3, 4, 5])  # fmt: skip


def test_ties_go_hearts_over_diamonds_over_clubs() -> None:
    hands = ["3D 4D", "3C 4C", "3H 4H", "AD AC 6S", "KH KD KC 7S"]
    run("uecda", hands, [
        give(0, "3D 4D", hands={"0": "KH KD", "4": "KC 7S 3D 4D"}),
        give(1, "3C", hands={"1": "4C AD", "3": "AC 6S 3C"}),
    ], previous_places=[1, 2, 3, 4, 5])  # fmt: skip


def test_the_upper_player_gives_back_exactly_as_many_and_only_its_own() -> None:
    hands = ["3D 4D 5D", "3C 4C 5C", "3H 4H 5H", "AS AH 6S", "JK 2S 2H 7S"]
    run("uecda", hands, [
        give(0, "3D", reject="wrong_action"),
        give(0, "3D 9S", reject="card_not_in_hand"),
        give(1, "3C", reject="not_your_turn"),
        give(0, "JK 2S", turn=1),  # any two cards, the ones just taken too
    ], previous_places=[1, 2, 3, 4, 5])  # fmt: skip


def test_the_exchange_moves_are_events_seen_by_the_two_seats_only() -> None:
    state = new_match(games_per_set=2)
    state, _ = apply(state, Deal(DECK[:53]))
    state = play_out(state, random.Random(1))
    state, events = apply(state, Deal(DECK[:53]))
    taken = [e for e in events if isinstance(e, ev.CardsGiven)]
    assert [e.reason for e in taken] == ["taken", "taken"]
    assert [e.cards.bit_count() for e in taken] == [2, 1]
    started = next(e for e in events if isinstance(e, ev.ExchangeStarted))
    assert [(step[2], step[3]) for step in started.steps] == [(2, False), (1, False)]
    first = taken[0]
    other = next(seat for seat in range(5) if seat not in (first.seat, first.to))
    assert visible_record(first, Viewer.of_seat(first.to), False)["cards"] is not None
    assert visible_record(first, Viewer.of_seat(other), False)["cards"] is None
    assert visible_record(first, SPECTATOR, False)["cards"] is None


# -- melds -------------------------------------------------------------------------------


def test_overlapping_stairs_are_not_stronger() -> None:
    run("uecda", ["3D 4D 5D", "5H 6H 7H 9C", "6C 7C 8C"], [
        play(0, "3D 4D 5D", turn=1),
        play(1, "5H 6H 7H", reject="not_stronger"),  # 5 is not above 5
        play(2, "6C 7C 8C", reject="not_your_turn"),
    ], leader=0)  # fmt: skip
    run("uecda", ["3D 4D 5D", "6H 7H JK 9C", "TC"], [
        play(0, "3D 4D 5D", turn=1),
        play(1, "6H 7H JK", as_="8H", turn=1, field=[]),  # above 5: and it holds an 8
    ], leader=0)  # fmt: skip


def test_other_presets_keep_overlapping_stairs() -> None:
    run("classic", ["3D 4D 5D KC", "4H 5H 6H 9C", "QS"], [
        play(0, "3D 4D 5D", turn=1),
        play(1, "4H 5H 6H", turn=2),
    ], leader=0)  # fmt: skip


def test_in_revolution_stairs_must_lie_below() -> None:
    run("uecda", ["9D TD JD", "7H 8H 9H KC", "5C 6C 7C"], [
        play(0, "9D TD JD", turn=1),
        play(1, "7H 8H 9H", reject="not_stronger"),
    ], leader=0, revolution=True)  # fmt: skip
    run("uecda", ["9D TD JD 4S", "7H 8H 9H KC", "5C 6C 7C QS"], [
        play(0, "9D TD JD", turn=1),
        pass_(1, turn=2),
        play(2, "5C 6C 7C", turn=0),
    ], leader=0, revolution=True)  # fmt: skip


def test_a_stairs_joker_may_stand_below_the_3_or_above_the_2() -> None:
    run("uecda", ["3H 4H JK", "5S 6S 7S KC", "QS"], [
        play(0, "JK 3H 4H", as_="LH", turn=1, field="JK 3H 4H"),
        play(1, "5S 6S 7S", turn=2),  # above the field's 4
    ], leader=0)  # fmt: skip
    run("uecda", ["AS 2S JK", "4D", "QS"], [
        play(0, "AS 2S JK", as_="HS", turn=1),
    ], leader=0)  # fmt: skip


def test_other_presets_refuse_a_joker_past_the_ends() -> None:
    run("classic", ["3H 4H JK 9C", "5S", "QS"], [
        play(0, "JK 3H 4H", as_="LH", reject="invalid_meld"),
    ], leader=0)  # fmt: skip


def test_a_default_stairs_joker_extends_past_the_2() -> None:
    state = run("uecda", ["AS 2S JK", "4D", "QS"], [play(0, "AS 2S JK", turn=1)], leader=0)
    assert state.field is not None and (state.field.low, state.field.high) == (11, 13)


def test_joker_readings_in_notation_and_records() -> None:
    low = parse_reading("LH")
    assert format_card(low) == "LH" and format_card(parse_reading("hs")) == "HS"
    command = seat_command(0, "play", ["JK", "3H", "4H"], ["LH"])
    assert format_command(command) == "seat 0 play 3H 4H JK as LH"
    played = ev.CardsPlayed(0, parse_mask(["JK", "3H", "4H"]), 3, -1, 1, (low,))
    record = to_record(played)
    assert record["jokers_as"] == ["LH"] and record["low"] == "L"
    assert from_record("CardsPlayed", record) == played


def test_a_reading_past_the_ends_is_never_a_card() -> None:
    with pytest.raises(Refused, match="unknown card code"):
        parse_mask(["LH"])


# -- revolution, eight-cut, locks, spade-3 -------------------------------------------------


def test_stairs_of_five_revolt_and_of_four_do_not() -> None:
    run("uecda", ["3C 4C 5C 6C 7C KD", "QS", "QH"], [
        play(0, "3C 4C 5C 6C 7C", turn=1, revolution=True),
    ], leader=0)  # fmt: skip
    run("uecda", ["3C 4C 5C 6C KD", "QS", "QH"], [
        play(0, "3C 4C 5C 6C", turn=1, revolution=False),
    ], leader=0)  # fmt: skip


def test_a_group_of_four_with_the_joker_revolts_and_another_turns_it_back() -> None:
    run("uecda", ["9S 9H 9D JK KC", "5S 5H 5D 5C 4H", "QD"], [
        play(0, "9S 9H 9D JK", turn=1, revolution=True),
        play(1, "5S 5H 5D 5C", turn=2, revolution=False),
    ], leader=0)  # fmt: skip


def test_a_joker_standing_for_an_8_in_stairs_cuts() -> None:
    run("uecda", ["7S JK 9S KC", "4D", "QS"], [
        play(0, "7S JK 9S", turn=0, field=[]),
    ], leader=0)  # fmt: skip


def test_a_single_joker_never_cuts_and_only_the_spade_3_beats_it() -> None:
    run("uecda", ["JK KC", "3S 2H", "QS"], [
        play(0, "JK", turn=1, field="JK"),
        play(1, "2H", reject="not_stronger"),
        play(1, "3S", turn=1, field=[]),
    ], leader=0)  # fmt: skip


def test_the_spade_3_beats_the_joker_under_a_lock() -> None:
    run("uecda", ["4S JK", "5S 3S KD", "QH"], [
        play(0, "4S", turn=1),
        play(1, "5S", turn=2, suit_lock=["S"]),
        pass_(2, turn=0),
        play(0, "JK", turn=1, suit_lock=[]),  # a single joker lifts the lock
        play(1, "3S", turn=1, field=[]),
    ], leader=0)  # fmt: skip


def test_a_joker_in_a_group_counts_as_its_suit_for_a_lock() -> None:
    run("uecda", ["4S 4H KC", "5S JK QD", "9S 9H 9D"], [
        play(0, "4S 4H", turn=1),
        play(1, "5S JK", as_="5H", turn=2, suit_lock=["S", "H"]),
        play(2, "9S 9D", reject="suit_locked"),
        play(2, "9S 9H", turn=0),
    ], leader=0)  # fmt: skip
    run("uecda", ["4S 4H KC", "5S JK QD", "9S 9H 9D"], [
        play(0, "4S 4H", turn=1),
        play(1, "5S JK", as_="5D", turn=2, suit_lock=[]),
    ], leader=0)  # fmt: skip


def test_a_group_jokers_reading_must_be_a_suit_the_group_lacks() -> None:
    run("uecda", ["5S JK KC", "4D", "QS"], [
        play(0, "5S JK", as_="5S", reject="invalid_meld"),
    ], leader=0)  # fmt: skip


def test_legal_actions_name_each_suit_a_group_joker_may_stand_for() -> None:
    state = run("uecda", ["5S JK", "4D 6D"], [], leader=0)
    plays = {format_command(action) for action in legal_actions(state)}
    assert {"seat 0 play 5S JK", "seat 0 play 5S JK as 5H", "seat 0 play 5S JK as 5D"} <= plays


def test_any_card_may_finish() -> None:
    run("uecda", ["2S", "4D 5D", "6C 7C"], [
        play(0, "2S", places={"0": 1}, turn=1),
    ], leader=0)  # fmt: skip
    run("uecda", ["JK", "4D 5D", "6C 7C"], [
        play(0, "JK", places={"0": 1}, turn=1),
    ], leader=0)  # fmt: skip


def test_miyako_ochi_is_off() -> None:
    # 大富豪 seat 0 does not finish first, and stays in
    state = run("uecda", ["3D 4D 8S", "KS", "5C 6C"], [
        play(1, "KS", places={"1": 1}, turn=2),
    ], previous_places=[1, 3, 2], leader=1, skip_exchange=True)  # fmt: skip
    assert state.is_active(0) and not state.bottom


# -- the stalemate -------------------------------------------------------------------------


def test_twenty_passes_in_a_row_rank_the_players_in_the_order_drawn() -> None:
    state, _ = apply(new_match(3), Deal(DECK[:53], stalemate=(2, 0, 1)))
    events: list[ev.Event] = []
    for _ in range(20):
        state, events = apply(state, Pass(state.turn))  # type: ignore[arg-type]
    assert state.game_over
    assert state.final_places == (2, 3, 1)
    finished = [e for e in events if isinstance(e, ev.PlayerFinished)]
    assert [(e.seat, e.cause) for e in finished] == [(2, "stalemate"), (0, "stalemate"),
                                                      (1, "stalemate")]  # fmt: skip


def test_a_play_starts_the_count_again() -> None:
    state, _ = apply(new_match(3), Deal(DECK[:53]))
    for _ in range(19):
        state, _ = apply(state, Pass(state.turn))  # type: ignore[arg-type]
    plays = [a for a in legal_actions(state) if isinstance(a, Play)]
    state, _ = apply(state, plays[0])
    assert state.pass_run == 0
    for _ in range(5):
        state, _ = apply(state, Pass(state.turn))  # type: ignore[arg-type]
    assert not state.game_over


def test_the_stalemate_order_is_hidden_until_the_match_ends() -> None:
    state, events = apply(new_match(3), Deal(DECK[:53], stalemate=(2, 0, 1)))
    dealt = events[0]
    assert visible_record(dealt, Viewer.of_seat(0), False)["stalemate"] is None
    assert visible_record(dealt, SPECTATOR, False)["stalemate"] is None
    assert visible_record(dealt, SPECTATOR, True)["stalemate"] == [2, 0, 1]
    assert "stalemate" not in build_view(state, Viewer.of_seat(0)).to_dict()


# -- the draws from the seed -----------------------------------------------------------------


def test_the_service_draws_what_the_rules_use_from_the_seed() -> None:
    rules = rule_set("uecda")
    deal = game_deal(rules, 5, b"seed", 4)
    assert deal == game_deal(rules, 5, b"seed", 4)
    assert sorted(deal.seating) == sorted(deal.stalemate) == list(range(5))
    assert 0 <= deal.deal_start < 5
    assert Counter(deal.deck) == Counter(deck_for(rules))
    assert game_deal(rules, 5, b"other", 4) != deal


def test_the_other_presets_deal_exactly_as_before() -> None:
    rules = rule_set("torasobi")
    deal = game_deal(rules, 4, b"seed", 2, ["ab"])
    assert deal == Deal(shuffled(deck_for(rules), b"seed", 2, [bytes.fromhex("ab")]))


def test_the_record_tells_a_lifted_lock_and_the_seating() -> None:
    assert describe_event({"type": "SuitLocked", "suits": []}, 5) == "suit lock lifted"
    dealt = {"type": "GameDealt", "game_number": 4, "hands": [None] * 5, "leader": 1,
             "hand_sizes": [11, 11, 11, 10, 10], "seating": [2, 0, 4, 1, 3]}  # fmt: skip
    line = describe_event(dealt, 5)
    assert line is not None and "seats round the table 2 0 4 1 3" in line
