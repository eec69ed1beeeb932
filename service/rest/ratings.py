"""Ratings over REST: a pool's leaderboard, page by page, and one player's ratings
over time with the games that moved them (each a link to its match's replay)."""

from __future__ import annotations

from typing import Annotated

from litestar import get
from litestar.di import NamedDependency
from litestar.params import FromPath, QueryParameter
from msgspec import Struct

from ..app.errors import MatchRefusalCode, RefusalCode, ServiceError
from ..app.ratings import POOLS, PoolFold, Ratings
from .context import Context
from .errors import responses


class Rating(Struct):
    rank: int  # 1-based, in the pool
    player_id: str
    name: str
    ordinal: float  # mu - 3 sigma: what the board is ordered by
    mu: float
    sigma: float
    games: int
    last_change: float  # the ordinal's change in the player's last game


class RatingPage(Struct):
    pool: str
    pools: list[str]
    ratings: list[Rating]
    next: int | None  # the ``offset`` of the next page; None at the end


class RatedGameOf(Struct):
    match_id: str
    game_seq: int  # the GameEnded's seq in the match: the replay's position
    place: int
    ordinal: float  # after the game
    delta: float
    at: int  # ms


class PlayerRatings(Struct):
    pool: str
    rating: Rating
    games: list[RatedGameOf]  # oldest first, the last 200


async def _fold(ctx: Context, pool: str) -> PoolFold:
    if pool not in POOLS:
        raise ServiceError(RefusalCode.BAD_REQUEST, f"no pool {pool!r}; pools: {', '.join(POOLS)}")
    assert ctx.ratings is not None
    ratings: Ratings = ctx.ratings
    return await ratings.pool(pool)


@get(
    "/ratings",
    summary="A pool's players by rating, best first",
    description="OpenSkill (Plackett-Luce) ratings of rated matches' games: a pool is a "
    "preset and a player-count band (2-3, 4-5), e.g. federation.4-5. Ordered by the "
    "ordinal mu - 3 sigma. A fold of the log, caught up on every read.",
    responses=responses(400, 503),
)
async def leaderboard(
    ctx: NamedDependency[Context],
    pool: Annotated[str, QueryParameter(max_length=40)] = "federation.4-5",
    offset: Annotated[int, QueryParameter(ge=0, le=1_000_000)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=500)] = 50,
) -> RatingPage:
    standings = (await _fold(ctx, pool)).standings()
    page = [
        Rating(
            offset + index + 1,
            item.player_id,
            item.name,
            item.ordinal,
            item.mu,
            item.sigma,
            item.games,
            item.last_change,
        )
        for index, item in enumerate(standings[offset : offset + limit])
    ]
    more = offset + limit < len(standings)
    return RatingPage(pool, list(POOLS), page, offset + limit if more else None)


@get(
    "/ratings/{pool:str}/players/{player_id:str}",
    summary="One player's rating in a pool, and the games that moved it",
    responses=responses(400, 404, 503),
)
async def player_ratings(
    ctx: NamedDependency[Context], pool: FromPath[str], player_id: FromPath[str]
) -> PlayerRatings:
    standings = (await _fold(ctx, pool)).standings()
    for rank, item in enumerate(standings, 1):
        if item.player_id == player_id:
            rating = Rating(
                rank,
                item.player_id,
                item.name,
                item.ordinal,
                item.mu,
                item.sigma,
                item.games,
                item.last_change,
            )
            games = [
                RatedGameOf(c.match_id, c.game, c.place, c.ordinal, c.delta, c.at)
                for c in item.history
            ]
            return PlayerRatings(pool, rating, games)
    raise ServiceError(MatchRefusalCode.NOT_FOUND, f"no rated player {player_id!r} in {pool}")


HANDLERS = [leaderboard, player_ratings]
