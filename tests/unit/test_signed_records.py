"""Signed records (service.records): what is signed verifies, and nothing else does:
a changed byte, another key, a key used outside its validity, a malformed record."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.records import (
    ActionReceipt,
    KeyFormatError,
    KeySet,
    Problem,
    PublishedKey,
    Record,
    RefusalReceipt,
    Seal,
    SignedRecord,
    SigningKey,
    record_of,
    request_digest,
    sign,
    verify,
)
from service.records.formats import payload_of, signed_bytes

START, END = 1_000_000, 2_000_000
KEY = SigningKey.from_private_bytes(bytes(range(32)), START, END)
OTHER = SigningKey.from_private_bytes(bytes(range(1, 33)), START)
KEYS = KeySet([KEY.published, OTHER.published])

hexes = st.text("0123456789abcdef", min_size=64, max_size=64)
seqs = st.integers(0, 2**40)
times = st.integers(START, END - 1)
match_ids = st.text(min_size=1, max_size=40)


@st.composite
def records(draw: st.DrawFn, key: SigningKey = KEY) -> Record:
    at, kind = draw(times), draw(st.sampled_from(["receipt", "refusal", "seal"]))
    match_id, head = draw(match_ids), draw(hexes)
    if kind == "receipt":
        first = draw(seqs)
        last = first + draw(st.integers(0, 50))
        return ActionReceipt(match_id, first, last, head, draw(hexes), at, key.key_id)
    if kind == "refusal":
        reason = draw(st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True))
        return RefusalReceipt(match_id, draw(seqs), head, reason, draw(hexes), at, key.key_id)
    return Seal(match_id, draw(seqs), head, at, key.key_id)


def wire(signed: SignedRecord) -> str:
    return json.dumps(signed.to_dict(), ensure_ascii=False)


@given(records())
def test_a_signed_record_verifies_after_a_round_trip_through_json(record: Record) -> None:
    signed = sign(record, KEY)
    checked = verify(json.loads(wire(signed)), KEYS)
    assert checked.ok and checked.problem is None
    assert checked.record == record and checked.key == KEY.published
    assert SignedRecord.from_dict(json.loads(wire(signed))) == signed
    assert record_of(payload_of(record)) == record


@given(records(), st.data())
def test_any_flipped_byte_of_a_signed_record_fails(record: Record, data: st.DataObject) -> None:
    text = wire(sign(record, KEY)).encode()
    position = data.draw(st.integers(0, len(text) - 1))
    bit = data.draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64]))
    flipped = text[:position] + bytes([text[position] ^ bit]) + text[position + 1 :]
    try:
        changed = json.loads(flipped)
    except ValueError:
        return  # no longer JSON: nothing to verify
    if changed == json.loads(text):
        return  # the flip only respelled the same JSON (an escape)
    assert not verify(changed, KEYS).ok


@given(records())
def test_every_field_is_signed(record: Record) -> None:
    genuine = sign(record, KEY).to_dict()
    for name, value in genuine.items():
        if name in {"signature", "kind", "version"}:
            continue
        changed = dict(genuine)
        changed[name] = value + 1 if isinstance(value, int) else _other_text(value)
        assert not verify(changed, KEYS).ok, name


def _other_text(value: str) -> str:
    swapped = "0" if value[-1] != "0" else "1"
    return value[:-1] + swapped


@given(records(OTHER))
def test_a_record_naming_another_key_than_the_one_that_signed_fails(record: Record) -> None:
    signed = sign(record, OTHER).to_dict()
    signed["key_id"] = KEY.key_id  # as if KEY had signed it
    checked = verify(signed, KEYS)
    assert checked.problem is Problem.BAD_SIGNATURE


@given(records())
def test_a_key_not_in_the_set_is_unknown(record: Record) -> None:
    checked = verify(sign(record, KEY), KeySet([OTHER.published]))
    assert checked.problem is Problem.UNKNOWN_KEY and checked.record == record


def test_a_key_counts_only_within_its_validity() -> None:
    receipt = ActionReceipt("m", 0, 3, "a" * 64, "b" * 64, END - 1, KEY.key_id)
    assert verify(sign(receipt, KEY), KEYS).ok
    # a record the key signed but dated at or after valid_to (sign refuses to make one)
    for at in (END, END + 1, START - 1):
        late = ActionReceipt("m", 0, 3, "a" * 64, "b" * 64, at, KEY.key_id)
        with pytest.raises(ValueError, match="not valid"):
            sign(late, KEY)
        forged = SignedRecord(late, KEY.private_key.sign(signed_bytes(late)))
        checked = verify(forged.to_dict(), KEYS)
        assert checked.problem is Problem.KEY_NOT_VALID, at


def test_sign_refuses_a_record_naming_another_key() -> None:
    with pytest.raises(ValueError, match="names key"):
        sign(Seal("m", 4, "a" * 64, START, OTHER.key_id), KEY)


def test_one_kind_is_never_another() -> None:
    seal = sign(Seal("m", 4, "a" * 64, START, KEY.key_id), KEY).to_dict()
    as_receipt = {**seal, "kind": "receipt", "first_seq": 4, "request_digest": "c" * 64}
    assert verify(as_receipt, KEYS).problem is Problem.BAD_SIGNATURE


GOOD = sign(ActionReceipt("m", 1, 2, "a" * 64, "b" * 64, START, KEY.key_id), KEY).to_dict()


@pytest.mark.parametrize(
    "change",
    [
        {"first_seq": True},  # a bool is not a seq
        {"first_seq": 1.0},
        {"first_seq": -1},
        {"first_seq": 3},  # after last_seq
        {"at": 2**60},
        {"head": "A" * 64},
        {"head": "a" * 63},
        {"request_digest": None},
        {"key_id": "KEY"},
        {"match_id": ""},
        {"match_id": "m" * 129},
        {"version": 2},
        {"version": True},
        {"kind": "verdict"},
        {"kind": ["receipt"]},
        {"extra": 1},
        {"signature": "AAAA"},
        {"signature": GOOD["signature"].rstrip("=")},  # not the canonical spelling
        {"signature": 7},
    ],
)
def test_malformed_records_are_named_malformed(change: dict[str, Any]) -> None:
    checked = verify({**GOOD, **change}, KEYS)
    assert checked.problem is Problem.MALFORMED and checked.detail


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=6),
        max_leaves=20,
    )
)
def test_verify_never_raises_on_any_json(value: Any) -> None:
    checked = verify(value, KEYS)
    assert checked.problem is Problem.MALFORMED


def test_missing_fields_are_named() -> None:
    partial = {name: value for name, value in GOOD.items() if name != "head"}
    assert "missing ['head']" in verify(partial, KEYS).detail


def test_request_digest_is_sha256_of_the_canonical_json() -> None:
    assert request_digest({"b": 1, "a": "é"}) == request_digest({"a": "é", "b": 1})
    expected = hashlib.sha256('{"a":"é","b":1}'.encode()).hexdigest()
    assert request_digest({"a": "é", "b": 1}) == expected


def test_published_keys_round_trip_and_are_checked() -> None:
    body = KEYS.to_dict()
    assert sorted(key["valid_to"] or 0 for key in body["keys"]) == [0, END]
    again = KeySet.from_dict(json.loads(json.dumps(body)))
    assert {key.key_id for key in again} == {KEY.key_id, OTHER.key_id}
    assert again.get(KEY.key_id) == KEY.published
    entry = body["keys"][0]
    for bad in (
        {"key_id": "0" * 16},
        {"algorithm": "RSA"},
        {"public_key": entry["public_key"][:-4]},
        {"valid_to": entry["valid_from"]},
        {"valid_from": True},
        {"extra": 1},
    ):
        with pytest.raises(KeyFormatError):
            KeySet.from_dict([{**entry, **bad}])
    with pytest.raises(KeyFormatError):
        KeySet.from_dict({"keys": "none"})


def test_a_bare_public_key_is_valid_always() -> None:
    bare = PublishedKey.of(KEY.published.public_key)
    assert bare.key_id == KEY.key_id and bare.valid_at(0) and bare.valid_at(2**52)


def test_the_examples_in_docs_audit_verify_with_the_key_beside_them() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "AUDIT.md").read_text()
    blocks = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)]
    examples = [block for block in blocks if "signature" in block]
    (published,) = [block for block in blocks if "keys" in block and "format" not in block]
    keys = KeySet.from_dict(published)
    assert {example["kind"] for example in examples} == {"receipt", "refusal", "seal"}
    for example in examples:
        assert verify(example, keys).ok, example["kind"]
