"""Registered players over REST: sign up (a key shown once), who a key is, a new key.

Sign-ups are limited per address and overall, per window (``RegistrationLimits``); past
a limit: 429 ``too_many_registrations`` with Retry-After, and nothing is registered.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import JSONBody
from msgspec import Meta, Struct

from eventstore.quotas import QuotaStore, Window

from ..app.players import MAX_NAME_CHARS, Player, Players, RegistrationLimits
from ..app.quotas import network_of
from ..app.signing import now_ms
from .codes import RestCode
from .context import Authorization, Context, bearer
from .errors import error_response, responses


class Registration(Struct):
    name: Annotated[str, Meta(max_length=4 * MAX_NAME_CHARS)]


class PlayerInfo(Struct):
    player_id: str
    name: str
    kind: str  # person, bot, uecda
    verified: bool


class NewKey(Struct):
    """A key, shown this once: keep it (the service keeps only its hash)."""

    player: PlayerInfo
    key: str


def info(player: Player) -> PlayerInfo:
    return PlayerInfo(player.player_id, player.name, player.kind.value, player.verified)


def _players(ctx: Context) -> Players:
    assert ctx.players is not None, "the app serves players"
    return ctx.players


async def _limited(quotas: QuotaStore, limits: RegistrationLimits, address: str) -> int:
    """0 (the sign-up counted), or the seconds to wait before one from ``address`` is."""
    window_ms = max(round(limits.window_seconds * 1000), 1)
    windows = [
        Window(f"signups:address:{address}", limits.per_address, window_ms),
        Window("signups:all", limits.overall, window_ms),
    ]
    full = await quotas.count(windows, now_ms())
    return 0 if full is None else max(1, -(-full.retry_after_ms // 1000))


@post(
    "/players",
    status_code=201,
    summary="Register a player: a name and its key, shown once",
    description="The name is kept NFKC-normalized; it is refused when it, or one that looks "
    "like it (case-folded, Unicode TR39 skeletons), is taken (409 name_taken), is longer than "
    f"{MAX_NAME_CHARS} characters (400 too_long), or holds a control, format or separator "
    "character, a ':', or a mix of scripts (400 invalid_name). Sign-ups are limited per "
    "address and overall (429 too_many_registrations with Retry-After).",
    responses=responses(400, 409, 429, 503),
)
async def register(
    ctx: NamedDependency[Context], request: Request[Any, Any, Any], data: JSONBody[Registration]
) -> Response[Any]:
    address = network_of(ctx.caller(request).address)  # a proxy's client, an IPv6 /64
    assert ctx.registration_limiter is not None
    wait = await _limited(ctx.registration_limiter, ctx.registration_limits, address)
    if wait:
        refused = error_response(
            429, RestCode.TOO_MANY_REGISTRATIONS, f"too many sign-ups; try again in {wait} s"
        )
        refused.headers["Retry-After"] = str(wait)
        return refused
    registered = await _players(ctx).register(data.name)
    return Response(NewKey(info(registered.player), registered.key), status_code=201)


@get(
    "/players/me",
    summary="The player a key is",
    description="With Authorization: Bearer <player key>.",
    responses=responses(400, 401, 503),
)
async def me(ctx: NamedDependency[Context], authorization: Authorization = None) -> PlayerInfo:
    return info(await _players(ctx).authenticate(bearer(authorization)))


@post(
    "/players/me/key",
    status_code=200,
    summary="A new key for the player; the old one stops working",
    description="With Authorization: Bearer <player key>. The new key is shown this once.",
    responses=responses(400, 401, 503),
)
async def rotate(ctx: NamedDependency[Context], authorization: Authorization = None) -> NewKey:
    rotated = await _players(ctx).rotate(bearer(authorization))
    return NewKey(info(rotated.player), rotated.key)


HANDLERS = [register, me, rotate]
