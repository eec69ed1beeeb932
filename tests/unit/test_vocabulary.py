"""One vocabulary: the rules' words are StrEnums with the wire's values, each
event type is declared once, and every list of them elsewhere (the narration,
the page's words.js, the proto's enums) is held to the Python one here."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from enum import StrEnum
from pathlib import Path

import pytest

from service.grpc.mapping import view_message
from service.grpc.words import ELEVEN_BACKS, FIELD_KINDS, PHASES, WAITS, ProtoWords
from service.match.events import LIFECYCLE_EVENT_TYPES
from service.rules import Deal, decide, fold, initial_state, narration, rule_set
from service.rules import events as ev
from service.rules import vocabulary as words
from service.rules.dealing import deck_for
from service.rules.melds import Kind
from service.rules.refusals import REASON_CODES
from service.rules.views import SPECTATOR, Viewer, build_view

WORDS_JS = Path(__file__).parents[2] / "service" / "rest" / "static" / "words.js"
ALL_EVENTS = set(ev.EVENT_TYPES) | set(LIFECYCLE_EVENT_TYPES)


def test_every_event_of_the_union_is_a_record_type_and_every_event_class_is_in_it() -> None:
    declared = {
        name
        for name, value in vars(ev).items()
        if inspect.isclass(value)
        and dataclasses.is_dataclass(value)
        and value.__module__ == ev.__name__
    }
    assert declared == set(ev.EVENT_TYPES)
    assert all(cls.__name__ == name for name, cls in ev.EVENT_TYPES.items())


def test_words_are_their_wire_values() -> None:
    for vocabulary in (
        words.Phase, words.WaitingFor, words.FlushReason, words.RevolutionCause,
        words.FinishCause, words.GiveReason, words.DiscardReason, words.RefusalCode,
        words.ViewerKind, words.Action, words.ElevenBack, words.Bottom, words.FallCause,
        words.ReverseCause, words.SkipCause, words.Color, words.EndCause,
    ):  # fmt: skip
        for member in vocabulary:
            assert member == member.value and isinstance(member, str)
            assert member.name.lower() == member.value or member is words.ElevenBack.NONE
    assert REASON_CODES[0] == "bad_request" and REASON_CODES[-1] == "not_stronger"


def _narrated_types() -> set[str]:
    tree = ast.parse(inspect.getsource(narration.describe))
    matches = [node for node in ast.walk(tree) if isinstance(node, ast.Match)]
    assert len(matches) == 1
    return {
        node.value.value
        for case in matches[0].cases
        for node in ast.walk(case.pattern)
        if isinstance(node, ast.MatchValue) and isinstance(node.value, ast.Constant)
    }


def test_the_narration_has_a_case_for_every_event_type() -> None:
    assert _narrated_types() == ALL_EVENTS


def _js_object_keys(source: str, name: str) -> set[str]:
    body = re.search(rf"const {name} = \{{(.*?)\n\}};", source, re.S)
    assert body is not None, name
    return set(re.findall(r"^\s+(\w+):", body.group(1), re.M))


def test_the_page_has_words_for_every_event_and_every_reason() -> None:
    source = WORDS_JS.read_text()
    described = source[source.index("export function describeEvent") :]
    assert set(re.findall(r'case "(\w+)":', described)) == ALL_EVENTS
    assert _js_object_keys(source, "FLUSH_REASONS") == set(words.FlushReason)
    assert _js_object_keys(source, "REVOLUTION_CAUSES") == set(words.RevolutionCause)
    steps = {
        words.WaitingFor.SEVEN_PASS,
        words.WaitingFor.TEN_DISCARD,
        words.WaitingFor.QUEEN_BOMBER,
        *words.PICKS,
        words.WaitingFor.KING_PASTOR,
    }
    assert _js_object_keys(source, "STEPS") == steps


@pytest.mark.parametrize(
    ("proto", "vocabulary"),
    [
        (PHASES, {str(word) for word in words.Phase}),
        (WAITS, {str(word) for word in words.WaitingFor}),
        (FIELD_KINDS, {kind.name.lower() for kind in Kind}),
        (ELEVEN_BACKS, {str(word) for word in words.ElevenBack if word}),
    ],
)
def test_the_proto_enums_mirror_the_words(proto: ProtoWords, vocabulary: set[str]) -> None:
    assert set(proto.names) == vocabulary
    for word in vocabulary:
        assert proto.word(_number(proto, word)) == word
    assert proto.name(None) == proto.unspecified and proto.word(0) == ""


def _number(proto: ProtoWords, word: str) -> int:
    return next(number for number, known in proto.words.items() if known == word)


def test_a_view_message_carries_each_word_as_enum_and_string() -> None:
    rules = rule_set("torasobi", {"eleven_back": "order"})
    state = initial_state(rules, 4)
    events = decide(state, Deal(tuple(deck_for(rules))))
    assert isinstance(events, list)
    state = fold(state, events)
    for viewer in (SPECTATOR, Viewer.of_seat(0)):
        view = build_view(state, viewer)
        message = view_message(view)
        assert PHASES.word(message.phase_value) == message.phase == view.phase
        assert WAITS.word(message.waiting_for_value) == message.waiting_for == view.waiting_for
        assert message.field_kind_value == 0 and message.field_kind == ""
        assert message.eleven_back_value == 0 and message.eleven_back == ""


def test_records_decode_words_as_their_enums() -> None:
    from service.rules.records import from_record

    event = from_record("FieldFlushed", {"reason": "eight_cut", "leader": 1})
    assert isinstance(event, ev.FieldFlushed) and event.reason is words.FlushReason.EIGHT_CUT
    with pytest.raises(ValueError):
        from_record("FieldFlushed", {"reason": "no_such_reason", "leader": 1})


def test_each_vocabulary_is_a_str_enum() -> None:
    for value in vars(words).values():
        if inspect.isclass(value) and value.__module__ == words.__name__:
            assert issubclass(value, StrEnum)


def test_states_hold_the_members_themselves_which_the_engine_compares_by_identity() -> None:
    import random

    from service.rules.legal import legal_actions
    from service.rules.rulesets import all_local_rules_on

    for preset in ("federation", "torasobi"):
        rules = all_local_rules_on(rule_set(preset)).with_options({"eleven_back": "order"})
        rng = random.Random(7)
        deck = list(deck_for(rules))
        state = initial_state(rules, 4)
        seen: set[object] = set()
        for _ in range(3000):
            if state.phase is words.Phase.MATCH_OVER:
                state = initial_state(rules, 4)
            if state.phase is not words.Phase.IN_GAME:
                rng.shuffle(deck)
                events = decide(state, Deal(tuple(deck)))
            else:
                legal = legal_actions(state)
                events = decide(state, legal[rng.randrange(len(legal))])
            assert isinstance(events, list)
            state = fold(state, events)
            held = [state.phase, state.eleven_back, state.waiting_for]
            held += [step[0] for step in state.pending] + [how for _, how in state.bottom]
            for value in held:
                assert value is None or type(value) in (
                    words.Phase,
                    words.ElevenBack,
                    words.WaitingFor,
                    words.Bottom,
                ), value
            seen.update(held)
        assert words.ElevenBack.ORDER in seen and words.WaitingFor.EXCHANGE in seen


def test_the_local_rules_are_the_rule_sets_switches_in_the_documents_order() -> None:
    from service.rules.rulesets import FURTHER_RULES, SEED_RULES, RuleSet

    options = {f.name for f in dataclasses.fields(RuleSet)}
    assert {rule.value for rule in words.LocalRule} <= options
    assert (len(SEED_RULES), len(FURTHER_RULES)) == (26, 29)
    assert SEED_RULES[0] is words.LocalRule.REVOLUTION
    assert FURTHER_RULES[0] is words.LocalRule.FIVE_CUT
    everything_on = rule_set("federation").with_options({rule: True for rule in words.LocalRule})
    assert everything_on.switched_on() == frozenset(words.LocalRule)


def test_the_rule_sections_hold_every_local_rule_once_in_the_documents_order() -> None:
    from service.rules.rulesets import LOCAL_RULES, RULE_SECTIONS

    assert tuple(rule for part in RULE_SECTIONS for rule in part.rules) == LOCAL_RULES
    document = (Path(__file__).parents[2] / "docs/RULES.md").read_text()
    for part in RULE_SECTIONS:  # each section exists and names its rules' options
        number = part.section.removeprefix("§")
        start = document.index(f"\n## {number}. ")
        body = document[start : document.index("\n## ", start + 1)]
        assert all(f"`{rule.value}`" in body for rule in part.rules), part.section


def _rule_name_literals(tree: ast.AST) -> list[str]:
    """Rules named by strings where a rule is asked about: a rule's name beside ``in``,
    any string ``in`` a set of rules in force, ``rule_on(state, "x")`` (a typo there
    would be a rule silently off)."""
    names = {rule.value for rule in words.LocalRule}
    sets_of_rules = {"in_force", "applying", "UNSEEN_MOVES"}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(
            isinstance(op, ast.In | ast.NotIn) for op in node.ops
        ):
            right = node.comparators[-1]
            of_rules = (getattr(right, "id", None) or getattr(right, "attr", None)) in sets_of_rules
            found += [
                operand.value
                for operand in (node.left, *node.comparators)
                if isinstance(operand, ast.Constant)
                and isinstance(operand.value, str)
                and (operand.value in names or of_rules)
            ]
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "rule_on":
            found += [a.value for a in node.args if isinstance(a, ast.Constant)]
    return found


def test_the_engine_and_the_bots_name_local_rules_by_their_members() -> None:
    root = Path(__file__).parents[2]
    offenders = {
        str(path.relative_to(root)): literals
        for folder in ("service", "clients", "bench")
        for path in sorted((root / folder).rglob("*.py"))
        if "gen" not in path.parts
        and (literals := _rule_name_literals(ast.parse(path.read_text())))
    }
    assert offenders == {}
    typos = '"queen_releas" in applying or "omen" in state.in_force or rule_on(s, "omen")'
    assert _rule_name_literals(ast.parse(typos)) == ["queen_releas", "omen", "omen"]


def test_lifecycle_words_are_typed_and_recorded_as_before() -> None:
    from service.match.events import AbandonReason, BotKind, MatchAbandoned, SeatJoined
    from service.match.events import TurnTimedOut as TimedOut
    from service.match.records import from_record, to_record
    from service.rules.records import RecordError

    # the records (and so the hashes) of events from before the fields were typed
    assert to_record(SeatJoined(0, "ann")) == {
        "seat": 0,
        "name": "ann",
        "client_seed": "",
        "bot": "",
    }
    assert to_record(SeatJoined(1, "b", "", BotKind.GREEDY))["bot"] == "greedy"
    assert from_record("SeatJoined", {"seat": 0, "name": "ann", "bot": ""}).bot is None
    assert (
        from_record("SeatJoined", {"seat": 1, "name": "b", "bot": "greedy"}).bot is BotKind.GREEDY
    )
    timed_out = from_record("TurnTimedOut", {"seat": 2, "waiting_for": "seven_pass"})
    assert timed_out == TimedOut(2, words.WaitingFor.SEVEN_PASS)
    assert timed_out.waiting_for is words.WaitingFor.SEVEN_PASS
    abandoned = from_record("MatchAbandoned", {"reason": "idle", "last_seq": 4})
    assert isinstance(abandoned, MatchAbandoned) and abandoned.reason is AbandonReason.IDLE
    for record in ({"seat": 0, "name": "x", "bot": "cheater"}, {"seat": 0, "waiting_for": ""}):
        with pytest.raises(RecordError):
            from_record("SeatJoined" if "bot" in record else "TurnTimedOut", record)
