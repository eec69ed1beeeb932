"""The one error the service refuses a request with."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..records import SignedRecord


class ServiceError(Exception):
    """A request the service will not carry out. ``code`` is a rules reason
    code (docs/RULES.md §7) or one of: not_found, unauthenticated, permission_denied,
    already_started, not_started, seats_full, busy, request_id_reused, or an input
    limit's (``inputs``: too_long, too_many, invalid_name, request_id_too_short,
    turn_time_too_short)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        # a refusal judged on the match: the signed refusal receipt its answer carries
        self.receipt: SignedRecord | None = None
