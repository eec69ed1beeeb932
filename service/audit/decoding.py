"""Stored events read back as the match's events, without trusting them: an
event the codec cannot read is kept with the reason, for the checks to report
by its seq, and a recorded event is compared with an expected one exactly.

The auditor decodes with code of its own: nothing it is given reaches the
serving path's decoder or its caches (an uploaded log is anyone's)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eventstore.hashing import canonical_json
from eventstore.model import StoredEvent

from ..match import MatchEvent, from_record, to_record
from ..records import BLINDING


@dataclass(frozen=True, slots=True)
class Decoded:
    stored: StoredEvent
    event: MatchEvent | None  # None: unreadable, see ``error``
    error: str = ""

    @property
    def seq(self) -> int:
        return self.stored.seq


def decode_all(events: Sequence[StoredEvent]) -> list[Decoded]:
    out: list[Decoded] = []
    for stored in events:
        try:
            out.append(Decoded(stored, decode(stored.type, stored.data)))
        except Exception as error:  # tampered data can break the codec in any way
            out.append(Decoded(stored, None, f"unreadable {stored.type!r} event: {error}"))
    return out


def decode(type_name: str, data: Any) -> MatchEvent:
    """The event a record holds; any exception when it holds none (a fresh decoding
    every time: no cache, nothing shared with the serving path)."""
    return from_record(type_name, data)


def matches(stored: StoredEvent, expected: MatchEvent) -> bool:
    """Whether ``stored`` records exactly ``expected``: same type, and data equal
    as canonical JSON (so no extra field, and ``true`` is not ``1``)."""
    if stored.type != type(expected).__name__:
        return False
    # the nonce is the blinding check's to judge
    data = {name: value for name, value in stored.data.items() if name != BLINDING}
    try:
        return canonical_json(data) == canonical_json(to_record(expected))
    except (TypeError, ValueError, RecursionError):
        return False


def describe(type_name: str, data: Any, limit: int = 300) -> str:
    """An event in a reason: its type and data as JSON (cut short)."""
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        text = repr(data)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"{type_name} {text}"


def describe_event(event: MatchEvent) -> str:
    return describe(type(event).__name__, to_record(event))
