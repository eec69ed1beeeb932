"""The export format: a round trip, clear errors on bad input, and nothing but
AuditInputError whatever the input (a REST endpoint answers 400, never 500)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore import StoredEvent
from service.audit import AuditInputError, audit_events, export_jsonl, parse_jsonl
from service.audit.jsonl import FIELDS

from .matches import PlayedLog


def _record(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "stream": "m:abc",
        "seq": 0,
        "type": "MatchCreated",
        "schema": 1,
        "at": 1,
        "request_id": "r",
        "data": {},
        "prev_hash": "0" * 64,
        "hash": "0" * 64,
    }
    record.update(changes)
    return record


def _lines(*records: Any) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def test_round_trip(played: dict[str, PlayedLog]) -> None:
    events = played["torasobi"].events
    text = export_jsonl(events)
    assert text.count("\n") == len(events)
    first = json.loads(text.split("\n")[0])
    assert tuple(first) == FIELDS  # exactly the stored envelope, in its order
    assert parse_jsonl(text) == events
    assert parse_jsonl(text.encode()) == events
    assert audit_events(parse_jsonl(text)).to_dict() == audit_events(events).to_dict()


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("", None, "empty"),
        ("\n  \n", None, "empty"),
        ('{"stream": ', 1, "not JSON"),
        (_lines(_record()) + "not json\n", 2, "not JSON"),
        (_lines([1, 2]), 1, "expected an object"),
        (_lines({k: v for k, v in _record().items() if k != "hash"}), 1, "missing field(s): hash"),
        (_lines(_record(extra=1)), 1, "unexpected field(s): extra"),
        (_lines(_record(seq="0")), 1, "seq must be a whole number, got a string"),
        (_lines(_record(seq=True)), 1, "seq must be a whole number, got a boolean"),
        (_lines(_record(data=[])), 1, "data must be an object"),
        (_lines(_record(at=1.5)), 1, "at must be a whole number"),
        (_lines(_record(seq=-1)), 1, "negative"),
        ('{"stream": NaN}\n', 1, "not JSON"),
        ('{"stream": 1e999}\n', 1, "not JSON"),
        ("[" * 100_000 + "]" * 100_000, 1, "not JSON"),
        ("1" * 5000, 1, "not JSON"),
    ],
)
def test_bad_input_is_named(text: str, line: int | None, problem: str) -> None:
    with pytest.raises(AuditInputError) as raised:
        parse_jsonl(text)
    assert raised.value.line == line
    assert problem in str(raised.value)
    if line is not None:
        assert str(raised.value).startswith(f"line {line}: ")


def test_bytes_that_are_not_utf8() -> None:
    with pytest.raises(AuditInputError, match="UTF-8"):
        parse_jsonl(b"\xff\xfe")


def test_gaps_are_left_to_the_audit() -> None:
    events = parse_jsonl(_lines(_record(), _record(seq=5)))
    assert [event.seq for event in events] == [0, 5]
    assert isinstance(events[0], StoredEvent)


def test_order_and_streams_are_left_to_the_audit() -> None:
    # a log that reads is audited: out of order or mixed, it is invalid, by seq
    repeated = parse_jsonl(_lines(_record(), _record(seq=2), _record(seq=2)))
    assert [event.seq for event in repeated] == [0, 2, 2]
    mixed = parse_jsonl(_lines(_record(), _record(seq=1, stream="m:other")))
    assert [event.stream for event in mixed] == ["m:abc", "m:other"]
    assert audit_events(mixed).verdict == "invalid"


def _parses_or_refuses(text: str | bytes) -> None:
    try:
        events = parse_jsonl(text)
    except AuditInputError:
        return
    report = audit_events(events)  # whatever parses, the audit answers
    assert report.verdict in ("valid", "invalid")


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=6,
)
field_values = st.fixed_dictionaries(
    {name: json_values for name in FIELDS},
    optional={"extra": json_values},
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.text() | st.binary())
def test_arbitrary_text_never_breaks_the_parser(text: str | bytes) -> None:
    _parses_or_refuses(text)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(json_values | field_values, max_size=3))
def test_arbitrary_json_never_breaks_the_parser(records: list[Any]) -> None:
    _parses_or_refuses("\n".join(json.dumps(record) for record in records))


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "stream": st.just("m:x"),
                "type": st.sampled_from(["MatchCreated", "CardsPlayed", "GameDealt", "Nope"]),
                "schema": st.integers(),
                "at": st.integers(),
                "request_id": st.text(),
                "data": st.dictionaries(st.text(max_size=8), json_values, max_size=5),
                "prev_hash": st.text(),
                "hash": st.text(),
            }
        ),
        max_size=5,
    )
)
def test_well_formed_nonsense_is_audited_not_raised(records: list[dict[str, Any]]) -> None:
    text = "\n".join(json.dumps({**record, "seq": seq}) for seq, record in enumerate(records))
    _parses_or_refuses(text)
