"""The state of a match, rebuilt from events by ``evolve``.

Treat a ``MatchState`` as immutable: ``evolve`` copies before it changes
anything. It is a plain slotted class rather than a frozen dataclass because a
fold copies it once per action and that copy sits on the hot path. It avoids
what mypyc cannot compile (reading ``__slots__`` back, ``object.__new__``).
"""

from __future__ import annotations

from .melds import Meld
from .rulesets import RuleSet
from .vocabulary import Bottom, ElevenBack, Phase, WaitingFor

# Every field of a MatchState: its slots and what equality compares (``copy``
# spells them out again, for speed).
FIELDS = (
    "active",
    "blind",
    "bottom",
    "direction",
    "eleven_back",
    "exchange_steps",
    "field",
    "field_seat",
    "final_places",
    "finished",
    "first_play_d3",
    "four_stop",
    "game_number",
    "hands",
    "in_force",
    "last_play",
    "leader",
    "number_lock",
    "number_run",
    "omen",
    "out",
    "pass_run",
    "passed",
    "pending",
    "phase",
    "played",
    "players",
    "previous_places",
    "results",
    "revolution",
    "rules",
    "seating",
    "stalemate",
    "suit_lock",
    "suit_run",
    "suit_run_suits",
    "trick_leader",
    "turn",
    "unused",
)


class MatchState:
    __slots__ = FIELDS

    rules: RuleSet
    players: int
    phase: Phase
    game_number: int
    blind: int
    previous_places: tuple[int, ...] | None
    results: tuple[tuple[int, ...], ...]
    hands: tuple[int, ...]
    unused: int
    out: int  # discarded (ten-discard, queen bomb); cards kept on leaving stay in hands
    played: int
    leader: int
    turn: int | None
    exchange_steps: tuple[tuple[int, int, int, bool], ...]
    pending: tuple[tuple[WaitingFor, int], ...]
    four_stop: tuple[int, ...]
    field: Meld | None
    field_seat: int | None
    last_play: Meld | None
    trick_leader: int
    passed: int
    pass_run: int  # passes in a row since the last play (the stalemate rule)
    seating: tuple[int, ...]  # the turn order, seats round the table; empty: 0, 1…
    stalemate: tuple[int, ...]  # the order a stalemate ranks the players still in
    revolution: bool
    eleven_back: ElevenBack
    direction: int
    omen: bool
    suit_lock: int
    suit_run: int
    suit_run_suits: int
    number_lock: bool
    number_run: int
    active: int
    finished: tuple[int, ...]
    bottom: tuple[tuple[int, Bottom], ...]
    first_play_d3: bool
    final_places: tuple[int, ...] | None
    in_force: frozenset[str]  # local rules on and not switched off by an omen

    def copy(self) -> MatchState:
        # Spelled out field by field: a fold copies once per action, and this is
        # several times faster than a loop over __slots__.
        new = MatchState.__new__(MatchState)
        new.active = self.active
        new.blind = self.blind
        new.bottom = self.bottom
        new.direction = self.direction
        new.eleven_back = self.eleven_back
        new.exchange_steps = self.exchange_steps
        new.field = self.field
        new.field_seat = self.field_seat
        new.final_places = self.final_places
        new.in_force = self.in_force
        new.finished = self.finished
        new.first_play_d3 = self.first_play_d3
        new.four_stop = self.four_stop
        new.game_number = self.game_number
        new.hands = self.hands
        new.last_play = self.last_play
        new.leader = self.leader
        new.number_lock = self.number_lock
        new.number_run = self.number_run
        new.omen = self.omen
        new.out = self.out
        new.passed = self.passed
        new.pass_run = self.pass_run
        new.seating = self.seating
        new.stalemate = self.stalemate
        new.pending = self.pending
        new.phase = self.phase
        new.played = self.played
        new.players = self.players
        new.previous_places = self.previous_places
        new.results = self.results
        new.revolution = self.revolution
        new.rules = self.rules
        new.suit_lock = self.suit_lock
        new.suit_run = self.suit_run
        new.suit_run_suits = self.suit_run_suits
        new.trick_leader = self.trick_leader
        new.turn = self.turn
        new.unused = self.unused
        return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MatchState):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in FIELDS)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<MatchState {self.rules.preset} game {self.game_number} {self.phase}"
            f" turn={self.turn} waiting={self.waiting_for}>"
        )

    # -- derived facts -------------------------------------------------------

    @property
    def waiting_for(self) -> WaitingFor | None:
        if self.phase != Phase.IN_GAME:
            return None
        if self.exchange_steps:
            return WaitingFor.EXCHANGE
        if self.four_stop:
            return WaitingFor.FOUR_STOP
        if self.pending:
            return self.pending[0][0]
        return WaitingFor.PLAY

    @property
    def reversed_order(self) -> bool:
        """The strength order in force: revolution XOR eleven-back."""
        return self.revolution != (self.eleven_back == ElevenBack.STRENGTH)

    @property
    def turn_direction(self) -> int:
        return -self.direction if self.eleven_back == ElevenBack.ORDER else self.direction

    @property
    def game_over(self) -> bool:
        return self.phase in (Phase.GAME_OVER, Phase.MATCH_OVER)

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


def bottom_block(order: str, bottom: tuple[tuple[int, Bottom], ...]) -> list[int]:
    """Seats at the bottom, best place first (RULES.md §1 Forbidden finish)."""
    if order == "federation":
        fallen = [seat for seat, how in bottom if how == Bottom.FALLEN]
        forbidden = [seat for seat, how in bottom if how == Bottom.FORBIDDEN]
        return fallen + forbidden[::-1]
    return [seat for seat, _ in bottom]


def initial_state(rules: RuleSet, players: int) -> MatchState:
    """A match before its first deal."""
    if not 2 <= players <= 5:
        raise ValueError("a match has 2 to 5 players")
    state = MatchState.__new__(MatchState)
    values = dict(
        rules=rules, players=players, phase=Phase.BEFORE_DEAL, game_number=0, blind=0,
        previous_places=None, results=(), hands=(0,) * players, unused=0, out=0,
        played=0, leader=0, turn=None, exchange_steps=(), pending=(), four_stop=(),
        field=None, field_seat=None, last_play=None, trick_leader=0, passed=0,
        pass_run=0, seating=(), stalemate=(),
        revolution=False, eleven_back=ElevenBack.NONE, direction=1, omen=False, suit_lock=0,
        suit_run=0, suit_run_suits=0, number_lock=False, number_run=0, active=0,
        finished=(), bottom=(), first_play_d3=False, final_places=None,
        in_force=rules.switched_on(),
    )  # fmt: skip
    for name, value in values.items():
        setattr(state, name, value)
    return state
