"""The state of a match, rebuilt from events by ``evolve``: the public position
(``Position``: what every viewer may know, and all the engine's judgments read)
and, beside it in a ``MatchState``, the holdings: the cards in each hand, the
blind, the unused cards, the cards out of play, those chosen in king pastor and
the stalemate's drawn order, which a view shows only to whoever may see them.

Treat both as immutable: ``evolve`` copies before it changes anything. Each field
is declared once, below, with its value before the first deal; a fold copies the
state once per action, so ``copy`` sits on the hot path and is written out field
by field (a loop is several times slower, compiled or not): a unit test
regenerates it from the declarations and fails when it differs.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Final

from .melds import Meld
from .rulesets import RuleSet
from .vocabulary import (
    EXCHANGE,
    FOUR_STOP,
    IN_GAME,
    ORDER,
    PLAY,
    STRENGTH,
    Bottom,
    ElevenBack,
    LocalRule,
    Phase,
    WaitingFor,
)


@dataclass(slots=True, repr=False)
class Position:
    """The public position of a match: rules in force, field, locks, revolution,
    order, turn, passes, places and the discard pile; it holds no hidden card."""

    rules: RuleSet
    players: int
    in_force: frozenset[LocalRule]  # local rules on and not switched off by an omen
    phase: Phase = Phase.BEFORE_DEAL
    game_number: int = 0
    previous_places: tuple[int, ...] | None = None
    results: tuple[tuple[int, ...], ...] = ()
    trick: int = 0  # the cards on the field this trick, every meld of it
    pile: int = 0  # the discard pile: public (docs/RULES.md §5.1)
    marked: int = 0  # cards a pick took this game: never picked again (§5.6 #21)
    leader: int = 0
    turn: int | None = None
    exchange_steps: tuple[tuple[int, int, int, bool], ...] = ()
    pending: tuple[tuple[WaitingFor, int, int], ...] = ()  # (step, count, seat) in order
    four_stop: tuple[int, ...] = ()  # the seats still to ask in an answer window
    window: WaitingFor = FOUR_STOP  # that window: FOUR_STOP or EIGHT_CUT_RETURN (§5 #34)
    field: Meld | None = None
    field_seat: int | None = None
    last_play: Meld | None = None
    last_seat: int | None = None  # who made last_play (it outlives the flush)
    trick_leader: int = 0
    passed: int = 0
    pass_run: int = 0  # passes in a row since the last play (the stalemate rule)
    seating: tuple[int, ...] = ()  # the turn order, seats round the table; empty: 0, 1…
    revolution: bool = False
    eleven_back: ElevenBack = ElevenBack.NONE
    eleven_back_lasts: int = 0  # flushes a strong eleven-back outlives (docs/RULES.md §5 #41)
    two_back: bool = False  # §5 #43: until the flush
    direction: int = 1
    omen: bool = False
    suit_lock: int = 0
    partial_lock: bool = False  # suit_lock is a partial lock (docs/RULES.md §5 #39)
    color_lock: int = 0  # the suits of the locked colour (§5 #38), 0 when none
    recent_suits: tuple[int, ...] = ()  # the trick's last plays' suit sets, -1 holding a joker
    suit_run: int = 0
    suit_run_suits: int = 0
    number_lock: bool = False
    number_run: int = 0
    active: int = 0
    finished: tuple[int, ...] = ()
    finished_in_trick: bool = False  # someone finished while this trick's field was on (§5 #35)
    bottom: tuple[tuple[int, Bottom], ...] = ()
    first_play_d3: bool = False
    leisure_seat: int | None = None  # the previous 大富豪 before their first turn (§5 #54)
    final_places: tuple[int, ...] | None = None

    def copy(self) -> Position:
        # generated from the fields above (tests/unit/test_state_fields.py)
        new = Position.__new__(Position)
        new.rules = self.rules
        new.players = self.players
        new.in_force = self.in_force
        new.phase = self.phase
        new.game_number = self.game_number
        new.previous_places = self.previous_places
        new.results = self.results
        new.trick = self.trick
        new.pile = self.pile
        new.marked = self.marked
        new.leader = self.leader
        new.turn = self.turn
        new.exchange_steps = self.exchange_steps
        new.pending = self.pending
        new.four_stop = self.four_stop
        new.window = self.window
        new.field = self.field
        new.field_seat = self.field_seat
        new.last_play = self.last_play
        new.last_seat = self.last_seat
        new.trick_leader = self.trick_leader
        new.passed = self.passed
        new.pass_run = self.pass_run
        new.seating = self.seating
        new.revolution = self.revolution
        new.eleven_back = self.eleven_back
        new.eleven_back_lasts = self.eleven_back_lasts
        new.two_back = self.two_back
        new.direction = self.direction
        new.omen = self.omen
        new.suit_lock = self.suit_lock
        new.partial_lock = self.partial_lock
        new.color_lock = self.color_lock
        new.recent_suits = self.recent_suits
        new.suit_run = self.suit_run
        new.suit_run_suits = self.suit_run_suits
        new.number_lock = self.number_lock
        new.number_run = self.number_run
        new.active = self.active
        new.finished = self.finished
        new.finished_in_trick = self.finished_in_trick
        new.bottom = self.bottom
        new.first_play_d3 = self.first_play_d3
        new.leisure_seat = self.leisure_seat
        new.final_places = self.final_places
        return new

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.rules.preset} game {self.game_number} {self.phase}"
            f" turn={self.turn} waiting={self.waiting_for}>"
        )

    # -- derived facts -------------------------------------------------------

    @property
    def waiting_for(self) -> WaitingFor | None:
        if self.phase is not IN_GAME:
            return None
        if self.exchange_steps:
            return EXCHANGE
        if self.four_stop:
            return self.window
        if self.pending:
            return self.pending[0][0]
        return PLAY

    @property
    def reversed_order(self) -> bool:
        """The strength order in force: revolution XOR eleven-back XOR two-back."""
        return (self.revolution != (self.eleven_back is STRENGTH)) != self.two_back

    @property
    def turn_direction(self) -> int:
        return -self.direction if self.eleven_back is ORDER else self.direction

    @property
    def game_over(self) -> bool:
        return self.phase is Phase.GAME_OVER or self.phase is Phase.MATCH_OVER

    def is_active(self, seat: int) -> bool:
        return bool(self.active >> seat & 1)

    def active_count(self) -> int:
        return self.active.bit_count()

    def next_active(self, seat: int, direction: int | None = None) -> int | None:
        """The next seat after ``seat`` still in the game, or None."""
        step = self.turn_direction if direction is None else direction
        players, seating = self.players, self.seating
        start = seating.index(seat) if seating else seat
        for offset in range(1, players + 1):
            at = (start + step * offset) % players
            candidate = seating[at] if seating else at
            if self.active >> candidate & 1 and candidate != seat:
                return candidate
        return None

    def seat_after(self, seat: int, steps: int) -> int:
        """The seat ``steps`` places after ``seat`` in turn order (negative: before)."""
        seating = self.seating
        if not seating:
            return (seat + steps) % self.players
        return seating[(seating.index(seat) + steps) % self.players]

    def places(self) -> dict[int, int]:
        """The current place of every seat that has left the game."""
        if self.final_places is not None:
            return dict(enumerate(self.final_places))
        placed = {seat: index + 1 for index, seat in enumerate(self.finished)}
        block = self.bottom_block()
        first = self.players - len(block) + 1
        placed.update({seat: first + index for index, seat in enumerate(block)})
        return placed

    def bottom_block(self) -> list[int]:
        return bottom_block(self.rules.bottom_order, self.bottom)


@dataclass(slots=True, repr=False)
class MatchState(Position):
    """The position and the holdings: the whole state, which only the engine,
    the service and an auditor after the match hold."""

    hands: tuple[int, ...] = ()
    blind: int = 0
    unused: int = 0
    # discarded (ten-discard, queen bomb), shown once the match is over; cards kept on
    # leaving stay in hands
    out: int = 0
    chosen: tuple[tuple[int, int], ...] = ()  # king pastor: (seat, card) chosen so far
    # the order a stalemate ranks the players still in: drawn, seen by nobody until the
    # match ends (docs/RULES.md §5)
    stalemate: tuple[int, ...] = ()

    def copy(self) -> MatchState:
        # generated from the fields of both classes (tests/unit/test_state_fields.py)
        new = MatchState.__new__(MatchState)
        new.rules = self.rules
        new.players = self.players
        new.in_force = self.in_force
        new.phase = self.phase
        new.game_number = self.game_number
        new.previous_places = self.previous_places
        new.results = self.results
        new.trick = self.trick
        new.pile = self.pile
        new.marked = self.marked
        new.leader = self.leader
        new.turn = self.turn
        new.exchange_steps = self.exchange_steps
        new.pending = self.pending
        new.four_stop = self.four_stop
        new.window = self.window
        new.field = self.field
        new.field_seat = self.field_seat
        new.last_play = self.last_play
        new.last_seat = self.last_seat
        new.trick_leader = self.trick_leader
        new.passed = self.passed
        new.pass_run = self.pass_run
        new.seating = self.seating
        new.revolution = self.revolution
        new.eleven_back = self.eleven_back
        new.eleven_back_lasts = self.eleven_back_lasts
        new.two_back = self.two_back
        new.direction = self.direction
        new.omen = self.omen
        new.suit_lock = self.suit_lock
        new.partial_lock = self.partial_lock
        new.color_lock = self.color_lock
        new.recent_suits = self.recent_suits
        new.suit_run = self.suit_run
        new.suit_run_suits = self.suit_run_suits
        new.number_lock = self.number_lock
        new.number_run = self.number_run
        new.active = self.active
        new.finished = self.finished
        new.finished_in_trick = self.finished_in_trick
        new.bottom = self.bottom
        new.first_play_d3 = self.first_play_d3
        new.leisure_seat = self.leisure_seat
        new.final_places = self.final_places
        new.hands = self.hands
        new.blind = self.blind
        new.unused = self.unused
        new.out = self.out
        new.chosen = self.chosen
        new.stalemate = self.stalemate
        return new


def bottom_block(order: str, bottom: tuple[tuple[int, Bottom], ...]) -> list[int]:
    """Seats at the bottom, best place first (docs/RULES.md §1 Forbidden finish)."""
    if order == "federation":
        fallen = [seat for seat, how in bottom if how is Bottom.FALLEN]
        forbidden = [seat for seat, how in bottom if how is Bottom.FORBIDDEN]
        return fallen + forbidden[::-1]
    return [seat for seat, _ in bottom]


def initial_state(rules: RuleSet, players: int) -> MatchState:
    """A match before its first deal."""
    if not 2 <= players <= 5:
        raise ValueError("a match has 2 to 5 players")
    return MatchState(rules, players, rules.switched_on(), hands=(0,) * players)


# every field of a MatchState, in its declared order: the position's, then the holdings'
FIELDS: Final = tuple(f.name for f in fields(MatchState))
POSITION_FIELDS: Final = tuple(f.name for f in fields(Position))
HOLDINGS_FIELDS: Final = FIELDS[len(POSITION_FIELDS) :]
