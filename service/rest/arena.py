"""The arena for the page: a long poll that queues the key's player until the arena
seats it (the page has no gRPC stream; programs use ArenaService.JoinQueue)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Annotated

from litestar import Response, post
from litestar.di import NamedDependency
from litestar.params import JSONBody
from msgspec import Meta, Struct

from ..app.arena import Seating
from .context import Authorization, Context, bearer
from .errors import responses

WAIT_SECONDS = 50.0  # a poll's longest wait; past it: 202, and the page asks again


class QueueRequest(Struct):
    pool: Annotated[str, Meta(max_length=40)] = "federation.4-5"


class Seated(Struct):
    pool: str
    match_id: str
    seat: int
    token: str  # the seat's token: keep it out of URLs


class StillQueued(Struct):
    pool: str
    queued: bool = True


@post(
    "/arena/queue",
    status_code=200,
    summary="Queue for a rated match; answered when seated",
    description="With Authorization: Bearer <player key>. Waits until the arena seats the "
    f"player (200: the match and the seat's token) or {WAIT_SECONDS:g} s pass (202: ask "
    "again). One queue place per player: a second poll meanwhile is 409 already_queued.",
    responses=responses(400, 401, 409, 503),
)
async def queue(
    ctx: NamedDependency[Context], data: JSONBody[QueueRequest], authorization: Authorization = None
) -> Response[Seated | StillQueued]:
    assert ctx.arena is not None
    seatings = ctx.arena.queue(bearer(authorization), data.pool)
    try:
        seating: Seating = await asyncio.wait_for(anext(seatings), WAIT_SECONDS)
    except TimeoutError:
        return Response(StillQueued(data.pool), status_code=202)
    finally:
        with contextlib.suppress(Exception):
            await seatings.aclose()
    return Response(Seated(seating.pool, seating.match_id, seating.seat, seating.token))


HANDLERS = [queue]
