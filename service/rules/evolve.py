"""``evolve``: apply one event to a state. It never refuses and never decides a
rule; every fact it needs is in the event."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from . import events as ev
from .cards import JOKER_BITS, REAL_CARDS, add_cards, remove_cards
from .melds import Kind, Meld
from .memo import MELDS_PLAYED, remember
from .readings import lock_suits
from .rulesets import CANCELLED_BY_OMEN
from .state import (
    FALLEN,
    FORBIDDEN,
    GAME_OVER,
    IN_GAME,
    MATCH_OVER,
    MatchState,
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
    """Apply ``event`` to ``state`` in place (only on a state you own)."""
    APPLIERS[type(event)](state, event)


def _set_hand(s: MatchState, seat: int, hand: int) -> None:
    hands = list(s.hands)
    hands[seat] = hand
    s.hands = tuple(hands)


def _game_dealt(s: MatchState, e: ev.GameDealt) -> None:
    s.phase = IN_GAME
    s.game_number = e.game_number
    s.hands = e.hands
    s.blind = e.blind or s.blind
    s.unused = e.unused
    s.out = 0
    s.played = 0
    s.previous_places = e.previous_places
    s.leader = s.turn = s.trick_leader = e.leader
    s.exchange_steps = s.pending = s.four_stop = ()
    s.field = s.last_play = None
    s.field_seat = None
    s.passed = 0
    s.pass_run = 0
    s.seating = e.seating
    s.stalemate = e.stalemate
    s.revolution = e.revolution
    s.eleven_back = ""
    s.direction = 1
    s.omen = False
    _clear_locks(s)
    s.active = (1 << s.players) - 1
    s.finished = s.bottom = ()
    s.first_play_d3 = s.rules.first_lead_must_include_d3 and e.game_number == 1
    s.final_places = None
    s.in_force = s.rules.switched_on()


def _hands_swapped(s: MatchState, e: ev.HandsSwapped) -> None:
    _set_hand(s, e.seats[0], e.hands[0])
    _set_hand(s, e.seats[1], e.hands[1])


def _exchange_started(s: MatchState, e: ev.ExchangeStarted) -> None:
    s.exchange_steps = e.steps
    s.turn = e.steps[0][0]


def _cards_given(s: MatchState, e: ev.CardsGiven) -> None:
    hands = list(s.hands)
    hands[e.seat] = remove_cards(hands[e.seat], e.cards)
    hands[e.to] = add_cards(hands[e.to], e.cards)
    s.hands = tuple(hands)
    if e.reason == "exchange":
        s.exchange_steps = s.exchange_steps[1:]
    elif e.reason == "seven_pass":
        s.pending = s.pending[1:]
    # "taken": the automatic exchange moved them before any give


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
    meld = _meld_of(e)
    _track_runs(s, meld)
    _set_hand(s, e.seat, remove_cards(s.hands[e.seat], e.cards))
    s.played = add_cards(s.played, e.cards)
    s.field = s.last_play = meld
    s.field_seat = e.seat
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


def _track_runs(s: MatchState, meld: Meld) -> None:
    """Count plays in a row with the same suit set, and plays in a row each one
    rank stronger than the last (the runs that start suit and number locks)."""
    previous = s.field
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


def _passed(s: MatchState, e: ev.Passed) -> None:
    if s.four_stop:
        s.four_stop = s.four_stop[1:]
    else:
        s.passed |= 1 << e.seat
        s.pass_run += 1


def _revolution_changed(s: MatchState, e: ev.RevolutionChanged) -> None:
    s.revolution = e.revolution


def _omen_invoked(s: MatchState, e: ev.OmenInvoked) -> None:
    s.omen = True
    s.in_force -= CANCELLED_BY_OMEN


def _eleven_back_started(s: MatchState, e: ev.ElevenBackStarted) -> None:
    s.eleven_back = e.reading


def _suit_locked(s: MatchState, e: ev.SuitLocked) -> None:
    s.suit_lock = e.suits


def _number_locked(s: MatchState, e: ev.NumberLocked) -> None:
    s.number_lock = True


def _direction_reversed(s: MatchState, e: ev.DirectionReversed) -> None:
    s.direction = e.direction


def _nothing(s: MatchState, e: Any) -> None:
    """Events that only inform (the turn moves with a later event)."""


def _steps_required(s: MatchState, e: ev.StepRequired) -> None:
    s.pending = (*s.pending, (e.step, e.count))
    s.turn = e.seat


def _four_stop_offered(s: MatchState, e: ev.FourStopOffered) -> None:
    s.four_stop = e.seats
    s.turn = e.seats[0]


def _ranks_bombed(s: MatchState, e: ev.RanksBombed) -> None:
    s.pending = s.pending[1:]


def _cards_discarded(s: MatchState, e: ev.CardsDiscarded) -> None:
    _set_hand(s, e.seat, remove_cards(s.hands[e.seat], e.cards))
    s.out = add_cards(s.out, e.cards)
    if e.reason == "ten_discard":
        s.pending = s.pending[1:]


def _leave(s: MatchState, seat: int) -> None:
    # The seat keeps any cards it still holds (the event's ``leftover``) until
    # the next deal: out of play, since only active seats are given a turn.
    s.active &= ~(1 << seat)
    if s.turn == seat and s.pending:
        # a seat that has left gives and discards nothing more
        s.pending = tuple(p for p in s.pending if p[0] == "queen_bomber")


def _player_finished(s: MatchState, e: ev.PlayerFinished) -> None:
    _leave(s, e.seat)
    if e.forbidden:
        s.bottom = (*s.bottom, (e.seat, FORBIDDEN))
    else:
        s.finished = (*s.finished, e.seat)


def _player_fell(s: MatchState, e: ev.PlayerFell) -> None:
    _leave(s, e.seat)
    s.bottom = (*s.bottom, (e.seat, FALLEN))


def _field_flushed(s: MatchState, e: ev.FieldFlushed) -> None:
    s.field = None
    s.field_seat = None
    s.passed = 0
    s.eleven_back = ""
    s.four_stop = ()
    _clear_locks(s)
    s.turn = s.trick_leader = e.leader


def _clear_locks(s: MatchState) -> None:
    s.suit_lock = s.suit_run = s.suit_run_suits = s.number_run = 0
    s.number_lock = False


def _turn_moved(s: MatchState, e: ev.TurnMoved) -> None:
    s.turn = e.seat


def _game_ended(s: MatchState, e: ev.GameEnded) -> None:
    s.phase = GAME_OVER
    s.turn = None
    s.final_places = e.places
    s.results = (*s.results, e.places)
    s.pending = s.exchange_steps = s.four_stop = ()


def _match_ended(s: MatchState, e: ev.MatchEnded) -> None:
    s.phase = MATCH_OVER


APPLIERS: dict[type, Callable[[MatchState, Any], None]] = {
    ev.GameDealt: _game_dealt,
    ev.HandsSwapped: _hands_swapped,
    ev.ExchangeStarted: _exchange_started,
    ev.CardsGiven: _cards_given,
    ev.CardsPlayed: _cards_played,
    ev.Passed: _passed,
    ev.RevolutionChanged: _revolution_changed,
    ev.OmenInvoked: _omen_invoked,
    ev.ElevenBackStarted: _eleven_back_started,
    ev.SuitLocked: _suit_locked,
    ev.NumberLocked: _number_locked,
    ev.DirectionReversed: _direction_reversed,
    ev.PlayersSkipped: _nothing,
    ev.StepRequired: _steps_required,
    ev.FourStopOffered: _four_stop_offered,
    ev.RanksBombed: _ranks_bombed,
    ev.CardsDiscarded: _cards_discarded,
    ev.PlayerFinished: _player_finished,
    ev.PlayerFell: _player_fell,
    ev.FieldFlushed: _field_flushed,
    ev.TurnMoved: _turn_moved,
    ev.GameEnded: _game_ended,
    ev.MatchEnded: _match_ended,
}
