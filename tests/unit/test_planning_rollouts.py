"""The planning rollout policy (``policies.planning_decide``): it counts the unseen
cards and, when its hand surely goes out, plays its sure tricks first; else it
sheds as the shedding policy does."""

from __future__ import annotations

from clients.policies import goes_out, planning_decide, rollout_decide, unseen_by_rank
from service.match.shuffle import game_deal
from service.rules import rule_set
from service.rules.cards import JOKER_MASK_BY_COUNT, mask_of, parse_card, remove_cards
from service.rules.commands import Pass, Play, SeatCommand
from service.rules.decider import Folded, decide_and_fold
from service.rules.legal import legal_actions
from service.rules.melds import classify
from service.rules.state import MatchState, initial_state


def _cards(*codes: str) -> int:
    return mask_of(parse_card(code) for code in codes)


def _table(hand: int, gone: int, field: str | None = None) -> MatchState:
    """A uecda game (one joker, no forbidden finish) whose seat to act holds
    ``hand``, with ``gone`` in the pile and ``field`` led by the next seat."""
    rules = rule_set("uecda").with_options({"games_per_set": 1})
    folded = decide_and_fold(initial_state(rules, 5), game_deal(rules, 5, b"planning", 1))
    assert isinstance(folded, Folded)
    state = folded.state.copy()
    seat = state.turn
    assert seat is not None
    rest = remove_cards(remove_cards(_cards(*ALL) | JOKER_MASK_BY_COUNT[1], hand), gone)
    others = [s for s in range(5) if s != seat]
    hands = [0] * 5
    hands[seat] = hand
    for index, card in enumerate(c for c in range(53) if rest >> c & 1):
        hands[others[index % 4]] |= 1 << card
    state.hands = tuple(hands)
    state.pile = gone
    if field is not None:
        played = _cards(field)
        meld = classify(played, (), reversed_order=False)
        assert meld is not None
        state.field, state.trick, state.field_seat = meld, played, others[0]
        state.last_play, state.last_seat = meld, others[0]
        state.hands = tuple(h & ~played for h in state.hands)
    return state


def _played(action: SeatCommand) -> int | None:
    return action.cards if isinstance(action, Play) else None


ALL = tuple(rank + suit for rank in "3456789TJQKA2" for suit in "DCHS")
OTHER_TWOS = _cards("2D", "2C", "2H")
JOKER_GONE = JOKER_MASK_BY_COUNT[1]


def test_unseen_cards_are_counted_by_rank() -> None:
    state = _table(_cards("2S", "4D"), OTHER_TWOS | JOKER_GONE)
    counts, jokers = unseen_by_rank(state, _cards("2S", "4D"))
    assert counts[12] == 0 and counts[1] == 3 and counts[0] == 4 and jokers == 0


def test_a_hand_goes_out_when_all_but_one_group_surely_win() -> None:
    counts = [4] * 13
    counts[12] = counts[11] = 0  # no 2 nor ace unseen
    hand = _cards("KS", "KH", "4D")
    assert goes_out(hand, counts, 0, False, False, 0)
    assert goes_out(hand, counts, 1, False, False, 0)  # one joker pairs with no A nor 2
    assert not goes_out(hand, counts, 2, False, False, 0)  # two may beat the kings
    assert not goes_out(_cards("QS", "KH", "4D"), counts, 0, False, False, 0)  # a K beats the Q
    assert not goes_out(hand, counts, 0, False, False, _cards("4D"))  # no finish on the 4


def test_a_lead_plays_the_sure_trick_first_when_it_then_goes_out() -> None:
    hand = _cards("AS", "4D")
    state = _table(hand, OTHER_TWOS | _cards("2S") | JOKER_GONE)
    legal = legal_actions(state)
    assert _played(planning_decide(state, hand, legal)) == _cards("AS")
    assert _played(rollout_decide(state, hand, legal)) == _cards("4D")  # the weakest first
    # a 2 still out: the ace is no sure trick, so the weakest goes first
    state = _table(hand, OTHER_TWOS | JOKER_GONE)
    assert _played(planning_decide(state, hand, legal_actions(state))) == _cards("4D")


def test_a_follow_spends_a_two_that_leaves_a_hand_that_goes_out() -> None:
    hand = _cards("2S", "AS", "AH", "KS", "KH", "KD", "4D", "4C")
    state = _table(hand, OTHER_TWOS | JOKER_GONE, field="5D")
    legal = legal_actions(state)
    assert isinstance(rollout_decide(state, hand, legal), Pass)  # it holds its 2 back
    assert _played(planning_decide(state, hand, legal)) == _cards("2S")
    # with the joker unseen, the kings and aces may be beaten: the 2 is held back
    state = _table(hand, OTHER_TWOS, field="5D")
    assert isinstance(planning_decide(state, hand, legal_actions(state)), Pass)
