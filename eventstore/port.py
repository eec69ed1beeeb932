"""The event store as the service sees it: the protocol every store implements
(``RedisEventStore``, ``InMemoryEventStore``), and its two kinds of subscription.

Everything here is the contract the suite in tests/eventstore checks against each store.
What only the Redis store has (its client, key layout, cluster, ``RedisCheckpoints``) is
not part of it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

from .model import AppendResult, NewEvent, SentAppend, StoredEvent, Verification


@runtime_checkable
class Checkpoints(Protocol):
    """Where a projection is: for each stream, the seq of the last event it applied."""

    async def positions(self) -> Mapping[str, int]:
        """Every stream's last applied seq (a stream not in it: nothing applied, -1)."""
        ...


class Subscription(Protocol):
    """One stream from a seq: the events stored, then new ones as they come, each once,
    in seq order, forever (until ``aclose``)."""

    @property
    def last_seq(self) -> int:
        """The seq of the last event handed out (from_seq - 1 before any): a subscription
        from ``last_seq + 1`` continues this one without a miss or a repeat."""
        ...

    def __aiter__(self) -> Self: ...

    async def __anext__(self) -> StoredEvent: ...

    async def next_batch(self) -> list[StoredEvent]:
        """The next events (at most ``batch``), waiting up to ``block_ms`` for some; empty
        when none came in that time, or once closed."""
        ...

    async def aclose(self) -> None:
        """Stop: a wait in progress ends, nothing more is handed out."""
        ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class FeedSubscription(Protocol):
    """Every event of every stream past some checkpoints: each stream's in seq order and
    each once per run; no order between streams."""

    def __aiter__(self) -> Self: ...

    async def __anext__(self) -> StoredEvent: ...

    async def aclose(self) -> None: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class Hints(Protocol):
    """Which streams have new events, as the store tells any process that asks: hints
    only (the events are read from the streams themselves), each stream with the
    highest seq hinted. On a cluster a hint can be lost (eventstore/README.md)."""

    async def start(self) -> None:
        """Hints from now on: of every append that ends after this returns."""
        ...

    async def next(self) -> Mapping[str, int] | None:
        """The streams hinted at since the last call, waiting up to ``block_ms`` for
        some (``{}`` when none came); None when the store was away meanwhile and hints
        may be missing."""
        ...

    async def aclose(self) -> None:
        """End a wait in progress, for good."""
        ...


class EventStore(Protocol):
    """An append-only, hash-chained store of event streams (see eventstore/README.md).

    Streams are ids without braces; a stream's version is the seq of its last event, -1
    (``NO_STREAM``) with none. Errors: InvalidEvent (refused input, nothing written),
    ConcurrencyConflict, RequestIdReused, CorruptEvent, StoreUnavailable.
    """

    async def append(
        self,
        stream: str,
        events: Sequence[NewEvent],
        expected_version: int,
        request_id: str | None = None,
        fingerprint: str = "",
        meanwhile: Callable[[tuple[StoredEvent, ...]], None] | None = None,
    ) -> AppendResult:
        """Append ``events`` at once if the stream is at ``expected_version``.

        A request_id seen before on this stream: with the same ``fingerprint`` the first
        append's result (``duplicate=True``), whatever the version is now; with another,
        RequestIdReused. Either way nothing is written. Without a request_id the store
        makes a unique one.

        ``meanwhile``: called with the events as they would be stored before the append
        returns them, while the store's round trip is awaited where the store can (work
        on them then overlaps it). It may be called for events that are then not
        written (a conflict, a duplicate) and more than once (a retry, with the same
        events or others): only the events the result holds were stored.
        """
        ...

    def send_append(
        self,
        stream: str,
        events: Sequence[NewEvent],
        expected_version: int,
        request_id: str | None = None,
        fingerprint: str = "",
    ) -> SentAppend | None:
        """Send the append without waiting for it, after the ones sent before it (a group
        commit: one fsync may cover several), or None where the store cannot (then
        ``append``). The next may chain on its events at once; each still expects its
        version, so a stream's appends sent one after another land all, or up to the
        first that fails. Raises InvalidEvent (nothing sent)."""
        ...

    async def read(
        self, stream: str, from_seq: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events from ``from_seq`` on (at most ``limit``), in order, upcast."""
        ...

    def read_pages(
        self, stream: str, from_seq: int = 0, page_size: int = 1000
    ) -> AsyncIterator[list[StoredEvent]]:
        """The stream from ``from_seq`` to its current end, a page at a time."""
        ...

    async def version(self, stream: str) -> int:
        """The seq of the stream's last event; -1 when it has none."""
        ...

    async def last_events(self, streams: Sequence[str]) -> list[StoredEvent | None]:
        """Each stream's last event, upcast (None for a stream with none), read together:
        what a look over many streams needs, in a round trip where the store has them."""
        ...

    async def request_result(self, stream: str, request_id: str) -> AppendResult | None:
        """What the append with ``request_id`` on ``stream`` did (``duplicate=True``, with
        the fingerprint it was made with), or None if there was none."""
        ...

    async def verify(self, stream: str) -> Verification:
        """The hash chain checked from seq 0: the first bad seq, if any."""
        ...

    async def streams(self, offset: int = 0, limit: int = 50) -> list[str]:
        """Stream ids in the order of their first append (oldest first)."""
        ...

    async def stream_count(self) -> int: ...

    def subscribe(
        self,
        stream: str,
        from_seq: int = 0,
        *,
        batch: int = 500,
        block_ms: int = 5000,
        reconnect_for: float = 30.0,
    ) -> Subscription:
        """``stream`` from ``from_seq``: stored events, then live ones (from any writer).
        ``reconnect_for``: how long a store that can lose its connection tries to get it
        back before the subscription raises StoreUnavailable (0: at once)."""
        ...

    def subscribe_all(
        self,
        checkpoints: Checkpoints,
        *,
        live: bool = True,
        batch: int = 500,
        block_ms: int = 5000,
        reconnect_for: float = 30.0,
        pace: float = 0.0,
    ) -> FeedSubscription:
        """Every event of every stream past ``checkpoints``: a catch-up, then live
        (``live=False``: the catch-up only). ``pace`` seconds between looks for new
        events trade latency for fewer reads."""
        ...

    def hints(self, *, block_ms: int = 5000) -> Hints:
        """Which streams have new events, from now on (``Hints.start``)."""
        ...

    async def close(self) -> None:
        """Close every open subscription (and any connection)."""
        ...
