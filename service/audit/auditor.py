"""``audit_events``: every check on one match's log, and the verdict; ``audit_log``: the
same on an exported log, the one report that POST /audit and ``daifugo audit FILE`` give."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from eventstore import StoredEvent

from . import chain, commitment, legality
from .decoding import Decoded, decode_all
from .jsonl import AuditInputError, parse_jsonl
from .report import AuditReport, CheckResult, failed, report_of


def audit_events(events: Sequence[StoredEvent]) -> AuditReport:
    """Check a match's stored events (as exported, seq 0 first). Pure: reads
    nothing but ``events``, and reports tampering rather than raising."""
    decoded = decode_all(events)
    checks = (
        _guarded(chain.NAME, lambda: chain.check_hash_chain(events)),
        _guarded(commitment.NAME, lambda: commitment.check_seed_commitment(decoded)),
        _guarded(legality.NAME, lambda: legality.check_legality(decoded)),
    )
    return report_of(_match_id(decoded), len(events), checks)


def audit_log(text: str | bytes) -> AuditReport:
    """Audit an exported log (JSON Lines). AuditInputError when it is not one at all;
    a log that is one but out of order, or mixed, is an ``invalid`` report instead."""
    return audit_events(parse_jsonl(text))


INPUT_ERROR = "input_error"


def report_of_log(text: str | bytes) -> dict[str, Any]:
    """``audit_log`` as plain data, for a worker process: the report's dict, or
    ``{INPUT_ERROR: why}`` when the text is not a log."""
    try:
        return audit_log(text).to_dict()
    except AuditInputError as error:
        return {INPUT_ERROR: str(error)}


def report_of_events(events: Sequence[StoredEvent]) -> dict[str, Any]:
    """``audit_events`` as plain data, for a worker process."""
    return audit_events(events).to_dict()


def _guarded(name: str, check: Callable[[], CheckResult]) -> CheckResult:
    try:
        return check()
    except Exception as error:  # the report must come back whatever the log holds
        return failed(name, None, f"the check could not finish: {error!r}")


def _match_id(decoded: Sequence[Decoded]) -> str | None:
    stream = decoded[0].stored.stream if decoded else None
    if isinstance(stream, str) and stream.startswith("m:"):
        return stream.removeprefix("m:")
    return None
