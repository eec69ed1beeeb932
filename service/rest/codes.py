"""The REST layer's own reason codes: what it refuses before the service sees a
request (the perimeter, Litestar's routing and validation, its own input checks),
beside the service's (``service.app.errors.REASON_VOCABULARIES``)."""

from __future__ import annotations

from enum import StrEnum


class RestCode(StrEnum):
    # the perimeter (perimeter.py)
    HOST_NOT_ALLOWED = "host_not_allowed"
    ORIGIN_NOT_ALLOWED = "origin_not_allowed"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    # Litestar's own refusals (errors.py), beside the service's codes for 400 to 404
    METHOD_NOT_ALLOWED = "method_not_allowed"
    TOO_LARGE = "too_large"
    # a table's options (tables.py)
    BAD_BOTS = "bad_bots"
    TOO_MANY_BOTS = "too_many_bots"
    UNKNOWN_PRESET = "unknown_preset"
    UNKNOWN_OPTION = "unknown_option"
    BAD_SEAT = "bad_seat"
    BAD_TIME = "bad_time"
    # sign-ups past their limit (players.py)
    TOO_MANY_REGISTRATIONS = "too_many_registrations"
    # a caller's reads of matches past its rate (read_rate.py), as nginx says it (deploy/)
    RATE_LIMITED = "rate_limited"
    # event streams past their bounds (streams.py)
    TOO_MANY_STREAMS = "too_many_streams"
    STREAMS_FULL = "streams_full"
    # the audit workers (auditing.py)
    AUDIT_BUSY = "audit_busy"
    AUDIT_UNAVAILABLE = "audit_unavailable"
    # the server's own faults
    STORE_ERROR = "store_error"
    INTERNAL = "internal"
