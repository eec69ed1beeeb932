"""The gRPC ArenaService: JoinQueue streams a seating each time the arena seats the
player (service/app/arena.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
from grpc_status import rpc_status

from eventstore import StoreUnavailable

from ..app.arena import Arena
from ..app.errors import ErrorKind, ServiceError
from .gen.daifugo.v1 import arena_service_pb2 as pb
from .gen.daifugo.v1 import arena_service_pb2_grpc as pb_grpc
from .mapping import rich_status, status_code
from .servicer import player_key_of


class ArenaServicer(pb_grpc.ArenaServiceServicer):
    def __init__(self, arena: Arena) -> None:
        self.arena = arena

    async def JoinQueue(
        self, request: pb.JoinQueueRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[pb.JoinQueueResponse]:
        seatings = self.arena.queue(player_key_of(context), request.pool)
        try:
            async for seating in seatings:
                yield pb.JoinQueueResponse(
                    pool=seating.pool,
                    match_id=seating.match_id,
                    seat=seating.seat,
                    token=seating.token,
                )
        except ServiceError as error:
            _, status = rich_status(error)
            await context.abort_with_status(rpc_status.to_status(status))
        except StoreUnavailable as error:
            unavailable = status_code(ErrorKind.UNAVAILABLE)
            await context.abort(unavailable, f"the event store is unavailable: {error}")
        finally:
            await seatings.aclose()
