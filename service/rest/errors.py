"""Errors as JSON ``{"code", "message"}`` with the HTTP status of their code.

The status of a refusal is its kind's (``service.app.errors.ErrorKind``, which the gRPC
mapping maps too): bad notation and invalid melds are the caller's mistake (400), every
other rules refusal is about the match's state (409). Bad input never becomes a 5xx.
"""

from __future__ import annotations

import logging
import sys
from enum import StrEnum
from typing import Any, assert_never

from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR
from litestar.types import ExceptionHandlersMap, Scope
from litestar.types.protocols import Logger

from eventstore import EventStoreError, StoreUnavailable

from ..app.errors import ErrorKind, MatchRefusalCode, RefusalCode, ServiceCode, ServiceError
from .auditing import AuditsBusy
from .codes import RestCode
from .models import Error
from .read_rate import ReadsTooFast
from .streams import TooManyStreams

log = logging.getLogger("daifugo.rest")

# codes of Litestar's own refusals (routing, validation), by status
_CODE_OF_STATUS: dict[int, StrEnum] = {
    400: RefusalCode.BAD_REQUEST,
    401: ServiceCode.UNAUTHENTICATED,
    403: MatchRefusalCode.PERMISSION_DENIED,
    404: MatchRefusalCode.NOT_FOUND,
    405: RestCode.METHOD_NOT_ALLOWED,
    413: RestCode.TOO_LARGE,
    415: RestCode.UNSUPPORTED_MEDIA_TYPE,
}
# what the OpenAPI schema lists beside most routes' success
ERROR_RESPONSES = (400, 404, 503)
_DESCRIPTIONS = {
    400: "malformed input: what was wrong",
    401: "no seat token, or not a bearer token",
    403: "the token is not one of this match's",
    404: "no such match (or event)",
    409: "refused: the rules' reason code, or the match is not in the right state",
    413: "the request body is past the server's limit",
    429: "a quota is used up (its reason code: quota_creates, quota_bots, quota_bots_global, "
    "quota_audits, quota_seats, too_many_registrations, too_many_streams, streams_full, "
    "rate_limited): try again after Retry-After",
    503: "the event store is unavailable, or (audits) the audit workers are busy: "
    "try again after Retry-After",
}


class BadInput(Exception):
    """Input the REST layer refuses before the service sees it: 400 with its own
    reason code (too_many_bots, unknown_option…)."""

    def __init__(self, code: RestCode, message: str) -> None:
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


def http_status(kind: ErrorKind) -> int:
    """The HTTP status of a kind of failure."""
    match kind:
        case ErrorKind.NOT_FOUND:
            return 404
        case ErrorKind.UNAUTHENTICATED:
            return 401
        case ErrorKind.PERMISSION_DENIED:
            return 403
        case ErrorKind.BAD_INPUT:
            return 400
        case ErrorKind.REFUSED | ErrorKind.BUSY:
            return 409
        case ErrorKind.UNAVAILABLE:
            return 503
        case ErrorKind.EXHAUSTED:
            return 429
        case _:
            assert_never(kind)


def error_response(
    status: int, code: StrEnum | str, message: str, receipt: dict[str, Any] | None = None
) -> Response[Error]:
    return Response(Error(code, message, receipt), status_code=status, media_type=MediaType.JSON)


def _service_error(_: Request[Any, Any, Any], error: ServiceError) -> Response[Error]:
    receipt = error.receipt.to_dict() if error.receipt is not None else None
    response = error_response(http_status(error.kind), error.code, error.message, receipt)
    if error.retry_after is not None:
        response.headers["Retry-After"] = str(error.retry_after)
    return response


def _bad_input(_: Request[Any, Any, Any], error: BadInput) -> Response[Error]:
    return error_response(400, error.code, error.message)


def _unavailable(_: Request[Any, Any, Any], error: StoreUnavailable) -> Response[Error]:
    kind = ErrorKind.UNAVAILABLE
    return error_response(http_status(kind), kind.value, f"the event store is unavailable: {error}")


def _audits_busy(_: Request[Any, Any, Any], error: AuditsBusy) -> Response[Error]:
    response = error_response(503, error.code, error.message)
    response.headers["Retry-After"] = str(error.retry_after)
    return response


def _throttled(_: Request[Any, Any, Any], error: TooManyStreams | ReadsTooFast) -> Response[Error]:
    response = error_response(429, error.code, error.message)
    response.headers["Retry-After"] = str(error.retry_after)
    return response


def _store_error(request: Request[Any, Any, Any], error: EventStoreError) -> Response[Error]:
    # a corrupt stream is the server's fault, not the caller's
    log.error("event store error on %s: %s", request.url.path, error)
    return error_response(HTTP_500_INTERNAL_SERVER_ERROR, RestCode.STORE_ERROR, str(error))


def _network_error(request: Request[Any, Any, Any], error: Exception) -> Response[Error]:
    # the network failing under a read (the store translates its own: this is the rest)
    return _unavailable(request, StoreUnavailable(str(error) or type(error).__name__))


def _too_deep(error: BaseException | None) -> bool:
    """msgspec refuses JSON nested deeper than it recurses with a RecursionError, which
    Litestar does not turn into a 400 as it does msgspec's DecodeError: bad input."""
    return isinstance(error, RecursionError) and "while deserializing" in str(error)


def _recursion(_: Request[Any, Any, Any], error: RecursionError) -> Response[Error]:
    # any other recursion stays the server's fault (logged with its traceback)
    if _too_deep(error):
        return error_response(400, RefusalCode.BAD_REQUEST, "the JSON is nested too deeply")
    return error_response(
        HTTP_500_INTERNAL_SERVER_ERROR, RestCode.INTERNAL, "Internal Server Error"
    )


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
    TooManyStreams: _throttled,
    ReadsTooFast: _throttled,
    EventStoreError: _store_error,
    ConnectionError: _network_error,
    TimeoutError: _network_error,
    HTTPException: _http_error,
    RecursionError: _recursion,
}
