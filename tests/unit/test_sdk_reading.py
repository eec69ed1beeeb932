"""The SDK reads a Struct (an event's data, a match's options) as ``json_format`` would,
its whole numbers as ints."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format, struct_pb2
from hypothesis import given
from hypothesis import strategies as st

from clients.sdk import _plain

SCALARS = (
    st.none()
    | st.booleans()
    | st.text(max_size=8)
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=20,
)


def _whole(value: Any) -> Any:
    """json_format's reading with its whole numbers made ints."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole(item) for item in value]
    if isinstance(value, dict):
        return {key: _whole(item) for key, item in value.items()}
    return value


@given(st.dictionaries(st.text(max_size=6), JSON, max_size=6))
def test_a_struct_reads_as_json_format_reads_it(data: dict[str, Any]) -> None:
    struct = struct_pb2.Struct()
    struct.update(data)
    read = _plain(struct)
    assert read == _whole(json_format.MessageToDict(struct))
    assert repr(read) == repr(_whole(json_format.MessageToDict(struct)))  # ints stay ints


def test_seats_and_counts_are_ints_and_cards_stay_strings() -> None:
    struct = struct_pb2.Struct()
    struct.update({"seat": 2, "cards": ["3S", "JK"], "count": None, "ratio": 0.5})
    assert _plain(struct) == {"seat": 2, "cards": ["3S", "JK"], "count": None, "ratio": 0.5}
    assert type(_plain(struct)["seat"]) is int
