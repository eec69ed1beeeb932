"""The hash chain: sha256 over the canonical JSON of an event's envelope without ``hash``.

The envelope has exactly these eight fields::

    {"at": int, "data": {...}, "prev_hash": str, "request_id": str,
     "schema": int, "seq": int, "stream": str, "type": str}

Canonical JSON is what Python's ``json.dumps(envelope, sort_keys=True,
separators=(",", ":"), ensure_ascii=False, allow_nan=False)`` writes, encoded as UTF-8,
so an auditor in any language can recompute it (see eventstore/README.md).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .model import StoredEvent

_encoder = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def canonical_json(value: Any) -> bytes:
    """The canonical UTF-8 JSON encoding of ``value`` (sorted keys, no spaces)."""
    return _encoder.encode(value).encode("utf-8")


def envelope(
    stream: str,
    seq: int,
    type: str,
    schema: int,
    at: int,
    request_id: str,
    data: dict[str, Any],
    prev_hash: str,
) -> dict[str, Any]:
    """The hashed envelope of one event (every stored field except ``hash``)."""
    return {
        "at": at,
        "data": data,
        "prev_hash": prev_hash,
        "request_id": request_id,
        "schema": schema,
        "seq": seq,
        "stream": stream,
        "type": type,
    }


def event_hash(
    stream: str,
    seq: int,
    type: str,
    schema: int,
    at: int,
    request_id: str,
    data: dict[str, Any],
    prev_hash: str,
) -> str:
    """The lowercase hex sha256 of the canonical envelope."""
    env = envelope(stream, seq, type, schema, at, request_id, data, prev_hash)
    return hashlib.sha256(canonical_json(env)).hexdigest()


def recompute_hash(event: StoredEvent) -> str:
    """The hash ``event`` should carry, recomputed from its other fields.

    Use it on events as stored (not upcast): upcasting changes ``data`` and ``schema``.
    """
    return event_hash(
        event.stream,
        event.seq,
        event.type,
        event.schema,
        event.at,
        event.request_id,
        event.data,
        event.prev_hash,
    )
