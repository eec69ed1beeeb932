"""The seal check: a match that ended closes with one MatchSealed, whose record
names this match, the event just before it and that event's hash, signed by a key
of the given set that was valid at the seal's time. With the hash chain checked
too, no event before the seal can have changed: not even by someone who rewrote
the log and chained it again, for they cannot sign."""

from __future__ import annotations

from collections.abc import Sequence

from eventstore.model import StoredEvent

from ..records import KeySet, RecordFormatError, Seal, SignedRecord, verify
from .report import CheckResult, failed, not_run, passed

NAME = "seal"
SEALED = "MatchSealed"
ENDED = "SeedRevealed"  # what the service writes with the match's end, before the seal


def check_seal(events: Sequence[StoredEvent], keys: KeySet | None) -> CheckResult:
    if not events:
        return failed(NAME, None, "no events")
    seals = [index for index, event in enumerate(events) if event.type == SEALED]
    ended = any(event.type == ENDED for event in events)
    if not seals:
        if ended:
            end = events[-1].seq + 1
            return failed(NAME, end, "the match ended, but the log holds no seal")
        return not_run(NAME, "the match is not over: it has no seal yet")
    index = seals[0]
    event = events[index]
    if index != len(events) - 1:
        return failed(NAME, events[index + 1].seq, "an event after the seal")
    if index == 0:
        return failed(NAME, event.seq, "a seal with nothing before it")
    try:
        signed = SignedRecord.from_dict(event.data.get("seal"))
    except RecordFormatError as error:
        return failed(NAME, event.seq, f"the seal is not a signed record: {error}")
    seal = signed.record
    if not isinstance(seal, Seal):
        return failed(NAME, event.seq, f"the seal's record is a {seal.kind}, not a seal")
    if len(event.data) != 1:
        return failed(NAME, event.seq, "MatchSealed holds more than its seal")
    sealed = events[index - 1]
    stream = events[0].stream
    if f"m:{seal.match_id}" != stream:
        return failed(NAME, event.seq, f"the seal is of match {seal.match_id!r}, not this one")
    if seal.last_seq != sealed.seq:
        return failed(NAME, event.seq, f"the seal closes seq {seal.last_seq}, not {sealed.seq}")
    if seal.head != sealed.hash:
        return failed(
            NAME, sealed.seq, f"the seal's head is not the hash of seq {sealed.seq} (altered)"
        )
    detail = {"head": seal.head, "last_seq": seal.last_seq, "key_id": seal.key_id}
    if keys is None:
        return not_run(NAME, "no public key given: the seal's signature is unchecked", **detail)
    verification = verify(signed, keys)
    if not verification.ok:
        assert verification.problem is not None
        return failed(
            NAME, event.seq, f"{verification.problem.value}: {verification.detail}", **detail
        )
    return passed(NAME, **detail)
