"""``evolve``: apply one event to a state. It never refuses and never decides a
rule; every fact it needs is in the event."""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

from . import events as ev
from .cards import JOKER_BITS, REAL_CARDS, add_cards, remove_cards
from .events import (
    CardChosen,
    CardsDiscarded,
    CardsGiven,
    CardsPlayed,
    ColorLocked,
    DirectionReversed,
    EightCutReturnOffered,
    ElevenBackEnded,
    ElevenBackStarted,
    ElevenBackStrengthened,
    ExchangeStarted,
    FieldFlushed,
    FourStopOffered,
    GameDealt,
    GameEnded,
    HandsSwapped,
    LocksReleased,
    MatchEnded,
    NumberLocked,
    OmenInvoked,
    Passed,
    PickLapsed,
    PilePicked,
    PlayerFell,
    PlayerFinished,
    PlayersSkipped,
    RanksBombed,
    RevolutionChanged,
    StepRequired,
    SuitLocked,
    TurnMoved,
    TwoBackStarted,
)
from .melds import Kind, Meld
from .memo import MELDS_PLAYED, remember
from .readings import BLACK, RED, leisure_seat, lock_suits
from .rulesets import CANCELLED_BY_OMEN
from .state import MatchState, Position
from .vocabulary import (
    EIGHT_CUT_RETURN,
    FOUR_STOP,
    Bottom,
    Color,
    DiscardReason,
    ElevenBack,
    GiveReason,
    Phase,
    WaitingFor,
)


def evolve(state: MatchState, event: ev.Event) -> MatchState:
    """The state after ``event``; ``state`` itself is left as it was."""
    new = state.copy()
    apply(new, event)
    return new


def fold(state: MatchState, events: Iterable[ev.Event]) -> MatchState:
    """The state after every event of ``events``, in order."""
    new = state.copy()
    for event in events:
        apply(new, event)
    return new


def apply(state: MatchState, event: ev.Event) -> None:
    """Apply ``event`` to ``state`` in place (only on a state you own). The most
    frequent events come first; mypy rejects an event left without a branch.
    isinstance, not ``match``: mypyc compiles a class pattern to a generic
    isinstance call, and an isinstance of a compiled class to one type compare."""
    if isinstance(event, TurnMoved):
        state.turn = event.seat
    elif isinstance(event, Passed):
        if state.four_stop:
            state.four_stop = state.four_stop[1:]  # one answer fewer to wait for
        else:
            if event.seat == state.leisure_seat:
                state.leisure_seat = None
            state.passed |= 1 << event.seat
            state.pass_run += 1
    elif isinstance(event, CardsPlayed):
        _cards_played(state, event)
    elif isinstance(event, FieldFlushed):
        _field_flushed(state, event)
    elif isinstance(event, SuitLocked):
        state.suit_lock = event.suits
        state.partial_lock = event.partial
    elif isinstance(event, PlayerFinished):
        _player_finished(state, event)
    elif isinstance(event, CardsGiven):
        _cards_given(state, event)
    elif isinstance(event, GameDealt):
        _game_dealt(state, event)
    elif isinstance(event, GameEnded):
        _game_ended(state, event)
    elif isinstance(event, ColorLocked):
        state.color_lock = RED if event.color == Color.RED else BLACK
    elif isinstance(event, LocksReleased):
        _clear_locks(state)
    elif isinstance(event, RevolutionChanged):
        state.revolution = event.revolution
    elif isinstance(event, ExchangeStarted):
        state.exchange_steps = event.steps
        state.turn = event.steps[0][0]
    elif isinstance(event, StepRequired):
        _step_required(state, event)
    elif isinstance(event, CardsDiscarded):
        _cards_discarded(state, event)
    elif isinstance(event, NumberLocked):
        state.number_lock = True
    elif isinstance(event, DirectionReversed):
        state.direction = event.direction
    elif isinstance(event, ElevenBackStarted):
        state.eleven_back = event.reading
    elif isinstance(event, ElevenBackStrengthened):
        state.eleven_back_lasts = 1
    elif isinstance(event, ElevenBackEnded):
        state.eleven_back = ElevenBack.NONE
        state.eleven_back_lasts = 0
    elif isinstance(event, TwoBackStarted):
        state.two_back = True
    elif isinstance(event, PlayersSkipped):
        pass  # it only informs: the turn moves with the next event
    elif isinstance(event, FourStopOffered):
        state.four_stop = event.seats
        state.window = FOUR_STOP
        state.turn = event.seats[0]
    elif isinstance(event, EightCutReturnOffered):
        state.four_stop = event.seats
        state.window = FOUR_STOP if event.four_stop else EIGHT_CUT_RETURN
        state.turn = event.seats[0]
    elif isinstance(event, PilePicked):
        _pile_picked(state, event)
    elif isinstance(event, PickLapsed):
        _step_done(state)
    elif isinstance(event, CardChosen):
        state.chosen = (*state.chosen, (event.seat, event.cards))
        _step_done(state)
    elif isinstance(event, RanksBombed):
        _step_done(state)
    elif isinstance(event, PlayerFell):
        _leave(state, event.seat)
        state.bottom = (*state.bottom, (event.seat, Bottom.FALLEN))
    elif isinstance(event, OmenInvoked):
        state.omen = True
        state.in_force -= CANCELLED_BY_OMEN
    elif isinstance(event, HandsSwapped):
        _set_hand(state, event.seats[0], event.hands[0])
        _set_hand(state, event.seats[1], event.hands[1])
    elif isinstance(event, MatchEnded):
        state.phase = Phase.MATCH_OVER
    else:
        assert_never(event)


def _set_hand(s: MatchState, seat: int, hand: int) -> None:
    hands = list(s.hands)
    hands[seat] = hand
    s.hands = tuple(hands)


def _game_dealt(s: MatchState, e: ev.GameDealt) -> None:
    s.phase = Phase.IN_GAME
    s.game_number = e.game_number
    s.hands = e.hands
    s.blind = e.blind or s.blind
    s.unused = e.unused
    s.out = 0
    s.trick = s.pile = s.marked = 0
    s.two_back = False
    s.eleven_back_lasts = 0
    s.previous_places = e.previous_places
    s.leader = s.turn = s.trick_leader = e.leader
    s.exchange_steps = s.pending = s.four_stop = s.chosen = ()
    s.field = s.last_play = None
    s.field_seat = s.last_seat = None
    s.passed = 0
    s.pass_run = 0
    s.seating = e.seating
    s.stalemate = e.stalemate
    s.revolution = e.revolution
    s.eleven_back = ElevenBack.NONE
    s.direction = 1
    s.omen = False
    _clear_locks(s)
    s.active = (1 << s.players) - 1
    s.finished = s.bottom = ()
    s.finished_in_trick = False
    s.first_play_d3 = s.rules.d3_start and e.game_number == 1
    s.leisure_seat = leisure_seat(s.rules, e.previous_places)
    s.final_places = None
    s.in_force = s.rules.switched_on()


def _cards_given(s: MatchState, e: ev.CardsGiven) -> None:
    hands = list(s.hands)
    hands[e.seat] = remove_cards(hands[e.seat], e.cards)
    hands[e.to] = add_cards(hands[e.to], e.cards)
    s.hands = tuple(hands)
    if e.reason is GiveReason.EXCHANGE:
        s.exchange_steps = s.exchange_steps[1:]
    elif e.reason is GiveReason.SEVEN_PASS:
        _step_done(s)
    elif e.reason is GiveReason.KING_PASTOR:
        s.chosen = s.chosen[1:]
    # TAKEN: the automatic exchange moved them before any give


def _meld_of(e: ev.CardsPlayed) -> Meld:
    """The meld a play event describes (memoised: a fold meets the same plays often)."""
    key = (e.cards, e.kind, e.low, e.high, e.jokers_as)
    meld = MELDS_PLAYED.get(key)
    if meld is None:
        jokers = (e.cards & JOKER_BITS).bit_count()
        size = (e.cards & REAL_CARDS).bit_count() + jokers
        meld = Meld(Kind(e.kind), e.cards, size, e.low, e.high, _suits_of(e.cards), jokers,
                    e.jokers_as)  # fmt: skip
        remember(MELDS_PLAYED, key, meld)
    return meld


def _cards_played(s: MatchState, e: ev.CardsPlayed) -> None:
    if e.seat == s.leisure_seat and not s.four_stop:
        s.leisure_seat = None  # their first turn was a lead: the rule lapsed
    meld = _meld_of(e)
    _track_runs(s, meld)
    _set_hand(s, e.seat, remove_cards(s.hands[e.seat], e.cards))
    s.trick = add_cards(s.trick, e.cards)
    s.field = s.last_play = meld
    s.field_seat = s.last_seat = e.seat
    s.four_stop = ()
    s.first_play_d3 = False
    s.pass_run = 0


def _suits_of(mask: int) -> int:
    real = mask & REAL_CARDS
    suits = 0
    while real:
        suits |= real & 15
        real >>= 4
    return suits


def runs_counted(position: Position, meld: Meld) -> Position:
    """``position`` with a play of ``meld`` counted in the runs that start the
    suit, number, colour and partial locks (for a client judging a play ahead)."""
    after = position.copy()
    _track_runs(after, meld)
    return after


def _track_runs(s: Position, meld: Meld) -> None:
    """Count plays in a row with the same suit set, and plays in a row each one
    rank stronger than the last (the runs that start suit and number locks);
    keep the trick's last suit sets (colour and partial locks)."""
    previous = s.field
    if s.rules.color_lock or s.rules.partial_lock:
        s.recent_suits = (*s.recent_suits[-12:], -1 if meld.jokers else meld.suits)
    if s.rules.joker_suits:
        # a joker counts as the suit it stands for; a single joker breaks the run
        suits = lock_suits(meld)
        if meld.is_single_joker:
            s.suit_run = 0
        elif previous is not None and s.suit_run and suits == s.suit_run_suits:
            s.suit_run += 1
        else:
            s.suit_run, s.suit_run_suits = 1, suits
    elif meld.jokers:
        s.suit_run = 0
    elif previous is not None and s.suit_run and meld.suits == s.suit_run_suits:
        s.suit_run += 1
    else:
        s.suit_run, s.suit_run_suits = 1, meld.suits
    if meld.kind not in (Kind.SINGLE, Kind.GROUP) or meld.low == 13:
        s.number_run = 0
        return
    reversed_order = s.reversed_order
    if (
        previous is not None
        and s.number_run
        and meld.strength(reversed_order) == previous.strength(reversed_order) + 1
    ):
        s.number_run += 1
    else:
        s.number_run = 1


def _step_required(s: MatchState, e: ev.StepRequired) -> None:
    if not s.pending:
        s.turn = e.seat  # a step waits its turn behind those already required
    s.pending = (*s.pending, (e.step, e.count, e.seat))


def _step_done(s: MatchState) -> None:
    s.pending = s.pending[1:]
    if s.pending:
        s.turn = s.pending[0][2]


def _pile_picked(s: MatchState, e: ev.PilePicked) -> None:
    s.pile = remove_cards(s.pile, e.cards)
    s.marked = add_cards(s.marked, e.cards)  # never picked again this game (§5.6 #21)
    _set_hand(s, e.to, add_cards(s.hands[e.to], e.cards))
    _step_done(s)


def _cards_discarded(s: MatchState, e: ev.CardsDiscarded) -> None:
    _set_hand(s, e.seat, remove_cards(s.hands[e.seat], e.cards))
    s.out = add_cards(s.out, e.cards)
    s.pile = add_cards(s.pile, e.cards)
    if e.reason is DiscardReason.TEN_DISCARD:
        _step_done(s)


def _leave(s: MatchState, seat: int) -> None:
    # The seat keeps any cards it still holds (the event's ``leftover``) until
    # the next deal: out of play, since only active seats are given a turn.
    s.active &= ~(1 << seat)
    if s.pending:
        # a seat that has left takes no further step: a bomber and a zombie
        # whose play emptied their hand still name and pick (docs/RULES.md §5.6 #8)
        s.pending = tuple(
            p
            for p in s.pending
            if p[2] != seat or p[0] in (WaitingFor.QUEEN_BOMBER, WaitingFor.ZOMBIE)
        )
        if s.pending:
            s.turn = s.pending[0][2]


def _player_finished(s: MatchState, e: ev.PlayerFinished) -> None:
    _leave(s, e.seat)
    if s.field is not None:
        s.finished_in_trick = True
    if e.forbidden:
        s.bottom = (*s.bottom, (e.seat, Bottom.FORBIDDEN))
    else:
        s.finished = (*s.finished, e.seat)


def _field_flushed(s: MatchState, e: ev.FieldFlushed) -> None:
    s.field = None
    s.field_seat = None
    s.passed = 0
    if s.eleven_back_lasts:
        s.eleven_back_lasts -= 1  # a strong eleven-back outlives this flush
    else:
        s.eleven_back = ElevenBack.NONE
    s.two_back = False
    s.finished_in_trick = False
    s.pile = add_cards(s.pile, s.trick)
    s.trick = 0
    s.four_stop = ()
    _clear_locks(s)
    s.turn = s.trick_leader = e.leader


def _clear_locks(s: MatchState) -> None:
    s.suit_lock = s.suit_run = s.suit_run_suits = s.number_run = s.color_lock = 0
    s.number_lock = s.partial_lock = False
    s.recent_suits = ()


def _game_ended(s: MatchState, e: ev.GameEnded) -> None:
    s.phase = Phase.GAME_OVER
    s.turn = None
    s.final_places = e.places
    s.results = (*s.results, e.places)
    s.pending = s.exchange_steps = s.four_stop = s.chosen = ()
