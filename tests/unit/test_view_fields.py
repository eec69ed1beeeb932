"""Each View field is declared once (service/rules/view_fields.py), and views.py's
field-by-field code is what that declaration generates; the View crosses gRPC by one
declaration (service/grpc/view_fields.py): every field of the dataclass has its message
field and a way back, every message field is filled by one View field (or by the
servicer beside it), and a view read back is the view."""

from __future__ import annotations

import ast
import dataclasses
import random
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from clients.sdk import view_from_message
from service.app.selfplay import play_match, random_policy
from service.grpc import view_fields
from service.grpc.gen.daifugo.v1 import match_service_pb2 as pb
from service.grpc.mapping import view_message
from service.rules import initial_state, rule_set, views
from service.rules import view_fields as declaration
from service.rules.evolve import evolve
from service.rules.rulesets import all_local_rules_on
from service.rules.views import SPECTATOR, View, Viewer, build_view
from service.rules.vocabulary import Phase

MESSAGE_FIELDS = set(pb.View.DESCRIPTOR.fields_by_name)


def test_every_view_field_is_declared_once_with_its_way_back() -> None:
    names = [f.name for f in dataclasses.fields(View)]
    assert list(view_fields.DECODERS) == names
    # a field that travels as itself has a message field of its name
    assert set(view_fields.AS_THEMSELVES) <= MESSAGE_FIELDS


def test_every_message_field_is_filled_by_one_view_field_or_the_servicer() -> None:
    written = view_fields.written_fields()
    assert set(written) <= MESSAGE_FIELDS
    assert set(written) | view_fields.OUTSIDE_THE_VIEW == MESSAGE_FIELDS
    assert not set(written) & view_fields.OUTSIDE_THE_VIEW


def _views(preset: str, seed: int) -> list[View]:
    """Views of a match of random play, by a seat and a spectator, after each event."""
    rules = all_local_rules_on(rule_set(preset)) if preset != "uecda" else rule_set(preset)
    policies = [random_policy(random.Random(seed + seat)) for seat in range(4)]
    played = play_match(rules, 4, seed.to_bytes(4), policies)
    state, views = initial_state(rules, 4), []
    for event in played.events:
        state = evolve(state, event)
        if state.phase == Phase.MATCH_OVER:
            break
        views += [build_view(state, Viewer.of_seat(state.turn or 0)), build_view(state, SPECTATOR)]
    return views


def test_each_field_fills_only_the_message_fields_it_declares() -> None:
    written = view_fields.written_fields()
    for view in _views("federation", 7)[::10]:
        filled = {f.name for f, _ in view_message(view).ListFields()}
        assert {written.get(name, name) for name in filled} <= (
            {f.name for f in dataclasses.fields(View)} | view_fields.OUTSIDE_THE_VIEW
        )


@settings(max_examples=8, deadline=None)
@given(
    preset=st.sampled_from(["federation", "torasobi", "classic", "uecda"]),
    seed=st.integers(0, 2**31 - 1),
    data=st.data(),
)
def test_a_view_goes_to_a_message_and_back_whole(
    preset: str, seed: int, data: st.DataObject
) -> None:
    views = _views(preset, seed)
    for view in data.draw(st.lists(st.sampled_from(views), min_size=1, max_size=20)):
        assert view_from_message(view_message(view, 5)) == view


def test_each_view_field_is_declared_once_with_its_type() -> None:
    declared = {field.name: field.type for field in declaration.FIELDS}
    assert len(declared) == len(declaration.FIELDS)
    assert declared == {f.name: f.type for f in dataclasses.fields(View)}
    assert [field.name for field in declaration.FIELDS] == [
        f.name for f in dataclasses.fields(View)
    ]


def test_views_py_is_what_its_declaration_generates() -> None:
    # a field declared but not generated, or written into views.py by hand, fails here
    generator = Path(__file__).parents[2] / "tools" / "generate_views.py"
    checked = subprocess.run(
        [sys.executable, str(generator), "--check"], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _function(name: str) -> ast.FunctionDef:
    tree = ast.parse(Path(views.__file__.removesuffix("c")).read_text())
    return next(
        node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name
    )


def test_build_view_fills_every_field_by_name() -> None:
    calls = [
        node
        for node in ast.walk(_function("build_view"))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "View"
    ]
    assert [sorted(k.arg for k in call.keywords if k.arg) for call in calls] == [
        sorted(f.name for f in dataclasses.fields(View))
    ]


def test_position_of_reads_every_field_a_position_holds_and_no_other() -> None:
    read = {
        node.attr
        for node in ast.walk(_function("position_of"))
        if isinstance(node, ast.Attribute) and getattr(node.value, "id", None) == "view"
    }
    fields = {f.name for f in dataclasses.fields(View)}
    not_in_a_position = {field.name for field in declaration.FIELDS if field.read is None}
    assert read <= fields
    assert fields - read == not_in_a_position
    # the View fields no Position field is read from: who looks, what a position does not
    # hold (hands, sizes, cards out of play, the rule set it is given whole), and what it
    # reads elsewhere (the fallen: the bottom seats not forbidden)
    assert not_in_a_position == {
        "viewer", "seat", "preset", "games_per_set", "waiting_for", "step_count", "hand",
        "hands", "hand_sizes", "field_kind", "blind", "unused", "out_of_play", "options",
        "discard_pile_marked", "fallen",
    }  # fmt: skip
