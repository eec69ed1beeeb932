"""A match's events as plain records and back: the rules' events in card notation
(``rules.records``), the lifecycle's field by field (tuples as lists). What the event
store keeps and hashes, and what the auditor reads back."""

from __future__ import annotations

from dataclasses import fields
from enum import StrEnum
from typing import Any

from ..rules import events as rules_events
from ..rules.records import RecordError
from ..rules.records import from_record as rules_from_record
from ..rules.records import to_record as rules_to_record
from ..rules.vocabulary import WaitingFor
from .events import (
    LIFECYCLE_EVENT_TYPES,
    AbandonReason,
    BotKind,
    MatchAbandoned,
    MatchEvent,
    SeatJoined,
    TurnTimedOut,
)

MATCH_STREAM = "m:"  # the prefix of a match's stream id


def stream_of(match_id: str) -> str:
    """The event stream of a match (its Redis keys share the ``{m:<id>}`` slot)."""
    return f"{MATCH_STREAM}{match_id}"


def match_id_of(stream: str) -> str | None:
    """The match whose stream ``stream`` is; None for a stream of no match."""
    return stream[len(MATCH_STREAM) :] if stream.startswith(MATCH_STREAM) else None


# fields added later, left out while they hold their default: the records (and so the
# hashes) of every event from before them stay what they were
_OMITTED_AT_DEFAULT: dict[str, object] = {"rated": False, "player": "", "lobby": False}
_KEPT = object()
# fields that hold a word of a vocabulary, recorded as its value
_WORDS: dict[tuple[type, str], type[StrEnum]] = {
    (SeatJoined, "bot"): BotKind,
    (TurnTimedOut, "waiting_for"): WaitingFor,
    (MatchAbandoned, "reason"): AbandonReason,
}
# the ones that may be None (no bot), recorded as "" as they were before they were typed
_NONE_AS_EMPTY = frozenset({(SeatJoined, "bot")})


def to_record(event: MatchEvent) -> dict[str, Any]:
    """The event's data as plain values (its type is its class's name)."""
    if type(event) in _LIFECYCLE:
        return {
            f.name: _plain(type(event), f.name, getattr(event, f.name))
            for f in fields(event)
            if _OMITTED_AT_DEFAULT.get(f.name, _KEPT) != getattr(event, f.name)
        }
    return rules_to_record(event)  # type: ignore[arg-type]


def from_record(type_name: str, data: dict[str, Any]) -> MatchEvent:
    """The event a record holds; RecordError (or the dataclass's TypeError) if none."""
    if type_name in rules_events.EVENT_TYPES:
        return rules_from_record(type_name, data)
    cls = LIFECYCLE_EVENT_TYPES.get(type_name)
    if cls is None:
        raise RecordError(f"unknown event type {type_name!r}")
    if not isinstance(data, dict):
        raise RecordError("the data is not an object")
    values = {
        f.name: tuple(data[f.name]) if isinstance(data.get(f.name), list) else data[f.name]
        for f in fields(cls)
        if f.name in data
    }
    for (owner, name), kind in _WORDS.items():
        if owner is cls and name in values:
            values[name] = _word(kind, values[name], cls, name)
    event: MatchEvent = cls(**values)
    return event


def _plain(cls: type, name: str, value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    return "" if value is None and (cls, name) in _NONE_AS_EMPTY else value


def _word(kind: type[StrEnum], value: Any, cls: type, name: str) -> StrEnum | None:
    if value == "" and (cls, name) in _NONE_AS_EMPTY:
        return None
    try:
        return kind(value)
    except ValueError:
        raise RecordError(f"{cls.__name__}: {name} {value!r} is not a {kind.__name__}") from None


_LIFECYCLE = frozenset(LIFECYCLE_EVENT_TYPES.values())
