"""The flow of a set (docs/RULES.md §1): dealing from a deck order, blind and unused
cards, who leads, the card exchange, places, miyako-ochi, the next game, the
end of the match, and the precedence of refusal codes (docs/RULES.md §7)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from service.rules import Deal, MatchState, Refusal, decide, fold, initial_state, rule_set
from service.rules import events as ev
from service.rules.cards import DECK, JOKER, format_card, format_mask, parse_card
from service.rules.commands import Command, Give, Pass, Play, SetUp
from service.rules.legal import legal_actions
from service.rules.notation import parse_mask
from service.rules.views import SPECTATOR, Viewer, build_view, visible_record
from service.scenarios import ScenarioError

from .scenario_helpers import discard, give, pass_, play, run

RANKS = "3456789TJQKA2"
SUITS = "DCHS"  # the first-lead tie order ♢ ♣ ♡ ♠


# -- driving whole games ---------------------------------------------------------


def new_match(preset: str, players: int, **options: Any) -> MatchState:
    return initial_state(rule_set(preset, options), players)


def apply(state: MatchState, command: Command) -> tuple[MatchState, list[ev.Event]]:
    decision = decide(state, command)
    assert not isinstance(decision, Refusal), decision
    return fold(state, decision), decision


def refusal(state: MatchState, command: Command) -> str:
    decision = decide(state, command)
    assert isinstance(decision, Refusal), decision
    return decision.code


def deck(seed: int) -> tuple[int, ...]:
    """A fixed order of the 54 cards, jokers side by side at the top (so that
    which of two identical jokers is set aside never matters)."""
    cards = list(range(52))
    random.Random(seed).shuffle(cards)
    return (JOKER, JOKER, *cards)


def deal(state: MatchState, order: tuple[int, ...]) -> tuple[MatchState, list[ev.Event]]:
    return apply(state, Deal(order))


def play_out(state: MatchState) -> tuple[MatchState, list[ev.Event]]:
    """Finish the current game, every seat taking its first legal action."""
    events: list[ev.Event] = []
    while state.phase == "in_game":
        state, new = apply(state, legal_actions(state)[0])
        events += new
    return state, events


def codes(mask: int) -> list[str]:
    return sorted(format_mask(mask))


def round_robin(order: tuple[int, ...], left_out: Counter[int], players: int) -> list[list[str]]:
    """Hands dealt one card at a time from seat 0, skipping the cards left out."""
    skip = Counter(left_out)
    dealt = []
    for card in order:
        if skip[card]:
            skip[card] -= 1
        else:
            dealt.append(card)
    return [sorted(format_card(card) for card in dealt[seat::players]) for seat in range(players)]


def left_out(hands: tuple[int, ...]) -> Counter[int]:
    held = Counter(card for hand in hands for card in _cards(hand))
    return Counter(DECK) - held


def _cards(mask: int) -> list[int]:
    return [parse_card(code) for code in format_mask(mask)]


def weakest_holder(hands: tuple[int, ...]) -> int:
    def key(code: str) -> tuple[int, int]:
        return (RANKS.index(code[0]), SUITS.index(code[1])) if code != "JK" else (99, 99)

    return min(range(len(hands)), key=lambda seat: min(map(key, format_mask(hands[seat]))))


# -- dealing --------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "sizes"), [(3, [18, 18, 18]), (5, [11, 11, 11, 11, 10])])
def test_deal_one_card_at_a_time_from_seat_0(players: int, sizes: list[int]) -> None:
    order = deck(1)
    state, _ = deal(new_match("torasobi", players), order)
    assert [hand.bit_count() for hand in state.hands] == sizes
    assert [codes(hand) for hand in state.hands] == round_robin(order, Counter(), players)


def test_deal_four_players_without_blind_cards_outside_federation() -> None:
    order = deck(2)
    state, _ = deal(new_match("classic", 4), order)
    assert [hand.bit_count() for hand in state.hands] == [14, 14, 13, 13]
    assert [codes(hand) for hand in state.hands] == round_robin(order, Counter(), 4)


@pytest.mark.parametrize("preset", ["federation", "torasobi", "classic"])
def test_two_players_get_twenty_each_and_fourteen_stay_out(preset: str) -> None:
    order = deck(3)
    state, _ = deal(new_match(preset, 2), order)
    assert [hand.bit_count() for hand in state.hands] == [20, 20]
    unused = left_out(state.hands)
    assert sum(unused.values()) == 14
    assert [codes(hand) for hand in state.hands] == round_robin(order, unused, 2)


def test_federation_four_players_two_blind_cards_and_thirteen_each() -> None:
    order = deck(4)
    state, _ = deal(new_match("federation", 4), order)
    assert [hand.bit_count() for hand in state.hands] == [13] * 4
    blind = left_out(state.hands)
    assert sum(blind.values()) == 2
    assert [codes(hand) for hand in state.hands] == round_robin(order, blind, 4)


def test_federation_keeps_the_jokers_with_four_players() -> None:
    order = (*deck(5)[2:], JOKER, JOKER)  # jokers at the bottom: dealt, not blind
    state, _ = deal(new_match("federation", 4), order)
    assert (
        sum(format_mask(hand).count("JK") for hand in state.hands) + left_out(state.hands)[JOKER]
        == 2
    )
    assert sum(hand.bit_count() for hand in state.hands) == 52


@pytest.mark.parametrize("players", [2, 3, 5])
def test_federation_has_blind_cards_only_with_four_players(players: int) -> None:
    order = deck(6)
    state, _ = deal(new_match("federation", players), order)
    expected = {2: 40, 3: 54, 5: 54}[players]
    assert sum(hand.bit_count() for hand in state.hands) == expected


def test_federation_blind_cards_stay_out_for_the_whole_set_and_show_at_its_end() -> None:
    state = new_match("federation", 4, games_per_set=2)
    state, _ = deal(state, deck(7))
    blind = left_out(state.hands)
    state, _ = play_out(state)
    state, _ = deal(state, deck(8))
    assert left_out(state.hands) == blind
    state, events = play_out(state)
    ended = [e for e in events if isinstance(e, ev.MatchEnded)]
    assert len(ended) == 1
    assert Counter(_cards(ended[0].blind)) == blind


def test_blind_cards_are_seen_by_nobody_until_the_set_ends() -> None:
    state, events = deal(new_match("federation", 4, games_per_set=1), deck(9))
    dealt = next(e for e in events if isinstance(e, ev.GameDealt))
    for viewer in (SPECTATOR, Viewer.of_seat(0), Viewer.of_seat(3)):
        assert build_view(state, viewer).blind is None
        assert visible_record(dealt, viewer, revealed=False)["blind"] is None
    state, _ = play_out(state)
    assert state.phase == "match_over"
    assert sorted(build_view(state, SPECTATOR).blind or ()) == sorted(
        format_card(card) for card in left_out(dealt.hands).elements()
    )


# -- who leads -------------------------------------------------------------------------


def test_first_leader_after_a_deal_holds_the_d3() -> None:
    order = deck(10)
    state, _ = deal(new_match("classic", 3), order)
    assert state.turn == order.index(parse_card("3D")) % 3  # the ♢3 went to that seat


def test_first_leader_without_a_dealt_d3_holds_the_weakest_card() -> None:
    d3 = parse_card("3D")
    base = [card for card in deck(11) if card != d3]
    for position in range(len(base), -1, -1):
        order = (*base[:position], d3, *base[position:])
        state, _ = deal(new_match("torasobi", 2), order)
        if not any(parse_mask(["3D"]) & hand for hand in state.hands):
            break
    else:
        pytest.fail("the ♢3 was dealt in every position")
    assert state.turn == weakest_holder(state.hands)


@pytest.mark.parametrize(
    ("hands", "leader"),
    [
        (["3H 9S", "3C KD", "3S AD"], 1),
        (["3H 9S", "4D KD", "3S AD"], 0),
        (["4S 9S", "4H KD", "4C AD"], 2),
        (["5H 9S", "4S KD", "JK AD"], 1),
        (["9S", "3D", "3C"], 1),
    ],
)
def test_first_leader_ties_by_suit_d_c_h_s(hands: list[str], leader: int) -> None:
    run("federation", hands, [], final={"turn": leader})


def test_previous_daihinmin_leads_the_next_game() -> None:
    run("federation", ["3D 9S", "4C KD", "5S AD"], [
        play(2, "5S", turn=0),
    ], previous_places=[1, 2, 3], skip_exchange=True)  # fmt: skip


# -- card exchange ------------------------------------------------------------------------


def test_exchange_order_with_five_players() -> None:
    """大貧民 (seat 4) → 大富豪 (seat 1), 大富豪 back, 貧民 (seat 0) → 富豪 (seat 3),
    富豪 back; 平民 (seat 2) takes no part; then the 大貧民 leads."""
    run("torasobi", ["KC 4D", "AH 5D 6D", "QS 7C", "TH 3C", "2C AD 9S"], [
        give(1, "5D 6D", reject="not_your_turn"),
        give(4, "2C AD", turn=1, waiting_for="exchange"),
        give(1, "5D 6D", turn=0, waiting_for="exchange"),
        give(0, "KC", turn=3, waiting_for="exchange"),
        give(3, "3C", turn=4, waiting_for="play", hands={
            0: "4D 3C", 1: "AH 2C AD", 2: "QS 7C", 3: "TH KC", 4: "9S 5D 6D"}),
    ], previous_places=[4, 1, 3, 2, 5])  # fmt: skip


def test_exchange_with_three_players_is_two_cards_between_first_and_last() -> None:
    run("classic", ["KC 4D 9H", "AH 5D 6D", "2C AD 3S"], [
        give(2, "2C AD", turn=1, waiting_for="exchange"),
        give(1, "5D 6D", turn=2, waiting_for="play", hands={0: "KC 4D 9H", 2: "3S 5D 6D"}),
    ], previous_places=[2, 1, 3])  # fmt: skip


def test_exchange_with_two_players() -> None:
    run("federation", ["KC 4D 9H", "AH 5D 6D 7H"], [
        give(1, "AH 6D", reject="wrong_action"),
        give(1, "AH 7H 6D", reject="wrong_action"),
        give(1, "AH 7H", turn=0, waiting_for="exchange"),
        give(0, "4D 9H", turn=1, waiting_for="play",
             hands={0: "KC AH 7H", 1: "5D 6D 4D 9H"}),
    ], previous_places=[1, 2])  # fmt: skip


def test_the_joker_is_the_strongest_card_to_give() -> None:
    run("torasobi", ["KC 4D 9H", "AH 5D 6D", "2C JK 3S"], [
        give(2, "2C 3S", reject="wrong_action"),
        give(2, "2C JK", turn=1),
    ], previous_places=[2, 1, 3])  # fmt: skip


def test_the_lower_player_chooses_among_equal_cards() -> None:
    run("torasobi", ["KC 4D 9H", "AH 5D 6D", "AC AS AD 3S"], [
        give(2, "AS AD", turn=1, hands={2: "AC 3S"}),
    ], previous_places=[2, 1, 3])  # fmt: skip


def test_the_upper_player_may_give_back_what_it_received() -> None:
    run("torasobi", ["KC 4D 9H", "3H 5D 6D", "2C AC 3S"], [
        give(2, "2C AC", turn=1),
        give(1, "2C AC", turn=2, hands={1: "3H 5D 6D", 2: "2C AC 3S"}),
    ], previous_places=[2, 1, 3])  # fmt: skip


def test_exchange_refusals() -> None:
    run("torasobi", ["KC 4D 9H", "AH 5D 6D", "2C AD 3S"], [
        give(2, "2S AD", reject="card_not_in_hand"),
        give(2, "2C 3S", reject="wrong_action"),
        give(2, "2C", reject="wrong_action"),
        play(2, "2C", reject="wrong_action"),
        pass_(2, reject="wrong_action"),
        discard(2, "2C AD", reject="wrong_action"),
        give(0, "KC 4D", reject="not_your_turn"),
        give(2, "2C AD", turn=1),
        give(1, "AH", reject="wrong_action"),
        give(1, "AH 2S", reject="card_not_in_hand"),
    ], previous_places=[2, 1, 3])  # fmt: skip


def test_a_short_lower_hand_gives_all_it_holds_and_gets_as_many_back() -> None:
    """docs/RULES.md §1 Card exchange, Decision: the 大貧民 holding one card gives it; the 大富豪
    gives back exactly one, so no hand empties (two back would empty theirs)."""
    run("classic", ["KC 4D 9H", "AH", "2C"], [
        give(2, "2C", turn=1, waiting_for="exchange", hands={1: "AH 2C", 2: ""}),
        give(1, "AH 2C", reject="wrong_action"),
        give(1, "2C", turn=2, waiting_for="play", hands={1: "AH", 2: "2C"}),
    ], previous_places=[2, 1, 3])  # fmt: skip


def test_a_short_exchange_with_two_players() -> None:
    run("federation", ["KC 4D 9H", "AH"], [
        give(1, "AH", turn=0, waiting_for="exchange"),
        give(0, "4D 9H", reject="wrong_action"),
        give(0, "4D", turn=1, waiting_for="play", hands={0: "KC 9H AH", 1: "4D"}),
    ], previous_places=[1, 2])  # fmt: skip


def test_the_exchange_counts_are_facts_of_its_event() -> None:
    state = new_match("torasobi", 5)
    hands = tuple(parse_mask(hand.split()) for hand in ["KC 4D", "AH 5D", "QS", "TH", "2C"])
    events = decide(state, SetUp(hands, previous_places=(4, 1, 3, 2, 5), game_number=2))
    assert not isinstance(events, Refusal), events
    # 大貧民 (seat 4) holds one card: one each way; 貧民 ↔ 富豪 one as always
    assert events[1] == ev.ExchangeStarted(((4, 1, 1, True), (1, 4, 1, False),
                                            (0, 3, 1, True), (3, 0, 1, False)))  # fmt: skip


def test_a_start_where_a_seat_holds_no_card_is_a_bad_request() -> None:
    state = new_match("classic", 3)
    hands = (parse_mask(["3D"]), 0, parse_mask(["4D"]))
    assert refusal(state, SetUp(hands, leader=0)) == "bad_request"
    with pytest.raises(ScenarioError, match="start: bad_request"):
        run("classic", ["3D", "", "4D"], [], leader=0)


@pytest.mark.parametrize(
    "start",
    [{"leader": "0"}, {"leader": True}, {"game_number": "2"}, {"game_number": 0},
     {"game_number": 2, "previous_places": {"0": 1, "1": 1, "2": 3}}],
)  # fmt: skip
def test_a_malformed_start_is_a_bad_request(start: dict[str, Any]) -> None:
    with pytest.raises(ScenarioError, match="bad_request"):
        run("classic", ["3D", "5D", "4D"], [], **start)


def test_no_exchange_when_its_option_is_off() -> None:
    run("torasobi", ["KC 4D 9H", "AH 5D 6D", "2C AD 3S"], [
        play(2, "3S", turn=0),
    ], {"card_exchange": False}, previous_places=[2, 1, 3],
        final={"hands": {2: "2C AD"}})  # fmt: skip


def test_skip_exchange_starts_at_play() -> None:
    run("torasobi", ["KC 4D 9H", "AH 5D 6D", "2C AD 3S"], [
        play(2, "3S", turn=0),
    ], previous_places=[2, 1, 3], skip_exchange=True)  # fmt: skip


# -- places and the end of a game ---------------------------------------------------------


def test_three_players_places_and_the_last_one_left() -> None:
    run("federation", ["4D", "5D 9C", "6H KC"], [
        play(0, "4D", turn=1, places={0: 1}),
        play(1, "9C", turn=2),
        play(2, "KC", turn=1),
        pass_(1, turn=2, field=[]),
        play(2, "6H", game_over=True, turn=None, waiting_for=None),
    ], leader=0, final={"places": {0: 1, 2: 2, 1: 3}})  # fmt: skip


def test_two_players_the_first_to_finish_ends_the_game() -> None:
    run("torasobi", ["4D", "5D 9C"], [
        play(0, "4D", game_over=True, places={0: 1, 1: 2}),
    ], leader=0)  # fmt: skip


def test_five_players_take_five_places() -> None:
    run("torasobi", ["4D", "5C", "6H", "7S", "9D KS"], [
        play(0, "4D", turn=1, places={0: 1}),
        play(1, "5C", turn=2, places={0: 1, 1: 2}),
        play(2, "6H", turn=3),
        play(3, "7S", game_over=True),
    ], leader=0, final={"places": {0: 1, 1: 2, 2: 3, 3: 4, 4: 5}})  # fmt: skip


def test_the_turn_goes_round_in_seat_order() -> None:
    run("federation", ["4D 9C", "5C KH", "6H QD", "7S AS"], [
        play(0, "4D", turn=1),
        play(1, "5C", turn=2),
        play(2, "6H", turn=3),
        play(3, "7S", turn=0),
    ], leader=0)  # fmt: skip


def test_flush_after_the_last_player_finished_goes_to_the_next_player() -> None:
    run("federation", ["4D 9C", "KS", "6H QD", "7S 5S"], [
        play(0, "4D", turn=1),
        play(1, "KS", turn=2, places={1: 1}),
        pass_(2, turn=3),
        pass_(3, turn=0),
        pass_(0, turn=2, field=[]),
    ], leader=0)  # fmt: skip


# -- miyako-ochi ----------------------------------------------------------------------------


def test_previous_daifugo_finishing_first_does_not_fall() -> None:
    run("torasobi", ["AS", "TH 4D", "QC 7S", "5C JS"], [
        play(3, "5C", turn=0),
        play(0, "AS", turn=1, places={0: 1}, fallen=[]),
    ], previous_places=[1, 2, 3, 4], skip_exchange=True)  # fmt: skip


def test_a_forbidden_finish_does_not_make_the_daifugo_fall() -> None:
    run("classic", ["AS KH 4D", "2S", "TH QD", "5C JS 3H"], [
        play(3, "5C", turn=0),
        pass_(0, turn=1),
        play(1, "2S", turn=2, forbidden=[1], fallen=[], places={1: 4}),
    ], previous_places=[1, 2, 3, 4], skip_exchange=True)  # fmt: skip


def test_fallen_daifugo_leaves_with_its_cards_and_the_field_stays() -> None:
    run("torasobi", ["AS KH 4D", "TH", "QC 7S", "5C JS"], [
        play(3, "5C", turn=0),
        pass_(0, turn=1),
        play(1, "TH", turn=2, field="TH", fallen=[0], places={1: 1, 0: 4},
             hands={0: "AS KH 4D"}, hand_sizes={0: 3}),
        play(2, "QC", turn=3),
        play(3, "JS", reject="not_stronger"),
    ], previous_places=[1, 2, 3, 4], skip_exchange=True)  # fmt: skip


def test_a_fallen_player_keeps_cards_nobody_may_play() -> None:
    state = run("torasobi", ["AS KH 4D", "TH", "QC 7S", "5C JS"], [
        play(3, "5C", turn=0),
        pass_(0, turn=1),
        play(1, "TH", turn=2, fallen=[0], hands={0: "AS KH 4D"}),
        play(2, "QC", turn=3),
        play(0, "AS", reject="not_your_turn"),
        pass_(3, turn=2, field=[], hands={0: "AS KH 4D"}),
    ], previous_places=[1, 2, 3, 4], skip_exchange=True)  # fmt: skip
    assert {action.seat for action in legal_actions(state)} == {2}
    # only the holder sees the cards kept; everyone sees how many
    assert sorted(build_view(state, Viewer.of_seat(0)).hand or ()) == ["4D", "AS", "KH"]
    assert build_view(state, SPECTATOR).hands is None
    assert build_view(state, Viewer.of_seat(2)).hand_sizes[0] == 3


def test_no_miyako_ochi_in_the_first_game() -> None:
    run("torasobi", ["AS KH 4D", "TH", "QC 7S", "5C JS"], [
        play(3, "5C", turn=0),
        pass_(0, turn=1),
        play(1, "TH", turn=2, fallen=[], places={1: 1}),
    ], leader=3)  # fmt: skip


def test_no_miyako_ochi_when_its_option_is_off() -> None:
    run("torasobi", ["AS KH 4D", "TH", "QC 7S", "5C JS"], [
        play(3, "5C", turn=0),
        pass_(0, turn=1),
        play(1, "TH", turn=2, fallen=[], places={1: 1}),
        play(2, "QC", turn=3),
        pass_(3, turn=0),
        play(0, "AS", turn=2),
    ], {"miyako_ochi": False}, previous_places=[1, 2, 3, 4], skip_exchange=True)  # fmt: skip


def test_miyako_ochi_with_three_players() -> None:
    run("federation", ["AS KH", "TH", "QC 7S"], [
        play(2, "7S", turn=0),
        pass_(0, turn=1),
        play(1, "TH", game_over=True, fallen=[0]),
    ], previous_places=[1, 2, 3], skip_exchange=True,
        final={"places": {1: 1, 2: 2, 0: 3}})  # fmt: skip


# -- the next game and the end of the match -------------------------------------------------


def test_next_game_deals_starts_the_exchange_and_forgets_the_revolution() -> None:
    state = run("torasobi", ["4D 4C 4H 4S", "5D 9C", "6H KC"], [
        play(0, "4D 4C 4H 4S", turn=1, revolution=True, places={0: 1}),
        pass_(1, turn=2),
        pass_(2, turn=1, field=[]),
        play(1, "9C", turn=2),
        play(2, "6H", turn=1),
        play(1, "5D", game_over=True, revolution=True, field="5D", hands={2: "KC"}),
    ], leader=0, final={"places": {0: 1, 1: 2, 2: 3}})  # fmt: skip
    assert state.phase == "game_over"
    assert legal_actions(state) == []
    assert refusal(state, Play(2, parse_mask(["KC"]))) == "game_over"
    state, dealt = deal(state, deck(12))
    assert state.hands == dealt[0].hands  # type: ignore[union-attr]
    assert state.field is None and state.out == 0
    assert state.game_number == 2
    assert state.revolution is False
    assert state.previous_places == (1, 2, 3)
    assert state.waiting_for == "exchange"
    assert state.turn == 2  # the 大貧民 gives first, and leads after the exchange
    state, _ = play_out_exchange(state)
    assert state.waiting_for == "play"
    assert state.turn == 2


def play_out_exchange(state: MatchState) -> tuple[MatchState, list[ev.Event]]:
    events: list[ev.Event] = []
    while state.waiting_for == "exchange":
        state, new = apply(state, legal_actions(state)[0])
        events += new
    return state, events


def test_the_match_ends_after_games_per_set_games() -> None:
    state = new_match("federation", 3, games_per_set=2)
    state, _ = deal(state, deck(13))
    assert state.game_number == 1
    state, _ = play_out(state)
    assert state.phase == "game_over"
    assert refusal(state, Play(0, parse_mask(["3D"]))) == "game_over"
    state, _ = deal(state, deck(14))
    assert state.game_number == 2
    assert state.previous_places == state.results[0]
    state, _ = play_out(state)
    assert state.phase == "match_over"
    assert len(state.results) == 2
    assert all(sorted(places) == [1, 2, 3] for places in state.results)
    assert refusal(state, Deal(deck(15))) == "game_over"
    assert refusal(state, Pass(0)) == "game_over"


def test_deal_refusals() -> None:
    state = new_match("torasobi", 3)
    assert refusal(state, Deal(deck(16)[1:])) == "bad_request"
    assert refusal(state, Deal((*deck(16)[1:], 0))) == "bad_request"
    state, _ = deal(state, deck(16))
    assert refusal(state, Deal(deck(17))) == "wrong_action"


# -- reject-code precedence ------------------------------------------------------------------


def test_bad_request_before_game_over_before_not_your_turn() -> None:
    run("torasobi", ["4D", "5D 9C"], [
        play(0, "4D", game_over=True),
        play(1, "XX", reject="bad_request"),
        play(1, "5D", reject="game_over"),
        play(0, "5D", reject="game_over"),
        pass_(0, reject="game_over"),
    ], leader=0)  # fmt: skip


def test_not_your_turn_before_wrong_action() -> None:
    run("torasobi", ["KC 4D 9H", "AH 5D 6D", "2C AD 3S"], [
        play(1, "AH", reject="not_your_turn"),
        give(1, "AH", reject="not_your_turn"),
    ], previous_places=[2, 1, 3])  # fmt: skip


def test_wrong_action_before_card_not_in_hand() -> None:
    run("torasobi", ["7D 4D 9H", "AH 5D 6D", "2C AD 3S"], [
        play(0, "7D", turn=0, waiting_for="seven_pass"),
        play(0, "2S", reject="wrong_action"),
        give(0, "2S 2H", reject="wrong_action"),
        give(0, "2S", reject="card_not_in_hand"),
    ], {"seven_pass": True}, leader=0)  # fmt: skip


def test_card_not_in_hand_before_must_include_d3_and_invalid_meld() -> None:
    run("classic", ["3D 4S 9H", "AH 5D 6D", "2C AD 3S"], [
        play(0, "4S 9C", reject="card_not_in_hand"),
        play(0, "5S", reject="card_not_in_hand"),
    ])  # fmt: skip


def test_cannot_pass_before_must_include_d3() -> None:
    run("classic", ["3D 4S 9H", "AH 5D 6D", "2C AD 3S"], [
        pass_(0, reject="cannot_pass"),
    ])  # fmt: skip


def test_must_include_d3_before_invalid_meld() -> None:
    run("classic", ["3D 4S 9H", "AH 5D 6D", "2C AD 3S"], [
        play(0, "4S 9H", reject="must_include_d3"),
        play(0, "3D 9H", reject="invalid_meld"),
    ])  # fmt: skip


def test_invalid_meld_before_shape_mismatch() -> None:
    run("federation", ["4D 9C", "5S 9H 6H 6C", "KD"], [
        play(0, "4D", turn=1),
        play(1, "5S 9H", reject="invalid_meld"),
        play(1, "6H 6C", reject="shape_mismatch"),
    ], leader=0)  # fmt: skip


def test_shape_mismatch_before_suit_locked() -> None:
    run("federation", ["4D 9D 9C", "6D KH", "QS QC 5S"], [
        play(0, "4D", turn=1),
        play(1, "6D", turn=2, suit_lock="D"),
        play(2, "QS QC", reject="shape_mismatch"),
        play(2, "5S", reject="suit_locked"),
    ], leader=0)  # fmt: skip


def test_suit_locked_before_number_locked_before_not_stronger() -> None:
    run("torasobi", ["5D KC", "6D 3H", "9H 4D 8D 7D"], [
        play(0, "5D", turn=1),
        play(1, "6D", turn=2, suit_lock="D", number_lock=True),
        play(2, "9H", reject="suit_locked"),
        play(2, "4D", reject="number_locked"),
        play(2, "8D", reject="number_locked"),
        play(2, "7D", turn=0),
    ], leader=0)  # fmt: skip


def test_shape_mismatch_before_not_stronger() -> None:
    run("federation", ["KD 9C", "4S 4H", "2S"], [
        play(0, "KD", turn=1),
        play(1, "4S 4H", reject="shape_mismatch"),
    ], leader=0)  # fmt: skip


def test_anything_on_a_single_joker_is_not_stronger() -> None:
    run("federation", ["JK 9C", "4S 4H 5D 6D 7D", "2S"], [
        play(0, "JK", turn=1),
        play(1, "4S 4H", reject="not_stronger"),
        play(1, "5D 6D 7D", reject="not_stronger"),
    ], leader=0)  # fmt: skip


def test_a_set_is_five_games_by_default() -> None:
    state = new_match("federation", 3)
    for game_number in range(1, 6):
        assert state.phase in ("before_deal", "game_over")
        state, _ = deal(state, deck(20 + game_number))
        assert state.game_number == game_number
        state, _ = play_out(state)
    assert state.phase == "match_over"
    assert len(state.results) == 5


def test_deciding_never_changes_the_state() -> None:
    """docs/SCENARIOS.md: a refused step leaves the whole state as it was (and deciding
    an accepted one only describes it)."""
    state = run("torasobi", ["7D 4C 9H", "AH 5D 6D", "2C AD 3S"], [
        play(0, "7D", waiting_for="seven_pass"),
    ], {"seven_pass": True}, leader=0)  # fmt: skip
    before = state.copy()
    commands: list[Command] = [
        Play(0, parse_mask(["9H"])),
        Pass(0),
        Pass(1),
        Give(0, parse_mask(["4C"])),
        Give(0, parse_mask(["2S"])),
        Deal(deck(30)),
    ]
    for command in commands:
        decide(state, command)
        assert state == before


def test_two_players_unused_cards_are_seen_by_nobody_until_the_set_ends() -> None:
    state, events = deal(new_match("torasobi", 2, games_per_set=1), deck(31))
    dealt = next(e for e in events if isinstance(e, ev.GameDealt))
    for viewer in (SPECTATOR, Viewer.of_seat(0), Viewer.of_seat(1)):
        assert build_view(state, viewer).unused is None
        assert visible_record(dealt, viewer, revealed=False)["unused"] is None
        assert build_view(state, viewer).hands is None
    state, _ = play_out(state)
    assert len(build_view(state, SPECTATOR).unused or ()) == 14


def test_classic_dealt_first_game_must_open_with_the_d3() -> None:
    order = deck(32)
    state, _ = deal(new_match("classic", 3), order)
    seat = state.turn
    assert seat is not None
    d3 = parse_mask(["3D"])
    assert state.hands[seat] & d3
    other = next(card for card in _cards(state.hands[seat]) if card != parse_card("3D"))
    assert refusal(state, Play(seat, parse_mask([format_card(other)]))) == "must_include_d3"
    state, _ = apply(state, Play(seat, d3))
    assert state.turn == (seat + 1) % 3
