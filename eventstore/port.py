"""The event store as the service sees it: the protocol every store implements
(``RedisEventStore``, ``InMemoryEventStore``), and its two kinds of subscription.

Everything here is the contract the suite in tests/eventstore checks against each store.
What only the Redis store has (its client, key layout, cluster, ``RedisCheckpoints``) is
not part of it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

from .model import AppendResult, Closed, NewEvent, SentAppend, StoredEvent, Verification

if TYPE_CHECKING:  # ports of their own modules, each with its implementations
    from .analyses import AnalysisStore
    from .archive import Archive
    from .deadlines import Deadlines
    from .quotas import QuotaStore
    from .snapshots import Snapshots


@runtime_checkable
class Checkpoints(Protocol):
    """Where a projection is: for each stream, the seq of the last event it applied."""

    async def positions(self) -> Mapping[str, int]:
        """Every stream's last applied seq (a stream not in it: nothing applied, -1, unless
        its close number is within ``watermark``)."""
        ...

    async def watermark(self) -> int:
        """How far through the close log it is: every stream closed with a number up to
        it was applied to its seal and left ``positions`` (0: none)."""
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

    positions: dict[str, int]
    """The last seq handed out per stream (a stream that left the store may be dropped)."""

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
    ) -> AppendResult:
        """Append ``events`` at once if the stream is at ``expected_version``.

        A request_id seen before on this stream: with the same ``fingerprint`` the first
        append's result (``duplicate=True``), whatever the version is now; with another,
        RequestIdReused. Either way nothing is written. Without a request_id the store
        makes a unique one. (Work overlapped with the round trip: eventstore/overlap.py.)
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

    async def read_as_stored(self, stream: str) -> list[StoredEvent]:
        """The whole stream as stored (not upcast): what an archive keeps."""
        ...

    async def drop_sealed(self, stream: str) -> bool:
        """Delete a sealed stream (once archived: archive.move_to_archive); False, and
        nothing deleted, when it is not sealed."""
        ...

    def use_archive(self, archive: Archive) -> None:
        """Read the streams moved to ``archive`` as if they were still in the store (every
        read above, ``last_events`` and ``verify``), and refuse to start one again."""
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
        """The open streams' ids in the order of their first append (oldest first). A
        stream is indexed before its first event; its seal moves it to the close log."""
        ...

    async def stream_count(self) -> int:
        """How many open streams there are."""
        ...

    async def holds(self, streams: Sequence[str]) -> list[bool]:
        """Whether the store holds each of ``streams`` now (open, or in the close log:
        not archived yet)."""
        ...

    async def closed_since(self, after: int, limit: int = 500) -> list[Closed]:
        """The close log: the sealed streams not archived yet, numbered in the order they
        were sealed, those past ``after`` in that order (``limit`` at most)."""
        ...

    async def close_numbers(self, streams: Sequence[str]) -> list[int | None]:
        """Each stream's number in the close log (None: open, or archived)."""
        ...

    async def close_count(self) -> int:
        """The last close number given (0: none)."""
        ...

    async def close_log_size(self) -> int:
        """How many sealed streams await the archive (the close log's length)."""
        ...

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


# --- the small ports beside the event store ----------------------------------------------
# What the application keeps besides events. Each has a Redis implementation and an
# in-memory twin, checked by one contract suite (tests/eventstore/test_ports.py); the
# Redis keys each owns are mapped in docs/CONTRIBUTING.md.

PROJECTION_OPS = frozenset(
    {"SET", "INCR", "HSET", "HDEL", "HINCRBY", "RPUSH", "ZADD", "ZREM", "ZINCRBY", "DEL"}
)
"""The writes a projection may make, with Redis's meaning and argument order:
``("SET", k, v)``, ``("INCR", k)``, ``("HSET", k, f, v, ...)``, ``("HDEL", k, f, ...)``,
``("HINCRBY", k, f, n)``, ``("RPUSH", k, v, ...)``, ``("ZADD", k, score, member, ...)``,
``("ZREM", k, member, ...)``, ``("ZINCRBY", k, n, m)``, ``("DEL", k)``."""

Op = Sequence[str | bytes | int | float]
"""One write of a projection: ``(command, key, *args)``, the command one of
``PROJECTION_OPS`` and the key made with ``ProjectionStore.key``."""


@runtime_checkable
class ProjectionStore(Checkpoints, Protocol):
    """A projection's state and its checkpoints, changed together: an event's writes
    and its checkpoint are applied at once or not at all, so a restarted or doubled
    projection never skips an event nor counts one twice. The state is hashes, lists,
    sorted sets and strings under keys of the projection's own (``key``)."""

    name: str

    def key(self, suffix: str) -> str:
        """A key of the projection's own state."""
        ...

    async def position(self, stream: str) -> int:
        """The stream's last applied seq (-1: none)."""
        ...

    async def apply(self, event: StoredEvent, ops: Sequence[Op]) -> bool:
        """Run ``ops`` and move the checkpoint to ``event.seq`` at once, only if
        ``event.seq`` is the checkpoint + 1. False when it was applied before (nothing
        done); CheckpointGap when an earlier event was not; ValueError for an op outside
        ``PROJECTION_OPS`` or a key not of ``key`` (nothing done)."""
        ...

    async def apply_or_defer(self, event: StoredEvent, ops: Sequence[Op]) -> bool:
        """Like ``apply``, but an event with no ops writes nothing now: the checkpoint
        passes it with the stream's next event that has ops, or ``commit_passed``. Events
        come in seq order per stream; after a restart those not committed come again."""
        ...

    async def commit_passed(self) -> None:
        """Move the checkpoints over the events passed without a write."""
        ...

    async def write(self, ops: Sequence[Op]) -> None:
        """Run ``ops`` at once, with no event and no checkpoint: what a projection
        writes of its own accord (the catalog retiring archived listings). ValueError as
        ``apply``'s (nothing done)."""
        ...

    async def commit(self, stream: str, seq: int) -> bool:
        """Move the checkpoint forward to ``seq`` (never back); True if it moved."""
        ...

    async def retire(
        self, closed: Sequence[Closed], ops_of: Callable[[Closed], Sequence[Op]] | None = None
    ) -> int:
        """Of ``closed`` (the close log past ``watermark``, in its order), the streams
        applied through their seals, up to the first that is not: each one's position
        goes, its ``ops_of`` run (what the projection kept for it alone) and the
        watermark moves to its number, at once. How many went. ValueError as
        ``apply``'s (nothing done)."""
        ...

    async def forget(self, streams: Sequence[str], keys: Sequence[str] = ()) -> None:
        """Drop the positions of ``streams``, which left the store (archived): no event
        of theirs comes again, nor does a sweep find them, so they would only pile up;
        and ``keys``, the projection's own (made with ``key``) that it kept for those
        streams alone."""
        ...

    async def reset(self) -> None:
        """Forget every position and the watermark (the state stays: ``clear`` drops
        both)."""
        ...

    async def clear(self) -> None:
        """Drop the state and the positions: the projection starts from nothing."""
        ...

    # reading (decoded text; a missing key reads as empty)

    async def get(self, key: str) -> str | None: ...

    async def hash(self, key: str) -> dict[str, str]: ...

    async def hash_values(self, key: str, fields: Sequence[str]) -> list[str | None]: ...

    async def items(self, key: str) -> list[str]:
        """A list's items, first pushed first."""
        ...

    async def length(self, key: str) -> int:
        """A list's length."""
        ...

    async def top_by_score(self, key: str, offset: int, limit: int) -> list[tuple[str, float]]:
        """A sorted set's members with their scores, highest first (ties: the member
        greater first, as ZREVRANGE)."""
        ...

    async def last_up_to(self, key: str, score: float) -> tuple[str, float] | None:
        """The member with the highest score ≤ ``score``, with its score."""
        ...

    async def members_before(self, key: str, before: str | None, limit: int) -> list[str]:
        """Members (all scored alike) in descending byte order, each < ``before`` (from
        the greatest when None): ZREVRANGEBYLEX."""
        ...


@runtime_checkable
class Lease(Protocol):
    """At most one holder at a time, for ``ttl_ms`` after its last claim."""

    holder: str
    ttl_ms: int

    async def claim(self) -> bool:
        """Take the lease when free, renew it when ours; whether it is ours now."""
        ...

    async def release(self) -> None:
        """Give it up at once if still ours."""
        ...


@runtime_checkable
class ServerKey(Protocol):
    """The deployment's server secret (tokens, seeds and request digests derive from it):
    made once on first use, then the same for every replica."""

    async def load(self) -> bytes:
        """The key (32 bytes), made if there is none yet."""
        ...


class Storage(Protocol):
    """Every port of one deployment's storage, over the same data."""

    @property
    def events(self) -> EventStore: ...

    @property
    def durable(self) -> bool:
        """Whether what is stored outlives the process."""
        ...

    @property
    def where(self) -> str:
        """Where it is, to print (a URL without its password)."""
        ...

    def projection(self, name: str) -> ProjectionStore: ...

    def lease(self, name: str, ttl_ms: int = 5_000) -> Lease: ...

    def server_key(self) -> ServerKey: ...

    def quotas(self) -> QuotaStore:
        """The callers' quota counts: every rate limit and gauge (eventstore/quotas.py)."""
        ...

    def snapshots(self) -> Snapshots:
        """The matches' fold checkpoints (eventstore/snapshots.py)."""
        ...

    def deadlines(self, name: str) -> Deadlines:
        """Deadlines their owners push back (eventstore/deadlines.py)."""
        ...

    def analyses(self) -> AnalysisStore:
        """Finished matches' analyses and their jobs (eventstore/analyses.py)."""
        ...

    async def close(self) -> None: ...
