"""Events: the facts a match is made of. ``evolve`` needs nothing else.

Cards are masks (see ``cards``). Derived effects are events of their own, so a
replay reads like the game: a play, then its revolution, lock, finish, flush…
"""

from __future__ import annotations

from dataclasses import dataclass


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
    reason: str  # "exchange" | "seven_pass"


@dataclass(frozen=True, slots=True)
class CardsPlayed:
    seat: int
    cards: int
    kind: int
    low: int
    high: int
    jokers_as: tuple[int, ...] = ()
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Passed:
    seat: int
    reason: str = ""


@dataclass(frozen=True, slots=True)
class RevolutionChanged:
    revolution: bool
    cause: str


@dataclass(frozen=True, slots=True)
class OmenInvoked:
    seat: int


@dataclass(frozen=True, slots=True)
class ElevenBackStarted:
    reading: str  # "strength" | "order"


@dataclass(frozen=True, slots=True)
class ElevenBackStrengthened:
    """Strong eleven-back (RULES.md §5 #41): the eleven-back in force outlives
    the next flush and ends at the one after it."""


@dataclass(frozen=True, slots=True)
class ElevenBackEnded:
    """An eleven-back in force ends at once (six-return, RULES.md §5 #42)."""

    cause: str  # "six_return"


@dataclass(frozen=True, slots=True)
class TwoBackStarted:
    """Two-back (RULES.md §5 #43): the order in force reverses until the flush."""


@dataclass(frozen=True, slots=True)
class SuitLocked:
    """A suit lock starts; ``suits`` 0 lifts it (a single joker, RULES.md §6).
    ``partial``: a partial lock (§5 #39), every play holding each of ``suits``."""

    suits: int
    partial: bool = False


@dataclass(frozen=True, slots=True)
class ColorLocked:
    """A colour lock starts (RULES.md §5 #38): every play's real cards that colour."""

    color: str  # "red" | "black"


@dataclass(frozen=True, slots=True)
class LocksReleased:
    """Every lock in force ends, and every run starts afresh (Q-release, §5 #40)."""

    cause: str  # "queen_release"


@dataclass(frozen=True, slots=True)
class NumberLocked:
    rank: int


@dataclass(frozen=True, slots=True)
class DirectionReversed:
    direction: int
    cause: str = "nine_reverse"  # or "six_reverse", "queen_reverse", "king_reverse"


@dataclass(frozen=True, slots=True)
class PlayersSkipped:
    """Seats the turn passes over; ``causes`` names the skip rules of the play."""

    seats: tuple[int, ...]
    causes: tuple[str, ...] = ("five_skip",)  # and "king_skip", "ten_skip" (added up)


@dataclass(frozen=True, slots=True)
class StepRequired:
    """The seat must now give, discard or bomb ``count`` (seven-pass, ten-discard,
    queen bomber)."""

    seat: int
    step: str  # "seven_pass" | "ten_discard" | "queen_bomber", §5.4's picks, "king_pastor"
    count: int


@dataclass(frozen=True, slots=True)
class FourStopOffered:
    """After a single 8: these seats, in order, may answer with a pair of 4s."""

    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class EightCutReturnOffered:
    """After an eight-cut: these seats, in order, may answer with real 8s of
    its size (RULES.md §5 #34), with a pair of 4s too when ``four_stop``."""

    seats: tuple[int, ...]
    four_stop: bool = False


@dataclass(frozen=True, slots=True)
class PilePicked:
    """Cards taken from the discard pile into ``to``'s hand (salvage, king's
    march; a zombie's card goes to the next player), RULES.md §5 #49 to #51."""

    seat: int
    cards: int
    to: int
    reason: str  # "salvage" | "kings_march" | "zombie"


@dataclass(frozen=True, slots=True)
class CardChosen:
    """King pastor (RULES.md §5 #52): the card a seat passes on; it stays in
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
    reason: str  # "ten_discard" | "queen_bomber"


@dataclass(frozen=True, slots=True)
class PlayerFinished:
    """A seat leaves the game. ``place`` is its place now (a bottom place may
    still move up); ``leftover`` are cards it still holds: it keeps them, out of
    play, until the next deal."""

    seat: int
    place: int
    forbidden: bool = False
    cause: str = "play"
    leftover: int = 0


@dataclass(frozen=True, slots=True)
class PlayerFell:
    """A seat falls to the bottom, keeping the ``leftover`` cards it holds (as
    ``PlayerFinished``): the previous 大富豪 by miyako-ochi, or the previous
    富豪 by kyo-ochi (RULES.md §5 #53)."""

    seat: int
    place: int
    leftover: int = 0
    cause: str = "miyako_ochi"  # "miyako_ochi" | "kyo_ochi"


@dataclass(frozen=True, slots=True)
class FieldFlushed:
    reason: str
    leader: int


@dataclass(frozen=True, slots=True)
class TurnMoved:
    seat: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    places: tuple[int, ...]
    gekokujo: bool = False


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """The set is over; the blind cards are revealed."""

    blind: int


Event = (
    GameDealt | HandsSwapped | ExchangeStarted | CardsGiven | CardsPlayed | Passed
    | RevolutionChanged | OmenInvoked | ElevenBackStarted | ElevenBackStrengthened
    | ElevenBackEnded | TwoBackStarted | SuitLocked | ColorLocked | LocksReleased | NumberLocked
    | DirectionReversed | PlayersSkipped | StepRequired | FourStopOffered
    | EightCutReturnOffered | PilePicked | CardChosen | RanksBombed
    | CardsDiscarded | PlayerFinished | PlayerFell | FieldFlushed | TurnMoved
    | GameEnded | MatchEnded
)  # fmt: skip

EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        GameDealt, HandsSwapped, ExchangeStarted, CardsGiven, CardsPlayed, Passed,
        RevolutionChanged, OmenInvoked, ElevenBackStarted, ElevenBackStrengthened,
        ElevenBackEnded, TwoBackStarted, SuitLocked, ColorLocked, LocksReleased, NumberLocked,
        DirectionReversed,
        PlayersSkipped, StepRequired, FourStopOffered, EightCutReturnOffered, PilePicked,
        CardChosen, RanksBombed,
        CardsDiscarded, PlayerFinished, PlayerFell, FieldFlushed, TurnMoved,
        GameEnded, MatchEnded,
    )
}  # fmt: skip
