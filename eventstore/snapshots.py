"""Snapshots of a stream: opaque bodies (a fold of the stream up to a seq, in whatever
encoding its writer chose), each at a seq and with a time, kept beside the stream.

A snapshot store is only ever a cache of the stream: a reader checks what it gets
against the stream and folds from elsewhere when it does not fit. The store knows
nothing of what a body holds; it finds the snapshot nearest a seq, and the latest one
by a time (a writer that keeps its snapshots' times nondecreasing along the stream,
as the game service does, finds by time the last snapshot shown by then).

``Snapshots`` is the port; ``RedisSnapshots`` (redis_snapshots.py) keeps them in the
stream's own hash slot (``keys.py``: ``:snap``, ``:snap-seq``, ``:snap-at``),
``InMemorySnapshots`` in one process. One contract suite
(tests/eventstore/test_snapshots.py) runs on both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from .errors import InvalidEvent
from .keys import check_stream_id

SEQ_DIGITS = 12  # a snapshot's field: its seq zero-padded, so members sort as numbers


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A stream folded up to event ``seq``; ``at``: the writer's time for it."""

    seq: int
    at: int
    body: bytes


@runtime_checkable
class Snapshots(Protocol):
    """Snapshots of streams, kept with them. Saving a seq again replaces it."""

    async def save(self, stream: str, snapshot: Snapshot) -> None:
        """Keep ``snapshot`` (nothing is kept for a stream dropped: ``drop``)."""
        ...

    async def drop(self, stream: str) -> None:
        """Forget the stream's snapshots for good (it left for the archive)."""
        ...

    async def at_or_before(self, stream: str, seq: int) -> Snapshot | None:
        """The snapshot of the highest seq not past ``seq``; None when there is none."""
        ...

    async def latest_by(self, stream: str, at: int) -> Snapshot | None:
        """Among the snapshots whose time is not past ``at``, the one of the latest time
        (of those, the highest seq); None when there is none."""
        ...


def check_snapshot(stream: str, snapshot: Snapshot) -> None:
    check_stream_id(stream)
    if not 0 <= snapshot.seq < 10**SEQ_DIGITS or not isinstance(snapshot.body, bytes):
        raise InvalidEvent(f"a snapshot needs a seq of 0 to 10**12 - 1 and bytes: {snapshot!r}")


class InMemorySnapshots:
    """Snapshots in one process's memory (beside ``InMemoryEventStore``)."""

    def __init__(self) -> None:
        self._streams: dict[str, dict[int, Snapshot]] = {}
        self._dropped: set[str] = set()

    async def save(self, stream: str, snapshot: Snapshot) -> None:
        check_snapshot(stream, snapshot)
        if stream not in self._dropped:
            self._streams.setdefault(stream, {})[snapshot.seq] = snapshot

    async def drop(self, stream: str) -> None:
        check_stream_id(stream)
        self._dropped.add(stream)
        self._streams.pop(stream, None)

    async def at_or_before(self, stream: str, seq: int) -> Snapshot | None:
        kept = [item for item in self._streams.get(stream, {}).values() if item.seq <= seq]
        return max(kept, key=lambda item: item.seq, default=None)

    async def latest_by(self, stream: str, at: int) -> Snapshot | None:
        kept = [item for item in self._streams.get(stream, {}).values() if item.at <= at]
        return max(kept, key=lambda item: (item.at, item.seq), default=None)
