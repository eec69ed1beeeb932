"""The receipts check: each receipt a player was given (an action's, a refusal's,
or a seal) is signed by a given key and agrees with the log: same match, and the
event it names has the hash it says. A receipt the log contradicts shows that the
log was changed after the receipt was given, at or before the seq it names, and
after the last seq an earlier receipt still vouches for."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from eventstore.model import StoredEvent

from ..records import ActionReceipt, KeySet, RefusalReceipt, Seal, verify
from .report import CheckResult, failed, not_run, passed

NAME = "receipts"
MAX_RECEIPTS = 100_000


def check_receipts(
    events: Sequence[StoredEvent], receipts: Sequence[Any] | None, keys: KeySet | None
) -> CheckResult:
    if not receipts:
        return not_run(NAME, "no receipts given")
    if keys is None:
        return not_run(NAME, "no public key given: the receipts' signatures are unchecked")
    if not events:
        return failed(NAME, None, "no events")
    stream = events[0].stream
    by_seq = {event.seq: event for event in events if isinstance(event.seq, int)}
    checked: list[tuple[int, int, str]] = []  # (seq it vouches for, receipt number, problem)
    for number, given in enumerate(receipts, start=1):
        verification = verify(given, keys)
        name = f"receipt {number}"
        if not verification.ok:
            assert verification.problem is not None
            return failed(
                NAME, None, f"{name}: {verification.problem.value}: {verification.detail}"
            )
        record = verification.record
        assert record is not None
        if f"m:{record.match_id}" != stream:
            return failed(NAME, None, f"{name} is of match {record.match_id!r}, not this one")
        seq = _seq_of(record)
        event = by_seq.get(seq)
        if event is None:
            problem = f"the log has no seq {seq}, which {name} ({record.kind}) names"
        elif event.hash != record.head:
            problem = f"seq {seq}'s hash is not the head {name} ({record.kind}) was given"
        else:
            problem = ""
        checked.append((seq, number, problem))
    checked.sort()
    vouched = -1  # every event up to here agrees with a signed receipt
    for seq, number, problem in checked:
        if problem:
            return failed(
                NAME,
                vouched + 1,
                f"the log contradicts receipt {number}: {problem}; "
                f"the change is in seqs {vouched + 1}..{seq}",
                receipt=number,
                receipt_seq=seq,
            )
        vouched = seq
    return passed(NAME, receipts=len(receipts), vouched_to=vouched)


def _seq_of(record: ActionReceipt | RefusalReceipt | Seal) -> int:
    match record:
        case ActionReceipt():
            return record.last_seq
        case RefusalReceipt():
            return record.judged_at_seq
        case Seal():
            return record.last_seq


def parse_receipts(text: str | bytes) -> list[Mapping[str, Any]]:
    """Receipts as JSON Lines, one signed record per line (what the SDK and the page
    export); ValueError naming the line when one is not a JSON object."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    out: list[Mapping[str, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        if len(out) >= MAX_RECEIPTS:
            raise ValueError(f"more than {MAX_RECEIPTS} receipts")
        try:
            value = json.loads(line)
        except ValueError as error:
            raise ValueError(f"receipts line {number}: not JSON: {error}") from None
        if not isinstance(value, dict):
            raise ValueError(f"receipts line {number}: a receipt is a JSON object")
        out.append(value)
    return out
