"""The blinding check: every event holding a hidden field carries the nonce the
revealed seed gives its seq, and no other event carries one. Then the heads and
receipts given out during play revealed nothing hidden, and the nonces hide no
second meaning (``records.blinding``).

A log stored before a type was blinded (a king pastor's ``CardChosen`` of schema 1)
holds that type without its nonce. The log is still whole and legal, so it still
audits: each such event is a finding (``unblinded_hidden_choice``, a warning: the
choice was open to the other seats' guesses), not a failure. Its schema says which it
is, and the schema is hashed: a new event (schema 2) stripped of its nonce fails."""

from __future__ import annotations

from collections.abc import Sequence

from ..match import SeedRevealed
from ..records import BLINDING, blinding_nonce, is_blinded, stored_before_blinding
from .decoding import Decoded
from .report import CheckResult, Finding, FindingCode, failed, not_run

NAME = "blinding"


def check_blinding(events: Sequence[Decoded]) -> CheckResult:
    if not events:
        return failed(NAME, None, "no events")
    seed = _revealed_seed(events)
    if seed is None:
        return not_run(NAME, "the match is not over: the seed that checks the nonces is secret")
    blinded = 0
    findings: list[Finding] = []
    for item in events:
        stored = item.stored
        nonce = stored.data.get(BLINDING)
        if is_blinded(stored.type):
            if nonce is None and stored_before_blinding(stored.type, stored.schema):
                findings.append(_unblinded(stored.type, stored.seq))
                continue
            if nonce != blinding_nonce(seed, stored.seq):
                return failed(
                    NAME, stored.seq, f"{stored.type} does not carry the nonce the seed gives"
                )
            blinded += 1
        elif nonce is not None:
            return failed(NAME, stored.seq, f"{stored.type} carries a nonce it has no use for")
    detail = {"blinded": blinded, "unblinded": len(findings)}
    return CheckResult(NAME, True, detail=detail, findings=tuple(findings))


def _unblinded(event_type: str, seq: int) -> Finding:
    return Finding(
        FindingCode.UNBLINDED_HIDDEN_CHOICE,
        seq,
        f"{event_type} was stored before it was blinded: the choice was open to the "
        "other seats (each could test guesses against a head or receipt after it)",
    )


def _revealed_seed(events: Sequence[Decoded]) -> bytes | None:
    for item in events:
        if isinstance(item.event, SeedRevealed):
            try:
                return bytes.fromhex(item.event.seed)
            except (TypeError, ValueError):
                return None  # the commitment check names it
    return None
