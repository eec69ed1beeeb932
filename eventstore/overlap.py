"""Work overlapped with an append's round trip: a speed trick, kept out of the
``EventStore`` port.

A caller's work on the events it appends (the game service folds them and signs their
receipt) needs only the events as they will be stored, which a store that chains them
client-side knows before its round trip. A store that can run that work while the round
trip is awaited says so with ``append_overlapped`` (``OverlappedAppend``: the Redis store,
on its shared connection while it is quiet). ``appender`` is the one seam: it gives an
append that takes the work (``meanwhile``), overlapped where the store can, else run on
the stored events once the append returns. The work may be given events that are then
not stored (a conflict, a duplicate) and more than once (a retry): only the events the
result holds were stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from .model import AppendResult, NewEvent, StoredEvent
from .port import EventStore

Meanwhile = Callable[[tuple[StoredEvent, ...]], None]


class OverlappedAppend(Protocol):
    async def append_overlapped(
        self,
        stream: str,
        events: Sequence[NewEvent],
        expected_version: int,
        request_id: str | None,
        fingerprint: str,
        meanwhile: Meanwhile,
    ) -> AppendResult:
        """``EventStore.append``, running ``meanwhile`` on the events as they would be
        stored while the round trip is awaited (where it can; else once it is in)."""
        ...


class Append(Protocol):
    async def __call__(
        self,
        stream: str,
        events: Sequence[NewEvent],
        expected_version: int,
        request_id: str | None,
        fingerprint: str,
        meanwhile: Meanwhile,
    ) -> AppendResult: ...


def appender(store: EventStore) -> Append:
    """``store``'s append with work on its events: overlapped when ``store`` is an
    ``OverlappedAppend``."""
    overlapped: Append | None = getattr(store, "append_overlapped", None)
    if overlapped is not None:
        return overlapped

    async def append_then(
        stream: str,
        events: Sequence[NewEvent],
        expected_version: int,
        request_id: str | None,
        fingerprint: str,
        meanwhile: Meanwhile,
    ) -> AppendResult:
        result = await store.append(stream, events, expected_version, request_id, fingerprint)
        if result.events:
            meanwhile(result.events)
        return result

    return append_then
