"""The gRPC server: MatchService, health checking and reflection."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from ..app.match import Match
from ..app.service import GameService
from .gen.daifugo.v1 import match_service_pb2 as pb
from .gen.daifugo.v1 import match_service_pb2_grpc as pb_grpc
from .servicer import AUTHORIZATION, MatchServicer
from .undecodable import UndecodableRequests

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"  # generic only in the stubs
SERVICE_NAME = pb.DESCRIPTOR.services_by_name["MatchService"].full_name
# calls that act for or look as a seat (or the host) need a token
_NEEDS_TOKEN = {
    f"/{SERVICE_NAME}/{name}"
    for name in ("StartMatch", "Act", "GetView", "ListLegalActions", "StreamEvents")
}


class BearerTokenRequired(grpc.aio.ServerInterceptor):
    """Refuses a call that needs a token and carries none, before any work."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        if details.method in _NEEDS_TOKEN:
            metadata = dict(details.invocation_metadata or ())
            if not str(metadata.get(AUTHORIZATION, "")).startswith("Bearer "):
                return _refusal(details.method.endswith("StreamEvents"))
        return await continuation(details)


def _refusal(streaming: bool) -> Handler:
    message = "send a seat or host token as 'authorization: Bearer <token>'"

    async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    async def stream(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)
        yield  # pragma: no cover - makes this an async generator

    if streaming:
        return grpc.unary_stream_rpc_method_handler(stream)
    return grpc.unary_unary_rpc_method_handler(unary)


class HealthService(health.aio.HealthServicer):  # type: ignore[misc]  # untyped
    """grpc's health service with ``List``, which the health proto declares and grpc's
    servicer leaves out (it would answer UNIMPLEMENTED and log a traceback each call)."""

    async def List(
        self, request: health_pb2.HealthListRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> health_pb2.HealthListResponse:
        statuses = {
            name: health_pb2.HealthCheckResponse(status=status)
            for name, status in self._server_status.items()
        }
        return health_pb2.HealthListResponse(statuses=statuses)


def turn_deadline(match: Match) -> int | None:
    """When the seat to act runs out of time (ms since the epoch), if timed."""
    if not match.turn_ms or match.game.turn is None:
        return None
    return match.last_event_ms + match.turn_ms


async def start_grpc_server(
    service: GameService, port: int, host: str = "127.0.0.1"
) -> tuple[grpc.aio.Server, int]:
    """Start serving; returns the server and the port it bound (0 picks one)."""
    # the token check first: a call without one is refused before its body is read
    server = grpc.aio.server(interceptors=[BearerTokenRequired(), UndecodableRequests()])
    servicer = MatchServicer(service, turn_deadline)
    pb_grpc.add_MatchServiceServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]
    health_servicer = HealthService()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = (
        SERVICE_NAME,
        health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
        reflection.SERVICE_NAME,
    )
    reflection.enable_server_reflection(names, server)
    bound = server.add_insecure_port(f"{host}:{port}")
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, bound
