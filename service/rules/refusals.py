"""Refusals: why the decider will not take a command (FORMAT.md reject codes)."""

from __future__ import annotations

from dataclasses import dataclass

# In order of precedence: when several apply, the first wins.
REASON_CODES = (
    "bad_request",
    "game_over",
    "not_your_turn",
    "wrong_action",
    "card_not_in_hand",
    "cannot_pass",
    "must_include_d3",
    "invalid_meld",
    "shape_mismatch",
    "suit_locked",
    "number_locked",
    "not_stronger",
)


@dataclass(frozen=True, slots=True)
class Refusal:
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class Refused(Exception):
    """Raised inside the decider to stop at the first rule a command breaks."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.refusal = Refusal(code, message)
