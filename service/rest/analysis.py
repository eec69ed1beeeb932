"""A finished match's analysis: the expert's judgement of every move of one game
(``service.app.analysis``), asked for with POST and read with GET, progress then result."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from litestar import Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, Parameter
from msgspec import Struct

from clients.analysis import BUDGETS, DEFAULT_PLAYOUTS

from .context import Context, limit_reads
from .errors import responses

Game = Annotated[int, Parameter(ge=1, le=10_000, description="the game, 1 first")]
Playouts = Annotated[
    int,
    Parameter(
        ge=1,
        le=max(BUDGETS),
        description="the budget: playouts per judged move, one of " + ", ".join(map(str, BUDGETS)),
    ),
]


class AnalysisStatus(Struct):
    match_id: str
    game: int
    playouts: int
    state: Literal["queued", "running", "done", "failed"]
    done: int  # judged moves searched so far
    total: int  # judged moves to search (0 until the moves are read)
    reason: str | None = None  # why it failed
    result: dict[str, Any] | None = None  # once done: docs/ANALYSIS.md


def _status(body: dict[str, Any]) -> AnalysisStatus:
    return msgspec.convert(body, AnalysisStatus)


@post(
    "/matches/{match_id:str}/analysis",
    status_code=202,
    summary="Ask for the expert's analysis of a finished match's game",
    description="Queues the job (202) unless it is kept (200, with the result) or under way. "
    "409 match_not_over while the match is live; 429 quota_analyses / quota_analyses_global "
    "(with Retry-After) past the caller's analyses at once or everyone's. One game a job: "
    "?game=N (1 first), ?playouts=P per judged move (50, 600 or 3000).",
    responses=responses(400, 404, 409, 429, 503),
)
async def ask_analysis(
    ctx: NamedDependency[Context],
    request: Request[Any, Any, Any],
    match_id: FromPath[str],
    game: Game = 1,
    playouts: Playouts = DEFAULT_PLAYOUTS,
) -> Response[AnalysisStatus]:
    body = await ctx.analyses.request(ctx.caller(request), match_id, game, playouts)
    return Response(_status(body), status_code=200 if body["state"] == "done" else 202)


@get(
    "/matches/{match_id:str}/analysis",
    summary="A finished match's analysis: its progress, then its result",
    description="state queued or running (done of total judged moves searched), done (with "
    "the result), or failed (with the reason: ask again). 404 analysis_not_requested when "
    "none is kept or under way: never asked for, or lost with a restart (POST again).",
    responses=responses(400, 404, 409, 429, 503),
    guards=[limit_reads],
)
async def get_analysis(
    ctx: NamedDependency[Context],
    match_id: FromPath[str],
    game: Game = 1,
    playouts: Playouts = DEFAULT_PLAYOUTS,
) -> AnalysisStatus:
    return _status(await ctx.analyses.status(match_id, game, playouts))


HANDLERS = [ask_analysis, get_analysis]
