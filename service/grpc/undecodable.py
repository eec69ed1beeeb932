"""Requests whose bytes do not parse as their message are the caller's mistake:
INVALID_ARGUMENT, not the UNKNOWN grpc answers when a deserializer raises."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeAlias

import grpc

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"  # generic only in the stubs
MESSAGE = "the request is not a valid message of its type"


class _Undecodable:
    """Stands in for a request that did not parse; the handler refuses it."""

    __slots__ = ()


UNDECODABLE = _Undecodable()


def _lenient(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    if deserializer is None:
        return None

    def parse(raw: bytes) -> Any:
        try:
            return deserializer(raw)
        except Exception:  # DecodeError, bad UTF-8, nesting too deep
            return UNDECODABLE

    return parse


async def _refuse(context: grpc.aio.ServicerContext[Any, Any]) -> None:
    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, MESSAGE)


def _unary_request(behaviour: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.isasyncgenfunction(behaviour):

        async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
            if request is UNDECODABLE:
                await _refuse(context)
            async for response in behaviour(request, context):
                yield response

        return stream

    async def unary(request: Any, context: Any) -> Any:
        if request is UNDECODABLE:
            await _refuse(context)
        return await behaviour(request, context)

    return unary


def _stream_request(behaviour: Callable[..., Any]) -> Callable[..., Any]:
    async def checked(requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
        async for request in requests:
            if request is UNDECODABLE:
                await _refuse(context)
            yield request

    if inspect.isasyncgenfunction(behaviour):

        async def stream(requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
            async for response in behaviour(checked(requests, context), context):
                yield response

        return stream

    async def unary(requests: AsyncIterator[Any], context: Any) -> Any:
        return await behaviour(checked(requests, context), context)

    return unary


def lenient(handler: Handler) -> Handler:
    """``handler`` with a request that does not parse refused as INVALID_ARGUMENT."""
    changes: dict[str, Any] = {"request_deserializer": _lenient(handler.request_deserializer)}
    for kind, wrap in (
        ("unary_unary", _unary_request),
        ("unary_stream", _unary_request),
        ("stream_unary", _stream_request),
        ("stream_stream", _stream_request),
    ):
        behaviour = getattr(handler, kind)
        if behaviour is not None:
            changes[kind] = wrap(behaviour)
    # grpc's handlers are named tuples (the stubs do not say so)
    replaced: Handler = handler._replace(**changes)  # type: ignore[attr-defined]
    return replaced
