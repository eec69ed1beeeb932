"""Refusals: why the decider will not take a command (docs/RULES.md §7 refusal codes)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from .vocabulary import RefusalCode

# In order of precedence: when several apply, the first wins.
REASON_CODES: Final[tuple[RefusalCode, ...]] = tuple(RefusalCode)


@dataclass(frozen=True, slots=True)
class Refusal:
    # a RefusalCode from the rules; the match lifecycle (service/match) refuses
    # with its own vocabulary too (not_found, seat_taken...)
    code: StrEnum
    message: str

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class Refused(Exception):
    """Raised inside the decider to stop at the first rule a command breaks."""

    def __init__(self, code: StrEnum, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.refusal = Refusal(code, message)
