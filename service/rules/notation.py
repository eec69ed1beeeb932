"""Commands in notation and back, for every outward surface (scenarios, the
APIs, receipts, the CLI), as python-chess writes moves: one pair.

- ``written(command)`` is a command's ``Written`` form (its verb and card or rank
  codes); ``read(seat, written)`` reads one back, and ``seat_command(seat, action,
  ...)`` reads its parts. gRPC messages and REST bodies carry exactly these parts,
  and so does the record of the event an action begins with (the auditor's
  ``command_of``).
- ``format_command(command)`` is its text, ``seat 2 play 4D 5D JK as 6D`` (the
  canonical notation receipts sign), and ``parse_command(text)`` reads it back;
  a command's ``repr`` is that call, to paste back.

Bad notation is ``bad_request``; masks always print as card codes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import assert_never

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
from .commands import Bomb, Discard, Give, Pass, Pick, Play, SeatCommand
from .refusals import Refused
from .vocabulary import Action, RefusalCode


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


@dataclass(frozen=True, slots=True)
class Written:
    """A seat's command in notation, without its seat: what the APIs carry."""

    action: Action
    cards: tuple[str, ...] = ()
    jokers_as: tuple[str, ...] = ()
    ranks: tuple[str, ...] = ()
    reason: str = ""  # the service's own note (a UECda refusal), never a caller's

    def __str__(self) -> str:
        """``play 4D 5D JK as 6D``, ``pass``, ``bomb 5 T``."""
        text = " ".join((self.action, *self.cards, *self.ranks))
        if self.jokers_as:
            text += " as " + " ".join(self.jokers_as)
        return f"{text} ({self.reason})" if self.reason else text


def written(command: SeatCommand) -> Written:
    """The notation of a command."""
    match command:
        case Play():
            cards, jokers_as = tuple(format_mask(command.cards)), format_cards(command.jokers_as)
            return Written(Action.PLAY, cards, tuple(jokers_as), reason=command.reason)
        case Pass():
            return Written(Action.PASS, reason=command.reason)
        case Give():
            return Written(Action.GIVE, tuple(format_mask(command.cards)))
        case Discard():
            return Written(Action.DISCARD, tuple(format_mask(command.cards)))
        case Bomb():
            return Written(Action.BOMB, ranks=tuple(format_rank(r) for r in command.ranks))
        case Pick():
            return Written(Action.PICK, tuple(format_mask(command.cards)))
        case _:
            assert_never(command)


def seat_command(
    seat: int,
    action: str,
    cards: Sequence[str] = (),
    jokers_as: Sequence[str] = (),
    ranks: Sequence[str] = (),
    reason: str = "",
) -> SeatCommand:
    """A seat's command from its notation; raises Refused(bad_request)."""
    match action:
        case Action.PLAY:
            return Play(seat, parse_mask(cards), parse_cards_list(jokers_as), reason)
        case Action.PASS:
            return Pass(seat, reason)
        case Action.GIVE:
            return Give(seat, parse_mask(cards))
        case Action.DISCARD:
            return Discard(seat, parse_mask(cards))
        case Action.BOMB:
            return Bomb(seat, parse_ranks(ranks))
        case Action.PICK:
            return Pick(seat, parse_mask(cards))
    raise Refused(RefusalCode.BAD_REQUEST, f"unknown action {action!r}")


def read(seat: int, notation: Written) -> SeatCommand:
    """The command of ``seat`` that ``notation`` writes: ``written``'s inverse,
    ``read(command.seat, written(command)) == command``; raises Refused(bad_request)."""
    return seat_command(
        seat, notation.action, notation.cards, notation.jokers_as, notation.ranks, notation.reason
    )


def format_command(command: SeatCommand) -> str:
    """A command in notation, e.g. ``seat 2 play 4D 5D JK as 6D``."""
    return f"seat {command.seat} {written(command)}"


def parse_command(text: str) -> SeatCommand:
    """The command ``format_command`` wrote; raises Refused(bad_request)."""
    words = text.split()
    if len(words) < 3 or words[0] != "seat" or not words[1].isdigit():
        raise Refused(RefusalCode.BAD_REQUEST, f"not a command: {text!r}")
    reason = ""
    if words[-1].startswith("(") and words[-1].endswith(")"):
        reason = words.pop()[1:-1]
    seat, action, codes = int(words[1]), words[2], words[3:]
    jokers_as: list[str] = []
    if "as" in codes:
        at = codes.index("as")
        codes, jokers_as = codes[:at], codes[at + 1 :]
    if action == Action.BOMB:
        return seat_command(seat, action, ranks=codes, reason=reason)
    return seat_command(seat, action, codes, jokers_as, reason=reason)
