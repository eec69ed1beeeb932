"""Commands: what a seat (or the dealer) asks the decider to do.

Cards travel as masks (see ``cards``); parsing notation into masks, and refusing
bad notation with ``bad_request``, is the caller's job (``notation``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Deal:
    """Deal the next game from ``deck`` (an order of the whole deck).

    The other draws are the dealer's too, for the rules that use them (RULES.md
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


@dataclass(frozen=True, slots=True)
class Play:
    seat: int
    cards: int
    jokers_as: tuple[int, ...] = ()
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Pass:
    seat: int
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Give:
    """Card exchange or seven-pass cards."""

    seat: int
    cards: int


@dataclass(frozen=True, slots=True)
class Discard:
    """Ten-discard cards."""

    seat: int
    cards: int


@dataclass(frozen=True, slots=True)
class Bomb:
    """Queen bomber: the ranks named."""

    seat: int
    ranks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Pick:
    """Take cards from the discard pile (salvage, king's march, zombie;
    RULES.md §5.4); no card (0) takes none."""

    seat: int
    cards: int


SeatCommand = Play | Pass | Give | Discard | Bomb | Pick
Command = Deal | SetUp | SeatCommand
