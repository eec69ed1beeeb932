"""Property 5: a refused command leaves the state as it was, and its code is
one of the refusal codes of docs/RULES.md §7.

At every state of a random match one malformed or illegal command is tried:
a wrong seat, a seat that does not exist, cards that are no cards, cards not
held, random card sets with random joker readings, a pass by the leader,
gives, discards, bombs and deals at the wrong time, wrong counts. Where
docs/RULES.md §7's precedence fixes the code, the code is checked too. (A random
command may also be accepted: then it must change nothing either, until
folded.) Masks that name a joker by bit 53 alone are tested at the end."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from service.rules import (
    REASON_CODES,
    Bomb,
    Deal,
    Discard,
    Give,
    Pass,
    Pick,
    Play,
    Refusal,
    RuleSet,
    SetUp,
    decide,
    fold,
    initial_state,
    rule_set,
)
from service.rules.cards import (
    JOKER_BIT,
    JOKER_BITS,
    REAL_CARDS,
    cards_of,
    joker_count,
    mask_of,
    parse_cards,
    remove_cards,
)
from service.rules.commands import Command
from service.rules.dealing import deck_for
from service.rules.judging import must_pass_at_leisure, pickable
from service.rules.legal import legal_actions
from service.rules.state import MatchState
from service.rules.vocabulary import Phase, WaitingFor

from ._support import (
    NO_SHRINK,
    Step,
    card_count,
    decide_accepted,
    examples,
    play_match,
    play_set_up_game,
    players_counts,
    rule_sets,
    small_set_ups,
    whole_deck,
)

Probe = tuple[Command, str | None]
ANY = None  # any reject code will do (or acceptance, for the random probes)

NOT_CARDS = st.sampled_from([0, -1, 1 << 54, (1 << 60) | 1])
BAD_SEATS = st.sampled_from([-1, 5, 9])
# 56..63 are readings past the 3 or the 2 (uecda stairs): only 53..55 and 64 are none
BAD_READINGS = st.sampled_from([(53,), (-1,), (64, 1), (55,)])
BAD_RANKS = st.sampled_from([(), (0, 0), (13,), (-1,)])
READINGS = st.lists(st.integers(0, 52), max_size=2).map(tuple)
RANK_LISTS = st.lists(st.integers(0, 12), min_size=1, max_size=4, unique=True)


def card_sets(pool: int, min_size: int = 1, max_size: int = 5) -> st.SearchStrategy[int]:
    """Masks of cards drawn from ``pool`` (jokers by count)."""
    cards = list(cards_of(pool))
    if len(cards) < min_size:
        return st.nothing()
    return st.lists(
        st.sampled_from(range(len(cards))),
        min_size=min_size,
        max_size=min(max_size, len(cards)),
        unique=True,
    ).map(lambda picks: mask_of(cards[i] for i in picks))


def any_card(state: MatchState) -> int:
    hand = state.hands[state.turn] if state.turn is not None else 0
    return hand & -hand if hand else 1


def wrong_kinds(seat: int, waiting: str | None, cards: int) -> list[Command]:
    """Well-formed commands of a kind the game does not wait for."""
    accepted: dict[str | None, tuple[type, ...]] = {
        WaitingFor.PLAY: (Play, Pass),
        WaitingFor.FOUR_STOP: (Play, Pass),
        WaitingFor.EXCHANGE: (Give,),
        WaitingFor.SEVEN_PASS: (Give,),
        WaitingFor.TEN_DISCARD: (Discard,),
        WaitingFor.QUEEN_BOMBER: (Bomb,),
        WaitingFor.EIGHT_CUT_RETURN: (Play, Pass),
        WaitingFor.SALVAGE: (Pick,),
        WaitingFor.KINGS_MARCH: (Pick,),
        WaitingFor.ZOMBIE: (Pick,),
        WaitingFor.KING_PASTOR: (Give,),
    }
    every: list[Command] = [
        Play(seat, cards),
        Pass(seat),
        Give(seat, cards),
        Discard(seat, cards),
        Bomb(seat, (0,)),
        Pick(seat, 0),
    ]
    return [c for c in every if not isinstance(c, accepted.get(waiting, ()))]


ProbeMaker = Callable[[], st.SearchStrategy[Probe]]


def probes(state: MatchState) -> list[ProbeMaker]:
    """Commands worth trying at ``state``, each with the code it must get.
    Each is a thunk: only the one drawn is built (building them all for every
    state costs more than running them)."""
    rules, players = state.rules, state.players
    cards = whole_deck(rules)
    deck = deck_for(rules)
    options: list[ProbeMaker] = [
        # a seat that does not exist, cards that are not cards, bad joker
        # readings and bomb ranks: bad_request comes before everything
        lambda: BAD_SEATS.map(lambda s: (Pass(s), "bad_request")),
        lambda: NOT_CARDS.map(lambda c: (Play(0, c), "bad_request")),
        lambda: NOT_CARDS.map(lambda c: (Give(players - 1, c), "bad_request")),
        lambda: NOT_CARDS.map(lambda c: (Discard(0, c), "bad_request")),
        lambda: BAD_READINGS.map(lambda a: (Play(0, 1, a), "bad_request")),
        lambda: BAD_RANKS.map(lambda r: (Bomb(0, r), "bad_request")),
    ]
    if state.phase != Phase.BEFORE_DEAL:
        # a position may only be set up before the first deal
        set_up = SetUp(hands=(1,) + (0,) * (players - 1))
        options.append(lambda: st.just((set_up, "wrong_action")))
    if state.phase != Phase.IN_GAME:
        over = state.phase == Phase.MATCH_OVER
        seats = st.integers(0, players - 1)
        options += [
            lambda: seats.map(lambda s: (Pass(s), "game_over")),
            lambda: st.tuples(seats, card_sets(cards)).map(
                lambda sc: (Play(sc[0], sc[1]), "game_over")
            ),
            lambda: st.tuples(seats, card_sets(cards)).map(
                lambda sc: (Give(sc[0], sc[1]), "game_over")
            ),
            lambda: seats.map(lambda s: (Bomb(s, (0,)), "game_over")),
            # a deck that is not an order of the whole deck
            lambda: st.sampled_from([deck[1:], (*deck[1:], deck[2]), (*deck, 0)]).map(
                lambda d: (Deal(d), "game_over" if over else "bad_request")
            ),
        ]
        if over:
            options.append(lambda: st.just((Deal(deck), "game_over")))
        return options

    seat = state.turn
    assert seat is not None
    waiting = state.waiting_for
    hand = state.hands[seat]
    others = [s for s in range(players) if s != seat]
    options += [
        lambda: st.just((Deal(deck), "wrong_action")),
        # a legal action, or a pass, from a seat whose turn it is not
        lambda: st.tuples(st.sampled_from(legal_actions(state)), st.sampled_from(others)).map(
            lambda ao: (replace(ao[0], seat=ao[1]), "not_your_turn")
        ),
        lambda: st.sampled_from(others).map(lambda s: (Pass(s), "not_your_turn")),
        # the right seat, the wrong kind of action
        lambda: st.sampled_from(wrong_kinds(seat, waiting, any_card(state))).map(
            lambda c: (c, "wrong_action")
        ),
        # random card sets with random joker readings: refused or legal
        lambda: st.tuples(card_sets(cards, 1, 6), READINGS).map(
            lambda cj: (Play(seat, cj[0], cj[1]), ANY)
        ),
        lambda: card_sets(hand, 1, 6).map(lambda c: (Play(seat, c), ANY)),
        lambda: card_sets(hand, 1, 4).map(lambda c: (Give(seat, c), ANY)),
        lambda: card_sets(hand, 1, 4).map(lambda c: (Discard(seat, c), ANY)),
        lambda: RANK_LISTS.map(lambda r: (Bomb(seat, tuple(r)), ANY)),
    ]
    unheld = cards & ~hand & REAL_CARDS
    if waiting == WaitingFor.PLAY and must_pass_at_leisure(state):
        # the previous 大富豪's first turn (docs/RULES.md §5 #54): any play, held or not
        options.append(lambda: card_sets(cards).map(lambda c: (Play(seat, c), "wrong_action")))
    elif waiting == WaitingFor.PLAY:
        options.append(lambda: card_sets(unheld).map(lambda c: (Play(seat, c), "card_not_in_hand")))
        if state.field is None and not state.rules.leader_may_pass:
            options.append(lambda: st.just((Pass(seat), "cannot_pass")))
    if waiting in (WaitingFor.EXCHANGE, WaitingFor.SEVEN_PASS, WaitingFor.TEN_DISCARD):
        count = (
            state.exchange_steps[0][2] if waiting == WaitingFor.EXCHANGE else state.pending[0][1]
        )
        wanted = min(count, card_count(hand))
        make = Discard if waiting == WaitingFor.TEN_DISCARD else Give
        # the wrong number of cards (held or not)
        options.append(
            lambda: (
                card_sets(cards, 1, 6)
                .filter(lambda c: card_count(c) != wanted)
                .map(lambda c: (make(seat, c), "wrong_action"))
            )
        )
        # the right number, not all held
        if wanted:
            options.append(
                lambda: (
                    st.tuples(card_sets(unheld, 1, 1), card_sets(hand, wanted, wanted))
                    .map(lambda uh: remove_cards(uh[1], uh[1] & -uh[1]) | uh[0])
                    .map(lambda c: (make(seat, c), "card_not_in_hand"))
                )
            )
    if waiting in (WaitingFor.SALVAGE, WaitingFor.KINGS_MARCH, WaitingFor.ZOMBIE):
        count = state.pending[0][1]
        # more cards than the pick allows, wherever they are (docs/RULES.md §5.4)
        options.append(
            lambda: card_sets(cards, count + 1, count + 3).map(
                lambda c: (Pick(seat, c), "wrong_action")
            )
        )
        outside = cards & ~pickable(state) & REAL_CARDS
        if outside:
            options.append(
                lambda: card_sets(outside, 1, 1).map(lambda c: (Pick(seat, c), "card_not_in_hand"))
            )
    if waiting == WaitingFor.KING_PASTOR:
        options.append(lambda: card_sets(hand, 2, 4).map(lambda c: (Give(seat, c), "wrong_action")))
        if unheld:
            options.append(
                lambda: card_sets(unheld, 1, 1).map(lambda c: (Give(seat, c), "card_not_in_hand"))
            )
    if waiting == WaitingFor.QUEEN_BOMBER:
        count = state.pending[0][1]
        options.append(
            lambda: (
                st.lists(st.integers(0, 12), min_size=1, max_size=6, unique=True)
                .filter(lambda r: len(r) != count)
                .map(lambda r: (Bomb(seat, tuple(r)), "wrong_action"))
            )
        )
    return options


def draw_probe(data: st.DataObject, state: MatchState) -> Probe:
    options = probes(state)
    choice = data.draw(st.integers(0, len(options) - 1), label="probe kind")
    return data.draw(options[choice](), label="probe")


def check_probe(state: MatchState, probe: Probe) -> None:
    command, expected = probe
    snapshot = state.copy()
    decision = decide(state, command)
    assert state == snapshot, f"decide changed the state on {command}"
    if isinstance(decision, Refusal):
        assert decision.code in REASON_CODES, decision
        if expected is not None:
            assert decision.code == expected, f"{command}: expected {expected}, got {decision}"
        return
    # random commands may be accepted; test_legal_actions checks they are listed
    assert expected is None, f"{command} was accepted, expected {expected}"


@settings(max_examples=examples(70))
@given(rules=rule_sets(), players=players_counts, data=st.data())
def test_refused_commands_change_nothing(rules: RuleSet, players: int, data: st.DataObject) -> None:
    def probe_step(step: Step) -> None:
        check_probe(step.before, draw_probe(data, step.before))

    match = play_match(data, rules, players, on_step=probe_step)
    for _ in range(3):
        check_probe(match.final, draw_probe(data, match.final))


# -- masks that name a joker by bit 53 alone ----------------------------------


def with_odd_joker(cards: int) -> int:
    """``cards`` with its single joker as bit 53 instead of bit 52."""
    return (cards & ~JOKER_BITS) | JOKER_BIT << 1


@settings(max_examples=examples(40), phases=NO_SHRINK)
@given(position=small_set_ups(), data=st.data())
def test_non_canonical_joker_masks_are_refused_or_read_alike(
    position: tuple[RuleSet, int, SetUp], data: st.DataObject
) -> None:
    """A mask naming one joker by bit 53 is either a bad request or the same
    command as the canonical mask: same events, never a different game."""
    rules, players, set_up = position

    def check(state: MatchState) -> None:
        for action in legal_actions(state):
            if not isinstance(action, Play | Give | Discard) or joker_count(action.cards) != 1:
                continue
            odd = replace(action, cards=with_odd_joker(action.cards))
            decision = decide(state, odd)
            if isinstance(decision, Refusal):
                assert decision.code == "bad_request", f"{odd}: {decision}"
            else:
                assert decision == decide(state, action), f"{odd} differs from {action}"

    play_set_up_game(data, rules, players, set_up, on_state=check)


def test_a_last_joker_sent_as_bit_53_finishes() -> None:
    """The minimal case: seat 0 holds only a joker and leads it as bit 53."""
    rules = rule_set("torasobi")
    hands = tuple(mask_of(parse_cards(hand)) for hand in (["JK"], ["KS", "AS"], ["5C", "6C"]))
    state = initial_state(rules, 3)
    state = fold(state, decide_accepted(state, SetUp(hands, leader=0)))
    decision = decide(state, Play(0, JOKER_BIT << 1))
    if isinstance(decision, Refusal):
        assert decision.code == "bad_request"
        return
    after = fold(state, decision)
    assert not after.is_active(0), "seat 0 has no cards left but is still in the game"
