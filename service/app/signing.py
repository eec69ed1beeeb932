"""The deployment's signing keys: kept in a file, never in Redis (whoever can rewrite
the streams must not be able to re-sign them), rotated by adding a key.

The key file is JSON::

    {"format": "daifugo-signing-keys", "version": 1, "keys": [
      {"public_key": "<base64>", "private_key": "<base64>", "valid_from": ms, "valid_to": null},
      {"public_key": "<base64>", "valid_from": ms, "valid_to": ms}, ...]}

Keys follow each other without gaps or overlaps: each one's ``valid_to`` is the next
one's ``valid_from``, and the last is open. A key keeps its private half while it
can still sign (until its ``valid_to`` has passed at the next rotation); a retired
key is public only, and stays published so old records still verify.

``daifugo serve`` creates the file on first start in the data folder
(``$XDG_DATA_HOME/daifugo/keys/signing-keys.json``, folder 0700, file 0600);
containers are given it (``--signing-key-file``, ``DAIFUGO_SIGNING_KEY_FILE``) from a
Secret, the same file for every replica. docs/AUDIT.md says how to rotate.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from eventstore.datadir import daifugo_data_dir

from ..records import (
    ActionReceipt,
    KeyFormatError,
    KeySet,
    PublishedKey,
    RefusalReceipt,
    Seal,
    SignedRecord,
    SigningKey,
    sign,
)
from ..records.keys import KEY_BYTES, b64decode_exact, b64encode, is_time

log = logging.getLogger("daifugo")
KEY_FILE_ENV = "DAIFUGO_SIGNING_KEY_FILE"
FORMAT = "daifugo-signing-keys"
VERSION = 1
MAX_KEY_FILE = 1 << 20  # bytes: a thousand keys take a tenth of it


class NoSigningKey(RuntimeError):
    """No key of the file may sign now (all retired, or the next not valid yet)."""


SigningKeyProblem = (OSError, KeyFormatError, NoSigningKey)  # what stops a start


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def default_key_file(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/daifugo/keys/signing-keys.json`` (``~/.local/share`` by default)."""
    return daifugo_data_dir(env) / "keys" / "signing-keys.json"


@dataclass(frozen=True, slots=True)
class KeyEntry:
    published: PublishedKey
    private: SigningKey | None  # None: retired, public only


@dataclass(frozen=True, slots=True)
class SigningKeys:
    """A key file's keys, oldest first."""

    entries: tuple[KeyEntry, ...]

    def __post_init__(self) -> None:
        if not self.entries:
            raise KeyFormatError("a key file holds at least one key")
        for earlier, later in zip(self.entries, self.entries[1:], strict=False):
            if earlier.published.valid_to != later.published.valid_from:
                raise KeyFormatError("each key's valid_to must be the next key's valid_from")
        if self.entries[-1].published.valid_to is not None:
            raise KeyFormatError("the newest key must be open (valid_to null)")
        if len({entry.published.key_id for entry in self.entries}) != len(self.entries):
            raise KeyFormatError("a key appears twice")

    @property
    def published(self) -> tuple[PublishedKey, ...]:
        return tuple(entry.published for entry in self.entries)

    def key_set(self) -> KeySet:
        return KeySet(self.published)

    def signing_key(self, at: int) -> SigningKey:
        """The key that signs a record dated ``at``."""
        for entry in reversed(self.entries):
            if entry.published.valid_at(at):
                if entry.private is None:
                    raise NoSigningKey(f"key {entry.published.key_id} is retired: rotate")
                return entry.private
        raise NoSigningKey(f"no key is valid at {at}")


def new_key(valid_from: int) -> KeyEntry:
    raw = secrets.token_bytes(KEY_BYTES)
    private = SigningKey.from_private_bytes(raw, valid_from)
    return KeyEntry(private.published, private)


def generate_keys(now: int) -> SigningKeys:
    """A first key, valid from ``now``."""
    return SigningKeys((new_key(now),))


def rotate(keys: SigningKeys, now: int, effective_at: int | None = None) -> SigningKeys:
    """A new key that signs from ``effective_at`` (default: now) on; the current one
    signs until then and is retired after. Keys whose time is over lose their
    private half. A later ``effective_at`` lets every replica get the new file first."""
    at = now if effective_at is None else effective_at
    current = keys.entries[-1]
    if at < now or at <= current.published.valid_from:
        raise ValueError("a rotation takes effect now or later, after the current key began")
    retired = []
    for entry in keys.entries[:-1]:
        ended = entry.published.valid_to is not None and entry.published.valid_to <= now
        retired.append(replace(entry, private=None) if ended else entry)
    closed = replace(current.published, valid_to=at)
    # it signs until ``at`` (a later rotation drops its private half)
    private = current.private
    still_signs = SigningKey(private.private_key, closed) if private and at > now else None
    previous = KeyEntry(closed, still_signs)
    return SigningKeys((*retired, previous, new_key(at)))


def key_file_text(keys: SigningKeys) -> str:
    entries = []
    for entry in keys.entries:
        item: dict[str, Any] = {
            "public_key": b64encode(entry.published.public_key),
            "valid_from": entry.published.valid_from,
            "valid_to": entry.published.valid_to,
        }
        if entry.private is not None:
            raw = entry.private.private_key.private_bytes(
                Encoding.Raw, PrivateFormat.Raw, NoEncryption()
            )
            item["private_key"] = b64encode(raw)
        entries.append(item)
    document = {"format": FORMAT, "version": VERSION, "keys": entries}
    return json.dumps(document, indent=2) + "\n"


def parse_key_file(text: str) -> SigningKeys:
    """KeyFormatError (naming the key) unless ``text`` is a well-formed key file."""
    try:
        document = json.loads(text)
    except ValueError as error:
        raise KeyFormatError(f"not JSON: {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise KeyFormatError(f'not a key file: "format" must be {FORMAT!r}')
    if document.get("version") != VERSION:
        raise KeyFormatError(f"unknown key file version {document.get('version')!r}")
    items = document.get("keys")
    if not isinstance(items, list):
        raise KeyFormatError('"keys" must be a list')
    return SigningKeys(tuple(_entry(number, item) for number, item in enumerate(items)))


def _entry(number: int, item: object) -> KeyEntry:
    where = f"key {number}"
    if not isinstance(item, dict) or not {"public_key", "valid_from", "valid_to"} <= set(item):
        raise KeyFormatError(f"{where}: needs public_key, valid_from, valid_to")
    valid_from, valid_to = item["valid_from"], item["valid_to"]
    if not is_time(valid_from) or not (valid_to is None or is_time(valid_to)):
        raise KeyFormatError(f"{where}: valid_from and valid_to are ms (valid_to may be null)")
    if valid_to is not None and valid_to <= valid_from:
        raise KeyFormatError(f"{where}: valid_to must come after valid_from")
    public_raw = b64decode_exact(item["public_key"], KEY_BYTES)
    if public_raw is None:
        raise KeyFormatError(f"{where}: public_key must be the base64 of {KEY_BYTES} bytes")
    published = PublishedKey.of(public_raw, valid_from, valid_to)
    if "private_key" not in item:
        return KeyEntry(published, None)
    private_raw = b64decode_exact(item["private_key"], KEY_BYTES)
    if private_raw is None:
        raise KeyFormatError(f"{where}: private_key must be the base64 of {KEY_BYTES} bytes")
    private = SigningKey.from_private_bytes(private_raw, valid_from, valid_to)
    if private.published != published:
        raise KeyFormatError(f"{where}: private_key does not belong to public_key")
    return KeyEntry(published, private)


def load_key_file(path: Path) -> SigningKeys:
    """The keys of an existing file (KeyFormatError, OSError)."""
    with path.open("rb") as handle:
        data = handle.read(MAX_KEY_FILE + 1)
    if len(data) > MAX_KEY_FILE:
        raise KeyFormatError(f"{path}: larger than {MAX_KEY_FILE} bytes")
    try:
        return parse_key_file(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise KeyFormatError(f"{path}: not UTF-8") from None
    except KeyFormatError as error:
        raise KeyFormatError(f"{path}: {error}") from None


def write_key_file(path: Path, keys: SigningKeys) -> None:
    """Replace ``path`` at once (a reader sees the old file or the new, whole)."""
    temporary = _write_temporary(path, keys)
    os.replace(temporary, path)


def create_key_file(path: Path, now: int) -> SigningKeys:
    """The keys in ``path``, made first if it does not exist. Processes starting
    side by side on one folder agree: one file wins, all load it."""
    if not path.exists():
        temporary = _write_temporary(path, generate_keys(now))
        try:
            os.link(temporary, path)  # fails if another process made it first
        except FileExistsError:
            pass
        finally:
            temporary.unlink()
    return load_key_file(path)


def _write_temporary(path: Path, keys: SigningKeys) -> Path:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(key_file_text(keys))
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    return temporary


class Signer:
    """Signs the service's records with the key valid at the time of signing."""

    def __init__(self, keys: SigningKeys, clock: Callable[[], int] = now_ms) -> None:
        self.keys = keys
        self._clock = clock

    def key_set(self) -> KeySet:
        return self.keys.key_set()

    def receipt(
        self,
        match_id: str,
        first_seq: int,
        last_seq: int,
        head: str,
        request_digest: str,
        at: int | None = None,
    ) -> SignedRecord:
        """``at``: the receipt's time, e.g. its last event's, so that a retry signs the
        same payload again (Ed25519 is deterministic: the same bytes); now when the key
        of that time can no longer sign."""
        key = self._key_at(at) if at is not None else None
        if at is None or key is None:
            at = self._clock()
            key = self.keys.signing_key(at)
        record = ActionReceipt(match_id, first_seq, last_seq, head, request_digest, at, key.key_id)
        return sign(record, key)

    def _key_at(self, at: int) -> SigningKey | None:
        try:
            return self.keys.signing_key(at)
        except NoSigningKey:
            return None

    def refusal(
        self, match_id: str, judged_at_seq: int, head: str, reason: str, request_digest: str
    ) -> SignedRecord:
        at = self._clock()
        key = self.keys.signing_key(at)
        record = RefusalReceipt(
            match_id, judged_at_seq, head, reason, request_digest, at, key.key_id
        )
        return sign(record, key)

    def seal(self, match_id: str, last_seq: int, head: str) -> SignedRecord:
        at = self._clock()
        key = self.keys.signing_key(at)
        return sign(Seal(match_id, last_seq, head, at, key.key_id), key)


def serving_signer(key_file: str | None, env: Mapping[str, str] | None = None) -> Signer:
    """``daifugo serve``'s signer. A given file must exist: a container never makes
    one (each replica would sign with a key of its own). Without one, the data
    folder's file, made on first start. Raises one of ``SigningKeyProblem``."""
    now = now_ms()
    if key_file:
        path = Path(key_file)
        keys = load_key_file(path)
    else:
        path = default_key_file(env)
        keys = create_key_file(path, now)
    active = keys.signing_key(now)  # fails now rather than at the first action
    if path.stat().st_mode & 0o007:
        log.warning("%s can be read by every user of this machine: chmod o-rwx it", path)
    log.info("signing with key %s from %s", active.key_id, path)
    return Signer(keys)


def ephemeral_signer() -> Signer:
    """A key made for this process only (tests, demos): nothing it signs outlives it."""
    return Signer(generate_keys(now_ms()))
