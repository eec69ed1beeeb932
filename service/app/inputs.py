"""Limits on what a caller may hand the service, checked before anything is
decided or stored: every adapter (gRPC, REST) goes through GameService, so
each gets the same checks and the same reason codes.

Reason codes: ``too_long`` (a string or bytes past its limit), ``too_many`` (more
items than allowed), ``invalid_name`` (a control, format or line/paragraph
separator character in a name), ``request_id_too_short`` (a create or join request id under
128 bits), ``turn_time_too_short`` (a turn limit under ``MIN_TURN_SECONDS``)."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import MatchRefusalCode, RefusalCode, ServiceCode, ServiceError

MAX_CLIENT_SEED_BYTES = 64
MAX_NAME_CHARS = 32
MAX_REQUEST_ID_CHARS = 128
# a create or join request id is the caller's secret (it gives back the seat tokens):
# 22 characters of base64 or uuid4 hex carry at least 128 bits
MIN_SECRET_REQUEST_ID_CHARS = 22
MAX_MATCH_ID_CHARS = 64
MAX_OPTIONS = 64
MAX_OPTION_NAME_CHARS = 40
MAX_OPTION_VALUE_CHARS = 32
MIN_TURN_SECONDS = 1.0  # 0: no turn timer
# control (Cc), format (Cf: bidirectional marks and overrides, zero-width characters,
# U+061C), line and paragraph separators (Zl, Zp) and lone surrogates (Cs): none is
# seen as itself, and a control or separator breaks a line of a text record
REFUSED_IN_NAMES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def check_request_id(request_id: str, secret: bool = False) -> None:
    """A request id: at most 128 characters; ``secret`` (create, join) at least 22."""
    if len(request_id) > MAX_REQUEST_ID_CHARS:
        raise ServiceError(
            ServiceCode.TOO_LONG, f"a request id is at most {MAX_REQUEST_ID_CHARS} chars"
        )
    if secret and request_id and len(request_id) < MIN_SECRET_REQUEST_ID_CHARS:
        raise ServiceError(
            ServiceCode.REQUEST_ID_TOO_SHORT,
            f"this request id is the caller's secret: give at least "
            f"{MIN_SECRET_REQUEST_ID_CHARS} random characters (128 bits), e.g. a uuid4 in hex",
        )


def check_match_id(match_id: str) -> None:
    if len(match_id) > MAX_MATCH_ID_CHARS:
        raise ServiceError(MatchRefusalCode.NOT_FOUND, "no match has an id that long")


def check_client_seed(seed: bytes) -> None:
    if len(seed) > MAX_CLIENT_SEED_BYTES:
        raise ServiceError(
            ServiceCode.TOO_LONG,
            f"a client seed is at most {MAX_CLIENT_SEED_BYTES} bytes, not {len(seed)}",
        )


def check_client_seeds(seeds: Sequence[bytes], players: int) -> None:
    if len(seeds) > players:
        raise ServiceError(ServiceCode.TOO_MANY, f"at most one client seed per seat ({players})")
    for seed in seeds:
        check_client_seed(seed)


def check_name(name: str) -> None:
    """A seat's name: at most 32 characters, none of a category in ``REFUSED_IN_NAMES``."""
    if len(name) > MAX_NAME_CHARS:
        raise ServiceError(ServiceCode.TOO_LONG, f"a name is at most {MAX_NAME_CHARS} characters")
    for char in name:
        if unicodedata.category(char) in REFUSED_IN_NAMES:
            raise ServiceError(
                ServiceCode.INVALID_NAME, f"a name may not hold the character U+{ord(char):04X}"
            )


def check_options(options: Mapping[str, Any]) -> None:
    """Option overrides: few, short names, scalar values (the rule set checks the rest)."""
    if len(options) > MAX_OPTIONS:
        raise ServiceError(ServiceCode.TOO_MANY, f"at most {MAX_OPTIONS} options")
    for name, value in options.items():
        if len(name) > MAX_OPTION_NAME_CHARS:
            raise ServiceError(
                ServiceCode.TOO_LONG, f"an option name is at most {MAX_OPTION_NAME_CHARS}"
            )
        if isinstance(value, str) and len(value) > MAX_OPTION_VALUE_CHARS:
            raise ServiceError(
                ServiceCode.TOO_LONG,
                f"option {name!r}: a value is at most {MAX_OPTION_VALUE_CHARS} chars",
            )
        if value is not None and not isinstance(value, str | bool | int | float):
            raise ServiceError(
                RefusalCode.BAD_REQUEST, f"option {name!r} takes a number, bool or string"
            )


def check_turn_seconds(seconds: float) -> None:
    if 0 < seconds < MIN_TURN_SECONDS:
        raise ServiceError(
            ServiceCode.TURN_TIME_TOO_SHORT,
            f"a turn time limit is at least {MIN_TURN_SECONDS:g} s (none: no turn timer)",
        )
