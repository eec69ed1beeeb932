"""Live events as Server-Sent Events: ``id:`` the seq, ``event:`` the type,
``data:`` the event as the viewer may see it (JSON).

Resuming: ``Last-Event-ID`` (what a browser's EventSource sends back) or
``?from=`` picks up right after / at that seq, so nothing is missed or
repeated. A spectator gets each event once it is ``spectator_delay_ms`` old;
a seat (``Authorization: Bearer <seat token>``) sees its own hand, without
delay. The stream follows the match until the client leaves (``MatchSealed`` is
the last event of every finished match).

Keep-alive comments keep idle connections open. They go out on a fixed schedule, at
every multiple of the period on the clock, whatever the events do: were they timed
from the last event, a spectator would see when a delayed (still hidden) event
happened from when the keep-alives shift.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from asyncio import FIRST_COMPLETED
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated, Any

from litestar import get
from litestar.di import NamedDependency
from litestar.params import FromPath, HeaderParameter, QueryParameter
from litestar.response import Stream

from eventstore import EventStoreError
from eventstore.cache import BoundedCache

from ..app import queries
from ..app.queries import NEVER_DELAYED, checked_id
from ..app.service import GameService, viewer_of
from ..rules.views import SPECTATOR, Viewer
from .context import Authorization, Context, bearer
from .errors import responses

log = logging.getLogger("daifugo.rest")
KEEPALIVE = 15.0  # seconds between keep-alive comments (the default period)
_BACKLOG = 256  # events read ahead of the client


@get(
    "/matches/{match_id:str}/live",
    summary="Live events (Server-Sent Events), resumable",
    description="Resume with Last-Event-ID (the last seq received) or ?from= (the first seq "
    "wanted). With a seat token the events are that seat's view, without spectator delay.",
    responses=responses(400, 401, 403, 404, 503),
    media_type="text/event-stream",
)
async def live(
    ctx: NamedDependency[Context],
    match_id: FromPath[str],
    from_seq: Annotated[int | None, QueryParameter(name="from", ge=0, le=2**62)] = None,
    last_event_id: Annotated[
        int | None, HeaderParameter(name="Last-Event-ID", ge=0, le=2**62, required=False)
    ] = None,
    authorization: Authorization = None,
) -> Stream:
    service = ctx.service
    match = await service.load(checked_id(match_id))
    # once the match is over everything is public: no delay
    viewer, delay_ms = SPECTATOR, 0 if match.over else match.spectator_delay_ms
    token = bearer(authorization)
    if token is not None:
        viewer = viewer_of(service.authorize(match, token))
        delay_ms = 0  # a seat (or the host) is no spectator
    start = last_event_id + 1 if last_event_id is not None else from_seq or 0
    feed = _Feed(service, match_id, viewer, start)
    schedule = _Schedule(ctx.keepalive_seconds or KEEPALIVE)
    return Stream(
        _messages(feed, delay_ms, ctx.closing, schedule),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


class _Schedule:
    """The keep-alive slots of one stream: slot k is due at k × ``period`` seconds on the
    clock. Each goes out once, from whichever waits when it is due (``take``); a slot
    missed while the stream was busy writing is skipped, not sent late in a burst."""

    def __init__(self, period: float) -> None:
        self.period = period
        self.last = self.slot_at(time.time())  # the slots before the stream began

    def slot_at(self, moment: float) -> int:
        return math.floor(moment / self.period)

    def seconds_until(self, slot: int) -> float:
        return slot * self.period - time.time()

    def take(self, slot: int) -> bool:
        """Whether ``slot``'s keep-alive is still to send (then it counts as sent)."""
        if slot <= self.last:
            return False
        self.last = max(slot, self.slot_at(time.time()))
        return True


@dataclass(frozen=True, slots=True)
class _Tick:
    """In the feed: keep-alive slot ``slot`` is due."""

    slot: int


async def _messages(
    feed: _Feed, delay_ms: int, closing: asyncio.Event, schedule: _Schedule
) -> AsyncIterator[bytes]:
    """The stream's bytes: events in order, each held until it is ``delay_ms`` old
    (not once the match is over: then everything is public), keep-alives on the
    schedule, and the end when the server stops (``closing``). Events that are due
    together go out in one write: with many watchers, writes are the cost, and
    waiting is one plain queue get (no timer per event)."""
    reader = asyncio.create_task(feed.read())
    pulse = asyncio.create_task(_pulse(feed, closing, schedule))
    closed = asyncio.ensure_future(closing.wait())
    ended = asyncio.ensure_future(feed.ended.wait())
    try:
        while not closing.is_set():
            items = [await feed.queue.get()]
            while not feed.queue.empty():
                items.append(feed.queue.get_nowait())
            due_now: list[bytes] = []
            for item in items:
                if closing.is_set():
                    return
                if item is None:
                    if due_now:
                        yield b"".join(due_now)
                    return  # the store gave up: the client resumes from its last id
                if isinstance(item, _Tick):
                    if schedule.take(item.slot):
                        due_now.append(_KEEPALIVE)
                    continue
                due = 0 if item["type"] in NEVER_DELAYED else item["at"] + delay_ms
                if delay_ms and due > queries.now_ms() and not ended.done():
                    if due_now:
                        yield b"".join(due_now)
                        due_now = []
                    async for keepalive in _held_until(due, ended, closed, schedule):
                        yield keepalive
                    if closing.is_set():
                        return
                due_now.append(_encoded(item))
            if due_now:
                yield b"".join(due_now)
    finally:
        feed.stopped = True
        for task in (reader, pulse, closed, ended):
            task.cancel()


async def _pulse(feed: _Feed, closing: asyncio.Event, schedule: _Schedule) -> None:
    """A tick into the feed at each keep-alive slot, and a wake-up when the server stops."""
    slot = schedule.last
    while not closing.is_set():
        slot = max(slot + 1, schedule.slot_at(time.time()) + 1)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(closing.wait(), max(schedule.seconds_until(slot), 0))
        if not feed.queue.full():  # a full queue's reader is busy: it sees ``closing`` soon
            feed.queue.put_nowait(_Tick(slot))


async def _held_until(
    due: int, ended: asyncio.Future[Any], closed: asyncio.Future[Any], schedule: _Schedule
) -> AsyncIterator[bytes]:
    """Wait until ``due`` (ms), the match's end or the server's; meanwhile the keep-alives
    of the slots that fall due, exactly as if nothing were held."""
    while not ended.done() and not closed.done():
        wait = (due - queries.now_ms()) / 1000
        if wait <= 0:
            return
        slot = schedule.last + 1
        until_slot = max(schedule.seconds_until(slot), 0)
        ticks = until_slot < wait
        await asyncio.wait(
            {ended, closed}, timeout=until_slot if ticks else wait, return_when=FIRST_COMPLETED
        )
        if ticks and not ended.done() and not closed.done() and schedule.take(slot):
            yield _KEEPALIVE


# Encoded messages by record: records are shared between the viewers who see an event
# alike (GameService.visible), so each is encoded once, not once per spectator. The
# entry keeps its record alive, so the id cannot be reused while the entry exists.
_ENCODED = BoundedCache[int, tuple[dict[str, Any], bytes]](8192)


def _encoded(record: dict[str, Any]) -> bytes:
    entry = _ENCODED.get(id(record))
    if entry is not None and entry[0] is record:
        return entry[1]
    # compact JSON has no line breaks, so the data is one line
    data = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    message = f"id: {record['seq']}\nevent: {record['type']}\ndata: {data}\n\n".encode()
    _ENCODED.put(id(record), (record, message))
    return message


class _Feed:
    """The match's events read ahead of the client, in a bounded queue."""

    def __init__(self, service: GameService, match_id: str, viewer: Viewer, start: int) -> None:
        self.service, self.match_id, self.viewer, self.start = service, match_id, viewer, start
        # events, None when the store gave up, a _Tick when a keep-alive is due
        self.queue: asyncio.Queue[dict[str, Any] | _Tick | None] = asyncio.Queue(_BACKLOG)
        self.ended = asyncio.Event()  # MatchEnded was read: nothing is delayed any more
        # checked after every event: a cancellation landing inside a Redis call
        # may not come out, and the reader must still stop
        self.stopped = False

    async def read(self) -> None:
        try:
            async for record in self.service.events(self.match_id, self.viewer, self.start):
                if self.stopped:
                    return
                if record["type"] == "MatchEnded":
                    self.ended.set()
                await self.queue.put(record)
        except EventStoreError as error:  # Redis gone too long: end; the client resumes
            log.warning("live events of %s ended: %s", self.match_id, error)
        if not self.stopped:
            await self.queue.put(None)


_KEEPALIVE = b": keep-alive\n\n"


HANDLERS = [live]
