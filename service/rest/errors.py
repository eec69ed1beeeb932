"""Errors as JSON ``{"code", "message"}`` with the HTTP status of their code.

The split between 400 and 409 is the gRPC mapping's (``status_code``): bad
notation and invalid melds are the caller's mistake (400), every other rules
refusal is about the match's state (409). Bad input never becomes a 5xx.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import grpc
from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR
from litestar.types import ExceptionHandlersMap, Scope
from litestar.types.protocols import Logger
from redis.exceptions import RedisError

from eventstore import EventStoreError, StoreUnavailable
from eventstore.connection import store_error

from ..app.service import ServiceError
from ..grpc.mapping import status_code
from .auditing import AuditsBusy
from .models import Error

log = logging.getLogger("daifugo.rest")

_HTTP_OF_GRPC = {
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.UNAVAILABLE: 503,
}
# codes of Litestar's own refusals (routing, validation), by status
_CODE_OF_STATUS = {
    400: "bad_request",
    401: "unauthenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    415: "unsupported_media_type",
}
# what the OpenAPI schema lists beside most routes' success
ERROR_RESPONSES = (400, 404, 503)
_DESCRIPTIONS = {
    400: "malformed input: what was wrong",
    401: "no seat token, or not a bearer token",
    403: "the token is not one of this match's",
    404: "no such match (or event)",
    409: "refused: the rules' reason code, or the match is not in the right state",
    503: "the event store is unavailable, or (audits) the audit workers are busy: "
    "try again after Retry-After",
}


class BadInput(Exception):
    """Input the REST layer refuses before the service sees it: 400 with its own
    reason code (too_many_bots, unknown_option…)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def responses(*statuses: int) -> dict[int, ResponseSpec]:
    """The OpenAPI entries of these error statuses."""
    return {
        status: ResponseSpec(
            data_container=Error, description=_DESCRIPTIONS[status], generate_examples=False
        )
        for status in statuses
    }


def http_status(code: str) -> int:
    """The HTTP status of a ServiceError code."""
    return _HTTP_OF_GRPC.get(status_code(code), 409)


def error_response(
    status: int, code: str, message: str, receipt: dict[str, Any] | None = None
) -> Response[Error]:
    return Response(Error(code, message, receipt), status_code=status, media_type=MediaType.JSON)


def _service_error(_: Request[Any, Any, Any], error: ServiceError) -> Response[Error]:
    receipt = error.receipt.to_dict() if error.receipt is not None else None
    return error_response(http_status(error.code), error.code, error.message, receipt)


def _bad_input(_: Request[Any, Any, Any], error: BadInput) -> Response[Error]:
    return error_response(400, error.code, error.message)


def _unavailable(_: Request[Any, Any, Any], error: StoreUnavailable) -> Response[Error]:
    return error_response(503, "unavailable", f"the event store is unavailable: {error}")


def _audits_busy(_: Request[Any, Any, Any], error: AuditsBusy) -> Response[Error]:
    response = error_response(503, error.code, error.message)
    response.headers["Retry-After"] = str(error.retry_after)
    return response


def _store_error(request: Request[Any, Any, Any], error: EventStoreError) -> Response[Error]:
    # a corrupt stream is the server's fault, not the caller's
    log.error("event store error on %s: %s", request.url.path, error)
    return error_response(HTTP_500_INTERNAL_SERVER_ERROR, "store_error", str(error))


def _redis_error(request: Request[Any, Any, Any], error: Exception) -> Response[Error]:
    # the projections read Redis with its own client: its failures as the store's
    failure = store_error(error, "read", "redis")
    if isinstance(failure, StoreUnavailable):
        return _unavailable(request, failure)
    return _store_error(request, failure)


def _too_deep(error: BaseException | None) -> bool:
    """msgspec refuses JSON nested deeper than it recurses with a RecursionError, which
    Litestar does not turn into a 400 as it does msgspec's DecodeError: bad input."""
    return isinstance(error, RecursionError) and "while deserializing" in str(error)


def _recursion(_: Request[Any, Any, Any], error: RecursionError) -> Response[Error]:
    # any other recursion stays the server's fault (logged with its traceback)
    if _too_deep(error):
        return error_response(400, "bad_request", "the JSON is nested too deeply")
    return error_response(HTTP_500_INTERNAL_SERVER_ERROR, "internal", "Internal Server Error")


def log_exception(logger: Logger, scope: Scope, _: list[str]) -> None:
    """Litestar's log of an exception no handler made a 4xx of: its traceback, but for
    bad input that only surfaces as an exception (JSON nested too deeply): one line, as
    a refusal is worth, not a traceback anyone can make the server write at will."""
    error = sys.exc_info()[1]
    if _too_deep(error):
        logger.warning("refused on %s: bad_request: the JSON is nested too deeply", scope["path"])
        return
    logger.exception(
        "Uncaught exception (connection_type=%s, path=%r):", scope["type"], scope["path"]
    )


def _http_error(_: Request[Any, Any, Any], error: HTTPException) -> Response[Error]:
    message = error.detail
    if isinstance(error, ValidationException) and isinstance(error.extra, list):
        problems = [_problem(item) for item in error.extra if isinstance(item, dict)]
        if problems:
            message = "; ".join(problems)
    code = _CODE_OF_STATUS.get(error.status_code, f"http_{error.status_code}")
    response = error_response(error.status_code, code, message)
    if error.headers:
        response.headers.update(error.headers)
    return response


def _problem(item: dict[str, Any]) -> str:
    """One validation problem: where (``query limit``, ``body cards``) and what."""
    parts = (item.get("source"), item.get("key"))
    where = " ".join(str(getattr(part, "value", part)) for part in parts if part)
    return f"{where}: {item.get('message', 'invalid')}" if where else str(item.get("message"))


EXCEPTION_HANDLERS: ExceptionHandlersMap = {
    ServiceError: _service_error,
    BadInput: _bad_input,
    StoreUnavailable: _unavailable,
    AuditsBusy: _audits_busy,
    EventStoreError: _store_error,
    RedisError: _redis_error,
    ConnectionError: _redis_error,
    TimeoutError: _redis_error,
    HTTPException: _http_error,
    RecursionError: _recursion,
}
