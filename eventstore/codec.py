"""How one event is laid out in a Redis stream entry, and upcasting of old schemas.

An entry has two fields: ``h`` (the event's hash, 64 lowercase hex chars) and ``e`` (the
body): a MessagePack array ``[format, type, schema, at, request_id, prev_hash, data]``
written with msgspec. ``format`` is the layout version (1 today); a reader refuses a format
it does not know. ``stream`` and ``seq`` are not in the body: they are the key and the entry
id (``<seq>-1``), and they are part of the hashed envelope, so moving an entry is detected.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from .errors import CorruptEvent, InvalidEvent
from .model import StoredEvent

FORMAT = 1
"""The body layout this code writes."""

HASH_FIELD = b"h"
BODY_FIELD = b"e"


class _BodyV1(msgspec.Struct, array_like=True, tag=1, tag_field="format", frozen=True):
    type: str
    schema: int
    at: int
    request_id: str
    prev_hash: str
    data: dict[str, Any]


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(_BodyV1)


def encode_body(
    type: str, schema: int, at: int, request_id: str, prev_hash: str, data: dict[str, Any]
) -> bytes:
    """The ``e`` field of an entry, in the current format."""
    return _encoder.encode(_BodyV1(type, schema, at, request_id, prev_hash, data))


def entry_id(seq: int) -> str:
    """The stream entry id that holds ``seq``."""
    return f"{seq}-1"


def parse_entry_id(stream: str, raw: bytes | str) -> int:
    """The seq an entry id ``<seq>-1`` encodes; CorruptEvent for any other id."""
    if type(raw) is bytes and raw[-2:] == b"-1" and raw[:-2].isdigit():
        return int(raw[:-2])
    text = raw.decode("ascii", "replace") if isinstance(raw, bytes) else raw
    ms, sep, suffix = text.partition("-")
    if sep and suffix == "1" and ms.isdigit():
        return int(ms)
    seq = int(ms) if ms.isdigit() else -1
    raise CorruptEvent(stream, seq, f"entry id {text!r} is not <seq>-1")


def decode_entry(stream: str, entry: Sequence[Any]) -> StoredEvent:
    """One raw XRANGE/XREAD entry ``[id, [field, value, ...]]`` as stored (not upcast)."""
    try:
        raw_id, fields = entry[0], entry[1]
    except (IndexError, TypeError) as exc:
        raise CorruptEvent(stream, -1, f"malformed entry {entry!r}") from exc
    seq = parse_entry_id(stream, raw_id)
    if len(fields) == 4 and fields[0] == HASH_FIELD and fields[2] == BODY_FIELD:
        hash_, body = fields[1], fields[3]
    else:
        pairs = dict(zip(fields[::2], fields[1::2], strict=False))
        hash_, body = pairs.get(HASH_FIELD), pairs.get(BODY_FIELD)
        if hash_ is None or body is None:
            raise CorruptEvent(stream, seq, "entry lacks its 'h' or 'e' field")
    try:
        b = _decoder.decode(body)
    except msgspec.ValidationError as exc:
        raise CorruptEvent(stream, seq, f"unknown format or bad body: {exc}") from exc
    except msgspec.DecodeError as exc:
        raise CorruptEvent(stream, seq, f"undecodable body: {exc}") from exc
    try:
        hash_text = hash_.decode("ascii")
    except UnicodeDecodeError as exc:
        raise CorruptEvent(stream, seq, "hash field is not ASCII") from exc
    return StoredEvent(
        stream, seq, b.type, b.schema, b.data, b.request_id, b.at, b.prev_hash, hash_text
    )


# --- JSON compatibility -----------------------------------------------------------------


def check_keys(value: dict[str, Any] | list[Any], where: str = "data") -> None:
    """Refuse dict keys that are not str, at any depth.

    The other rules of JSON-compatible data are enforced by the encoders at append time:
    the canonical JSON refuses NaN, infinities and non-JSON types, msgspec refuses integers
    beyond 64 bits. Tuples are accepted and stored (and read back) as lists.
    """
    if type(value) is dict:
        for k, v in value.items():
            if type(k) is not str:
                raise InvalidEvent(f"{where}: key {k!r} is not a str")
            t = type(v)
            if t is dict or t is list or t is tuple:
                check_keys(v, f"{where}.{k}")
    else:
        for i, v in enumerate(value):
            t = type(v)
            if t is dict or t is list or t is tuple:
                check_keys(v, f"{where}[{i}]")


# --- upcasting ---------------------------------------------------------------------------

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class Upcasters:
    """Functions that lift an old schema of an event type to the next one, chained on read.

    ``register("CardsPlayed", 1)`` turns schema 1 data into schema 2 data; the reader applies
    the chain until no upcaster matches, so code only ever sees the newest schema. A step may
    also rename the type. Hashes are always over the event as stored: ``verify`` never upcasts.
    """

    def __init__(self) -> None:
        self._steps: dict[tuple[str, int], tuple[Upcaster, str | None]] = {}

    def add(
        self, event_type: str, from_schema: int, fn: Upcaster, *, rename_to: str | None = None
    ) -> None:
        """Lift ``event_type`` from ``from_schema`` to ``from_schema + 1`` with ``fn``."""
        key = (event_type, from_schema)
        if key in self._steps:
            raise ValueError(f"an upcaster for {event_type} schema {from_schema} exists")
        self._steps[key] = (fn, rename_to)

    def register(
        self, event_type: str, from_schema: int, *, rename_to: str | None = None
    ) -> Callable[[Upcaster], Upcaster]:
        """Decorator form of :meth:`add`."""

        def decorate(fn: Upcaster) -> Upcaster:
            self.add(event_type, from_schema, fn, rename_to=rename_to)
            return fn

        return decorate

    def __bool__(self) -> bool:
        return bool(self._steps)

    def upcast(self, event: StoredEvent) -> StoredEvent:
        """``event`` lifted to the newest schema (the same object when nothing applies)."""
        step = self._steps.get((event.type, event.schema))
        if step is None:
            return event
        type_, schema, data = event.type, event.schema, event.data
        seen = 0
        while step is not None:
            fn, rename = step
            try:
                data = fn(data)
            except Exception as exc:
                raise CorruptEvent(
                    event.stream, event.seq, f"upcasting {type_} schema {schema} failed: {exc}"
                ) from exc
            schema += 1
            type_ = rename or type_
            seen += 1
            if seen > 1000:
                raise CorruptEvent(event.stream, event.seq, "upcaster chain does not end")
            step = self._steps.get((type_, schema))
        return StoredEvent(
            event.stream,
            event.seq,
            type_,
            schema,
            data,
            event.request_id,
            event.at,
            event.prev_hash,
            event.hash,
        )


def decode_entries(
    stream: str, entries: Sequence[Any], from_seq: int, upcasters: Upcasters | None
) -> list[StoredEvent]:
    """Raw entries from ``from_seq`` on as events, upcast; CorruptEvent on a bad entry or
    a gap in seqs."""
    upcast = upcasters.upcast if upcasters else None
    out: list[StoredEvent] = []
    expected = from_seq
    # Decoding makes many small objects at once: the cyclic GC would walk the growing
    # list again and again (2/3 of the time); these objects hold no cycles.
    pause = len(entries) > 64 and gc.isenabled()
    if pause:
        gc.disable()
    try:
        for entry in entries:
            event = decode_entry(stream, entry)
            if event.seq != expected:
                raise CorruptEvent(stream, expected, f"missing (next entry is seq {event.seq})")
            expected += 1
            out.append(upcast(event) if upcast else event)
    finally:
        if pause:
            gc.enable()
    return out
