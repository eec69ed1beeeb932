"""The values the event store takes and returns. Nothing here knows about Redis."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

GENESIS_HASH = "0" * 64
"""The ``prev_hash`` of a stream's first event (seq 0)."""

CLOSING_TYPE = "MatchSealed"
"""The type of a stream's final event (a match's seal): the store refuses any append after
it (StreamClosed), so "nothing after the seal" holds whoever writes."""

NO_STREAM = -1
"""The version of a stream with no events: ``expected_version`` for a stream's first append."""


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append. ``data`` holds JSON-compatible values only (str keys, no NaN)."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)
    schema: int = 1


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as stored: its place in the stream and its link in the hash chain.

    ``at`` is the appender's clock in ms since the epoch (informational only). ``hash`` is the
    sha256 of the canonical JSON of the envelope (every field here except ``hash``).
    """

    stream: str
    seq: int
    type: str
    schema: int
    data: dict[str, Any]
    request_id: str
    at: int
    prev_hash: str
    hash: str


@dataclass(frozen=True, slots=True)
class AppendResult:
    """Where an append landed; the stream's version after it is ``last_seq``.

    ``duplicate`` is true when the request_id had been appended before: nothing was written
    and the seqs are those of that first append. ``events`` are the events as stored by
    this append (empty for a duplicate), so a writer need not read back what it wrote.
    ``fingerprint`` is the one the request_id was first appended with.
    """

    first_seq: int
    last_seq: int
    duplicate: bool = False
    events: tuple[StoredEvent, ...] = field(default=(), compare=False, repr=False)
    fingerprint: str = ""


@dataclass(frozen=True, slots=True)
class SentAppend:
    """An append sent without waiting for it (``EventStore.send_append``): its events as
    they will be stored if it lands, and the store's answer once it has come. ``result``
    raises as ``append`` would (ConcurrencyConflict, StoreUnavailable...): then nothing
    of it was stored, nor of any append sent after it on the stream."""

    events: tuple[StoredEvent, ...]
    result: asyncio.Future[AppendResult]


@dataclass(frozen=True, slots=True)
class Closed:
    """A stream in the close log: sealed, not archived yet. ``number``: its place in the
    log (1 for the first stream ever closed); ``last_seq``: its seal's seq (-1 when the
    stream is gone meanwhile)."""

    stream: str
    number: int
    last_seq: int


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of checking a stream's hash chain from seq 0."""

    ok: bool
    checked: int
    first_bad_seq: int | None = None
    reason: str = ""
    head_hash: str = GENESIS_HASH


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A stream folded up to event ``seq`` (an opaque body); ``at``: the writer's time for
    it (snapshots.py)."""

    seq: int
    at: int
    body: bytes


def nearest_snapshot(kept: Iterable[Snapshot], seq: int) -> Snapshot | None:
    """Of ``kept``, the snapshot of the highest seq not past ``seq``."""
    return max((item for item in kept if item.seq <= seq), key=lambda item: item.seq, default=None)


def latest_snapshot(kept: Iterable[Snapshot], at: int) -> Snapshot | None:
    """Of ``kept``, among those whose time is not past ``at``, the one of the latest time
    (of those, the highest seq)."""
    shown = (item for item in kept if item.at <= at)
    return max(shown, key=lambda item: (item.at, item.seq), default=None)
