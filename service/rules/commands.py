"""Commands: what a seat (or the dealer) asks the decider to do.

Cards travel as masks (see ``cards``); parsing notation into masks, and refusing
bad notation with ``bad_request``, is the caller's job (``notation``). A seat
command's repr is its notation, to paste back: ``parse_command('seat 2 pass')``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Deal:
    """Deal the next game from ``deck`` (an order of the whole deck).

    The other draws are the dealer's too, for the rules that use them (docs/RULES.md
    §6); the rules take each only where they need it: ``seating``, the turn
    order when seats are drawn again; ``deal_start``, the seat dealt first when
    there is no 大富豪 to start at; ``stalemate``, the order in which a
    stalemate ranks the players still in. Empty: seat order, seat 0.
    """

    deck: tuple[int, ...]
    seating: tuple[int, ...] = ()
    deal_start: int = 0
    stalemate: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class SetUp:
    """Start a game from a fully known position (scenarios, tests, disputes)."""

    hands: tuple[int, ...]
    leader: int | None = None
    revolution: bool = False
    game_number: int = 1
    previous_places: tuple[int, ...] | None = None
    skip_exchange: bool = False


@dataclass(frozen=True, slots=True, repr=False)
class Play:
    seat: int
    cards: int
    jokers_as: tuple[int, ...] = ()
    reason: str = ""

    def __repr__(self) -> str:
        return _pasteable(self)


@dataclass(frozen=True, slots=True, repr=False)
class Pass:
    seat: int
    reason: str = ""

    def __repr__(self) -> str:
        return _pasteable(self)


@dataclass(frozen=True, slots=True, repr=False)
class Give:
    """Card exchange or seven-pass cards."""

    seat: int
    cards: int

    def __repr__(self) -> str:
        return _pasteable(self)


@dataclass(frozen=True, slots=True, repr=False)
class Discard:
    """Ten-discard cards."""

    seat: int
    cards: int

    def __repr__(self) -> str:
        return _pasteable(self)


@dataclass(frozen=True, slots=True, repr=False)
class Bomb:
    """Queen bomber: the ranks named."""

    seat: int
    ranks: tuple[int, ...]

    def __repr__(self) -> str:
        return _pasteable(self)


@dataclass(frozen=True, slots=True, repr=False)
class Pick:
    """Take cards from the discard pile (salvage, king's march, zombie;
    docs/RULES.md §5.4); no card (0) takes none."""

    seat: int
    cards: int

    def __repr__(self) -> str:
        return _pasteable(self)


SeatCommand = Play | Pass | Give | Discard | Bomb | Pick
Command = Deal | SetUp | SeatCommand


def _pasteable(command: SeatCommand) -> str:
    from .notation import format_command  # notation reads commands: import when asked

    return f"parse_command({format_command(command)!r})"
