"""Guards put on each handler once, as its service registers, rather than interceptors
(which cost grpc aio a chain of coroutines on every call): a call that needs a token
and carries none is refused before any work, and a request whose bytes do not parse is
refused as INVALID_ARGUMENT."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Mapping
from typing import Any, TypeAlias

import grpc

from .servicer import bearer_token
from .undecodable import lenient

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"  # generic only in the stubs
TOKEN_MESSAGE = "send a seat or host token as 'authorization: Bearer <token>'"


def token_required(handler: Handler) -> Handler:
    """``handler`` refusing a call without a bearer token as UNAUTHENTICATED."""
    changes: dict[str, Any] = {}
    # async behaviours here, whatever the (synchronous) stubs say
    unary_behaviour: Any = handler.unary_unary
    stream_behaviour: Any = handler.unary_stream
    if unary_behaviour is not None:

        async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            if bearer_token(context) is None:
                await context.abort(grpc.StatusCode.UNAUTHENTICATED, TOKEN_MESSAGE)
            return await unary_behaviour(request, context)

        changes["unary_unary"] = unary
    if stream_behaviour is not None:

        async def stream(
            request: Any, context: grpc.aio.ServicerContext[Any, Any]
        ) -> AsyncIterator[Any]:
            if bearer_token(context) is None:
                await context.abort(grpc.StatusCode.UNAUTHENTICATED, TOKEN_MESSAGE)
            async for response in stream_behaviour(request, context):
                yield response

        changes["unary_stream"] = stream
    # grpc's handlers are named tuples (the stubs do not say so)
    replaced: Handler = handler._replace(**changes)  # type: ignore[attr-defined]
    return replaced


class GuardedRegistration:
    """Stands in for the server when a service registers
    (``add_XServicer_to_server(servicer, GuardedRegistration(server, ...))``) and adds
    its handlers to the server guarded; ``needs_token``: method paths (``/pkg.Service/M``)."""

    def __init__(self, server: grpc.aio.Server, needs_token: Collection[str]) -> None:
        self.server = server
        self.needs_token = needs_token

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        """Nothing: generated code adds the same handlers by name too, just after."""

    def add_registered_method_handlers(self, service: str, handlers: Mapping[str, Any]) -> None:
        guarded: dict[str, Handler] = {}
        for name, handler in handlers.items():
            guarded[name] = lenient(handler)
            if f"/{service}/{name}" in self.needs_token:
                guarded[name] = token_required(guarded[name])
        generic = grpc.method_handlers_generic_handler(service, guarded)
        self.server.add_generic_rpc_handlers((generic,))
        self.server.add_registered_method_handlers(service, guarded)
