"""The one error the service refuses a request with, and its kinds: each adapter maps a
kind to its own status (gRPC ``service/grpc/mapping.py``, HTTP ``service/rest/errors.py``)."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..records import SignedRecord


class QuotaReason(enum.StrEnum):
    """Why a quota refused (``quotas``): the reason code of its refusal."""

    CREATES = "quota_creates"  # this caller created its limit of matches in the window
    BOTS = "quota_bots"  # this caller's bots playing at once are at its limit
    BOTS_GLOBAL = "quota_bots_global"  # every caller's bots playing at once are at the limit
    AUDITS = "quota_audits"  # this caller's audits running at once are at its limit


class ErrorKind(enum.StrEnum):
    """What sort of failure a request met, whatever its code."""

    NOT_FOUND = "not_found"
    UNAUTHENTICATED = "unauthenticated"
    PERMISSION_DENIED = "permission_denied"
    BAD_INPUT = "bad_input"  # malformed input (notation, an invalid meld, a limit): the caller's
    REFUSED = "refused"  # well-formed, but the match's state forbids it: every other refusal
    BUSY = "busy"  # lost a race: the same request may succeed at once
    EXHAUSTED = "exhausted"  # a quota is used up: the same request may succeed later
    UNAVAILABLE = "unavailable"  # the event store cannot serve now


GAMES_CODE = "too_many_games"  # games per set past the limit: the input, not a quota

_KIND_OF_CODE: dict[str, ErrorKind] = {
    "not_found": ErrorKind.NOT_FOUND,
    "unauthenticated": ErrorKind.UNAUTHENTICATED,
    "permission_denied": ErrorKind.PERMISSION_DENIED,
    "busy": ErrorKind.BUSY,
    "unavailable": ErrorKind.UNAVAILABLE,
    # the input is wrong whatever the match's state
    "bad_request": ErrorKind.BAD_INPUT,
    "invalid_meld": ErrorKind.BAD_INPUT,
    "too_long": ErrorKind.BAD_INPUT,
    "too_many": ErrorKind.BAD_INPUT,
    "invalid_name": ErrorKind.BAD_INPUT,
    "request_id_too_short": ErrorKind.BAD_INPUT,
    "turn_time_too_short": ErrorKind.BAD_INPUT,
    GAMES_CODE: ErrorKind.BAD_INPUT,
    **{reason: ErrorKind.EXHAUSTED for reason in QuotaReason},
}


def kind_of(code: str) -> ErrorKind:
    """The kind of a refusal's code: a rules reason code not named above is REFUSED."""
    return _KIND_OF_CODE.get(code, ErrorKind.REFUSED)


class ServiceError(Exception):
    """A request the service will not carry out. ``code`` is a rules reason
    code (docs/RULES.md §7) or one of: not_found, unauthenticated, permission_denied,
    already_started, not_started, seats_full, busy, request_id_reused, an input
    limit's (``inputs``: too_long, too_many, invalid_name, request_id_too_short,
    turn_time_too_short; too_many_games) or a quota's (``QuotaReason``). ``kind`` says
    which status the adapters answer with."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        # a refusal judged on the match: the signed refusal receipt its answer carries
        self.receipt: SignedRecord | None = None
        self.retry_after: int | None = None  # seconds after which it may succeed (a quota)

    @property
    def kind(self) -> ErrorKind:
        return kind_of(self.code)
