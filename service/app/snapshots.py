"""Fold checkpoints of a match: the match after every ``EVERY``-th event, kept beside
its stream (``eventstore.snapshots``: on Redis, the stream's own hash slot), so that
the match at any seq costs at most ``EVERY`` events' fold, however long the match.

A snapshot is only a cache, and one that can never change an answer:

- it is made only by folding this service's own store's events, never from anything
  a caller sends, and only at fixed seqs (``seq + 1`` a multiple of ``EVERY``);
- its body names its format and a digest of the code that folds (the sources of the
  rules, the match decider and the event codec), so after an upgrade an old snapshot
  is not read: the match is folded again from an earlier one that fits, or from 0,
  and the snapshots on the way are written anew;
- it holds the match's chain head, checked against the stored event of its seq
  before it is used (a stream written again under the same id is not mistaken for the
  old one);
- whatever does not fit (another format, a body that does not decode, another head)
  is passed over, as if there were no snapshot.

Each snapshot also holds the time by which every delayed event up to its seq has been
stored (``shown_at``: the latest stored ``at`` of those events, so nondecreasing along
the stream): a spectator with a delay sees the whole prefix of the last snapshot shown
by their cutoff, and at most ``EVERY`` events more. So a delayed spectator's read costs
the same however many events are held back (``visible_by``).

Who writes them: the service, after each of its own appends that completes a block of
``EVERY`` events, and any read that finds the snapshots behind (a match stored before
this code, or after an upgrade). When the service appended every event of the match
before that append too (``appended``: it follows each of its matches' ``shown_at``
from its first event), the snapshot is the match it held before the append folded on
over the append's events up to the boundary: a fold of a few events, with no read
(a UECda table completes a block every half game). Else (``noted``: another process
appended meanwhile, or this one restarted) a task of its own reads the block back and
folds it. Folds longer than one block run in a worker thread, one block at a time
(each shorter than the interpreter's switch interval, so the serving loop waits little
for the GIL).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import msgspec

from eventstore import EventStore, EventStoreError, Snapshot, Snapshots, StoredEvent
from eventstore.cache import BoundedCache

from ..match import MatchEvent
from .codec import decode
from .match import Match, fold_match, stream_of

log = logging.getLogger("daifugo.snapshots")

EVERY = 64
"""Events between two snapshots: a read folds at most this many. Measured on the 2-core
dev machine: an event costs about 7 µs to read and 6 µs to fold, so a block is under
1 ms of the serving loop; a snapshot is about 4 KB (a 5-seat match), a fifth of the
block's events in Redis. Half of it would double that share for 0.4 ms less a read."""

FORMAT = 1  # the body's layout; a new one is never read as an old one
NEVER_DELAYED = frozenset({"MatchCreated", "SeatJoined"})
"""Setting-up events (who sits where): a spectator delay never holds them back."""

RECENT = 1024  # decoded snapshots kept in memory (a replay's steps read the same ones)
PENDING_LIMIT = 256  # matches whose snapshots may wait to be written at once; past it, skipped
_FOLDING = ("rules", "match")  # the packages whose code decides what a fold makes


@functools.cache
def fold_code() -> str:
    """A digest of the code a fold runs (the rules, the match decider, the event codec
    and the fold itself): a snapshot made by other code is not read."""
    service = Path(__file__).resolve().parent.parent
    sources = [path for package in _FOLDING for path in sorted((service / package).glob("*.py"))]
    sources += [service / "app" / "codec.py", service / "app" / "match.py"]
    digest = hashlib.sha256(f"{FORMAT}".encode())
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Folded:
    """A match after its event ``match.version``, and the latest stored time of a
    delayed event among events 0..version (0 when none): by then a delayed spectator
    sees all of them."""

    match: Match
    shown_at: int


class _Body(msgspec.Struct, array_like=True):
    code: str
    shown_at: int
    match: msgspec.Raw


def encode(folded: Folded) -> Snapshot:
    body = msgspec.msgpack.encode(
        _Body(fold_code(), folded.shown_at, msgspec.Raw(msgspec.msgpack.encode(folded.match)))
    )
    return Snapshot(folded.match.version, folded.shown_at, body)


def decoded(snapshot: Snapshot) -> Folded | None:
    """The fold a snapshot holds; None when this code did not make it, or it is not one."""
    try:
        body = msgspec.msgpack.decode(snapshot.body, type=_Body)
        if body.code != fold_code():
            return None
        match = msgspec.msgpack.decode(body.match, type=Match)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError):
        return None
    if match.version != snapshot.seq or body.shown_at != snapshot.at:
        return None
    return Folded(match, body.shown_at)


def is_boundary(seq: int, every: int = EVERY) -> bool:
    return (seq + 1) % every == 0


def shown_after(shown_at: int, events: Sequence[StoredEvent]) -> int:
    """``shown_at`` carried over ``events``."""
    for event in events:
        if event.type not in NEVER_DELAYED and event.at > shown_at:
            shown_at = event.at
    return shown_at


def fold_on(
    start: Folded | None,
    events: Sequence[StoredEvent],
    decoder: Callable[[StoredEvent], MatchEvent] = decode,
    every: int = EVERY,
) -> tuple[Folded, list[Snapshot]]:
    """``start`` (None: before event 0) after ``events``, the next ones in order, and the
    snapshots of every boundary on the way."""
    made: list[Snapshot] = []
    folded = start
    begin = 0
    for index, event in enumerate(events):
        if is_boundary(event.seq, every) or index == len(events) - 1:
            piece = events[begin : index + 1]
            match = fold_match(folded.match if folded else None, piece, decoder)
            folded = Folded(match, shown_after(folded.shown_at if folded else 0, piece))
            begin = index + 1
            if is_boundary(event.seq, every):
                made.append(encode(folded))
    assert folded is not None
    return folded, made


class MatchSnapshots:
    """The match at any seq from its snapshots, and the writing of them. ``decoder``:
    how this service decodes its own store's events (its cache)."""

    def __init__(
        self,
        store: EventStore,
        snapshots: Snapshots,
        decoder: Callable[[StoredEvent], MatchEvent] = decode,
        every: int = EVERY,
    ) -> None:
        if every < 1:
            raise ValueError("a snapshot every 1 event or more")
        self.store = store
        self.snapshots = snapshots
        self.decoder = decoder
        self.every = every
        self.folded = 0  # events folded by reads, in all (what a test counts)
        self.read = 0  # events read by reads, in all
        # per match: the last boundary written or being written by this process
        self._written = BoundedCache[str, int](4096)
        self._pending: dict[str, asyncio.Task[None]] = {}
        # per match whose every event this process appended: (its version, shown_at)
        self._appended = BoundedCache[str, tuple[int, int]](4096)
        self._saving: set[asyncio.Task[None]] = set()  # snapshots ``appended`` made
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="fold")
        self._catching_up = BoundedCache[str, asyncio.Lock](1024)
        # snapshots read lately, decoded (each checked against its stream at each use)
        self._recent = BoundedCache[tuple[str, int], Folded](RECENT)

    # -- reading ---------------------------------------------------------------

    async def match_at(self, match_id: str, seq: int) -> Match:
        """The match after its event ``seq`` (which must be stored)."""
        stream = stream_of(match_id)
        boundary = (seq + 1) // self.every * self.every - 1
        start = self._recent.get((stream, boundary)) or await self._nearest(stream, seq)
        base = start.match.version if start else -1
        if seq - base > self.every:  # the snapshots are behind: write them first
            return (await self._caught_up(match_id, seq)).match
        # from the snapshot's own event: its hash must be the snapshot's head
        events = await self._read(stream, max(base, 0), seq)
        if start is not None:
            if not events or events[0].hash != start.match.head:  # not of these events
                return (await self._caught_up(match_id, seq)).match
            self._recent.put((stream, base), start)
            events = events[1:]
        folded, made = fold_on(start, events, self.decoder, self.every)
        self.folded += len(events)
        for snapshot in made:  # ``seq``'s own snapshot is missing or not this code's
            await self.snapshots.save(stream, snapshot)
        return folded.match

    async def visible_by(self, match_id: str, cutoff_ms: int) -> Folded:
        """The match as a spectator delayed to ``cutoff_ms`` sees it: after the last event
        of the prefix whose delayed events were all stored by then (one held back holds
        back every later one). Costs one snapshot, ``EVERY`` events read and at most that
        many folded, whatever is held back (while the snapshots are up to date)."""
        stream = stream_of(match_id)
        snapshot = await self.snapshots.latest_by(stream, cutoff_ms)
        start = None
        if snapshot is not None:
            start = self._recent.get((stream, snapshot.seq)) or decoded(snapshot)
        while True:
            base = start.match.version if start else -1
            # from the snapshot's own event (its hash checks the snapshot), then a block
            window = await self._read(stream, max(base, 0), base + self.every)
            if start is not None:
                if not window or window[0].hash != start.match.head:  # not of these events
                    start = None
                    continue
                self._recent.put((stream, base), start)
                window = window[1:]
            shown = visible_prefix(window, cutoff_ms)
            if len(shown) < self.every:  # the prefix ends in this block
                break
            # every one of them is shown: the snapshots are behind (not written yet)
            start = await self._caught_up(match_id, window[-1].seq)
        if not shown and start is not None:
            return start
        if not shown:
            raise EventStoreError(f"{stream}: no event a spectator may see")
        folded, _ = fold_on(start, shown, self.decoder, self.every)
        self.folded += len(shown)
        return folded

    async def _nearest(
        self, stream: str, seq: int, checked: bool = False, tries: int = 3
    ) -> Folded | None:
        """The fold of the nearest snapshot at or before ``seq`` that this code made
        (looking back past a few that it did not: after an upgrade none is, and the fold
        from 0 writes them anew). ``checked``: and that fits the stream (else its head
        is the caller's to check)."""
        for _ in range(tries):
            snapshot = await self.snapshots.at_or_before(stream, seq)
            if snapshot is None:
                return None
            folded = decoded(snapshot)
            if folded is not None and (not checked or await self._fits(stream, folded)):
                return folded
            seq = snapshot.seq - 1
        return None

    async def _fits(self, stream: str, folded: Folded) -> bool:
        """Whether ``folded`` is a fold of this stream's events: its head is the hash of
        the stored event of its seq."""
        stored = await self.store.read(stream, folded.match.version, 1)
        return bool(stored) and stored[0].hash == folded.match.head

    async def _read(self, stream: str, first: int, last: int) -> list[StoredEvent]:
        if last < first:
            return []
        events = await self.store.read(stream, first, last - first + 1)
        self.read += len(events)
        return events

    # -- writing ---------------------------------------------------------------

    def appended(self, match_id: str, before: Match | None, events: Sequence[StoredEvent]) -> None:
        """This service stored ``events`` on ``before`` (None: they are the match's
        first): the snapshots of the blocks they complete, folded from ``before`` when
        this process appended every earlier event of the match too (it knows their
        ``shown_at`` then); else ``noted`` reads the block back."""
        if not events:
            return
        version = -1 if before is None else before.version
        known = (-1, 0) if before is None else self._appended.get(match_id)
        if known is None or known[0] != version or events[0].seq != version + 1:
            self._appended.pop(match_id, None)
            return
        last = events[-1].seq
        self._appended.put(match_id, (last, shown_after(known[1], events)))
        boundary = (last + 1) // self.every * self.every - 1
        if boundary <= version or self._written.get(match_id, -1) >= boundary:
            return
        start = None if before is None else Folded(before, known[1])
        try:
            _, made = fold_on(start, events[: boundary - version], self.decoder, self.every)
        except Exception:  # only a cache: never an append's failure (a read writes it)
            log.exception("snapshot of %s at %d not made", match_id, boundary)
            self._appended.pop(match_id, None)
            return
        self._written.put(match_id, boundary)
        task = asyncio.get_running_loop().create_task(self._save(match_id, made))
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

    async def _save(self, match_id: str, made: Sequence[Snapshot]) -> None:
        try:
            for snapshot in made:
                await self.snapshots.save(stream_of(match_id), snapshot)
        except (EventStoreError, ValueError) as error:  # only a cache: a read will write it
            self._written.pop(match_id, None)
            log.warning("snapshots of %s not written: %s", match_id, error)

    def noted(self, match: Match) -> None:
        """The service holds ``match``: write the snapshots of the blocks it completed,
        if this process has not (a task of its own per match, off the caller's path;
        none started while too many wait: a read writes what is missing)."""
        boundary = (match.version + 1) // self.every * self.every - 1
        if boundary < 0 or self._written.get(match.match_id, -1) >= boundary:
            return
        self._written.put(match.match_id, boundary)
        if match.match_id in self._pending:  # it goes on to the new boundary
            return
        if len(self._pending) >= PENDING_LIMIT:
            self._written.pop(match.match_id, None)
            return
        task = asyncio.get_running_loop().create_task(self._write(match.match_id))
        self._pending[match.match_id] = task

    async def _write(self, match_id: str) -> None:
        done = -1
        try:
            while (boundary := self._written.get(match_id, -1)) > done:
                await self._caught_up(match_id, boundary)
                done = boundary
        except (EventStoreError, ValueError) as error:  # only a cache: a read will do it
            self._written.pop(match_id, None)
            log.warning("snapshots of %s not written: %s", match_id, error)
        finally:
            self._pending.pop(match_id, None)

    async def _caught_up(self, match_id: str, seq: int) -> Folded:
        """The match after event ``seq``, every snapshot up to it written on the way:
        folded a block at a time in the worker thread, one match at a time per match."""
        lock = self._catching_up.get(match_id)
        if lock is None:  # (one forgotten while in use costs a second fold, no more)
            lock = self._catching_up.put(match_id, asyncio.Lock())
        async with lock:
            return await self._catch_up(match_id, seq)

    async def _catch_up(self, match_id: str, seq: int) -> Folded:
        stream = stream_of(match_id)
        folded = await self._nearest(stream, seq, checked=True)
        loop = asyncio.get_running_loop()
        while folded is None or folded.match.version < seq:
            first = folded.match.version + 1 if folded else 0
            # up to the next boundary (or ``seq``): one block per turn of the worker
            last = min(seq, (first // self.every + 1) * self.every - 1)
            events = await self._read(stream, first, last)
            if not events:
                raise EventStoreError(f"{stream}: no event {first} to fold")
            folded, made = await loop.run_in_executor(
                self._worker, fold_on, folded, events, decode, self.every
            )
            self.folded += len(events)
            for snapshot in made:
                await self.snapshots.save(stream, snapshot)
        return folded

    async def written(self) -> None:
        """Wait for the snapshots being written now."""
        while self._pending or self._saving:
            tasks = [*self._pending.values(), *self._saving]
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop writing (snapshots not written are only a cache not filled)."""
        tasks = [*self._pending.values(), *self._saving]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._worker.shutdown(wait=False, cancel_futures=True)


def visible_prefix(events: Sequence[StoredEvent], cutoff_ms: int) -> Sequence[StoredEvent]:
    """The leading events a spectator delayed to ``cutoff_ms`` sees (a prefix: one event
    held back holds back every later one, whatever its clock says)."""
    for index, event in enumerate(events):
        if event.type not in NEVER_DELAYED and event.at > cutoff_ms:
            return events[:index]
    return events
