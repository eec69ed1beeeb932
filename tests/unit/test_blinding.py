"""Every event type with a field some viewer cannot see during play is blinded.

Each type of the rules' events and the match's own is made with every field filled
(cards where cards go, a seat other than the viewer's where a seat goes) and shown to
each seat and to a spectator through the one function every outward path uses; a type
of which any viewer sees less than the whole record holds a hidden field, and must be
stored with its blinding nonce. A new event type is checked the day it is added."""

from __future__ import annotations

import dataclasses
import types
import typing
from enum import Enum
from typing import Any

import pytest

from eventstore import StoredEvent
from service.app.codec import blinded, encode
from service.app.service import visible
from service.match.events import LIFECYCLE_EVENT_TYPES
from service.records import BLINDED_TYPES, BLINDING, blinding_nonce, is_blinded
from service.rules import events as ev
from service.rules.views import SPECTATOR, Viewer

ALL_TYPES: dict[str, type] = {**ev.EVENT_TYPES, **LIFECYCLE_EVENT_TYPES}
SEATS = 5
SEED = bytes(range(32))


def _value(hint: Any) -> Any:
    """A value of the field's type with something in it: one card (bit 1) for a card
    mask, seat 1 for a seat, one of each for a tuple."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return _value(next(arg for arg in typing.get_args(hint) if arg is not type(None)))
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return (_value(args[0]), _value(args[0]))
        return tuple(_value(arg) for arg in args)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return next(iter(hint))
    if hint is bool:
        return True
    if hint is int:
        return 1
    if hint is str:
        return ""
    if origin is dict or hint is dict:
        return {}
    raise AssertionError(f"no sample value of {hint!r}")


def _sample(cls: type) -> Any:
    hints = typing.get_type_hints(cls)
    values = {field.name: _value(hints[field.name]) for field in dataclasses.fields(cls)}
    if "seats" in values and isinstance(values["seats"], tuple):
        values["seats"] = tuple(range(1, 1 + len(values["seats"])))
    return cls(**values)


def _stored(event: Any) -> StoredEvent:
    record = encode(event)
    return StoredEvent("m:x", 3, record.type, record.schema, record.data, "", 0, "", "")


def _hides_something(event: Any) -> bool:
    stored = _stored(event)
    whole = visible(stored, SPECTATOR, revealed=True)
    viewers = [SPECTATOR, *(Viewer.of_seat(seat) for seat in range(SEATS))]
    return any(visible(stored, viewer, revealed=False) != whole for viewer in viewers)


@pytest.mark.parametrize("name", sorted(ALL_TYPES))
def test_an_event_type_with_a_hidden_field_is_stored_with_its_nonce(name: str) -> None:
    event = _sample(ALL_TYPES[name])
    if _hides_something(event):
        assert is_blinded(name), f"{name} hides a field from some viewer but has no nonce"
        stored = blinded(encode(event), SEED, 3)
        assert stored.data[BLINDING] == blinding_nonce(SEED, 3)


def test_the_enumeration_finds_the_hidden_fields_it_must() -> None:
    """The check can fail: the types known to hide cards are found to."""
    hiding = {name for name, cls in ALL_TYPES.items() if _hides_something(_sample(cls))}
    assert {"GameDealt", "HandsSwapped", "CardsGiven", "CardChosen", "PlayerFinished"} <= hiding
    assert "PlayerFell" in hiding and "CardsPlayed" not in hiding
    assert hiding <= BLINDED_TYPES
