"""Live events as Server-Sent Events: ``id:`` the seq, ``event:`` the type,
``data:`` the event as the viewer may see it (JSON).

Resuming: ``Last-Event-ID`` (what a browser's EventSource sends back) or
``?from=`` picks up right after / at that seq, so nothing is missed or
repeated. A spectator gets each event once it is ``spectator_delay_ms`` old;
a seat (``Authorization: Bearer <seat token>``) sees its own hand, without
delay. A comment every ``KEEPALIVE`` seconds keeps idle connections open. The
stream follows the match until the client leaves (``SeedRevealed`` is the last
event of every match).
"""

from __future__ import annotations

import asyncio
import json
import logging
from asyncio import FIRST_COMPLETED
from collections.abc import AsyncIterator
from typing import Annotated, Any

from litestar import get
from litestar.di import NamedDependency
from litestar.params import FromPath, HeaderParameter, QueryParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage

from eventstore import EventStoreError

from ..app.service import GameService, viewer_of
from ..rules.views import SPECTATOR, Viewer
from . import spectating
from .context import Authorization, Context, bearer
from .errors import responses
from .spectating import NEVER_DELAYED, checked_id

log = logging.getLogger("daifugo.rest")
KEEPALIVE = 15.0  # seconds of silence before a keep-alive comment
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
) -> ServerSentEvent:
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
    return ServerSentEvent(_messages(feed, delay_ms, ctx.closing))


async def _messages(
    feed: _Feed, delay_ms: int, closing: asyncio.Event
) -> AsyncIterator[ServerSentEventMessage]:
    """The stream's messages: events in order, each held until it is ``delay_ms``
    old (not once the match is over: then everything is public), keep-alives
    while nothing is due, and the end when the server stops (``closing``)."""
    reader = asyncio.create_task(feed.read())
    closed = asyncio.ensure_future(closing.wait())
    ended = asyncio.ensure_future(feed.ended.wait())
    try:
        while not closing.is_set():
            getting = asyncio.ensure_future(feed.queue.get())
            await asyncio.wait({getting, closed}, timeout=KEEPALIVE, return_when=FIRST_COMPLETED)
            if not getting.done():
                getting.cancel()  # a cancelled get takes nothing off the queue
                if not closing.is_set():
                    yield _keepalive()
                continue
            record = getting.result()
            if record is None:
                return  # the store gave up: the client resumes from its last id
            due = 0 if record["type"] in NEVER_DELAYED else record["at"] + delay_ms
            while delay_ms and not ended.done() and not closing.is_set():
                wait = due - spectating.now_ms()
                if wait <= 0:
                    break
                await asyncio.wait(
                    {ended, closed},
                    timeout=min(wait / 1000, KEEPALIVE),
                    return_when=FIRST_COMPLETED,
                )
                if not ended.done() and not closing.is_set() and due > spectating.now_ms():
                    yield _keepalive()
            if closing.is_set():
                return
            yield ServerSentEventMessage(
                data=json.dumps(record, ensure_ascii=False, separators=(",", ":")),
                event=record["type"],
                id=record["seq"],
            )
    finally:
        feed.stopped = True
        for task in (reader, closed, ended):
            task.cancel()


class _Feed:
    """The match's events read ahead of the client, in a bounded queue."""

    def __init__(self, service: GameService, match_id: str, viewer: Viewer, start: int) -> None:
        self.service, self.match_id, self.viewer, self.start = service, match_id, viewer, start
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(_BACKLOG)
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


def _keepalive() -> ServerSentEventMessage:
    return ServerSentEventMessage(data=None, comment="keep-alive")


HANDLERS = [live]
