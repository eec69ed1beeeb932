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

A stream that left for the archive has none in the store (they were dropped with it):
both keep the snapshots made of it since with the stream as its store unpacked it, in
this process, and forget them as it does (``ArchivedStreams``: the last few).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .archive import ArchivedStreams
from .errors import InvalidEvent
from .keys import check_stream_id
from .memory import InMemoryEventStore
from .model import Snapshot, latest_snapshot, nearest_snapshot

SEQ_DIGITS = 12  # a snapshot's field: its seq zero-padded, so members sort as numbers


@runtime_checkable
class Snapshots(Protocol):
    """Snapshots of streams, kept with them. Saving a seq again replaces it."""

    async def save(self, stream: str, snapshot: Snapshot) -> None:
        """Keep ``snapshot`` (for a stream dropped, ``drop``, only while its store holds
        it unpacked from the archive)."""
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


def of_archived(archived: ArchivedStreams | None, stream: str) -> dict[int, Snapshot] | None:
    """The snapshots kept of an archived stream while it is unpacked."""
    return None if archived is None else archived.snapshots(stream)


class InMemorySnapshots:
    """Snapshots in one process's memory (beside ``InMemoryEventStore``: ``events``, whose
    archived streams' snapshots it keeps with them)."""

    def __init__(self, events: InMemoryEventStore | None = None) -> None:
        self.events = events
        self._streams: dict[str, dict[int, Snapshot]] = {}
        self._dropped: set[str] = set()

    def _kept(self, stream: str) -> dict[int, Snapshot] | None:
        if stream in self._dropped:
            return of_archived(self.events.archived if self.events else None, stream)
        return self._streams.get(stream)

    async def save(self, stream: str, snapshot: Snapshot) -> None:
        check_snapshot(stream, snapshot)
        kept = self._kept(stream)
        if kept is None and stream not in self._dropped:
            kept = self._streams.setdefault(stream, {})
        if kept is not None:
            kept[snapshot.seq] = snapshot

    async def drop(self, stream: str) -> None:
        check_stream_id(stream)
        self._dropped.add(stream)
        self._streams.pop(stream, None)

    async def at_or_before(self, stream: str, seq: int) -> Snapshot | None:
        return nearest_snapshot((self._kept(stream) or {}).values(), seq)

    async def latest_by(self, stream: str, at: int) -> Snapshot | None:
        return latest_snapshot((self._kept(stream) or {}).values(), at)
