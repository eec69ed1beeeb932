"""``audit_events``: every check on one match's log, and the verdict."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from eventstore import StoredEvent

from ..records import KeySet
from . import blinding, chain, commitment, legality, receipts, seal
from .decoding import Decoded, decode_all
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
