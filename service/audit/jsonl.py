"""The export format of a match: JSON Lines, one stored event per line, each
exactly the stored envelope (``StoredEvent``'s fields, ``hash`` included), so
anyone can recompute the hash chain from the file alone."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from eventstore.model import StoredEvent

FIELDS = ("stream", "seq", "type", "schema", "at", "request_id", "data", "prev_hash", "hash")
_KINDS: dict[str, tuple[type, str]] = {
    "stream": (str, "a string"),
    "seq": (int, "a whole number"),
    "type": (str, "a string"),
    "schema": (int, "a whole number"),
    "at": (int, "a whole number"),
    "request_id": (str, "a string"),
    "data": (dict, "an object"),
    "prev_hash": (str, "a string"),
    "hash": (str, "a string"),
}


class AuditInputError(ValueError):
    """A log that is not an exported match; ``line`` is 1-based (None: the whole log)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message if line is None else f"line {line}: {message}")
        self.line = line
        self.problem = message


def export_jsonl(events: Iterable[StoredEvent]) -> str:
    return "".join(_line(event) + "\n" for event in events)


def _line(event: StoredEvent) -> str:
    record = {name: getattr(event, name) for name in FIELDS}
    return json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def parse_jsonl(text: str | bytes) -> list[StoredEvent]:
    """The events of an exported log, in the file's order; AuditInputError (and nothing
    else) when the text is not one: bad JSON or fields, or no events. Seqs out of order
    or missing and events of another stream are the audit's to report, by seq: a log
    with two lines swapped is an invalid log, not unreadable input."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise AuditInputError(f"not UTF-8 text: {error}") from None
    if not isinstance(text, str):
        raise AuditInputError(f"expected text, got {type(text).__name__}")
    events: list[StoredEvent] = []
    # split on "\n" only: str.splitlines also breaks at U+2028 and others, which
    # JSON strings may hold unescaped
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        if not line.strip():
            continue
        events.append(_event(_load(line, number), number))
    if not events:
        raise AuditInputError("the log is empty: no events")
    return events


def _load(line: str, number: int) -> Any:
    try:
        return json.loads(line, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise AuditInputError("not JSON: nested too deeply", number) from None
    except ValueError as error:  # JSONDecodeError, and ints past Python's digit limit
        raise AuditInputError(f"not JSON: {error}", number) from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def _event(record: Any, number: int) -> StoredEvent:
    if not isinstance(record, dict):
        raise AuditInputError(f"expected an object (one stored event), got {_kind(record)}", number)
    missing = [name for name in FIELDS if name not in record]
    if missing:
        raise AuditInputError(f"missing field(s): {', '.join(missing)}", number)
    extra = sorted(set(record) - set(FIELDS))
    if extra:
        raise AuditInputError(f"unexpected field(s): {', '.join(extra)}", number)
    for name, (kind, described) in _KINDS.items():
        value = record[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise AuditInputError(f"{name} must be {described}, got {_kind(value)}", number)
    if record["seq"] < 0:
        raise AuditInputError(f"seq {record['seq']} is negative", number)
    return StoredEvent(**{name: record[name] for name in FIELDS})


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number")
