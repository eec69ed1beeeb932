"""``MatchState`` declares each field once; its hot ``copy`` is written out from
that declaration, and these tests hold the two together."""

from __future__ import annotations

import inspect

from service.rules import initial_state, rule_set
from service.rules.state import FIELDS, MatchState


def test_copy_sets_every_declared_field_in_order() -> None:
    written = [
        line.strip()
        for line in inspect.getsource(MatchState.copy).splitlines()
        if line.strip().startswith("new.")
    ]
    expected = [f"new.{name} = self.{name}" for name in FIELDS]
    assert written == expected, "copy() must be, field by field:\n" + "\n".join(
        f"        {line}" for line in expected
    )


def test_a_copy_is_equal_and_shares_every_value() -> None:
    state = initial_state(rule_set("torasobi"), 4)
    markers = {name: object() for name in FIELDS}
    for name, marker in markers.items():
        setattr(state, name, marker)
    copied = state.copy()
    assert copied is not state
    assert all(getattr(copied, name) is marker for name, marker in markers.items())


def test_equality_compares_every_field() -> None:
    first = initial_state(rule_set("classic"), 3)
    for name in FIELDS:
        other = first.copy()
        setattr(other, name, object())
        assert other != first, name
    assert first.copy() == first
