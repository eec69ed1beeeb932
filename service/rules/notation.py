"""Commands from notation (card codes, rank codes) and back, for every outward
surface: scenarios, the API, the CLI. Bad notation is ``bad_request``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import (
    CardCodeError,
    format_cards,
    format_mask,
    format_rank,
    mask_of,
    parse_card,
    parse_rank,
    parse_reading,
)
from .commands import Bomb, Discard, Give, Pass, Play, SeatCommand
from .refusals import Refused
from .vocabulary import RefusalCode


def parse_mask(codes: Iterable[str]) -> int:
    """The mask of ``codes``; Refused(bad_request) on unknown codes or repeats."""
    if isinstance(codes, str) or not isinstance(codes, Iterable):
        raise Refused(RefusalCode.BAD_REQUEST, "cards must be a list of card codes")
    try:
        return mask_of(parse_card(_code(code)) for code in codes)
    except (CardCodeError, ValueError) as error:
        raise Refused(RefusalCode.BAD_REQUEST, str(error)) from None


def _code(value: object) -> str:
    if not isinstance(value, str):
        raise CardCodeError(f"a card code is text, not {value!r}")
    return value


def parse_cards_list(codes: Sequence[str]) -> tuple[int, ...]:
    """Joker readings in order (card codes, or ``L``/``H`` and a suit), no mask."""
    if isinstance(codes, str):
        raise Refused(RefusalCode.BAD_REQUEST, "cards must be a list of card codes")
    try:
        return tuple(parse_reading(_code(code)) for code in codes)
    except CardCodeError as error:
        raise Refused(RefusalCode.BAD_REQUEST, str(error)) from None


def parse_ranks(codes: Sequence[str]) -> tuple[int, ...]:
    if isinstance(codes, str):
        raise Refused(RefusalCode.BAD_REQUEST, "ranks must be a list of rank codes")
    try:
        ranks = tuple(parse_rank(_code(code)) for code in codes)
    except CardCodeError as error:
        raise Refused(RefusalCode.BAD_REQUEST, str(error)) from None
    if len(set(ranks)) != len(ranks):
        raise Refused(RefusalCode.BAD_REQUEST, "a rank is named twice")
    return ranks


def seat_command(
    seat: int,
    action: str,
    cards: Sequence[str] = (),
    jokers_as: Sequence[str] = (),
    ranks: Sequence[str] = (),
) -> SeatCommand:
    """A seat's command from notation; raises Refused(bad_request)."""
    if action == "play":
        return Play(seat, parse_mask(cards), parse_cards_list(jokers_as))
    if action == "pass":
        return Pass(seat)
    if action == "give":
        return Give(seat, parse_mask(cards))
    if action == "discard":
        return Discard(seat, parse_mask(cards))
    if action == "bomb":
        return Bomb(seat, parse_ranks(ranks))
    raise Refused(RefusalCode.BAD_REQUEST, f"unknown action {action!r}")


def describe(command: SeatCommand) -> str:
    """A command in notation, e.g. ``seat 2 play 4D 5D JK as 6D``."""
    if isinstance(command, Play):
        text = f"seat {command.seat} play {' '.join(format_mask(command.cards))}"
        if command.jokers_as:
            text += " as " + " ".join(format_cards(command.jokers_as))
        return text
    if isinstance(command, Pass):
        return f"seat {command.seat} pass"
    if isinstance(command, Bomb):
        return f"seat {command.seat} bomb {' '.join(format_rank(r) for r in command.ranks)}"
    verb = "give" if isinstance(command, Give) else "discard"
    return f"seat {command.seat} {verb} {' '.join(format_mask(command.cards))}"
