"""Signing a record, and verifying one against a set of public keys.

``verify`` takes what a caller hands over (a parsed JSON object, hostile until
checked) and answers with a ``Verification``: valid, or the one ``Problem`` that
made it invalid. It never raises on bad input.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .formats import Record, RecordFormatError, SignedRecord, signed_bytes
from .keys import KeySet, PublishedKey, SigningKey


class Problem(StrEnum):
    """Why a record does not verify (its value is the reason code reports use)."""

    MALFORMED = "record_malformed"  # not a well-formed signed record
    UNKNOWN_KEY = "unknown_key"  # signed by a key id not in the given set
    KEY_NOT_VALID = "key_not_valid_at_record_time"  # ``at`` outside the key's validity
    BAD_SIGNATURE = "bad_signature"  # the signature does not hold for this payload


@dataclass(frozen=True, slots=True)
class Verification:
    """``ok`` with the record and the key that signed it; else the problem, what was
    seen, and the record when it could be read at all."""

    ok: bool
    problem: Problem | None = None
    detail: str = ""
    record: Record | None = None
    key: PublishedKey | None = None


def sign(record: Record, key: SigningKey) -> SignedRecord:
    """Sign ``record`` with ``key``; the record must name that key and fall within
    its validity (a record the verifier would refuse is a bug here, not later)."""
    if record.key_id != key.key_id:
        raise ValueError(f"the record names key {record.key_id}, not {key.key_id}")
    if not key.published.valid_at(record.at):
        raise ValueError(f"key {key.key_id} is not valid at {record.at}")
    return SignedRecord(record, key.private_key.sign(signed_bytes(record)))


@functools.lru_cache(maxsize=64)
def _loaded(public_key: bytes) -> Ed25519PublicKey:
    # loading a key costs about as much as a verification: once per key
    return Ed25519PublicKey.from_public_bytes(public_key)


def verify(signed: SignedRecord | Mapping[str, Any], keys: KeySet) -> Verification:
    """Does ``signed`` hold under one of ``keys``, at its own time?"""
    if not isinstance(signed, SignedRecord):
        try:
            signed = SignedRecord.from_dict(signed)
        except RecordFormatError as error:
            return Verification(False, Problem.MALFORMED, str(error))
    record = signed.record
    key = keys.get(record.key_id)
    if key is None:
        return Verification(False, Problem.UNKNOWN_KEY, f"no key {record.key_id}", record)
    if not key.valid_at(record.at):
        window = f"[{key.valid_from}, {'open' if key.valid_to is None else key.valid_to})"
        detail = f"dated {record.at}, key {key.key_id} valid {window}"
        return Verification(False, Problem.KEY_NOT_VALID, detail, record, key)
    try:
        _loaded(key.public_key).verify(signed.signature, signed_bytes(record))
    except InvalidSignature:
        detail = f"the signature does not hold under key {key.key_id}"
        return Verification(False, Problem.BAD_SIGNATURE, detail, record, key)
    return Verification(True, record=record, key=key)
