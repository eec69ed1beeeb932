"""Guards put on each handler once, as its service registers, rather than interceptors
(which cost grpc aio a chain of coroutines on every call): a call that needs a token
and carries none is refused as UNAUTHENTICATED before any work, and a request whose
bytes do not parse as INVALID_ARGUMENT (not the UNKNOWN grpc answers when a
deserializer raises: a malformed request is the caller's mistake)."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping
from typing import Any, TypeAlias

import grpc

from .servicer import bearer_token

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"  # generic only in the stubs
Check: TypeAlias = Callable[[Any, Any], Awaitable[None]]  # (request, context): aborts to refuse
UNDECODABLE_MESSAGE = "the request is not a valid message of its type"
TOKEN_MESSAGE = "send a seat or host token as 'authorization: Bearer <token>'"
_UNARY_REQUEST = ("unary_unary", "unary_stream")
_STREAM_REQUEST = ("stream_unary", "stream_stream")


class _Undecodable:
    """Stands in for a request that did not parse; the handler refuses it."""

    __slots__ = ()


UNDECODABLE = _Undecodable()


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


def token_required(handler: Handler) -> Handler:
    """``handler`` refusing a call without a bearer token."""
    return _replace(handler, {kind: _checked_first for kind in _UNARY_REQUEST}, _require_token)


def lenient(handler: Handler) -> Handler:
    """``handler`` refusing a request that does not parse."""
    wraps = {kind: _checked_first for kind in _UNARY_REQUEST}
    wraps.update({kind: _each_checked for kind in _STREAM_REQUEST})
    replaced = _replace(handler, wraps, _refuse_undecodable)
    deserializer = handler.request_deserializer
    if deserializer is not None:
        parse = _parse_or_mark(deserializer)
        replaced = replaced._replace(request_deserializer=parse)  # type: ignore[attr-defined]
    return replaced


async def _require_token(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
    if bearer_token(context) is None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, TOKEN_MESSAGE)


async def _refuse_undecodable(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
    if request is UNDECODABLE:
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, UNDECODABLE_MESSAGE)


def _parse_or_mark(deserializer: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    def parse(raw: bytes) -> Any:
        try:
            return deserializer(raw)
        except Exception:  # DecodeError, bad UTF-8, nesting too deep
            return UNDECODABLE

    return parse


def _replace(
    handler: Handler, wraps: Mapping[str, Callable[[Any, Check], Any]], check: Check
) -> Handler:
    """``handler`` with each behaviour it has wrapped by ``wraps[kind]`` around ``check``."""
    changes = {
        kind: wrap(getattr(handler, kind), check)
        for kind, wrap in wraps.items()
        if getattr(handler, kind) is not None
    }
    replaced: Handler = handler._replace(**changes)  # type: ignore[attr-defined]  # a named tuple
    return replaced


def _checked_first(behaviour: Callable[..., Any], check: Check) -> Callable[..., Any]:
    """A behaviour taking one request (answering once or streaming) that ``check``s it first."""
    if inspect.isasyncgenfunction(behaviour):

        async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
            await check(request, context)
            async for response in behaviour(request, context):
                yield response

        return stream

    async def unary(request: Any, context: Any) -> Any:
        await check(request, context)
        return await behaviour(request, context)

    return unary


def _each_checked(behaviour: Callable[..., Any], check: Check) -> Callable[..., Any]:
    """A behaviour taking a stream of requests that ``check``s each as it comes."""

    async def checked(requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
        async for request in requests:
            await check(request, context)
            yield request

    if inspect.isasyncgenfunction(behaviour):

        async def stream(requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
            async for response in behaviour(checked(requests, context), context):
                yield response

        return stream

    async def unary(requests: AsyncIterator[Any], context: Any) -> Any:
        return await behaviour(checked(requests, context), context)

    return unary
