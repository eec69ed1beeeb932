"""Signed records: the receipts an action's answer carries, the seal that closes a
match, and the public keys that check them.

Pure (no I/O, no clock): the service signs with what ``service.app.signing`` loads,
and the auditor verifies with public keys alone, importing nothing of the service.
Formats and key management: docs/AUDIT.md.
"""

from .formats import (
    ActionReceipt,
    Record,
    RecordFormatError,
    RecordKind,
    RefusalReceipt,
    Seal,
    SignedRecord,
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
    "key_id_of",
    "record_of",
    "request_digest",
    "sign",
    "verify",
]
