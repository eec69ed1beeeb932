"""Hypothesis strategies for any protobuf message, from its descriptor: every
field of the right type with values the server must survive (extreme and
negative ints, enum numbers no one defined, NaN, long repeated fields, nested
messages), and strategies of one's own for fields by name (real match ids...)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import strategies as st

MAX_DEPTH = 3  # Struct holds Values that hold Structs...: stop somewhere
Field = FieldDescriptor


def _ints(bits: int, signed: bool) -> st.SearchStrategy[int]:
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    edges = sorted({low, high, 0, 1, min(high, 2**31), max(low, -1)})
    # small ones too: seat counts and seqs that mean something, to get past the checks
    return st.sampled_from(edges) | st.integers(max(low, -2), 6) | st.integers(low, high)


_NASTY_FLOATS = st.sampled_from([float("nan"), float("inf"), float("-inf"), -0.0, 1e308])
_SCALARS: dict[int, st.SearchStrategy[Any]] = {
    Field.CPPTYPE_INT32: _ints(32, True),
    Field.CPPTYPE_INT64: _ints(64, True),
    Field.CPPTYPE_UINT32: _ints(32, False),
    Field.CPPTYPE_UINT64: _ints(64, False),
    Field.CPPTYPE_DOUBLE: _NASTY_FLOATS | st.floats(),
    Field.CPPTYPE_FLOAT: _NASTY_FLOATS | st.floats(width=32),
    Field.CPPTYPE_BOOL: st.booleans(),
}


def _many(element: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    """Mostly a few elements, now and then very many."""
    return st.lists(element, max_size=4) | st.lists(element, min_size=60, max_size=150)


class MessageStrategies:
    def __init__(self, by_field_name: Mapping[str, st.SearchStrategy[Any]]) -> None:
        # strategies for one (element) value of the fields so named, whatever the message
        self.by_field_name = by_field_name
        self._made: dict[tuple[str, int], st.SearchStrategy[Message]] = {}

    def of(self, descriptor: Descriptor, depth: int = 0) -> st.SearchStrategy[Message]:
        key = (descriptor.full_name, depth)
        if key not in self._made:
            cls = message_factory.GetMessageClass(descriptor)
            alone = {
                field.name: self._maybe(field, depth)
                for field in descriptor.fields
                if not _in_oneof(field)
            }
            # one member of each oneof at most (setting several keeps the last only)
            oneofs = [
                st.none()
                | st.one_of(
                    [
                        st.tuples(st.just(field.name), self._field(field, depth))
                        for field in oneof.fields
                    ]
                )
                for oneof in descriptor.oneofs
                if len(oneof.fields) > 1
            ]
            self._made[key] = st.tuples(st.fixed_dictionaries(alone), st.tuples(*oneofs)).map(
                lambda drawn: _build(cls, descriptor, {**drawn[0], **dict(filter(None, drawn[1]))})
            )
        return self._made[key]

    def _maybe(self, field: Field, depth: int) -> st.SearchStrategy[Any]:
        """A value, or none (left unset), but always one for fields named by the caller."""
        value = self._field(field, depth)
        return value if field.name in self.by_field_name else st.none() | value

    def _field(self, field: Field, depth: int) -> st.SearchStrategy[Any]:
        if _is_map(field):
            key_field, value_field = _message_type(field).fields
            return st.dictionaries(
                self._single(key_field, depth), self._single(value_field, depth), max_size=4
            )
        if field.is_repeated:
            return _many(self._single(field, depth))
        return self._single(field, depth)

    def _single(self, field: Field, depth: int) -> st.SearchStrategy[Any]:
        if field.name in self.by_field_name:
            return self.by_field_name[field.name]
        if field.cpp_type == Field.CPPTYPE_MESSAGE:
            if depth >= MAX_DEPTH:
                return st.none()
            return self.of(_message_type(field), depth + 1)
        if field.cpp_type == Field.CPPTYPE_ENUM:
            assert field.enum_type is not None
            known = [value.number for value in field.enum_type.values]
            # mostly a defined value, to get past the enum's check; any number at times
            return st.sampled_from(known) | st.sampled_from(known) | _ints(32, True)
        if field.type == Field.TYPE_STRING:
            return st.text(max_size=40)
        if field.type == Field.TYPE_BYTES:
            return st.binary(max_size=64)
        return _SCALARS[field.cpp_type]


def _message_type(field: Field) -> Descriptor:
    assert field.message_type is not None, field.full_name
    return field.message_type


def _in_oneof(field: Field) -> bool:
    """In a oneof of several fields (proto3 optional makes a oneof of one)."""
    oneof = field.containing_oneof
    return oneof is not None and len(oneof.fields) > 1


def _is_map(field: Field) -> bool:
    return (
        field.is_repeated
        and field.message_type is not None
        and field.message_type.GetOptions().map_entry
    )


def _build(cls: type[Message], descriptor: Descriptor, values: dict[str, Any]) -> Message:
    message = cls()
    for name, value in values.items():
        if value is None:
            continue
        field = descriptor.fields_by_name[name]
        # a value this field cannot hold (a closed enum's unknown number...) stays unset
        with contextlib.suppress(ValueError, TypeError, OverflowError):
            _set(message, field, value)
    return message


def _set(message: Message, field: Field, value: Any) -> None:
    target = getattr(message, field.name)
    if _is_map(field):
        value_is_message = _message_type(field).fields_by_name["value"].message_type is not None
        for key, item in value.items():
            if item is None:
                continue
            if value_is_message:
                target[key].CopyFrom(item)
            else:
                target[key] = item
    elif field.is_repeated:
        for item in value:
            if item is None:
                continue
            if field.cpp_type == Field.CPPTYPE_MESSAGE:
                target.add().CopyFrom(item)
            else:
                target.append(item)
    elif field.cpp_type == Field.CPPTYPE_MESSAGE:
        target.CopyFrom(value)
    else:
        setattr(message, field.name, value)
