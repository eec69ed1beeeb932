"""A refusal's code has one kind, and each adapter maps a kind to its own status: the
statuses every code had when the REST mapping went through the gRPC one."""

from __future__ import annotations

import grpc
import pytest

from service.app.errors import ErrorKind, ServiceError, kind_of
from service.grpc.mapping import status_code
from service.rest.errors import http_status

CODES = [
    ("not_found", grpc.StatusCode.NOT_FOUND, 404),
    ("unauthenticated", grpc.StatusCode.UNAUTHENTICATED, 401),
    ("permission_denied", grpc.StatusCode.PERMISSION_DENIED, 403),
    ("busy", grpc.StatusCode.ABORTED, 409),
    ("unavailable", grpc.StatusCode.UNAVAILABLE, 503),
    ("bad_request", grpc.StatusCode.INVALID_ARGUMENT, 400),
    ("invalid_meld", grpc.StatusCode.INVALID_ARGUMENT, 400),
    ("too_long", grpc.StatusCode.INVALID_ARGUMENT, 400),
    ("too_many", grpc.StatusCode.INVALID_ARGUMENT, 400),
    ("invalid_name", grpc.StatusCode.INVALID_ARGUMENT, 400),
    ("request_id_too_short", grpc.StatusCode.INVALID_ARGUMENT, 400),
    ("turn_time_too_short", grpc.StatusCode.INVALID_ARGUMENT, 400),
    ("already_started", grpc.StatusCode.FAILED_PRECONDITION, 409),
    ("request_id_reused", grpc.StatusCode.FAILED_PRECONDITION, 409),
    ("not_your_turn", grpc.StatusCode.FAILED_PRECONDITION, 409),
    ("match_not_over", grpc.StatusCode.FAILED_PRECONDITION, 409),
]


@pytest.mark.parametrize(("code", "grpc_status", "http"), CODES)
def test_each_code_keeps_its_statuses(code: str, grpc_status: grpc.StatusCode, http: int) -> None:
    kind = ServiceError(code, "why").kind
    assert kind is kind_of(code)
    assert status_code(kind) == grpc_status
    assert http_status(kind) == http


def test_every_kind_has_a_status_in_both_adapters() -> None:
    grpc_statuses = {status_code(kind) for kind in ErrorKind}
    assert len(grpc_statuses) == len(ErrorKind)  # no two kinds alike on gRPC
    assert all(400 <= http_status(kind) < 600 for kind in ErrorKind)
    assert [str(kind) for kind in ErrorKind] == [kind.value for kind in ErrorKind]
