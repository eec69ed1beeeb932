"""``decide(state, command) -> events | Refusal``: the rules of a whole match.

Pure: no I/O, clock or randomness (the deck order comes in ``Deal``). Every
event it decides is applied to a scratch copy of the state straight away, so
each later step of one action reads the state exactly as ``evolve`` will
rebuild it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, Never, NoReturn

from . import events as ev
from .cards import (
    JOKER,
    RANK_J,
    RANK_K,
    RANK_Q,
    REAL_CARDS,
    add_cards,
    contains,
    is_canonical,
    is_past_ends,
    joker_count,
    mask_of,
    rank_mask,
    remove_cards,
)
from .commands import Bomb, Command, Deal, Discard, Give, Pass, Pick, Play, SeatCommand, SetUp
from .dealing import (
    are_strongest,
    deal,
    deck_for,
    exchange_pairs,
    exchange_steps,
    first_leader,
    is_deck_order,
    is_seat_order,
    round_from,
    seat_at,
    strongest_cards,
    tenpenchi_swaps,
)
from .evolve import apply
from .judging import (
    KINGS_MARCH_RANK,
    REVERSE_RULES,
    SALVAGE_RANK,
    SKIP_RULES,
    ZOMBIE_RANK,
    ZOMBIE_SIZE,
    any_lock,
    check_beats_field,
    ends_eleven_back,
    flush_reason,
    four_stop_applies,
    holds_only_forbidden,
    is_eight_cut_answer,
    is_forbidden_finish,
    is_four_stop_answer,
    is_lucky_seven,
    kyo_ochi_falls,
    must_pass_at_leisure,
    pickable,
    reverses_of,
    revolution_cause,
    rule_on,
    seven_pass_count,
    skips_of,
    starts_eleven_back,
    starts_number_lock,
    starts_suit_lock,
    starts_two_back,
    ten_discard_count,
)
from .melds import Kind, Meld, classify
from .readings import COLORS, group_of, lock_starting
from .refusals import Refusal, Refused
from .rulesets import CANCELLED_BY_OMEN
from .state import MatchState, bottom_block
from .vocabulary import (
    EIGHT_CUT_RETURN,
    EXCHANGE,
    FOUR_STOP,
    IN_GAME,
    KING_PASTOR,
    KINGS_MARCH,
    PICKS,
    PLAY,
    QUEEN_BOMBER,
    SALVAGE,
    SEVEN_PASS,
    TEN_DISCARD,
    ZOMBIE,
    Bottom,
    DiscardReason,
    ElevenBack,
    EndCause,
    FallCause,
    FinishCause,
    FlushReason,
    GiveReason,
    LocalRule,
    Phase,
    RefusalCode,
    RevolutionCause,
    SkipCause,
    WaitingFor,
)

Decision = list[ev.Event] | Refusal
# the rules each group of effects needs, to pass it by cheaply when all are off
_PICK_STEP_RULES: Final = frozenset(
    (LocalRule.KINGS_MARCH, LocalRule.ZOMBIE, LocalRule.KING_PASTOR)
)
_STRENGTH_RULES: Final = frozenset((LocalRule.ELEVEN_BACK, LocalRule.TWO_BACK))
# the steps that put cards in the discard pile
_PILE_STEPS: Final = frozenset((TEN_DISCARD, QUEEN_BOMBER))


class _Work:
    """A scratch copy of the state that records every event applied to it."""

    __slots__ = ("events", "state")

    def __init__(self, state: MatchState) -> None:
        self.state = state.copy()
        self.events: list[ev.Event] = []

    def emit(self, event: ev.Event) -> None:
        self.events.append(event)
        apply(self.state, event)


def decide(state: MatchState, command: Command) -> Decision:
    """The events ``command`` causes, or the Refusal of the first rule it breaks."""
    decided = _decided(state, command)
    return decided if isinstance(decided, Refusal) else decided.events


def decide_and_fold(state: MatchState, command: Command) -> Folded | Refusal:
    """``decide``, with the state after its events: the decider applies each event
    as it emits it, so this is ``fold(state, events)`` without folding them again."""
    decided = _decided(state, command)
    if isinstance(decided, Refusal):
        return decided
    return Folded(decided.events, decided.state)


@dataclass(frozen=True, slots=True, init=False)
class Folded:
    """What ``command`` caused, and the state after it (``fold(before, events)``)."""

    events: list[ev.Event]
    state: MatchState

    # written out, so that mypyc compiles it (README.md, Speed)
    def __init__(self, events: list[ev.Event], state: MatchState) -> None:
        object.__setattr__(self, "events", events)
        object.__setattr__(self, "state", state)


def _decided(state: MatchState, command: Command) -> _Work | Refusal:
    # isinstance, not ``match``: mypyc compiles a class pattern to a generic
    # isinstance call, and an isinstance of a compiled class to one type compare
    try:
        if isinstance(command, (Play, Pass, Give, Discard, Bomb, Pick)):
            return _seat_command(state, command)
        elif isinstance(command, Deal):
            return _deal(state, command)
        elif isinstance(command, SetUp):
            return _set_up(state, command)
        else:
            _no_command(command)
    except Refused as refused:
        return refused.refusal


def _seat_command(state: MatchState, command: SeatCommand) -> _Work:
    """Check what every seat's command must be, then decide it by what the game waits for."""
    seat = command.seat
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players:
        raise Refused(
            RefusalCode.BAD_REQUEST, f"no seat {seat!r} in a {state.players}-player match"
        )
    if isinstance(command, Pass):
        pass
    elif isinstance(command, (Play, Give, Discard)):
        cards = command.cards
        if not isinstance(cards, int) or cards <= 0 or not is_canonical(cards):
            raise Refused(RefusalCode.BAD_REQUEST, "the cards are missing or not cards")
        if isinstance(command, Play) and any(
            not isinstance(card, int) or not (0 <= card <= JOKER or is_past_ends(card))
            for card in command.jokers_as
        ):
            raise Refused(RefusalCode.BAD_REQUEST, "a joker reading is not a card")
    elif isinstance(command, Pick):
        cards = command.cards
        if not _is_int(cards) or cards < 0 or not is_canonical(cards):
            raise Refused(RefusalCode.BAD_REQUEST, "the cards are not cards")
    elif isinstance(command, Bomb):
        ranks = command.ranks
        if (
            not ranks
            or len(set(ranks)) != len(ranks)
            or any(not isinstance(rank, int) or not 0 <= rank < 13 for rank in ranks)
        ):
            raise Refused(RefusalCode.BAD_REQUEST, "name each rank once")
    else:
        _no_command(command)
    if state.phase is not IN_GAME:
        raise Refused(RefusalCode.GAME_OVER, "no game is in progress")
    if seat != state.turn:
        raise Refused(RefusalCode.NOT_YOUR_TURN, f"it is seat {state.turn}'s turn")
    waiting = state.waiting_for
    # isinstance, not ``match``: mypyc compiles a class pattern to a generic
    # isinstance call, and an isinstance of a compiled class to one type compare
    if isinstance(command, Play):
        if waiting is PLAY:
            if state.leisure_seat is not None and must_pass_at_leisure(state):
                raise Refused(
                    RefusalCode.WRONG_ACTION, "the previous 大富豪 passes on their first turn"
                )
            return _play(state, command)
        if waiting is FOUR_STOP or waiting is EIGHT_CUT_RETURN:
            return _answer_four_stop(state, command)
    elif isinstance(command, Pass):
        if waiting is PLAY:
            return _pass(state, command)
        if waiting is FOUR_STOP or waiting is EIGHT_CUT_RETURN:
            return _decline_four_stop(state, command)
    elif isinstance(command, Give):
        if waiting is EXCHANGE or waiting is SEVEN_PASS:
            return _give(state, command)
        if waiting is KING_PASTOR:
            return _choose_for_pastor(state, command)
    elif isinstance(command, Discard):
        if waiting is TEN_DISCARD:
            return _ten_discard(state, command)
    elif isinstance(command, Bomb):
        if waiting is QUEEN_BOMBER:
            return _bomb(state, command)
    elif isinstance(command, Pick):
        if waiting in PICKS:
            return _pick(state, command)
    else:
        _no_command(command)
    raise Refused(RefusalCode.WRONG_ACTION, f"the game waits for {waiting}")


def _no_command(command: Never) -> NoReturn:
    """Where a dispatch on commands ends: mypy rejects a command left without a
    branch (as ``assert_never``), and anything else that reaches it is refused."""
    raise Refused(RefusalCode.BAD_REQUEST, f"{type(command).__name__} is not a command")


# -- passing -------------------------------------------------------------------


def _pass(state: MatchState, command: Pass) -> _Work:
    seat, rules = command.seat, state.rules
    leading = state.field is None
    if leading and not rules.leader_may_pass:
        raise Refused(RefusalCode.CANNOT_PASS, "the leader must play")
    work = _Work(state)
    work.emit(ev.Passed(seat, command.reason))
    if rules.stalemate_passes and work.state.pass_run >= rules.stalemate_passes:
        _stalemate(work)
    elif leading:
        _pass_lead(work, seat)
    else:
        _advance(work, seat, 0)
    return work


def _pass_lead(work: _Work, seat: int) -> None:
    """The leader passed (docs/RULES.md §6): the next seat that has not passed leads;
    once every one has passed, the passes clear and the first to pass leads again.
    Passes on an empty field came round in turn order, so the first is the
    next seat after the last."""
    state = work.state
    following = _next_unpassed(state, seat)
    if following is not None:
        work.emit(ev.TurnMoved(following))
        return
    first = state.next_active(seat)
    leader = seat if first is None else first
    work.emit(ev.FieldFlushed(FlushReason.ALL_PASSED, leader))
    _give_lead(work, leader)


def _next_unpassed(state: MatchState, seat: int) -> int | None:
    """The next seat after ``seat`` (itself last) in the game that has not passed."""
    step = state.turn_direction
    for offset in range(1, state.players + 1):
        candidate = state.seat_after(seat, step * offset)
        if state.active >> candidate & 1 and not state.passed >> candidate & 1:
            return candidate
    return None


def _stalemate(work: _Work) -> None:
    """After so many passes in a row the players still in are ranked in the
    order the dealer drew (docs/RULES.md §6), and the game ends."""
    state = work.state
    for seat in state.stalemate or range(state.players):
        if work.state.is_active(seat):
            place = len(work.state.finished) + 1
            work.emit(
                ev.PlayerFinished(
                    seat, place, cause=FinishCause.STALEMATE, leftover=work.state.hands[seat]
                )
            )
    _end_game(work)


# -- checks shared by every seat's command -----------------------------------


def _check_count(state: MatchState, seat: int, cards: int, count: int) -> None:
    wanted = min(count, _size(state.hands[seat]))
    if _size(cards) != wanted:
        raise Refused(RefusalCode.WRONG_ACTION, f"give or discard exactly {wanted} cards")
    if not contains(state.hands[seat], cards):
        raise Refused(RefusalCode.CARD_NOT_IN_HAND, "those cards are not in your hand")


def _size(mask: int) -> int:
    return mask.bit_count()


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- dealing -------------------------------------------------------------------


def _deal(state: MatchState, command: Deal) -> _Work:
    if state.phase is Phase.MATCH_OVER:
        raise Refused(RefusalCode.GAME_OVER, "the match is over")
    if state.phase is Phase.IN_GAME:
        raise Refused(RefusalCode.WRONG_ACTION, "a game is in progress")
    if not is_deck_order(state.rules, tuple(command.deck)):
        raise Refused(RefusalCode.BAD_REQUEST, "the deck is not an order of the whole deck")
    rules, players = state.rules, state.players
    number = state.game_number + 1
    previous = state.results[-1] if state.results else None
    if rules.rank_reset_every and (number - 1) % rules.rank_reset_every == 0:
        previous = None  # ranks reset: the game starts like game 1
    seating = state.seating
    if rules.seat_change_every and (number - 1) % rules.seat_change_every == 0:
        seating = _drawn_order(command.seating, players, what="seating")
    stalemate: tuple[int, ...] = ()
    if rules.stalemate_passes:
        stalemate = _drawn_order(command.stalemate, players, what="stalemate")
    start = 0
    if rules.deal_from_daifugo:
        first = seat_at(previous, 1) if previous is not None else None
        start = command.deal_start if first is None else first
        if not isinstance(start, int) or not 0 <= start < players:
            raise Refused(RefusalCode.BAD_REQUEST, "the deal starts at no seat of the match")
    round_order = round_from(seating, players, start) if seating or start else ()
    hands, blind, unused = deal(rules, players, tuple(command.deck), state.blind, round_order)
    if previous is None or rules.d3_leads_every_game:
        leader = first_leader(hands)
    else:
        leader = seat_at(previous, players) or 0
    work = _Work(state)
    dealt = ev.GameDealt(number, hands, leader, blind, unused, previous_places=previous)
    work.emit(replace(dealt, seating=seating, deal_start=start, stalemate=stalemate))
    _start_game(work, skip_exchange=False)
    return work


def _drawn_order(order: tuple[int, ...], players: int, *, what: str) -> tuple[int, ...]:
    """A seat order the dealer drew (seat order when it drew none)."""
    if not order:
        return tuple(range(players))
    order = tuple(order)
    if not is_seat_order(order, players):
        raise Refused(RefusalCode.BAD_REQUEST, f"the {what} is not an order of the seats")
    return order


def _set_up(state: MatchState, command: SetUp) -> _Work:
    if state.phase is not Phase.BEFORE_DEAL:
        raise Refused(
            RefusalCode.WRONG_ACTION, "a position can only be set up before the first deal"
        )
    players = state.players
    hands = tuple(command.hands)
    everything = 0
    for hand in hands:
        if not isinstance(hand, int) or not is_canonical(hand) or hand & everything & REAL_CARDS:
            raise Refused(RefusalCode.BAD_REQUEST, "the hands overlap or hold unknown cards")
        if joker_count(everything) + joker_count(hand) > 2:
            raise Refused(RefusalCode.BAD_REQUEST, "the hands hold more than two jokers")
        if not hand:
            raise Refused(RefusalCode.BAD_REQUEST, "every seat must hold a card at the start")
        everything = add_cards(everything, hand)
    previous = command.previous_places
    if len(hands) != players:
        raise Refused(RefusalCode.BAD_REQUEST, f"a {players}-player position needs {players} hands")
    if not _is_int(command.game_number) or command.game_number < 1:
        raise Refused(RefusalCode.BAD_REQUEST, "the game number is a whole number from 1")
    if previous is not None and (
        not all(_is_int(place) for place in previous)
        or sorted(previous) != list(range(1, players + 1))
    ):
        raise Refused(RefusalCode.BAD_REQUEST, "previous places must be 1..n, one per seat")
    if command.game_number > 1 and previous is None:
        raise Refused(RefusalCode.BAD_REQUEST, "a later game needs the previous places")
    leader = command.leader
    if leader is not None and not _is_int(leader):
        raise Refused(RefusalCode.BAD_REQUEST, "no such leader")
    if leader is None:
        if previous is None or state.rules.d3_leads_every_game:
            leader = first_leader(hands)
        else:
            leader = seat_at(previous, players)
    if leader is None or not 0 <= leader < players:
        raise Refused(RefusalCode.BAD_REQUEST, "no such leader")
    whole_deck = mask_of(deck_for(state.rules))
    if not contains(whole_deck, everything):
        raise Refused(RefusalCode.BAD_REQUEST, "the hands hold more jokers than the deck")
    unused = remove_cards(whole_deck, everything)
    work = _Work(state)
    work.emit(
        ev.GameDealt(
            command.game_number,
            hands,
            leader,
            unused=unused,
            revolution=command.revolution,
            previous_places=previous,
            arranged=True,
        )
    )
    _start_game(work, skip_exchange=command.skip_exchange)
    return work


def _start_game(work: _Work, *, skip_exchange: bool) -> None:
    state = work.state
    previous = state.previous_places
    if previous is not None and not skip_exchange:
        if rule_on(state, LocalRule.TENPENCHI):
            for lower, upper in tenpenchi_swaps(state.hands, previous):
                hands = work.state.hands
                work.emit(ev.HandsSwapped((lower, upper), (hands[upper], hands[lower])))
        if not state.rules.card_exchange:
            steps: tuple[tuple[int, int, int, bool], ...] = ()
        elif state.rules.exchange_takes_strongest:
            steps = _take_strongest(work, previous)
        else:
            steps = exchange_steps(previous, work.state.hands)
        if steps:
            work.emit(ev.ExchangeStarted(steps))
            return
    _give_lead(work, state.leader)


def _take_strongest(
    work: _Work, previous: tuple[int, ...]
) -> tuple[tuple[int, int, int, bool], ...]:
    """The automatic exchange (docs/RULES.md §6): each lower player's strongest cards
    are taken to the upper player at once; the upper players' gives remain."""
    gives = []
    for lower, upper, count in exchange_pairs(previous):
        state = work.state
        taken = strongest_cards(state.hands[lower], count, state.reversed_order)
        if taken:
            work.emit(ev.CardsGiven(lower, upper, taken, GiveReason.TAKEN))
            gives.append((upper, lower, taken.bit_count(), False))
    return tuple(gives)


def _lead_after_exchange(work: _Work) -> None:
    state = work.state
    if state.rules.d3_leads_every_game:
        _give_lead(work, first_leader(state.hands))
    else:
        _give_lead(work, state.leader)


# -- card exchange, seven-pass, ten-discard, queen bomber ----------------------


def _give(state: MatchState, command: Give) -> _Work:
    seat, cards = command.seat, command.cards
    if state.exchange_steps:
        _, receiver, count, strongest = state.exchange_steps[0]
        _check_count(state, seat, cards, count)
        if strongest and not are_strongest(state.hands[seat], cards, state.reversed_order):
            raise Refused(RefusalCode.WRONG_ACTION, "give your strongest cards")
        work = _Work(state)
        work.emit(ev.CardsGiven(seat, receiver, cards, GiveReason.EXCHANGE))
        if work.state.exchange_steps:
            work.emit(ev.TurnMoved(work.state.exchange_steps[0][0]))
        else:
            _lead_after_exchange(work)
        return work
    _check_count(state, seat, cards, state.pending[0][1])
    next_seat = state.next_active(seat)
    work = _Work(state)
    work.emit(
        ev.CardsGiven(seat, seat if next_seat is None else next_seat, cards, GiveReason.SEVEN_PASS)
    )
    _after_step(work, seat)
    return work


def _ten_discard(state: MatchState, command: Discard) -> _Work:
    _check_count(state, command.seat, command.cards, state.pending[0][1])
    work = _Work(state)
    work.emit(ev.CardsDiscarded(command.seat, command.cards, DiscardReason.TEN_DISCARD))
    _after_step(work, command.seat)
    return work


def _bomb(state: MatchState, command: Bomb) -> _Work:
    seat, ranks = command.seat, tuple(command.ranks)
    count = state.pending[0][1]
    if len(ranks) != count:
        raise Refused(RefusalCode.WRONG_ACTION, f"name exactly {count} ranks")
    bombed = 0
    for rank in ranks:
        bombed |= rank_mask(rank)
    work = _Work(state)
    work.emit(ev.RanksBombed(seat, ranks))
    order = _seats_from(state, seat)
    for target in order:
        hit = work.state.hands[target] & bombed
        if hit and work.state.is_active(target):
            work.emit(ev.CardsDiscarded(target, hit, DiscardReason.QUEEN_BOMBER))
    for target in order:
        if work.state.is_active(target) and not work.state.hands[target]:
            if _finish(work, target, cause=FinishCause.EMPTIED):
                return work
    _after_step(work, seat, emptied=False)
    return work


def _seats_from(state: MatchState, seat: int) -> list[int]:
    step = state.turn_direction
    return [state.seat_after(seat, step * offset) for offset in range(state.players)]


def _after_step(work: _Work, seat: int, *, emptied: bool = True) -> None:
    """After a give, discard or bomb: finish an emptied hand, then go on."""
    state = work.state
    if emptied and state.is_active(seat) and not state.hands[seat]:
        if _finish(work, seat, cause=FinishCause.EMPTIED):
            return
    _lapse_picks(work)
    if work.state.pending:
        return
    _end_turn(work, seat)


def _lapse_picks(work: _Work) -> None:
    """A pick step whose turn has come while the discard pile holds no card it may
    take does not happen (docs/RULES.md §5.1 Pick, §5.6 #21): the steps before it
    may have taken the last one, or discarded only marked cards."""
    while True:
        pending = work.state.pending
        if not pending or pending[0][0] not in PICKS or pickable(work.state):
            return
        step, _, seat = pending[0]
        work.emit(ev.PickLapsed(seat, step))


# -- four-stop -----------------------------------------------------------------


def _decline_four_stop(state: MatchState, command: Pass) -> _Work:
    work = _Work(state)
    work.emit(ev.Passed(command.seat, command.reason))
    if work.state.four_stop:
        work.emit(ev.TurnMoved(work.state.four_stop[0]))
    else:
        _flush(work, FlushReason.EIGHT_CUT)
    return work


def _answer_four_stop(state: MatchState, command: Play) -> _Work:
    """An answer in a four-stop or eight-cut-return window (docs/RULES.md §3 #15, §5 #34)."""
    seat = command.seat
    meld = classify(command.cards, command.jokers_as, reversed_order=state.reversed_order)
    four_stop = state.waiting_for is FOUR_STOP and meld is not None and is_four_stop_answer(meld)
    eights = (
        meld is not None
        and rule_on(state, LocalRule.EIGHT_CUT_RETURN)
        and is_eight_cut_answer(meld, state.field)
    )
    if meld is None or not (four_stop or eights):
        raise Refused(
            RefusalCode.WRONG_ACTION, "answer the eight-cut as the window allows, or pass"
        )
    if not contains(state.hands[seat], command.cards):
        raise Refused(RefusalCode.CARD_NOT_IN_HAND, "those cards are not in your hand")
    work = _Work(state)
    if four_stop:
        if _put_on_field(work, seat, meld, reason=command.reason):
            return work
        _flush(work, FlushReason.FOUR_STOP)
        return work
    # the answer is the pending eight-cut now; the window opens again
    cause = revolution_cause(state, meld)
    if _put_on_field(work, seat, meld, reason=command.reason):
        return work
    if cause is not None:
        work.emit(ev.RevolutionChanged(not work.state.revolution, cause))
    _open_answer_window(work, seat, meld)
    return work


def _open_answer_window(work: _Work, seat: int, meld: Meld) -> None:
    """Ask the other active players, from the next, to answer the eight-cut
    (four-stop, eight-cut return); with nobody to ask, it goes ahead."""
    state = work.state
    seats = tuple(s for s in _seats_from(state, seat)[1:] if state.is_active(s))
    four_stop = four_stop_applies(state, meld)
    if not seats:
        _flush(work, FlushReason.EIGHT_CUT)
    elif rule_on(state, LocalRule.EIGHT_CUT_RETURN) and meld.kind in (Kind.SINGLE, Kind.GROUP):
        work.emit(ev.EightCutReturnOffered(seats, four_stop))
    else:
        work.emit(ev.FourStopOffered(seats))


# -- picks and king pastor (docs/RULES.md §5 #49 to #52) ----------------------------


def _pick(state: MatchState, command: Pick) -> _Work:
    seat, cards = command.seat, command.cards
    step, count, _ = state.pending[0]
    if cards.bit_count() > count:
        raise Refused(RefusalCode.WRONG_ACTION, f"take at most {count} cards")
    if not contains(pickable(state), cards):
        raise Refused(
            RefusalCode.CARD_NOT_IN_HAND, "take cards of the discard pile, not of this play"
        )
    receiver = seat
    if step == ZOMBIE:
        following = state.next_active(seat)
        receiver = seat if following is None else following
    work = _Work(state)
    work.emit(ev.PilePicked(seat, cards, receiver, step))
    _after_step(work, seat, emptied=False)
    return work


def _choose_for_pastor(state: MatchState, command: Give) -> _Work:
    seat, cards = command.seat, command.cards
    if cards.bit_count() != 1:
        raise Refused(RefusalCode.WRONG_ACTION, "choose exactly 1 card to pass on")
    if not contains(state.hands[seat], cards):
        raise Refused(RefusalCode.CARD_NOT_IN_HAND, "that card is not in your hand")
    work = _Work(state)
    work.emit(ev.CardChosen(seat, cards))
    if not work.state.pending or work.state.pending[0][0] is not KING_PASTOR:
        # every card moves at once, so none received is passed on (§5.3 #52)
        for giver, card in work.state.chosen:
            to = work.state.next_active(giver)
            work.emit(
                ev.CardsGiven(giver, giver if to is None else to, card, GiveReason.KING_PASTOR)
            )
    # the turn goes on from the K player, as after any play
    player = state.last_seat
    _after_step(work, seat if player is None else player, emptied=False)
    return work


def _pick_steps(work: _Work, seat: int, meld: Meld, applying: frozenset[LocalRule]) -> None:
    """King's march, zombie and king pastor after a play (docs/RULES.md §5.5 step 4)."""
    state = work.state
    # a ten-discard or a queen bomb to come may put cards in the pile before the
    # pick, which is judged when its turn comes (_lapse_picks)
    discarding = any(step in _PILE_STEPS for step, _, _ in state.pending)
    kings = meld.real_count(KINGS_MARCH_RANK) if LocalRule.KINGS_MARCH in applying else 0
    if kings and state.is_active(seat) and state.hands[seat]:
        if pickable(state) or discarding:
            work.emit(ev.StepRequired(seat, KINGS_MARCH, kings))
    if LocalRule.ZOMBIE in applying and group_of(meld, ZOMBIE_SIZE, ZOMBIE_RANK):
        state = work.state
        present = state.is_active(seat) or not state.hands[seat]
        if present and state.next_active(seat) is not None and (pickable(state) or discarding):
            work.emit(ev.StepRequired(seat, ZOMBIE, 1))
    if LocalRule.KING_PASTOR in applying and meld.real_count(RANK_K):
        state = work.state
        first = seat if state.is_active(seat) else state.next_active(seat)
        if first is not None:
            order = [s for s in _seats_from(state, first) if state.is_active(s)]
            if len(order) > 1:
                for giver in order:
                    work.emit(ev.StepRequired(giver, KING_PASTOR, 1))


def _queue_salvage(work: _Work) -> bool:
    """After a flush, the last play's player may salvage a card (docs/RULES.md §5
    #49) before anyone leads; True if they may."""
    state = work.state
    last = state.last_play
    owner = state.last_seat
    if last is None or owner is None or LocalRule.SALVAGE not in state.in_force:
        return False
    if not last.real_count(SALVAGE_RANK) or not state.is_active(owner):
        return False
    # judged when its turn comes (_lapse_picks): a step before it may fill the pile
    if not pickable(state) and not any(step in _PILE_STEPS for step, _, _ in state.pending):
        return False
    work.emit(ev.StepRequired(owner, SALVAGE, 1))
    return True


# -- playing -------------------------------------------------------------------


def _play(state: MatchState, command: Play) -> _Work:
    seat, cards = command.seat, command.cards
    hand = state.hands[seat]
    if not contains(hand, cards):
        raise Refused(RefusalCode.CARD_NOT_IN_HAND, "those cards are not in your hand")
    if state.first_play_d3 and hand & 1 and not cards & 1:
        raise Refused(RefusalCode.MUST_INCLUDE_D3, "the first play must hold the ♢3")
    rules = state.rules
    meld = classify(
        cards,
        tuple(command.jokers_as),
        reversed_order=state.reversed_order,
        stairs_allowed=rules.stairs,
        emperor_allowed=LocalRule.EMPEROR in state.in_force,
        past_ends=rules.stairs_past_ends,
        joker_suits=rules.joker_suits,
    )
    if meld is None:
        raise Refused(RefusalCode.INVALID_MELD, "those cards are not a meld under these rules")
    check_beats_field(state, meld)
    work = _Work(state)
    _apply_play(work, seat, meld, reason=command.reason)
    return work


def _put_on_field(work: _Work, seat: int, meld: Meld, *, reason: str) -> bool:
    """Play ``meld`` and finish the seat if its hand empties; True if the game ended."""
    before = work.state
    finishing = before.hands[seat] == meld.mask
    forbidden = finishing and is_forbidden_finish(before, meld)
    work.emit(
        ev.CardsPlayed(seat, meld.mask, int(meld.kind), meld.low, meld.high, meld.jokers_as, reason)
    )
    return finishing and _finish(work, seat, forbidden=forbidden, cause=FinishCause.PLAY)


def _apply_play(work: _Work, seat: int, meld: Meld, *, reason: str) -> None:
    """A play and its effects, in docs/RULES.md §3's order: revolution, flush, turn."""
    before = work.state
    rules = before.rules
    in_force = before.in_force
    cause = revolution_cause(before, meld)
    # §5's effects do not apply to an omen play itself (docs/RULES.md §5.1)
    applying = in_force - CANCELLED_BY_OMEN if cause is RevolutionCause.OMEN else in_force
    flush = flush_reason(before, meld, applying)
    four_stop = flush is FlushReason.EIGHT_CUT and four_stop_applies(before, meld)
    answered = (
        flush is FlushReason.EIGHT_CUT
        and LocalRule.EIGHT_CUT_RETURN in applying
        and meld.kind in (Kind.SINGLE, Kind.GROUP)
    )
    great_revolution = cause is RevolutionCause.GREAT_REVOLUTION
    finishing = before.hands[seat] == meld.mask
    forbidden = finishing and not great_revolution and is_forbidden_finish(before, meld)

    work.emit(
        ev.CardsPlayed(seat, meld.mask, int(meld.kind), meld.low, meld.high, meld.jokers_as, reason)
    )
    state = work.state
    if LocalRule.QUEEN_RELEASE in applying and meld.real_count(RANK_Q) and any_lock(before):
        # it ends every lock, those it would start too (docs/RULES.md §5.6 #2)
        work.emit(ev.LocksReleased(EndCause.QUEEN_RELEASE))
    else:
        if rules.suit_lock and starts_suit_lock(state):
            work.emit(ev.SuitLocked(state.suit_run_suits))
        elif rules.joker_suits and state.suit_lock and meld.is_single_joker:
            work.emit(ev.SuitLocked(0))  # a single joker neither makes nor keeps a lock
        if rules.number_lock and starts_number_lock(state):
            work.emit(ev.NumberLocked(meld.low))
        if rules.color_lock or rules.partial_lock:
            _further_locks(work, applying)
    if cause is not None:
        work.emit(ev.RevolutionChanged(not state.revolution, cause))
        if cause is RevolutionCause.OMEN:
            work.emit(ev.OmenInvoked(seat))
    if not work.state.in_force.isdisjoint(_STRENGTH_RULES):
        _strength_effects(work, before, meld)

    if finishing:
        if _finish(work, seat, forbidden=forbidden, cause=FinishCause.PLAY):
            return
    elif great_revolution:
        leftover = work.state.hands[seat]
        if _finish(work, seat, cause=FinishCause.GREAT_REVOLUTION, leftover=leftover):
            return

    if four_stop or answered:
        if any(work.state.is_active(s) for s in range(work.state.players) if s != seat):
            _open_answer_window(work, seat, meld)
            return
    # the leader leads once the whole action is done (docs/RULES.md §5.6 #23): _end_turn
    if flush is not None and _flush(work, flush, salvage=False, lead=False):
        return

    state = work.state
    # §5's effects do not apply from an omen play itself on (docs/RULES.md §5.1)
    in_force = state.in_force
    # a finish flush to come cancels the play's reverses, as any flush does
    finish_flush = (finishing or great_revolution) and LocalRule.FINISH_FLUSH in in_force
    if flush is None and not finish_flush and not in_force.isdisjoint(REVERSE_RULES):
        for rule in reverses_of(in_force, meld):
            work.emit(ev.DirectionReversed(-work.state.direction, rule))
    if state.is_active(seat):
        sevens = seven_pass_count(in_force, meld)
        if sevens and state.next_active(seat) is not None:
            work.emit(ev.StepRequired(seat, WaitingFor.SEVEN_PASS, sevens))
        tens = ten_discard_count(in_force, meld)
        if tens:
            work.emit(ev.StepRequired(seat, WaitingFor.TEN_DISCARD, tens))
    queens = meld.real_count(RANK_Q) if LocalRule.QUEEN_BOMBER in in_force else 0
    # a player who has left takes no further step, but a bomber whose play emptied their
    # hand still names the ranks (docs/RULES.md §3 Clarifications 1)
    if queens and (work.state.is_active(seat) or not work.state.hands[seat]):
        work.emit(ev.StepRequired(seat, WaitingFor.QUEEN_BOMBER, queens))
    if not applying.isdisjoint(_PICK_STEP_RULES):
        _pick_steps(work, seat, meld, applying)
    if flush is not None and LocalRule.SALVAGE in applying:
        _queue_salvage(work)  # after the play's steps, before the lead (§5.5 step 5)
    _lapse_picks(work)
    if not work.state.pending:
        _end_turn(work, seat)  # the leader is chosen now, the action done (§5.6 #23)


def _further_locks(work: _Work, applying: frozenset[LocalRule]) -> None:
    """The colour and partial locks starting (docs/RULES.md §5 #38, #39), after as
    many plays as the preset's suit lock; a partial lock only where no suit
    lock is in force."""
    state = work.state
    color, shared = lock_starting(state.recent_suits, state.rules.suit_lock_after)
    if color and LocalRule.COLOR_LOCK in applying and not state.color_lock:
        work.emit(ev.ColorLocked(COLORS[color]))
    if (
        shared
        and LocalRule.PARTIAL_LOCK in applying
        and state.rules.suit_lock
        and not state.suit_lock
    ):
        work.emit(ev.SuitLocked(shared, partial=True))


def _strength_effects(work: _Work, before: MatchState, meld: Meld) -> None:
    """Eleven-back, strong eleven-back, six-return and two-back, in docs/RULES.md
    §5.5's order; they change the order for the plays that follow only."""
    in_force = work.state.in_force
    reading = before.rules.eleven_back
    js = meld.real_count(RANK_J) if LocalRule.ELEVEN_BACK in in_force else 0
    if ends_eleven_back(work.state, meld):
        work.emit(ev.ElevenBackEnded(EndCause.SIX_RETURN))  # a J beside the 6 starts none (§5.6 #4)
    elif js:
        if starts_eleven_back(before, meld):
            work.emit(ev.ElevenBackStarted(reading))
        if (
            js >= 3
            and LocalRule.STRONG_ELEVEN_BACK in in_force
            and not work.state.eleven_back_lasts
        ):
            work.emit(ev.ElevenBackStrengthened())
    if starts_two_back(work.state, meld):
        work.emit(ev.TwoBackStarted())


def _end_turn(work: _Work, seat: int) -> None:
    """The seat's action is complete: the trick goes on, or its leader leads.
    The last play's skips count now, after its steps (docs/RULES.md §5.5)."""
    state = work.state
    if state.field is None:
        _give_lead(work, state.trick_leader)
        return
    if state.finished_in_trick and LocalRule.FINISH_FLUSH in state.in_force:
        _flush(work, FlushReason.FINISH_FLUSH)  # once nothing of the action is pending (§5 #35)
        return
    last = state.last_play
    skips = 0
    causes: tuple[SkipCause, ...] = ()
    if last is not None and not state.in_force.isdisjoint(SKIP_RULES):
        skips, causes = skips_of(state.in_force, last)
    _advance(work, seat, skips, causes)


def _advance(work: _Work, origin: int, skips: int, causes: tuple[SkipCause, ...] = ()) -> None:
    """Move the turn on from ``origin``: past seats that left, passed (where a
    pass holds until the flush) or are skipped; back at the last player, flush."""
    state = work.state
    if state.rules.last_player_passes:
        _advance_until_all_passed(work, origin, skips, causes)
        return
    step = state.turn_direction
    seating = state.seating
    hold_passes = not state.rules.passed_may_play_again
    seat = origin
    skipped: list[int] = []
    while True:
        if seating:
            seat = seating[(seating.index(seat) + step) % state.players]
        else:
            seat = (seat + step) % state.players
        if seat == state.field_seat:
            if skipped:
                work.emit(ev.PlayersSkipped(tuple(skipped), causes))
            _flush(work, FlushReason.ALL_PASSED)
            return
        if not state.active >> seat & 1 or (hold_passes and state.passed >> seat & 1):
            continue
        if skips:
            skipped.append(seat)
            skips -= 1
            continue
        break
    if skipped:
        work.emit(ev.PlayersSkipped(tuple(skipped), causes))
    work.emit(ev.TurnMoved(seat))


def _advance_until_all_passed(
    work: _Work, origin: int, skips: int, causes: tuple[SkipCause, ...]
) -> None:
    """Where the trick ends only when every player still in has passed, the
    last player included (docs/RULES.md §6): the next such seat, the last player
    itself after everyone else; when none is left, flush. Skips pass over
    seats that would get the turn, never round to the same seat again."""
    state = work.state
    step = state.turn_direction
    waiting = []
    for offset in range(1, state.players + 1):
        seat = state.seat_after(origin, step * offset)
        if state.active >> seat & 1 and not state.passed >> seat & 1:
            waiting.append(seat)
    if not waiting:
        _flush(work, FlushReason.ALL_PASSED)
        return
    skipped = waiting[: min(skips, len(waiting) - 1)]
    if skipped:
        work.emit(ev.PlayersSkipped(tuple(skipped), causes))
    work.emit(ev.TurnMoved(waiting[len(skipped)]))


def _flush(work: _Work, reason: FlushReason, salvage: bool = True, lead: bool = True) -> bool:
    """Flush the field; its last player (or the next one still in) leads, after
    a salvage (``salvage``: asked for here, not by the caller; ``lead``: the lead
    is given here, not once the caller's action is done). True if the game
    ended on the way (lucky seven, forced forbidden finish)."""
    state = work.state
    owner = state.field_seat
    field = state.field
    if owner is not None and field is not None and state.is_active(owner):
        if is_lucky_seven(state, field):
            leftover = state.hands[owner]
            if _finish(work, owner, cause=FinishCause.LUCKY_SEVEN, leftover=leftover):
                return True
    state = work.state
    last = owner if owner is not None else state.trick_leader
    # the direction in force once flushed (docs/RULES.md §5.6 #23): an eleven-back in the
    # order reading ends here, unless it is a strong one that outlives this flush
    lasts = state.eleven_back is ElevenBack.ORDER and state.eleven_back_lasts
    direction = -state.direction if lasts else state.direction
    leader = last if state.is_active(last) else state.next_active(last, direction)
    if leader is None:
        return True
    work.emit(ev.FieldFlushed(reason, leader))
    if salvage and _queue_salvage(work):
        return False  # the lead waits for the pick
    return _give_lead(work, leader) if lead else False


def _give_lead(work: _Work, seat: int) -> bool:
    """Give the lead to ``seat`` (or the next seat still in). Federation declares
    a leader holding only forbidden cards a forbidden finisher at once."""
    while True:
        state = work.state
        if not state.is_active(seat):
            following = state.next_active(seat)  # in the direction in force (§5.6 #23)
            if following is None:
                return True
            seat = following
        if state.turn != seat:
            work.emit(ev.TurnMoved(seat))
        rules = state.rules
        if not (rules.forced_forbidden_finish and rules.forbidden_finish):
            return False
        if not holds_only_forbidden(state, state.hands[seat]):
            return False
        leftover = state.hands[seat]
        if _finish(work, seat, forbidden=True, cause=FinishCause.FORCED, leftover=leftover):
            return True


# -- finishing -----------------------------------------------------------------


def _finish(
    work: _Work, seat: int, *, forbidden: bool = False, cause: FinishCause, leftover: int = 0
) -> bool:
    """The seat leaves with a place. True if that ended the game."""
    state = work.state
    place = _bottom_place(state, seat, Bottom.FORBIDDEN) if forbidden else len(state.finished) + 1
    work.emit(ev.PlayerFinished(seat, place, forbidden, cause, leftover))
    state = work.state
    if not forbidden and len(state.finished) == 1 and state.previous_places is not None:
        previous = state.previous_places
        if rule_on(state, LocalRule.GEKOKUJO) and seat == seat_at(previous, state.players):
            _end_game(work, tuple(state.players + 1 - place for place in previous), gekokujo=True)
            return True
        fallen = seat_at(previous, 1)
        if (
            state.rules.miyako_ochi
            and fallen is not None
            and fallen != seat
            and state.is_active(fallen)
        ):
            place = _bottom_place(state, fallen, Bottom.FALLEN)
            work.emit(ev.PlayerFell(fallen, place, state.hands[fallen]))
        fugo = kyo_ochi_falls(work.state, seat)
        if fugo is not None:
            place = _bottom_place(work.state, fugo, Bottom.FALLEN)
            work.emit(ev.PlayerFell(fugo, place, work.state.hands[fugo], FallCause.KYO_OCHI))
    if work.state.active_count() <= 1:
        _end_game(work)
        return True
    return False


def _bottom_place(state: MatchState, seat: int, how: Bottom) -> int:
    block = bottom_block(state.rules.bottom_order, (*state.bottom, (seat, how)))
    return state.players - len(block) + 1 + block.index(seat)


def _end_game(
    work: _Work, places: tuple[int, ...] | None = None, *, gekokujo: bool = False
) -> None:
    state = work.state
    if places is None:
        for seat in range(state.players):
            if state.is_active(seat):
                place = len(state.finished) + 1
                leftover = work.state.hands[seat]
                work.emit(ev.PlayerFinished(seat, place, cause=FinishCause.LAST, leftover=leftover))
        ranked = work.state.places()
        places = tuple(ranked[seat] for seat in range(state.players))
    work.emit(ev.GameEnded(places, gekokujo))
    if work.state.game_number >= work.state.rules.games_per_set:
        work.emit(ev.MatchEnded(work.state.blind))
