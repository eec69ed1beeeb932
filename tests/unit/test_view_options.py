"""A match's options are listed once per rule set: every view shares one read-only
mapping of them (and the API one encoding of it), which no caller can change."""

from __future__ import annotations

import copy
import json

import msgspec
import pytest

from service.grpc.mapping import struct_of, view_message
from service.rules import initial_state, rule_set
from service.rules.views import SPECTATOR, Viewer, build_view


def test_views_share_one_read_only_listing_of_the_options() -> None:
    rules = rule_set("federation")
    state = initial_state(rules, 4)
    seat, spectator = build_view(state, Viewer.of_seat(0)), build_view(state, SPECTATOR)
    assert seat.options is spectator.options
    assert seat.options == rules.options()
    with pytest.raises(TypeError):
        seat.options["jokers"] = 0  # type: ignore[index]
    assert build_view(state, SPECTATOR).options["jokers"] == rules.options()["jokers"]
    plain = seat.to_dict()["options"]
    assert type(plain) is dict and json.loads(json.dumps(plain)) == rules.options()
    assert msgspec.json.decode(msgspec.json.encode(seat))["options"] == plain  # REST's JSON
    copied = copy.deepcopy(seat.options)
    copied["jokers"] = 0  # a copy is the caller's own
    assert type(copied) is dict and seat.options == rules.options()


def test_each_rule_set_s_views_show_its_own_options() -> None:
    federation, uecda = rule_set("federation"), rule_set("uecda")
    views = [build_view(initial_state(rules, 4), SPECTATOR) for rules in (federation, uecda)]
    assert [view.options for view in views] == [federation.options(), uecda.options()]
    assert [view_message(view).options for view in views] == [
        struct_of(federation.options()),
        struct_of(uecda.options()),
    ]
