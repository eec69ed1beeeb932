"""Between the match's events and the event store's records (``match.records``):
each event with its schema, and with its blinding nonce when it holds a hidden field."""

from __future__ import annotations

from typing import Any

from eventstore import NewEvent, StoredEvent
from eventstore.cache import BoundedCache

from ..match import MatchEvent, from_record, to_record
from ..records import BLINDED_SINCE, BLINDING, blinding_nonce, is_blinded
from ..rules.records import RecordError

SCHEMA = 1


class UnknownEvent(ValueError):
    """A stored event this service cannot read."""


def encode(event: MatchEvent) -> NewEvent:
    name = type(event).__name__
    # a type blinded after its first schema is stored with the schema it was blinded
    # from: the audit tells its old, unblinded events from a new one stripped of its nonce
    return NewEvent(name, to_record(event), BLINDED_SINCE.get(name, SCHEMA))


def blinded(record: NewEvent, seed: bytes, seq: int) -> NewEvent:
    """``record`` as event ``seq`` of its match is stored: with its blinding nonce when
    it holds a hidden field (``records.blinding``)."""
    if not is_blinded(record.type):
        return record
    return NewEvent(
        record.type, {**record.data, BLINDING: blinding_nonce(seed, seq)}, record.schema
    )


def decode(stored: StoredEvent) -> MatchEvent:
    """The event a stored one holds (decoded afresh: see StoreEvents for a cache)."""
    return decode_record(stored.type, stored.data, stored.stream, stored.seq)


class StoreEvents:
    """A service's decoded events, each decoded once while recent (every listener of a
    match, and every fold, is handed the same stored events). Keyed by (stream, seq) and
    the event's hash, and filled only by its owner with events of its own store (its
    appends and its reads): nothing a caller uploads can reach it."""

    def __init__(self, size: int = 16384) -> None:
        self.size = size
        self._recent = BoundedCache[tuple[str, int], tuple[str, MatchEvent]](size)

    def decode(self, stored: StoredEvent) -> MatchEvent:
        """``stored`` (read from the owner's store) decoded."""
        known = self._recent.get((stored.stream, stored.seq))
        if known is not None and known[0] == stored.hash:
            return known[1]
        event = decode(stored)
        self.remember(stored, event)
        return event

    def remember(self, stored: StoredEvent, event: MatchEvent) -> None:
        """Note what ``stored``, just appended by the owner, decodes to."""
        self._recent.put((stored.stream, stored.seq), (stored.hash, event))


def decode_record(
    type_name: str, data: dict[str, Any], stream: str = "", seq: int = -1
) -> MatchEvent:
    try:
        return from_record(type_name, data)
    except (RecordError, TypeError, KeyError, AttributeError) as error:
        raise UnknownEvent(f"{stream} seq {seq}: {error}") from None
