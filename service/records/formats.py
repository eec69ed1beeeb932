"""The signed records' payloads: what each says, as typed values and as the JSON
that is signed.

A signed record is its payload's JSON object plus one field, ``signature``: the
standard base64 of the Ed25519 signature over the payload's canonical JSON (the
object without ``signature``, encoded as the hash chain encodes envelopes:
``eventstore.hashing.canonical_json``). Every payload says its ``kind`` and
``version``, so one kind can never be passed off as another.

- ``receipt``: an accepted action appended events ``first_seq``..``last_seq`` of
  ``match_id``, after which the chain's head (the last event's ``hash``) was ``head``.
- ``refusal``: a refused action was judged against the match at ``judged_at_seq``
  (head ``head``) and refused with ``reason``; it appended nothing.
- ``seal``: the match ended with event ``last_seq``, whose hash is ``head``.

``request_digest`` ties a receipt to the request it answers; ``at`` is the server's
time (ms since the epoch) and ``key_id`` the key that signed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar

from eventstore.hashing import canonical_json

from .keys import MAX_TIME, b64decode_exact, b64encode, is_key_id, is_time

VERSION = 1
SIGNATURE_BYTES = 64
MAX_MATCH_ID = 128
_HEX64 = re.compile(r"[0-9a-f]{64}")
_REASON = re.compile(r"[a-z][a-z0-9_]{0,63}")


class RecordKind(StrEnum):
    RECEIPT = "receipt"
    REFUSAL = "refusal"
    SEAL = "seal"


class RecordFormatError(ValueError):
    """A record that is not one of ours: wrong shape, field or value; says which."""


def request_digest(request: Mapping[str, Any]) -> str:
    """sha256 (hex) over the canonical JSON of a request as the service read it: a
    client that keeps its request can recompute it."""
    return hashlib.sha256(canonical_json(request)).hexdigest()


def action_request(match_id: str, by: str, command: str, request_id: str) -> dict[str, str]:
    """What a receipt's ``request_digest`` is the digest of: the match, who asked
    (``seat:<n>``, ``host``, ``create`` or ``join``), the command in its canonical
    notation (``rules.notation.format_command``, or ``start``, ``create``, ``join``) and
    the request id exactly as the caller sent it."""
    return {"match_id": match_id, "by": by, "command": command, "request_id": request_id}


@dataclass(frozen=True, slots=True)
class ActionReceipt:
    kind: ClassVar[RecordKind] = RecordKind.RECEIPT
    match_id: str
    first_seq: int
    last_seq: int
    head: str  # hex sha256: the hash of event last_seq
    request_digest: str
    at: int  # ms since the epoch
    key_id: str


@dataclass(frozen=True, slots=True)
class RefusalReceipt:
    kind: ClassVar[RecordKind] = RecordKind.REFUSAL
    match_id: str
    judged_at_seq: int  # the last event of the state the refusal was judged on
    head: str  # the hash of event judged_at_seq
    reason: str  # the reason code the answer carried, e.g. not_stronger
    request_digest: str
    at: int
    key_id: str


@dataclass(frozen=True, slots=True)
class Seal:
    kind: ClassVar[RecordKind] = RecordKind.SEAL
    match_id: str
    last_seq: int  # the match's last event, the seal's own event excepted
    head: str  # the hash of event last_seq
    at: int
    key_id: str


Record = ActionReceipt | RefusalReceipt | Seal
_CLASSES: dict[str, type[Record]] = {
    RecordKind.RECEIPT: ActionReceipt,
    RecordKind.REFUSAL: RefusalReceipt,
    RecordKind.SEAL: Seal,
}


_FIELDS = {kind: tuple(field.name for field in fields(cls)) for kind, cls in _CLASSES.items()}


def payload_of(record: Record) -> dict[str, Any]:
    """The JSON object that is signed."""
    payload: dict[str, Any] = {"kind": record.kind.value, "version": VERSION}
    for name in _FIELDS[record.kind]:
        payload[name] = getattr(record, name)
    return payload


def signed_bytes(record: Record) -> bytes:
    return canonical_json(payload_of(record))


def record_of(payload: Mapping[str, Any]) -> Record:
    """A record from its payload (hostile input: every field checked, none extra);
    RecordFormatError says what is wrong."""
    if not isinstance(payload, Mapping):
        raise RecordFormatError("a record is a JSON object")
    kind = payload.get("kind")
    cls = _CLASSES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise RecordFormatError(f"kind must be one of {[kind.value for kind in RecordKind]}")
    if payload.get("version") != VERSION or type(payload.get("version")) is not int:
        raise RecordFormatError(f"version must be {VERSION}")
    names = _FIELDS[cls.kind]
    expected = {"kind", "version", *names}
    if set(payload) != expected:
        missing, extra = expected - set(payload), set(payload) - expected
        raise RecordFormatError(
            f"a {kind} has exactly {sorted(expected)}: missing {sorted(missing)}, "
            f"unknown {[_preview(name) for name in sorted(extra)[:5]]}"
        )
    for name in names:
        _check(name, payload[name])
    record = cls(**{name: payload[name] for name in names})
    if isinstance(record, ActionReceipt) and record.first_seq > record.last_seq:
        raise RecordFormatError("first_seq comes after last_seq")
    return record


def _check(name: str, value: object) -> None:
    match name:
        case "match_id":
            ok = isinstance(value, str) and 0 < len(value) <= MAX_MATCH_ID
        case "first_seq" | "last_seq" | "judged_at_seq":
            ok = type(value) is int and 0 <= value <= MAX_TIME
        case "head" | "request_digest":
            ok = isinstance(value, str) and _HEX64.fullmatch(value) is not None
        case "reason":
            ok = isinstance(value, str) and _REASON.fullmatch(value) is not None
        case "at":
            ok = is_time(value)
        case "key_id":
            ok = is_key_id(value)
        case _:
            raise AssertionError(name)
    if not ok:
        raise RecordFormatError(f"{name} is not valid: {_preview(value)}")


def _preview(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True, slots=True)
class SignedRecord:
    """A record and its signature; its JSON is the payload plus ``signature``."""

    record: Record
    signature: bytes  # 64 bytes

    def to_dict(self) -> dict[str, Any]:
        return {**payload_of(self.record), "signature": b64encode(self.signature)}

    @classmethod
    def from_dict(cls, value: object) -> SignedRecord:
        """Hostile input: RecordFormatError unless it is a well-formed signed record
        (whether the signature holds is ``verify``'s question)."""
        if not isinstance(value, Mapping):
            raise RecordFormatError("a signed record is a JSON object")
        signature = b64decode_exact(value.get("signature"), SIGNATURE_BYTES)
        if signature is None:
            raise RecordFormatError(f"signature must be the base64 of {SIGNATURE_BYTES} bytes")
        payload = {name: item for name, item in value.items() if name != "signature"}
        return cls(record_of(payload), signature)
