"""Live events as Server-Sent Events: ``id:`` the seq, ``event:`` the type,
``data:`` the event as the viewer may see it (JSON).

Resuming: ``Last-Event-ID`` (what a browser's EventSource sends back) or
``?from=`` picks up right after / at that seq, so nothing is missed or
repeated. A spectator gets each event once it is ``spectator_delay_ms`` old;
a seat (``Authorization: Bearer <seat token>``) sees its own hand, without
delay. The stream follows the match until the client leaves (``MatchSealed`` is
the last event of every finished match).

The streams of one audience share one reader of the match (``broadcast.py``): each
event is encoded once and its bytes go to every stream in one write.

Keep-alive comments keep idle connections open. They go out on a fixed schedule, at
every multiple of the period on the clock, whatever the events do: were they timed
from the last event, a spectator would see when a delayed (still hidden) event
happened from when the keep-alives shift.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from litestar import Request, get
from litestar.di import NamedDependency
from litestar.params import FromPath, HeaderParameter, QueryParameter
from litestar.response import Stream

from eventstore import EventStoreError

from ..app import queries
from ..app.match import REVEALING
from ..app.queries import checked_id
from ..app.service import viewer_of
from ..rules.views import SPECTATOR
from .broadcast import Audience, Broadcast, encoded, held, slot_at
from .context import Authorization, Context, bearer
from .errors import responses
from .streams import StreamSlot

log = logging.getLogger("daifugo.rest")
KEEPALIVE = 15.0  # seconds between keep-alive comments (the default period)


@get(
    "/matches/{match_id:str}/live",
    summary="Live events (Server-Sent Events), resumable",
    description="Resume with Last-Event-ID (the last seq received) or ?from= (the first seq "
    "wanted). With a seat token the events are that seat's view, without spectator delay.",
    responses=responses(400, 401, 403, 404, 429, 503),
    media_type="text/event-stream",
)
async def live(
    ctx: NamedDependency[Context],
    request: Request[Any, Any, Any],
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
    audience = Audience(match_id, viewer, delay_ms, match.over, ctx.keepalive_seconds or KEEPALIVE)
    slot = ctx.streams.take(ctx.caller(request).address)  # past a bound: 429, nothing joined
    broadcast = ctx.broadcasts.of(service, audience, match.version + 1, ctx.closing)
    messages = _messages(broadcast, start, ctx.closing, _Schedule(audience.period), slot)
    slot.tie(messages)
    return Stream(
        messages,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


class _Schedule:
    """The keep-alive slots of one stream: slot k is due at k × ``period`` seconds on the
    clock. Each goes out once; a slot missed while the stream was busy writing is
    skipped, not sent late in a burst."""

    def __init__(self, period: float) -> None:
        self.period = period
        self.last = slot_at(time.time(), period)  # the slots before the stream began

    def take(self, slot: int) -> bool:
        """Whether ``slot``'s keep-alive is still to send (then it counts as sent)."""
        if slot <= self.last:
            return False
        self.last = max(slot, slot_at(time.time(), self.period))
        return True


async def _messages(
    broadcast: Broadcast,
    start: int,
    closing: asyncio.Event,
    schedule: _Schedule,
    slot: StreamSlot | None = None,
) -> AsyncIterator[bytes]:
    """The stream's bytes: the events from ``start`` on, in order, each once it may be
    shown (the broadcast holds the live ones), keep-alives on the schedule, and the end
    when the server stops (``closing``) or the store gives up (the client resumes)."""
    try:
        seq = start
        try:
            async for message, after in _past(broadcast, start, closing, schedule):
                seq = after  # the next seq to send
                yield message
        except EventStoreError as error:  # Redis gone too long: end; the client resumes
            log.warning("live events of %s ended: %s", broadcast.audience.match_id, error)
            return
        while not closing.is_set():
            if seq < broadcast.window_start:
                if broadcast.over:
                    return  # the store gave up while it caught up: the client resumes
                log.info("a live stream of %s fell behind: ended", broadcast.audience.match_id)
                yield _DROPPED
                return
            data = broadcast.since(seq)
            if data:
                seq = broadcast.next_seq
                yield data
            elif schedule.take(broadcast.slot):
                yield _KEEPALIVE
            elif broadcast.over:
                return
            else:
                await broadcast.changed()
    finally:
        broadcast.leave()
        if slot is not None:
            slot.release()


async def _past(
    broadcast: Broadcast, start: int, closing: asyncio.Event, schedule: _Schedule
) -> AsyncIterator[tuple[bytes, int]]:
    """The events from ``start`` up to the broadcast's window, read from the store, each
    held until it may be shown as the broadcast would hold it; with the seq after each
    write. (The window moves on meanwhile: read until it is reached.)"""
    audience, service = broadcast.audience, broadcast.service
    revealed, seq = audience.revealed, start
    while seq < broadcast.window_start and not closing.is_set() and not broadcast.over:
        page = await service.stored_events(
            audience.match_id, seq, min(_PAGE, broadcast.window_start - seq)
        )
        if not page:
            return  # never: what is in the window was stored first
        due_now: list[bytes] = []
        for stored in page:
            revealed = revealed or stored.type in REVEALING
            record = service.visible(stored, audience.viewer, revealed)
            due = held(record, audience.delay_ms, broadcast.ended)
            if due > queries.now_ms():
                if due_now:
                    yield b"".join(due_now), stored.seq
                    due_now = []
                async for keepalive in _held_until(due, broadcast, closing, schedule):
                    yield keepalive, stored.seq
                if closing.is_set() or broadcast.over:
                    return
            due_now.append(encoded(record))
        seq = page[-1].seq + 1
        yield b"".join(due_now), seq


async def _held_until(
    due: int, broadcast: Broadcast, closing: asyncio.Event, schedule: _Schedule
) -> AsyncIterator[bytes]:
    """Wait until ``due`` (ms), the match's end or the server's; meanwhile the keep-alives
    of the slots that fall due, exactly as if nothing were held."""
    while not broadcast.ended and not broadcast.over and not closing.is_set():
        wait = (due - queries.now_ms()) / 1000
        if wait <= 0:
            return
        if schedule.take(broadcast.slot):
            yield _KEEPALIVE
        else:
            await broadcast.changed(timeout=wait)


_PAGE = 256  # events read at once by a stream that starts before the window
_KEEPALIVE = b": keep-alive\n\n"
_DROPPED = b": this stream fell too far behind and ends here; resume with Last-Event-ID\n\n"


HANDLERS = [live]
