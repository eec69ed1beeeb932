"""``audit_events``: every check on one match's log, and the verdict; ``audit_log``: the
same on an exported log, the one report that POST /audit and ``daifugo audit FILE`` give."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from eventstore.model import StoredEvent

from ..match import match_id_of
from ..records import KeyFormatError, KeySet
from . import blinding, chain, commitment, legality, receipts, seal
from .decoding import Decoded, decode_all
from .jsonl import AuditInputError, parse_jsonl
from .report import AuditReport, CheckResult, failed, report_of


def audit_events(
    events: Sequence[StoredEvent],
    keys: KeySet | None = None,
    given_receipts: Sequence[Any] | None = None,
) -> AuditReport:
    """Check a match's stored events (as exported, seq 0 first), its seal against
    ``keys`` (None: no public key given, the signatures go unchecked) and every
    receipt given (signed records as parsed JSON). Pure: reads nothing but what it
    is given, and reports tampering rather than raising."""
    decoded = decode_all(events)
    checks = (
        _guarded(chain.NAME, lambda: chain.check_hash_chain(events)),
        _guarded(seal.NAME, lambda: seal.check_seal(events, keys)),
        _guarded(commitment.NAME, lambda: commitment.check_seed_commitment(decoded)),
        _guarded(blinding.NAME, lambda: blinding.check_blinding(decoded)),
        _guarded(legality.NAME, lambda: legality.check_legality(decoded)),
        _guarded(receipts.NAME, lambda: receipts.check_receipts(events, given_receipts, keys)),
    )
    return report_of(_match_id(decoded), len(events), checks)


def audit_log(
    text: str | bytes, keys: KeySet | None = None, given_receipts: Sequence[Any] | None = None
) -> AuditReport:
    """Audit an exported log (JSON Lines). AuditInputError when it is not one at all;
    a log that is one but out of order, or mixed, is an ``invalid`` report instead."""
    return audit_events(parse_jsonl(text), keys, given_receipts)


INPUT_ERROR = "input_error"


def report_of_log(
    submitted: str | bytes | tuple[str | bytes, KeySet | None, Sequence[Any] | None],
) -> dict[str, Any]:
    """``audit_log`` as plain data, for a worker process (one argument: the log, or the
    log with the keys and receipts to check): the report's dict, or
    ``{INPUT_ERROR: why}`` when the text is not a log."""
    text, keys, given_receipts = (
        submitted if isinstance(submitted, tuple) else (submitted, None, None)
    )
    try:
        return audit_log(text, keys, given_receipts).to_dict()
    except AuditInputError as error:
        return {INPUT_ERROR: str(error)}


def report_of_request(submitted: tuple[bytes, KeySet]) -> dict[str, Any]:
    """``report_of_log`` of a JSON audit request, ``{"log": <JSON Lines>, "receipts":
    [signed records], "keys": <a key set>}`` (receipts and keys optional; ``submitted``:
    its bytes and the keys to use when it names none), for a worker process: parsing
    a large body is the worker's, never the serving loop's. ``{INPUT_ERROR: why}`` when
    it is not one (hostile: every part checked)."""
    body, keys = submitted
    try:
        request = json.loads(body)
    except (ValueError, RecursionError):
        return {INPUT_ERROR: "the body is not JSON"}
    if not isinstance(request, dict) or not isinstance(request.get("log"), str):
        return {INPUT_ERROR: 'expected {"log": "<JSON Lines>", ...}'}
    unknown = set(request) - {"log", "receipts", "keys"}
    if unknown:
        return {INPUT_ERROR: f"unknown fields {sorted(unknown)[:5]}"}
    given = request.get("receipts")
    if given is not None and not (isinstance(given, list) and len(given) <= receipts.MAX_RECEIPTS):
        return {INPUT_ERROR: f"receipts is a list of at most {receipts.MAX_RECEIPTS}"}
    if request.get("keys") is not None:
        try:
            keys = KeySet.from_dict(request["keys"])
        except KeyFormatError as error:
            return {INPUT_ERROR: f"keys: {error}"}
    return report_of_log((request["log"], keys, given))


def report_of_events(
    submitted: Sequence[StoredEvent] | tuple[Sequence[StoredEvent], KeySet | None],
) -> dict[str, Any]:
    """``audit_events`` as plain data, for a worker process (the events, or the events
    and the keys that check their seal)."""
    if isinstance(submitted, tuple) and len(submitted) == 2 and isinstance(submitted[1], KeySet):
        return audit_events(submitted[0], submitted[1]).to_dict()
    return audit_events(submitted).to_dict()


def _guarded(name: str, check: Callable[[], CheckResult]) -> CheckResult:
    try:
        return check()
    except Exception as error:  # the report must come back whatever the log holds
        return failed(name, None, f"the check could not finish: {error!r}")


def _match_id(decoded: Sequence[Decoded]) -> str | None:
    stream = decoded[0].stored.stream if decoded else None
    return match_id_of(stream) if isinstance(stream, str) else None
