"""The global ranking: players by points across every match (the results
projection; points for a game are players - place)."""

from __future__ import annotations

from typing import Annotated

from litestar import get
from litestar.di import NamedDependency
from litestar.params import QueryParameter

from .context import Context
from .errors import responses
from .models import RankingPage, Standing


@get(
    "/rankings",
    summary="Players by points, best first",
    description="From the results projection (eventually consistent). A player is known by "
    "the name it sat down with; a game gives players - place points (大富豪 of four: 3), "
    "one more in `uecda` (5/4/3/2/1). The games of a match with a spectator delay count "
    "once it is over.",
    responses=responses(400, 503),
)
async def rankings(
    ctx: NamedDependency[Context],
    offset: Annotated[int, QueryParameter(ge=0, le=1_000_000)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=500)] = 50,
) -> RankingPage:
    found = await ctx.results.ranking(offset, limit + 1)
    page = [
        Standing(item.name, item.points, item.games, item.firsts, list(item.places))
        for item in found[:limit]
    ]
    return RankingPage(page, offset + limit if len(found) > limit else None)


HANDLERS = [rankings]
