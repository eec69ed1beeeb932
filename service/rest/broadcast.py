"""One reader per audience of a match's live events, shared by all its SSE streams.

A thousand spectators of a match see each event alike, so one ``Broadcast`` per
audience (match, viewer, delay, keep-alive period) follows the match, holds each event
until it is old enough, encodes it once, and keeps the bytes of its latest events in a
window. A stream only hands on the bytes from its position: the events of one release
are one shared ``bytes``, one write per stream. The per-stream cost is then the write
itself; with a reader, a queue and a timer per stream, the work per event grew with the
watchers many times over.

Nobody waits for a stream. One that falls behind the window (its client stopped
reading) is ended with a reason; its client resumes with Last-Event-ID, as after any
break. A stream that begins before the window (a resume, a replay from 0) reads that
part from the store itself, then joins.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from eventstore import EventStoreError
from eventstore.cache import EncodedOnce

from ..app import queries
from ..app.match import REVEALING
from ..app.queries import NEVER_DELAYED
from ..app.service import GameService
from ..rules.views import Viewer

log = logging.getLogger("daifugo.rest")

WINDOW = 1024  # released events kept for the streams behind (~300 KiB); one further back ends
LINGER = 2.0  # seconds a broadcast with no stream waits for one before it stops


@dataclass(frozen=True, slots=True)
class Audience:
    """Who watches alike: the same events, shown alike, released alike."""

    match_id: str
    viewer: Viewer
    delay_ms: int  # events are held until this old (0: at once)
    revealed: bool  # the match was over when the stream began: everything is shown
    period: float  # seconds between keep-alives


def slot_at(moment: float, period: float) -> int:
    """Keep-alive slot k is due at k × ``period`` seconds on the clock."""
    return math.floor(moment / period)


def held(record: dict[str, Any], delay_ms: int, ended: bool) -> int:
    """When ``record`` may go out (ms on the clock; 0: at once). Nothing is held once
    the match has ended: then everything is public."""
    if not delay_ms or ended or record["type"] in NEVER_DELAYED:
        return 0
    return int(record["at"]) + delay_ms


class Broadcast:
    """The live events of one audience from ``first_seq`` on, released in order."""

    def __init__(
        self,
        service: GameService,
        audience: Audience,
        first_seq: int,
        closing: asyncio.Event,
        forget: Callable[[Broadcast], None],
    ) -> None:
        self.service, self.audience, self.closing = service, audience, closing
        self._forget = forget
        self.next_seq = first_seq  # the seq of the next event to release
        self.window: deque[bytes] = deque(maxlen=WINDOW)  # released messages, in seq order
        self._latest = (first_seq, b"")  # the last release: its first seq and its bytes
        self._pending: deque[dict[str, Any]] = deque()  # read, not yet old enough
        self.ended = False  # MatchEnded or MatchAbandoned was read: nothing is held any more
        self.over = False  # the store gave up (or the server stops): no more events
        self.slot = slot_at(time.time(), audience.period)  # the latest keep-alive slot due
        self.streams = 0
        self._waiters: list[asyncio.Future[None]] = []
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None  # the release of a held event
        self._idle: asyncio.TimerHandle | None = None
        self._tasks = [
            self._loop.create_task(self._read(first_seq)),
            self._loop.create_task(self._tick()),
        ]

    @property
    def window_start(self) -> int:
        """The first seq still in the window."""
        return self.next_seq - len(self.window)

    def since(self, seq: int) -> bytes:
        """The released events from ``seq`` on as one write (``seq`` in the window)."""
        if seq >= self.next_seq:
            return b""
        first, data = self._latest
        if seq == first:  # a stream that is up to date: the shared bytes
            return data
        return b"".join(itertools.islice(self.window, seq - self.window_start, None))

    async def changed(self, timeout: float | None = None) -> None:
        """Wait until something is released, a keep-alive falls due or it is over
        (or ``timeout`` seconds)."""
        waiter = self._loop.create_future()
        self._waiters.append(waiter)
        timer = None if timeout is None else self._loop.call_later(timeout, _settle, waiter)
        try:
            await waiter
        finally:
            if timer is not None:
                timer.cancel()

    def join(self) -> None:
        self.streams += 1
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def leave(self) -> None:
        self.streams -= 1
        if self.streams == 0 and not self.over:
            self._idle = self._loop.call_later(LINGER, self._stop_if_idle)

    def stop(self) -> None:
        """Stop reading; streams end once they have sent what was released."""
        if self.over:
            return
        self.over = True
        self._forget(self)
        for handle in (self._timer, self._idle):
            if handle is not None:
                handle.cancel()
        for task in self._tasks:
            if task is not asyncio.current_task():
                task.cancel()
        self._wake()

    def _stop_if_idle(self) -> None:
        self._idle = None
        if self.streams == 0:
            self.stop()

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            _settle(waiter)

    async def _read(self, first_seq: int) -> None:
        audience = self.audience
        expected = first_seq
        try:
            events = self.service.event_batches(audience.match_id, audience.viewer, first_seq)
            async for batch in events:
                # checked after every batch: a cancellation landing inside a Redis call
                # may not come out, and the reader must still stop
                if self.over:
                    return
                for record in batch.events:
                    if record["seq"] != expected:  # never: the feed gives every seq once
                        raise EventStoreError(f"seq {record['seq']} where {expected} was due")
                    expected += 1
                    self.ended = self.ended or record["type"] in REVEALING
                    self._pending.append(record)
                self._release()
        except EventStoreError as error:  # Redis gone too long: end; the clients resume
            log.warning("live events of %s ended: %s", audience.match_id, error)
        finally:
            self.stop()

    def _release(self) -> None:
        """Move the events that are old enough into the window, in order, as one write."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        now = queries.now_ms()
        released: list[bytes] = []
        while self._pending:
            due = held(self._pending[0], self.audience.delay_ms, self.ended)
            if due > now:
                self._timer = self._loop.call_later((due - now) / 1000, self._release)
                break
            released.append(encoded(self._pending.popleft()))
        if released:
            self._latest = (self.next_seq, b"".join(released))
            self.window.extend(released)
            self.next_seq += len(released)
            self._wake()

    async def _tick(self) -> None:
        """Wake the streams at each keep-alive slot, and at once when the server stops."""
        period = self.audience.period
        while not self.closing.is_set():
            slot = max(self.slot + 1, slot_at(time.time(), period) + 1)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.closing.wait(), max(slot * period - time.time(), 0))
            self.slot = max(slot, slot_at(time.time(), period))
            self._wake()
        self.stop()


class Broadcasts:
    """The broadcasts of one app, by audience."""

    def __init__(self) -> None:
        self._by_audience: dict[Audience, Broadcast] = {}

    def of(
        self, service: GameService, audience: Audience, next_seq: int, closing: asyncio.Event
    ) -> Broadcast:
        """The audience's broadcast (a new one from ``next_seq``, the seq after the
        match's version as the caller loaded it); the caller ``join``s it at once."""
        broadcast = self._by_audience.get(audience)
        if broadcast is None:
            broadcast = Broadcast(service, audience, next_seq, closing, self._forget)
            self._by_audience[audience] = broadcast
        broadcast.join()
        return broadcast

    def _forget(self, broadcast: Broadcast) -> None:
        if self._by_audience.get(broadcast.audience) is broadcast:
            del self._by_audience[broadcast.audience]


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _sse_message(record: dict[str, Any]) -> bytes:
    """The SSE message of a record: ``id:`` its seq, ``event:`` its type, ``data:`` it."""
    # compact JSON has no line breaks, so the data is one line
    data = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return f"id: {record['seq']}\nevent: {record['type']}\ndata: {data}\n\n".encode()


# records are shared between the viewers who see an event alike (GameService.visible), so
# a record sent again (another stream, one catching up) is encoded once
encoded = EncodedOnce(_sse_message, 8192)
