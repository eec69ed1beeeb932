"""The gRPC server: MatchService, KeysService, health checking and reflection."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc

from ..app.arena import Arena
from ..app.match import Match
from ..app.quotas import Network
from ..app.service import GameService
from ..records import KeySet
from .arena import ArenaServicer
from .gen.daifugo.v1 import arena_service_pb2 as arena_pb
from .gen.daifugo.v1 import arena_service_pb2_grpc as arena_pb_grpc
from .gen.daifugo.v1 import keys_service_pb2 as keys_pb
from .gen.daifugo.v1 import keys_service_pb2_grpc as keys_pb_grpc
from .gen.daifugo.v1 import match_service_pb2 as pb
from .gen.daifugo.v1 import match_service_pb2_grpc as pb_grpc
from .guards import GuardedRegistration
from .keys import KeysServicer
from .servicer import MatchServicer

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["MatchService"].full_name
KEYS_SERVICE_NAME = keys_pb.DESCRIPTOR.services_by_name["KeysService"].full_name
ARENA_SERVICE_NAME = arena_pb.DESCRIPTOR.services_by_name["ArenaService"].full_name
# calls that act for or look as a seat (or the host) need a token
_NEEDS_TOKEN = {
    f"/{SERVICE_NAME}/{name}"
    for name in ("StartMatch", "Act", "GetView", "AwaitTurn", "ListLegalActions", "StreamEvents")
}


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
    return match.turn_deadline_ms


MAX_CONNECTIONS = 1024
HANDSHAKE_MS = 10_000  # a new connection's HTTP/2 handshake, at most
IDLE_SECONDS = 60.0  # a connection with no call under way is let go after this


def connection_options(
    max_connections: int, idle_seconds: float = IDLE_SECONDS
) -> list[tuple[str, int]]:
    """grpc-core's own bounds: connections open at once (past it a new one is closed,
    so a flood cannot take the process's file descriptors), the time a connection may
    take to begin speaking HTTP/2 (silent ones let go), and the time one that spoke may
    stay with no call under way (GOAWAY: a client reconnects for its next call, unseen
    by its caller). grpc-core has no bound per address and evicts nobody for a newcomer:
    docs/SECURITY.md says what that leaves."""
    return [
        ("grpc.max_allowed_incoming_connections", max_connections),
        ("grpc.server_handshake_timeout_ms", HANDSHAKE_MS),
        ("grpc.max_connection_idle_ms", round(idle_seconds * 1000)),
    ]


async def start_grpc_server(
    service: GameService,
    port: int,
    host: str = "127.0.0.1",
    *,
    signing_keys: KeySet,
    trusted_proxies: Sequence[Network] = (),
    arena: Arena | None = None,
    max_connections: int = MAX_CONNECTIONS,
    idle_seconds: float = IDLE_SECONDS,
) -> tuple[grpc.aio.Server, int]:
    """Start serving; returns the server and the port it bound (0 picks one).
    ``trusted_proxies``: peers whose x-forwarded-for metadata names the caller;
    ``arena``: serve its queues too (ArenaService)."""
    server = grpc.aio.server(options=connection_options(max_connections, idle_seconds))
    registration = GuardedRegistration(server, needs_token=_NEEDS_TOKEN)
    servicer = MatchServicer(service, turn_deadline, trusted_proxies)
    pb_grpc.add_MatchServiceServicer_to_server(servicer, registration)  # type: ignore[no-untyped-call]
    keys_servicer = KeysServicer(signing_keys)
    keys_pb_grpc.add_KeysServiceServicer_to_server(keys_servicer, registration)  # type: ignore[no-untyped-call]
    if arena is not None:
        arena_pb_grpc.add_ArenaServiceServicer_to_server(ArenaServicer(arena), registration)  # type: ignore[no-untyped-call]
    health_servicer = HealthService()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, registration)
    names = (
        SERVICE_NAME,
        KEYS_SERVICE_NAME,
        *((ARENA_SERVICE_NAME,) if arena is not None else ()),
        health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
        reflection.SERVICE_NAME,
    )
    reflector = reflection.aio.ReflectionServicer(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(reflector, registration)
    bound = server.add_insecure_port(f"{host}:{port}")
    await server.start()
    for name in ("", SERVICE_NAME, KEYS_SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, bound
