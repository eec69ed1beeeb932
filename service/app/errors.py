"""The one error the service refuses a request with, and its kinds: each adapter maps a
kind to its own status (gRPC ``service/grpc/mapping.py``, HTTP ``service/rest/errors.py``)."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from ..match.refusals import MatchRefusalCode as MatchRefusalCode
from ..rules.vocabulary import RefusalCode as RefusalCode

if TYPE_CHECKING:
    from ..records import SignedRecord


class QuotaReason(enum.StrEnum):
    """Why a quota refused (``quotas``): the reason code of its refusal."""

    CREATES = "quota_creates"  # this caller created its limit of matches in the window
    BOTS = "quota_bots"  # this caller's bots playing at once are at its limit
    BOTS_GLOBAL = "quota_bots_global"  # every caller's bots playing at once are at the limit
    AUDITS = "quota_audits"  # this caller's audits running at once are at its limit
    ANALYSES = "quota_analyses"  # this caller's analyses queued or running are at its limit
    ANALYSES_GLOBAL = "quota_analyses_global"  # every caller's analyses are at the limit
    SEATS = "quota_seats"  # this caller holds its limit of seats taken from the lobby


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


class ServiceCode(enum.StrEnum):
    """The service's own reasons, beside the rules' (``RefusalCode``), the match's
    (``MatchRefusalCode``) and the quotas' (``QuotaReason``)."""

    UNAUTHENTICATED = "unauthenticated"
    BUSY = "busy"  # lost a race: the same request may succeed at once
    UNAVAILABLE = "unavailable"
    REQUEST_ID_REUSED = "request_id_reused"  # the same request id for another request
    ALREADY_QUEUED = "already_queued"
    NAME_TAKEN = "name_taken"
    MATCH_NOT_OVER = "match_not_over"
    ANALYSIS_NOT_REQUESTED = "analysis_not_requested"  # none kept, none under way: POST it
    # input limits (``inputs``)
    TOO_LONG = "too_long"
    TOO_MANY = "too_many"
    INVALID_NAME = "invalid_name"
    REQUEST_ID_TOO_SHORT = "request_id_too_short"
    TURN_TIME_TOO_SHORT = "turn_time_too_short"
    TOO_MANY_GAMES = "too_many_games"  # games per set past the limit: the input, not a quota


# every vocabulary a ServiceError's code comes from
REASON_VOCABULARIES: tuple[type[enum.StrEnum], ...] = (
    RefusalCode,
    MatchRefusalCode,
    ServiceCode,
    QuotaReason,
)

_KIND_OF_CODE: dict[str, ErrorKind] = {
    MatchRefusalCode.NOT_FOUND: ErrorKind.NOT_FOUND,
    ServiceCode.ANALYSIS_NOT_REQUESTED: ErrorKind.NOT_FOUND,
    ServiceCode.UNAUTHENTICATED: ErrorKind.UNAUTHENTICATED,
    MatchRefusalCode.PERMISSION_DENIED: ErrorKind.PERMISSION_DENIED,
    ServiceCode.BUSY: ErrorKind.BUSY,
    ServiceCode.UNAVAILABLE: ErrorKind.UNAVAILABLE,
    # the input is wrong whatever the match's state
    RefusalCode.BAD_REQUEST: ErrorKind.BAD_INPUT,
    RefusalCode.INVALID_MELD: ErrorKind.BAD_INPUT,
    ServiceCode.TOO_LONG: ErrorKind.BAD_INPUT,
    ServiceCode.TOO_MANY: ErrorKind.BAD_INPUT,
    ServiceCode.INVALID_NAME: ErrorKind.BAD_INPUT,
    ServiceCode.REQUEST_ID_TOO_SHORT: ErrorKind.BAD_INPUT,
    ServiceCode.TURN_TIME_TOO_SHORT: ErrorKind.BAD_INPUT,
    ServiceCode.TOO_MANY_GAMES: ErrorKind.BAD_INPUT,
    **{reason: ErrorKind.EXHAUSTED for reason in QuotaReason},
}


def kind_of(code: enum.StrEnum) -> ErrorKind:
    """The kind of a refusal's code: a rules reason code not named above is REFUSED."""
    return _KIND_OF_CODE.get(code, ErrorKind.REFUSED)


class ServiceError(Exception):
    """A request the service will not carry out. ``code`` is a member of one of
    ``REASON_VOCABULARIES``: a rules reason code (docs/RULES.md §7), the match's
    (not_found, permission_denied, seats_full…), the service's own (unauthenticated,
    busy, request_id_reused, an input limit's) or a quota's. ``kind`` says which
    status the adapters answer with."""

    def __init__(self, code: enum.StrEnum, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        # a refusal judged on the match: the signed refusal receipt its answer carries
        self.receipt: SignedRecord | None = None
        self.retry_after: int | None = None  # seconds after which it may succeed (a quota)

    @property
    def kind(self) -> ErrorKind:
        return kind_of(self.code)
