"""Events as plain records in card notation, and back: what the event store
keeps, exports and hashes, readable by anyone (``{"type": "CardsPlayed",
"seat": 1, "cards": ["4D", "5D", "JK"], ...}``). Decoding inverts encoding
exactly, so a stored match folds to the same state it was played in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from enum import StrEnum
from typing import Any

from . import events as ev
from . import vocabulary
from .cards import (
    LOW_RANK,
    CardCodeError,
    format_cards,
    format_rank,
    mask_codes,
    mask_of,
    parse_card,
    parse_rank,
    parse_reading,
    parse_suits,
    suit_letters,
)
from .melds import TOP_RANK, Kind

Converter = tuple[Callable[[Any], Any], Callable[[Any], Any]]


class RecordError(ValueError):
    """A record that is not an event of this engine."""


def _codes_mask(codes: list[str]) -> int:
    return mask_of(parse_card(code) for code in codes)


def _rank_code(rank: int) -> str:
    # 13 is an all-joker meld, or stairs whose joker stands above the 2; -1 a
    # stairs joker below the 3 (both only where stairs may pass the ends)
    if rank == LOW_RANK:
        return "L"
    return "JK" if rank == TOP_RANK else format_rank(rank)


def _code_rank(code: str) -> int:
    if code == "L":
        return LOW_RANK
    return TOP_RANK if code == "JK" else parse_rank(code)


_CONVERTERS: dict[str, Converter] = {
    "cards": (mask_codes, _codes_mask),
    "blind": (mask_codes, _codes_mask),
    "unused": (mask_codes, _codes_mask),
    "leftover": (mask_codes, _codes_mask),
    "hands": (
        lambda hands: [list(mask_codes(hand)) for hand in hands],
        lambda hands: tuple(_codes_mask(hand) for hand in hands),
    ),
    "jokers_as": (
        lambda cards: format_cards(cards),
        lambda codes: tuple(parse_reading(code) for code in codes),
    ),
    "ranks": (
        lambda ranks: [format_rank(rank) for rank in ranks],
        lambda codes: tuple(parse_rank(code) for code in codes),
    ),
    "suits": (suit_letters, parse_suits),
    "kind": (lambda kind: Kind(kind).name.lower(), lambda name: int(Kind[name.upper()])),
    "low": (_rank_code, _code_rank),
    "high": (_rank_code, _code_rank),
    "rank": (_rank_code, _code_rank),
    "steps": (
        lambda steps: [list(step) for step in steps],
        lambda steps: tuple((int(g), int(r), int(c), bool(s)) for g, r, c, s in steps),
    ),
}


def _tuple_or_none(value: Any) -> Any:
    return None if value is None else tuple(value)


# fields that are tuples of plain values
for _name in ("seats", "places", "previous_places", "seating", "stalemate", "causes"):
    _CONVERTERS[_name] = (_tuple_or_none, _tuple_or_none)


def _enum_fields(cls: type) -> dict[str, type[StrEnum]]:
    """The fields of ``cls`` that hold a word of the vocabulary, by their type."""
    found: dict[str, type[StrEnum]] = {}
    for f in fields(cls):
        # a name here (annotations are strings), the class itself when compiled
        kind = getattr(vocabulary, f.type, None) if isinstance(f.type, str) else f.type
        if isinstance(kind, type) and issubclass(kind, StrEnum):
            found[f.name] = kind
    return found


_ENUM_FIELDS = {name: _enum_fields(cls) for name, cls in ev.EVENT_TYPES.items()}


def to_record(event: ev.Event) -> dict[str, Any]:
    """The event's fields in notation (without its type name)."""
    record: dict[str, Any] = {}
    for f in fields(event):
        value = getattr(event, f.name)
        converter = _CONVERTERS.get(f.name)
        if converter is not None:
            value = converter[0](value)
            if isinstance(value, tuple):
                value = list(value)
        record[f.name] = value
    return record


def from_record(type_name: str, record: dict[str, Any]) -> ev.Event:
    """The event a record describes; raises RecordError when it describes none."""
    cls = ev.EVENT_TYPES.get(type_name)
    if cls is None:
        raise RecordError(f"unknown event type {type_name!r}")
    values: dict[str, Any] = {}
    try:
        for f in fields(cls):
            if f.name not in record:
                continue
            value = record[f.name]
            converter = _CONVERTERS.get(f.name)
            values[f.name] = converter[1](value) if converter is not None else value
        for name, kind in _ENUM_FIELDS[type_name].items():
            if name in values:
                values[name] = kind(values[name])
        event: ev.Event = cls(**values)
    except (CardCodeError, KeyError, TypeError, ValueError) as error:
        raise RecordError(f"{type_name}: {error}") from None
    return event
