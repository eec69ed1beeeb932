"""A refusal's code has one kind, and each adapter maps a kind to its own status: the
statuses every code had when the REST mapping went through the gRPC one. Every code is
a member of one typed vocabulary, never a string written at the place it is raised."""

from __future__ import annotations

import ast
from enum import StrEnum
from pathlib import Path

import grpc
import pytest

from service.app.errors import REASON_VOCABULARIES, ErrorKind, ServiceError, kind_of
from service.grpc.mapping import status_code
from service.rest import errors as rest_errors
from service.rest.codes import RestCode
from service.rest.errors import http_status

VOCABULARIES = (*REASON_VOCABULARIES, RestCode)
MEMBERS: dict[str, StrEnum] = {
    member.value: member for vocabulary in VOCABULARIES for member in vocabulary
}

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
    kind = ServiceError(MEMBERS[code], "why").kind
    assert kind is kind_of(MEMBERS[code])
    assert status_code(kind) == grpc_status
    assert http_status(kind) == http


def test_every_kind_has_a_status_in_both_adapters() -> None:
    grpc_statuses = {status_code(kind) for kind in ErrorKind}
    assert len(grpc_statuses) == len(ErrorKind)  # no two kinds alike on gRPC
    assert all(400 <= http_status(kind) < 600 for kind in ErrorKind)
    assert [str(kind) for kind in ErrorKind] == [kind.value for kind in ErrorKind]


def test_each_code_is_a_member_of_one_vocabulary_only() -> None:
    words = [member.value for vocabulary in VOCABULARIES for member in vocabulary]
    assert len(words) == len(set(words))


def test_the_codes_litestars_refusals_get_are_members() -> None:
    assert all(MEMBERS.get(code.value) is code for code in rest_errors._CODE_OF_STATUS.values())


# what takes a reason code as its first argument, wherever it is raised or answered
_TAKES_A_CODE = {"ServiceError", "Refused", "Refusal", "BadInput", "AuditsBusy", "refuse"}


def _written_codes(tree: ast.AST) -> list[str]:
    """Codes written as strings: a string literal as a code-taking call's code, or as
    the code of ``error_response(status, code, ...)``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        position = 0 if name in _TAKES_A_CODE else 1 if name == "error_response" else None
        if position is None or len(node.args) <= position:
            continue
        code = node.args[position]
        if isinstance(code, ast.Constant | ast.JoinedStr):
            found.append(ast.unparse(code))
    return found


def test_no_code_is_written_as_a_string_where_it_is_raised() -> None:
    root = Path(__file__).parents[2] / "service"
    offenders = {
        str(path.relative_to(root)): codes
        for path in sorted(root.rglob("*.py"))
        if "gen" not in path.parts and (codes := _written_codes(ast.parse(path.read_text())))
    }
    assert offenders == {}
    assert _written_codes(ast.parse('raise ServiceError("not_fuond", "x")')) == ["'not_fuond'"]
