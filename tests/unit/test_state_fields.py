"""``Position`` and ``MatchState`` declare each field once; their hot ``copy``
methods are written out from those declarations, and these tests hold them
together. The position holds no card a view hides; the holdings hold them all."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest

from service.rules import initial_state, rule_set
from service.rules import state as state_module
from service.rules.state import FIELDS, HOLDINGS_FIELDS, POSITION_FIELDS, MatchState, Position


@pytest.mark.skipif(
    not state_module.__file__ or not state_module.__file__.endswith(".py"),
    reason="the compiled engine keeps no source to read; its copies are those of the source",
)
@pytest.mark.parametrize(
    ("copy", "names"),
    [(Position.copy, POSITION_FIELDS), (MatchState.copy, FIELDS)],
    ids=["position", "match_state"],
)
def test_copy_sets_every_declared_field_in_order(
    copy: Callable[..., object], names: tuple[str, ...]
) -> None:
    written = [
        line.strip()
        for line in inspect.getsource(copy).splitlines()
        if line.strip().startswith("new.")
    ]
    expected = [f"new.{name} = self.{name}" for name in names]
    assert written == expected, "copy() must be, field by field:\n" + "\n".join(
        f"        {line}" for line in expected
    )


def test_the_holdings_are_what_a_view_hides() -> None:
    assert HOLDINGS_FIELDS == ("hands", "blind", "unused", "out", "chosen", "stalemate")
    assert FIELDS == POSITION_FIELDS + HOLDINGS_FIELDS


def test_a_copy_is_equal_and_shares_every_value() -> None:
    state = initial_state(rule_set("torasobi"), 4)
    markers = {name: object() for name in FIELDS}
    for name, marker in markers.items():
        setattr(state, name, marker)
    copied = state.copy()
    assert copied is not state and type(copied) is MatchState
    assert all(getattr(copied, name) is marker for name, marker in markers.items())


def test_a_position_copy_is_a_position_and_shares_every_value() -> None:
    position = Position(rule_set("federation"), 3, frozenset())
    markers = {name: object() for name in POSITION_FIELDS}
    for name, marker in markers.items():
        setattr(position, name, marker)
    copied = position.copy()
    assert copied is not position and type(copied) is Position
    assert all(getattr(copied, name) is marker for name, marker in markers.items())


def test_equality_compares_every_field() -> None:
    first = initial_state(rule_set("classic"), 3)
    for name in FIELDS:
        other = first.copy()
        setattr(other, name, object())
        assert other != first, name
    assert first.copy() == first
