"""Signed records: the receipts an action's answer carries, the seal that closes a
match, and the public keys that check them.

Pure (no I/O, no clock): the service signs with what ``service.app.signing`` loads,
and the auditor verifies with public keys alone, importing nothing of the service.
Formats and key management: docs/AUDIT.md.
"""

from .blinding import (
    BLINDED_SINCE,
    BLINDED_TYPES,
    BLINDING,
    blinding_nonce,
    is_blinded,
    stored_before_blinding,
)
from .formats import (
    ActionReceipt,
    Record,
    RecordFormatError,
    RecordKind,
    RefusalReceipt,
    Seal,
    SignedRecord,
    action_request,
    record_of,
    request_digest,
)
from .keys import (
    ALGORITHM,
    KeyFormatError,
    KeySet,
    PublishedKey,
    SigningKey,
    key_id_of,
)
from .signatures import Problem, Verification, sign, verify

__all__ = [
    "ALGORITHM",
    "BLINDED_SINCE",
    "BLINDED_TYPES",
    "BLINDING",
    "ActionReceipt",
    "KeyFormatError",
    "KeySet",
    "Problem",
    "PublishedKey",
    "Record",
    "RecordFormatError",
    "RecordKind",
    "RefusalReceipt",
    "Seal",
    "SignedRecord",
    "SigningKey",
    "Verification",
    "action_request",
    "blinding_nonce",
    "is_blinded",
    "key_id_of",
    "record_of",
    "request_digest",
    "sign",
    "stored_before_blinding",
    "verify",
]
