"""Why the match's lifecycle refuses a command (``decide``), beside the rules' own
``RefusalCode``: the words its refusals carry to every adapter."""

from __future__ import annotations

from enum import StrEnum


class MatchRefusalCode(StrEnum):
    """Why a command does not fit the match as it stands (who may act, its seats, its
    stage); a command the rules refuse carries the rules' ``RefusalCode``."""

    NOT_FOUND = "not_found"  # no match under that id
    PERMISSION_DENIED = "permission_denied"  # the caller may not do this to this match
    SEAT_TAKEN = "seat_taken"
    SEATS_FULL = "seats_full"
    ALREADY_STARTED = "already_started"
    NOT_STARTED = "not_started"
    REGISTRATION_REQUIRED = "registration_required"  # a rated match seats players only
