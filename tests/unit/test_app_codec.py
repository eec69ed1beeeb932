"""The service's event codec: a stored record it cannot read is an UnknownEvent,
never another error (a tampered stream must not crash a load)."""

from __future__ import annotations

import contextlib
from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.app.codec import UnknownEvent, decode_record
from service.rules.events import EVENT_TYPES

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=10,
)


def test_a_field_of_the_wrong_type_is_an_unknown_event() -> None:
    with pytest.raises(UnknownEvent):
        decode_record("CardsPlayed", {"seat": 0, "cards": ["3D"], "jokers_as": [], "kind": 3})


@given(st.sampled_from(sorted(EVENT_TYPES)), st.data())
def test_any_record_decodes_or_is_an_unknown_event(type_name: str, data: st.DataObject) -> None:
    # the event's own field names, each with any JSON value
    names = [field.name for field in fields(EVENT_TYPES[type_name])]
    record = data.draw(st.fixed_dictionaries({name: json_values for name in names}))
    with contextlib.suppress(UnknownEvent):
        decode_record(type_name, record)
