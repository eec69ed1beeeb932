"""A match's record: the readable kifu (text) or the event log (JSON Lines),
and its audit. The complete log, with every stored envelope exactly as hashed,
only once the match is over; before that, what a spectator may see."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

import msgspec
from litestar import MediaType, Request, Response, get, post
from litestar.di import NamedDependency
from litestar.exceptions import ClientException
from litestar.openapi.spec import (
    OpenAPIMediaType,
    OpenAPIResponse,
    OpenAPIType,
    Operation,
    RequestBody,
    Schema,
)
from litestar.params import FromPath, FromQuery

from ..app.errors import RefusalCode, ServiceError
from ..audit import INPUT_ERROR, export_jsonl, report_of_events, report_of_log, report_of_request
from .context import Context, limit_reads
from .errors import ERROR_RESPONSES, responses
from .kifu import record_text
from .models import AuditResult

JSONL = "application/x-ndjson"


@dataclass
class _TextOrJsonl(Operation):
    """GET .../record answers text, or JSON Lines with ?format=jsonl: say both."""

    def __post_init__(self) -> None:
        ok = (self.responses or {}).get("200")
        if isinstance(ok, OpenAPIResponse) and ok.content is not None:
            ok.content[JSONL] = OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))


@get(
    "/matches/{match_id:str}/record",
    operation_class=_TextOrJsonl,
    summary="The match's record: a readable kifu, or its event log as JSON Lines",
    description="text/plain: tag-pair headers, then one line per event. ?format=jsonl: once "
    "the match is over the exact stored envelopes (stream, seq, type, schema, at, request_id, "
    "data, prev_hash, hash), ready for POST /audit; before, the events a spectator may see.",
    responses=responses(*ERROR_RESPONSES, 429),
    guards=[limit_reads],
    media_type=MediaType.TEXT,
)
async def get_record(
    ctx: NamedDependency[Context],
    match_id: FromPath[str],
    format: FromQuery[Literal["text", "jsonl"]] = "text",
) -> Response[str]:
    record = await ctx.queries.record(match_id)
    seen, stored = record.seen, record.stored
    if format == "jsonl":
        if seen.match.over:
            body = export_jsonl(stored)
        else:
            lines = (json.dumps(item, ensure_ascii=False) + "\n" for item in record.events)
            body = "".join(lines)
        disposition = f'attachment; filename="match-{seen.match.match_id}.jsonl"'
        return Response(body, media_type=JSONL, headers={"Content-Disposition": disposition})
    created = stored[0].at if stored else 0
    text = record_text(record.match, seen.state, created, record.events)
    return Response(text, media_type="text/plain; charset=utf-8")


@get(
    "/matches/{match_id:str}/audit",
    summary="Audit a finished match",
    description="Recomputes the hash chain, the deals from the revealed seed and every event "
    "through the rules. 409 match_not_over while the match is live (its seed is still secret); "
    "503 audit_busy (with Retry-After) when the audit workers have enough to do.",
    responses=responses(404, 409, 429, 503),
    guards=[limit_reads],
)
async def audit_match(
    ctx: NamedDependency[Context], request: Request[Any, Any, Any], match_id: FromPath[str]
) -> AuditResult:
    stored = await ctx.queries.finished_log(match_id)
    async with ctx.audit_slot(request):
        report = await ctx.audits.run(report_of_events, (stored, ctx.signing_keys))
    return msgspec.convert(report, AuditResult)


@dataclass
class _JsonlBody(Operation):
    """The request body of POST /audit in the schema: the handler reads raw bytes."""

    def __post_init__(self) -> None:
        self.request_body = RequestBody(
            content={
                **{
                    media: OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))
                    for media in (JSONL, MediaType.TEXT)
                },
                MediaType.JSON: OpenAPIMediaType(
                    schema=Schema(
                        type=OpenAPIType.OBJECT,
                        required=["log"],
                        properties={
                            "log": Schema(type=OpenAPIType.STRING),
                            "receipts": Schema(
                                type=OpenAPIType.ARRAY, items=Schema(type=OpenAPIType.OBJECT)
                            ),
                            "keys": Schema(type=OpenAPIType.OBJECT),
                        },
                    )
                ),
            },
            description="an exported event log (GET /matches/{id}/record?format=jsonl); or, "
            'as application/json, {"log": <that log>, "receipts": [signed records], '
            '"keys": <a GET /keys body>}, receipts and keys optional',
            required=True,
        )


@post(
    "/audit",
    status_code=200,
    summary="Audit an exported event log",
    description="The body is a match's event log as JSON Lines, checked against this "
    "server's published keys; or a JSON object with the log, the receipts a player kept and "
    "the keys to check against: the report `daifugo audit FILE --key KEY --receipts FILE` "
    "gives. 400 with the reason when it is not one (a log out of order is an invalid "
    "report, naming the first bad seq); 413 too_large past the server's body limit (10 MB by "
    "default); 503 audit_busy (with Retry-After) when the audit workers have enough to do; "
    "429 quota_audits (with Retry-After) past the caller's audits at once.",
    responses=responses(400, 413, 429, 503),
    operation_class=_JsonlBody,
    request_max_body_size=None,  # the handler's own limit, the server's setting
)
async def audit_log(ctx: NamedDependency[Context], request: Request[Any, Any, Any]) -> AuditResult:
    media = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    # the caller's slot is taken before the body is read: a refused caller's upload is
    # never read (bench.attacks, row E); parsing is the worker's, inside the pool's bound
    async with ctx.audit_slot(request):
        body = await _body(request, ctx.audit_max_bytes)
        if media == MediaType.JSON:
            report = await ctx.audits.run(report_of_request, (body, ctx.signing_keys))
        else:
            report = await ctx.audits.run(report_of_log, (body, ctx.signing_keys, None))
    if INPUT_ERROR in report:
        raise ServiceError(RefusalCode.BAD_REQUEST, report[INPUT_ERROR])
    return msgspec.convert(report, AuditResult)


async def _body(request: Request[Any, Any, Any], limit: int) -> bytes:
    """The request's body, refused (413 too_large) past ``limit`` bytes: at once when
    its Content-Length says so, else as soon as that many have come."""
    too_large = ClientException(
        f"an audit request is at most {limit} bytes (the server's --audit-max-bytes)",
        status_code=413,
    )
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


HANDLERS = [get_record, audit_match, audit_log]
