"""Events: the facts a match is made of. ``evolve`` needs nothing else.

Cards are masks (see ``cards``). Derived effects are events of their own, so a
replay reads like the game: a play, then its revolution, lock, finish, flush…
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, get_args

from .vocabulary import (
    Color,
    DiscardReason,
    ElevenBack,
    EndCause,
    FallCause,
    FinishCause,
    FlushReason,
    GiveReason,
    ReverseCause,
    RevolutionCause,
    SkipCause,
    WaitingFor,
)


@dataclass(frozen=True, slots=True)
class GameDealt:
    """A game begins. ``arranged`` marks a position set up by hand (SetUp).

    ``seating`` is the turn order (empty: seat order), ``deal_start`` the seat
    dealt the first card, ``stalemate`` the order a stalemate would rank the
    players still in (hidden until the match ends; empty without the rule).
    """

    game_number: int
    hands: tuple[int, ...]
    leader: int
    blind: int = 0
    unused: int = 0
    revolution: bool = False
    previous_places: tuple[int, ...] | None = None
    arranged: bool = False
    seating: tuple[int, ...] = ()
    deal_start: int = 0
    stalemate: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class HandsSwapped:
    """Tenpenchi: two seats swap whole hands; ``hands`` are their new hands."""

    seats: tuple[int, int]
    hands: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ExchangeStarted:
    """The gives of the card exchange, in order: (giver, receiver, count, strongest)."""

    steps: tuple[tuple[int, int, int, bool], ...]


@dataclass(frozen=True, slots=True)
class CardsGiven:
    seat: int
    to: int
    cards: int
    reason: GiveReason


@dataclass(frozen=True, slots=True, init=False)
class CardsPlayed:
    seat: int
    cards: int
    kind: int
    low: int
    high: int
    jokers_as: tuple[int, ...] = ()
    reason: str = ""

    # written out, so that mypyc compiles it (README.md, Speed)
    def __init__(
        self,
        seat: int,
        cards: int,
        kind: int,
        low: int,
        high: int,
        jokers_as: tuple[int, ...] = (),
        reason: str = "",
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "jokers_as", jokers_as)
        object.__setattr__(self, "reason", reason)


@dataclass(frozen=True, slots=True, init=False)
class Passed:
    seat: int
    reason: str = ""

    # written out, so that mypyc compiles it (README.md, Speed)
    def __init__(self, seat: int, reason: str = "") -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "reason", reason)


@dataclass(frozen=True, slots=True)
class RevolutionChanged:
    revolution: bool
    cause: RevolutionCause


@dataclass(frozen=True, slots=True)
class OmenInvoked:
    seat: int


@dataclass(frozen=True, slots=True)
class ElevenBackStarted:
    reading: ElevenBack


@dataclass(frozen=True, slots=True)
class ElevenBackStrengthened:
    """Strong eleven-back (docs/RULES.md §5 #41): the eleven-back in force outlives
    the next flush and ends at the one after it."""


@dataclass(frozen=True, slots=True)
class ElevenBackEnded:
    """An eleven-back in force ends at once (six-return, docs/RULES.md §5 #42)."""

    cause: EndCause  # SIX_RETURN


@dataclass(frozen=True, slots=True)
class TwoBackStarted:
    """Two-back (docs/RULES.md §5 #43): the order in force reverses until the flush."""


@dataclass(frozen=True, slots=True)
class SuitLocked:
    """A suit lock starts; ``suits`` 0 lifts it (a single joker, docs/RULES.md §6).
    ``partial``: a partial lock (§5 #39), every play holding each of ``suits``."""

    suits: int
    partial: bool = False


@dataclass(frozen=True, slots=True)
class ColorLocked:
    """A colour lock starts (docs/RULES.md §5 #38): every play's real cards that colour."""

    color: Color


@dataclass(frozen=True, slots=True)
class LocksReleased:
    """Every lock in force ends, and every run starts afresh (Q-release, §5 #40)."""

    cause: EndCause  # QUEEN_RELEASE


@dataclass(frozen=True, slots=True)
class NumberLocked:
    rank: int


@dataclass(frozen=True, slots=True)
class DirectionReversed:
    direction: int
    cause: ReverseCause = ReverseCause.NINE_REVERSE


@dataclass(frozen=True, slots=True)
class PlayersSkipped:
    """Seats the turn passes over; ``causes`` names the skip rules of the play."""

    seats: tuple[int, ...]
    causes: tuple[SkipCause, ...] = (SkipCause.FIVE_SKIP,)


@dataclass(frozen=True, slots=True)
class StepRequired:
    """The seat must now give, discard or bomb ``count`` (seven-pass, ten-discard,
    queen bomber)."""

    seat: int
    step: WaitingFor  # SEVEN_PASS, TEN_DISCARD, QUEEN_BOMBER, a pick or KING_PASTOR
    count: int


@dataclass(frozen=True, slots=True)
class FourStopOffered:
    """After a single 8: these seats, in order, may answer with a pair of 4s."""

    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class EightCutReturnOffered:
    """After an eight-cut: these seats, in order, may answer with real 8s of
    its size (docs/RULES.md §5 #34), with a pair of 4s too when ``four_stop``."""

    seats: tuple[int, ...]
    four_stop: bool = False


@dataclass(frozen=True, slots=True)
class PilePicked:
    """Cards taken from the discard pile into ``to``'s hand (salvage, king's
    march; a zombie's card goes to the next player), docs/RULES.md §5 #49 to #51."""

    seat: int
    cards: int
    to: int
    reason: WaitingFor  # SALVAGE, KINGS_MARCH or ZOMBIE


@dataclass(frozen=True, slots=True)
class PickLapsed:
    """A pick step does not happen: when its turn came, the discard pile held no
    card it may take (docs/RULES.md §5.1 Pick, §5.6 #21: none unmarked)."""

    seat: int
    reason: WaitingFor  # SALVAGE, KINGS_MARCH or ZOMBIE


@dataclass(frozen=True, slots=True)
class CardChosen:
    """King pastor (docs/RULES.md §5 #52): the card a seat passes on; it stays in
    the hand until every choice is made."""

    seat: int
    cards: int


@dataclass(frozen=True, slots=True)
class RanksBombed:
    seat: int
    ranks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardsDiscarded:
    seat: int
    cards: int
    reason: DiscardReason


@dataclass(frozen=True, slots=True)
class PlayerFinished:
    """A seat leaves the game. ``place`` is its place now (a bottom place may
    still move up); ``leftover`` are cards it still holds: it keeps them, out of
    play, until the next deal."""

    seat: int
    place: int
    forbidden: bool = False
    cause: FinishCause = FinishCause.PLAY
    leftover: int = 0


@dataclass(frozen=True, slots=True)
class PlayerFell:
    """A seat falls to the bottom, keeping the ``leftover`` cards it holds (as
    ``PlayerFinished``): the previous 大富豪 by miyako-ochi, or the previous
    富豪 by kyo-ochi (docs/RULES.md §5 #53)."""

    seat: int
    place: int
    leftover: int = 0
    cause: FallCause = FallCause.MIYAKO_OCHI


@dataclass(frozen=True, slots=True, init=False)
class FieldFlushed:
    reason: FlushReason
    leader: int

    # written out, so that mypyc compiles it (README.md, Speed)
    def __init__(self, reason: FlushReason, leader: int) -> None:
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "leader", leader)


@dataclass(frozen=True, slots=True, init=False)
class TurnMoved:
    seat: int

    # written out, so that mypyc compiles it (README.md, Speed)
    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True)
class GameEnded:
    places: tuple[int, ...]
    gekokujo: bool = False


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """The set is over; the blind cards are revealed."""

    blind: int


# The one list of the rules' events. The record names (``EVENT_TYPES``) derive
# from it; ``evolve`` and the redaction in ``views`` match on it exhaustively, so
# mypy names each place a new event must be handled; tests/unit/test_vocabulary.py
# holds the narration and the page's words.js to it.
Event = (
    GameDealt | HandsSwapped | ExchangeStarted | CardsGiven | CardsPlayed | Passed
    | RevolutionChanged | OmenInvoked | ElevenBackStarted | ElevenBackStrengthened
    | ElevenBackEnded | TwoBackStarted | SuitLocked | ColorLocked | LocksReleased | NumberLocked
    | DirectionReversed | PlayersSkipped | StepRequired | FourStopOffered
    | EightCutReturnOffered | PilePicked | PickLapsed | CardChosen | RanksBombed
    | CardsDiscarded | PlayerFinished | PlayerFell | FieldFlushed | TurnMoved
    | GameEnded | MatchEnded
)  # fmt: skip

# what each record's "type" names
EVENT_TYPES: Final[dict[str, type[Event]]] = {cls.__name__: cls for cls in get_args(Event)}
