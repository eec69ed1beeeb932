"""Making and checking a stream's hash chain, the same for every store: what an append
refuses, how a batch is chained from the head and encoded, and how ``verify`` walks the
stored entries from seq 0."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from typing import Any

from .codec import check_keys, decode_entry, encode_body
from .errors import CorruptEvent, InvalidEvent
from .hashing import canonical_json, recompute_hash
from .model import CLOSING_TYPE, GENESIS_HASH, NewEvent, StoredEvent, Verification


def check_new_event(event: NewEvent) -> None:
    """Refuse (InvalidEvent) an event that is not storable as it stands."""
    if not isinstance(event, NewEvent):
        raise InvalidEvent(f"expected a NewEvent, got {type(event).__name__}")
    if not isinstance(event.type, str) or not event.type:
        raise InvalidEvent(f"event type must be a non-empty str: {event.type!r}")
    if type(event.schema) is not int or event.schema < 1:
        raise InvalidEvent(f"{event.type}: schema must be an int >= 1: {event.schema!r}")
    if type(event.data) is not dict:
        raise InvalidEvent(f"{event.type}: data must be a dict")
    check_keys(event.data, f"{event.type}.data")


AUTO_REQUEST_PREFIX = "auto-"


def auto_request_id() -> str:
    """The request id of an append whose caller gave none: 128 random bits, so that no
    export of one match tells another append's id (an id enters the event's hash, and a
    guessable one would leave only the hidden fields to guess). A store retrying its own
    append keeps the id it made, so the retry stays idempotent."""
    return f"{AUTO_REQUEST_PREFIX}{secrets.token_hex(16)}"


def check_append_args(
    events: Sequence[NewEvent], expected_version: int, request_id: str | None, fingerprint: str
) -> None:
    """Refuse (InvalidEvent) an append whose arguments no store takes."""
    if not events:
        raise InvalidEvent("append needs at least one event")
    if type(expected_version) is not int or expected_version < -1:
        raise InvalidEvent(f"expected_version must be an int >= -1: {expected_version!r}")
    for event in events:
        check_new_event(event)
    if any(event.type == CLOSING_TYPE for event in events[:-1]):
        raise InvalidEvent(f"{CLOSING_TYPE} closes its stream: it is the last event of its append")
    if request_id is not None and (type(request_id) is not str or not request_id):
        raise InvalidEvent(f"request_id must be a non-empty str: {request_id!r}")
    if type(fingerprint) is not str:
        raise InvalidEvent(f"fingerprint must be a str: {fingerprint!r}")


def closes(events: Sequence[NewEvent]) -> bool:
    """Whether the append of ``events`` closes its stream (its last is the seal)."""
    return events[-1].type == CLOSING_TYPE


def encode_batch(
    args: list[str | bytes | int],
    stored: list[StoredEvent],
    stream: str,
    events: Sequence[NewEvent],
    expected_version: int,
    request_id: str,
    at: int,
    head: str,
) -> None:
    """Append (hash, body) per event, chained from ``head``, to ``args``, and the event
    as it will be stored to ``stored``. InvalidEvent for data that cannot be stored."""
    prev = head
    seq = expected_version
    sha256 = hashlib.sha256
    for event in events:
        seq += 1
        type_, schema, data = event.type, event.schema, event.data
        env = {
            "at": at,
            "data": data,
            "prev_hash": prev,
            "request_id": request_id,
            "schema": schema,
            "seq": seq,
            "stream": stream,
            "type": type_,
        }
        try:
            digest = sha256(canonical_json(env)).hexdigest()
            body = encode_body(type_, schema, at, request_id, prev, data)
        except (TypeError, ValueError, OverflowError) as exc:
            raise InvalidEvent(f"{type_}: data is not storable: {exc}") from exc
        args.append(digest)
        args.append(body)
        stored.append(StoredEvent(stream, seq, type_, schema, data, request_id, at, prev, digest))
        prev = digest


class ChainCheck:
    """Walks a stream's raw entries from seq 0, page by page (``check``), and reports the
    first bad seq: a missing seq, an undecodable entry, a ``prev_hash`` that does not link,
    a hash that does not match the contents."""

    def __init__(self, stream: str) -> None:
        self.stream = stream
        self.checked = 0  # the next seq expected; how many were good
        self.prev = GENESIS_HASH  # the hash of the last good event

    def check(self, entries: Sequence[Any]) -> Verification | None:
        """The failure among the next ``entries``, or None when they all link on."""
        for entry in entries:
            expected = self.checked
            try:
                event = decode_entry(self.stream, entry)
            except CorruptEvent as exc:
                return self.bad(min(exc.seq if exc.seq >= 0 else expected, expected), exc.reason)
            if event.seq != expected:
                return self.bad(expected, f"seq {expected} is missing")
            if event.prev_hash != self.prev:
                return self.bad(expected, "prev_hash does not match the hash of the event before")
            try:
                actual = recompute_hash(event)
            except (TypeError, ValueError) as exc:
                return self.bad(expected, f"unhashable: {exc}")
            if actual != event.hash:
                return self.bad(expected, "hash does not match the contents (altered)")
            self.prev = event.hash
            self.checked = expected + 1
        return None

    def against_head(self, head_seq: int, head_hash: str, has_head: bool) -> Verification:
        """The verdict once every entry was checked, given the head record the store keeps
        (which catches a rewritten last event, whose successor would be the only witness)."""
        expected, prev = self.checked, self.prev
        if head_seq >= expected:
            return self.bad(expected, f"the head record says seq {head_seq} exists")
        if has_head and head_seq < expected - 1:
            return self.bad(
                head_seq + 1, f"seq {head_seq + 1} onward were not written by the append script"
            )
        if has_head and head_hash != prev:
            return self.bad(head_seq, "hash differs from the head record (altered)")
        if not has_head and expected > 0:
            return self.bad(expected - 1, "the head record is missing")
        return Verification(True, expected, None, "", prev)

    def bad(self, seq: int, reason: str) -> Verification:
        return Verification(False, self.checked, seq, reason, self.prev)
