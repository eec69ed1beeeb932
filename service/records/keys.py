"""Ed25519 keys as the records name them: a key id, and a validity interval in ms.

A key id is the first 16 hex digits of sha256 over the raw 32-byte public key, so
anyone holding a public key can compute its id. A key is valid from ``valid_from``
(inclusive) to ``valid_to`` (exclusive; None while it is the active key): a record
counts only when its own time ``at`` falls inside the interval of the key it names.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ALGORITHM = "Ed25519"
KEY_BYTES = 32  # raw Ed25519 public keys and private seeds
MAX_TIME = 2**53 - 1  # ms; JSON-safe in every language
MAX_KEYS = 1000  # published keys a caller may hand over
_KEY_ID = re.compile(r"[0-9a-f]{16}")
_PUBLISHED_FIELDS = frozenset({"key_id", "algorithm", "public_key", "valid_from", "valid_to"})


class KeyFormatError(ValueError):
    """A published key (or a list of them) that is not one; says what is wrong."""


def key_id_of(public_key: bytes) -> str:
    return hashlib.sha256(public_key).hexdigest()[:16]


def is_key_id(value: object) -> bool:
    return isinstance(value, str) and _KEY_ID.fullmatch(value) is not None


def is_time(value: object) -> bool:
    """A ms timestamp as records and keys carry it (a JSON whole number, not a bool)."""
    return type(value) is int and 0 <= value <= MAX_TIME


def b64encode(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def b64decode_exact(text: object, length: int) -> bytes | None:
    """Standard padded base64 of exactly ``length`` bytes, in its one canonical
    spelling; None for anything else."""
    if not isinstance(text, str) or len(text) > 4 * (length // 3 + 1):
        return None
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        return None
    if len(raw) != length or b64encode(raw) != text:
        return None
    return raw


@dataclass(frozen=True, slots=True)
class PublishedKey:
    """A public key as ``GET /keys`` serves it."""

    key_id: str
    public_key: bytes  # raw, 32 bytes
    valid_from: int  # ms since the epoch
    valid_to: int | None  # exclusive; None: still the active key

    @classmethod
    def of(
        cls, public_key: bytes, valid_from: int = 0, valid_to: int | None = None
    ) -> PublishedKey:
        """A key from its raw bytes (a bare key given to the auditor: valid always)."""
        if len(public_key) != KEY_BYTES:
            raise KeyFormatError(f"an Ed25519 public key has {KEY_BYTES} bytes")
        Ed25519PublicKey.from_public_bytes(public_key)  # any 32 bytes load; checks the type
        return cls(key_id_of(public_key), public_key, valid_from, valid_to)

    def valid_at(self, at: int) -> bool:
        return self.valid_from <= at and (self.valid_to is None or at < self.valid_to)

    def to_dict(self) -> dict[str, Any]:
        return {
            "key_id": self.key_id,
            "algorithm": ALGORITHM,
            "public_key": b64encode(self.public_key),
            "valid_from": self.valid_from,
            "valid_to": self.valid_to,
        }

    @classmethod
    def from_dict(cls, value: object) -> PublishedKey:
        """A key from its ``to_dict`` JSON (hostile input: every field checked)."""
        if not isinstance(value, Mapping):
            raise KeyFormatError("a published key is an object")
        if set(value) != _PUBLISHED_FIELDS:
            raise KeyFormatError(f"a published key has exactly {sorted(_PUBLISHED_FIELDS)}")
        if value["algorithm"] != ALGORITHM:
            raise KeyFormatError(f"algorithm must be {ALGORITHM!r}")
        raw = b64decode_exact(value["public_key"], KEY_BYTES)
        if raw is None:
            raise KeyFormatError(f"public_key must be the base64 of {KEY_BYTES} bytes")
        valid_from, valid_to = value["valid_from"], value["valid_to"]
        if not is_time(valid_from) or not (valid_to is None or is_time(valid_to)):
            raise KeyFormatError("valid_from and valid_to are ms since the epoch (or null)")
        if valid_to is not None and valid_to <= valid_from:
            raise KeyFormatError("valid_to must come after valid_from")
        if value["key_id"] != key_id_of(raw):
            raise KeyFormatError("key_id is not the id of public_key")
        return cls(key_id_of(raw), raw, valid_from, valid_to)


@dataclass(frozen=True, slots=True, eq=False)
class SigningKey:
    """A private key with its validity; what ``sign`` signs with."""

    private_key: Ed25519PrivateKey
    published: PublishedKey

    @classmethod
    def from_private_bytes(
        cls, raw: bytes, valid_from: int, valid_to: int | None = None
    ) -> SigningKey:
        if len(raw) != KEY_BYTES:
            raise KeyFormatError(f"an Ed25519 private key has {KEY_BYTES} bytes")
        private_key = Ed25519PrivateKey.from_private_bytes(raw)
        public = private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return cls(private_key, PublishedKey.of(public, valid_from, valid_to))

    @property
    def key_id(self) -> str:
        return self.published.key_id

    def __repr__(self) -> str:  # never the private key
        return f"<SigningKey {self.key_id}>"


class KeySet:
    """Public keys by id: what ``verify`` checks a record's signature against."""

    def __init__(self, keys: Iterable[PublishedKey]) -> None:
        self._keys: dict[str, PublishedKey] = {}
        for key in keys:
            if key.key_id in self._keys and self._keys[key.key_id] != key:
                raise KeyFormatError(f"key {key.key_id} is given twice, differently")
            self._keys[key.key_id] = key

    def get(self, key_id: str) -> PublishedKey | None:
        return self._keys.get(key_id)

    def __iter__(self) -> Iterator[PublishedKey]:
        return iter(self._keys.values())

    def __len__(self) -> int:
        return len(self._keys)

    def oldest_first(self) -> list[PublishedKey]:
        return sorted(self._keys.values(), key=lambda key: (key.valid_from, key.key_id))

    def to_dict(self) -> dict[str, Any]:
        """The ``GET /keys`` body."""
        return {"keys": [key.to_dict() for key in self.oldest_first()]}

    @classmethod
    def from_dict(cls, value: object) -> KeySet:
        """Keys from a ``GET /keys`` body, or from a list of its keys."""
        keys = value.get("keys") if isinstance(value, Mapping) else value
        if not isinstance(keys, list):
            raise KeyFormatError('expected {"keys": [...]} or a list of keys')
        if len(keys) > MAX_KEYS:
            raise KeyFormatError(f"at most {MAX_KEYS} keys")
        return cls(PublishedKey.from_dict(key) for key in keys)
