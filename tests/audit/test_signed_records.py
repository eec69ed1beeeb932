"""Forgeries of a sealed log, each re-chained by whoever holds the log (the
operator, someone with Redis access, anyone passing an export around): the hash
chain holds again, but the seal's signature, checked with the public key alone,
does not; nor does any receipt a player kept of a later action."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from eventstore import StoredEvent
from service.app.signing import ephemeral_signer
from service.audit import AuditReport, audit_events
from service.records import KeySet, PublishedKey, Seal, SignedRecord, sign

from .matches import PlayedLog, edited, rechain


def _sealed_invalid(report: AuditReport) -> None:
    assert report.verdict == "invalid", report.to_dict()
    assert report.check("hash_chain").ok  # the forger re-chained it
    seal = report.check("seal")
    assert seal.ran and not seal.ok, seal.to_dict()


def _receipts_invalid(report: AuditReport, first_bad: int) -> None:
    receipts = report.check("receipts")
    assert receipts.ran and not receipts.ok, receipts.to_dict()
    assert receipts.first_bad_seq is not None and receipts.first_bad_seq <= first_bad
    assert receipts.reason and "contradicts receipt" in receipts.reason


def _audit(log: PlayedLog, events: Sequence[StoredEvent]) -> AuditReport:
    return audit_events(events, log.keys, log.receipts)


def _first(events: Sequence[StoredEvent], type_name: str, **data: Any) -> StoredEvent:
    return next(
        e
        for e in events
        if e.type == type_name and all(e.data.get(k) == v for k, v in data.items())
    )


def test_the_genuine_log_is_valid_with_and_without_receipts(
    played: dict[str, PlayedLog],
) -> None:
    log = played["torasobi"]
    with_receipts = audit_events(log.events, log.keys, log.receipts)
    assert with_receipts.verdict == "valid", with_receipts.to_dict()
    assert with_receipts.not_run == ()
    without = audit_events(log.events, log.keys)
    assert without.verdict == "valid"
    assert [check.name for check in without.not_run] == ["receipts"]
    assert without.check("receipts").reason == "no receipts given"


def test_without_a_key_the_signatures_are_not_run_not_passed(
    played: dict[str, PlayedLog],
) -> None:
    log = played["classic"]
    report = audit_events(log.events, None, log.receipts)
    assert {check.name: check.reason for check in report.not_run} == {
        "seal": "no public key given: the seal's signature is unchecked",
        "receipts": "no public key given: the receipts' signatures are unchecked",
    }
    assert report.to_dict()["not_run"][0]["name"] == "seal"
    assert report.check("seal").status == "not_run"


@pytest.mark.parametrize("kind", ["Passed", "CardsPlayed"])
def test_a_changed_reason(played: dict[str, PlayedLog], kind: str) -> None:
    log = played["torasobi"]
    target = _first(log.events, kind)
    forged = rechain(edited(log.events, target.seq, reason="timeout"))
    report = _audit(log, forged)
    _sealed_invalid(report)
    _receipts_invalid(report, target.seq)


def test_one_turn_timed_out_removed(played: dict[str, PlayedLog]) -> None:
    log = played["torasobi"]
    removed = _first(log.events, "TurnTimedOut").seq
    forged = rechain([e for e in log.events if e.seq != removed], renumber=True)
    report = _audit(log, forged)
    _sealed_invalid(report)
    _receipts_invalid(report, removed)


def test_every_turn_timed_out_removed(played: dict[str, PlayedLog]) -> None:
    log = played["torasobi"]
    first = _first(log.events, "TurnTimedOut").seq
    forged = rechain([e for e in log.events if e.type != "TurnTimedOut"], renumber=True)
    report = _audit(log, forged)
    _sealed_invalid(report)
    _receipts_invalid(report, first)


def test_a_turn_timed_out_inserted(played: dict[str, PlayedLog]) -> None:
    log = played["torasobi"]
    timed_out = _first(log.events, "TurnTimedOut")
    passed = next(e for e in log.events if e.type == "Passed" and e.seq > timed_out.seq + 1)
    inserted = replace(
        timed_out, seq=passed.seq, data={**timed_out.data, "seat": passed.data["seat"]}
    )
    events = [*log.events[: passed.seq], inserted, *log.events[passed.seq :]]
    report = _audit(log, rechain(events, renumber=True))
    _sealed_invalid(report)
    _receipts_invalid(report, passed.seq)


def test_an_at_moved(played: dict[str, PlayedLog]) -> None:
    log = played["federation"]
    target = log.events[len(log.events) // 2]
    moved = [replace(e, at=e.at - 60_000) if e.seq == target.seq else e for e in log.events]
    report = _audit(log, rechain(moved))
    _sealed_invalid(report)
    _receipts_invalid(report, target.seq)


def test_a_name_changed(played: dict[str, PlayedLog]) -> None:
    log = played["torasobi"]
    joined = _first(log.events, "SeatJoined")
    report = _audit(log, rechain(edited(log.events, joined.seq, name="mallory")))
    assert report.check("legality").ok  # a name the service could have given
    _sealed_invalid(report)
    _receipts_invalid(report, joined.seq)


def test_a_request_id_changed(played: dict[str, PlayedLog]) -> None:
    log = played["classic"]
    target = _first(log.events, "CardsPlayed")
    changed = [replace(e, request_id="x" * 32) if e.seq == target.seq else e for e in log.events]
    report = _audit(log, rechain(changed))
    assert report.check("legality").ok
    _sealed_invalid(report)
    _receipts_invalid(report, target.seq)


def _resealed(events: Sequence[StoredEvent], record: dict[str, Any]) -> list[StoredEvent]:
    last = events[-1]
    assert last.type == "MatchSealed"
    return [*events[:-1], replace(last, data={"seal": record})]


def test_a_seal_signed_by_another_key(played: dict[str, PlayedLog]) -> None:
    log = played["classic"]
    target = _first(log.events, "CardsPlayed")
    forged = rechain(edited(log.events, target.seq, reason="timeout"))
    mallory = ephemeral_signer()
    head = forged[-2]
    record = mallory.seal(log.match_id, head.seq, head.hash).to_dict()
    report = audit_events(rechain(_resealed(forged, record)), log.keys)
    _sealed_invalid(report)
    assert (report.check("seal").reason or "").startswith("unknown_key")


def test_a_seal_with_its_head_edited(played: dict[str, PlayedLog]) -> None:
    log = played["classic"]
    target = _first(log.events, "CardsPlayed")
    forged = rechain(edited(log.events, target.seq, reason="timeout"))
    record = dict(forged[-1].data["seal"])
    record["head"] = forged[-2].hash  # the forged head, under the genuine signature
    report = audit_events(rechain(_resealed(forged, record)), log.keys)
    _sealed_invalid(report)
    assert (report.check("seal").reason or "").startswith("bad_signature")


def test_a_seal_removed_or_moved(played: dict[str, PlayedLog]) -> None:
    log = played["classic"]
    report = audit_events(log.events[:-1], log.keys)
    assert report.verdict == "invalid"
    assert report.check("seal").reason == "the match ended, but the log holds no seal"
    # a genuine seal of an earlier head (the log cut and extended) does not fit
    signed = SignedRecord.from_dict(log.events[-1].data["seal"])
    assert isinstance(signed.record, Seal)
    moved = [*log.events[:-2], log.events[-1]]  # SeedRevealed dropped, the seal kept
    early = audit_events(rechain(moved, renumber=True), log.keys)
    assert early.verdict == "invalid"
    assert early.check("seal").reason == f"the seal closes seq {signed.record.last_seq}, not " + (
        f"{signed.record.last_seq - 1}"
    )


def test_a_receipt_from_another_match(played: dict[str, PlayedLog]) -> None:
    log, other = played["classic"], played["federation"]
    # the federation match's receipts verify under its own keys: give both
    keys = KeySet([*log.keys, *other.keys])
    report = audit_events(log.events, keys, [*log.receipts, other.receipts[3]])
    assert report.verdict == "invalid"
    receipts = report.check("receipts")
    assert receipts.reason == (
        f"receipt {len(log.receipts) + 1} is of match {other.match_id!r}, not this one"
    )


def test_a_forged_receipt(played: dict[str, PlayedLog]) -> None:
    log = played["classic"]
    genuine = dict(log.receipts[2])
    genuine["last_seq"] = genuine["last_seq"] + 1
    report = audit_events(log.events, log.keys, [genuine])
    assert report.verdict == "invalid"
    assert (report.check("receipts").reason or "").startswith("receipt 1: bad_signature")


def test_a_receipt_names_the_first_bad_seq(played: dict[str, PlayedLog]) -> None:
    """Receipts before the change still agree; the report bounds the change."""
    log = played["federation"]
    target = log.events[len(log.events) // 2]
    forged = rechain(edited(log.events, target.seq, reason="timeout"))
    receipts = audit_events(forged, log.keys, log.receipts).check("receipts")
    vouched = max(
        r["last_seq"] for r in log.receipts if r["kind"] == "receipt" and r["last_seq"] < target.seq
    )
    assert receipts.first_bad_seq == vouched + 1
    assert receipts.detail["receipt_seq"] >= target.seq


def test_a_key_valid_only_later_does_not_vouch(played: dict[str, PlayedLog]) -> None:
    log = played["classic"]
    (key,) = list(log.keys)
    late = KeySet([PublishedKey(key.key_id, key.public_key, 2**52, None)])
    report = audit_events(log.events, late)
    assert (report.check("seal").reason or "").startswith("key_not_valid_at_record_time")


def test_the_seal_is_the_last_event(played: dict[str, PlayedLog]) -> None:
    log = played["classic"]
    seal = log.events[-1]
    assert seal.type == "MatchSealed"
    assert log.events[-2].type == "SeedRevealed"
    after = replace(seal, seq=seal.seq + 1, type="SeedRevealed", data=log.events[-2].data)
    report = audit_events(rechain([*log.events, after]), log.keys)
    assert report.check("seal").reason == "an event after the seal"
    assert "after MatchSealed" in (report.check("legality").reason or "")


def test_sign_refuses_a_record_for_another_key() -> None:
    signer, other = ephemeral_signer(), ephemeral_signer()
    record = Seal("m", 1, "0" * 64, 1, signer.key_set().oldest_first()[0].key_id)
    with pytest.raises(ValueError):
        sign(record, other.keys.signing_key(other.keys.entries[0].published.valid_from))
