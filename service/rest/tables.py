"""Opening a table from the page: create a match with the creator's seat, bots
and open seats, one invite link per open seat, the exchange of an invite for
its seat's token, and the host's start.

An invite's secret travels in the link's fragment (never sent to a server by
a browser) and then in a POST body (never a URL, so no access log holds it).
It is an HMAC of the match and seat under the server key (``Keyring.invite``):
nothing is stored, and the exchange is the seat's SeatJoined, so a second use
finds the seat taken."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Request, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody
from msgspec import Meta, Struct

from ..app.errors import MatchRefusalCode, ServiceCode
from ..app.inputs import check_name, check_request_id
from ..app.queries import checked_id
from ..app.service import MAX_BOT_PAUSE, MAX_SECONDS, MatchOptions, ServiceError
from ..match.events import BotKind
from ..rules import PRESETS
from ..rules.rulesets import LOCAL_RULES, RULE_SECTIONS
from .codes import RestCode
from .context import Authorization, Context, bearer
from .errors import BadInput, responses

MAX_NAME = 40
MAX_OPTIONS = 64
Name = Annotated[str, Meta(max_length=MAX_NAME)]
OptionValue = bool | int | str
RequestId = Annotated[str, Meta(max_length=128)]
Seat = Annotated[int, Meta(ge=0, le=4)]
Seconds = Annotated[float, Meta(ge=0, le=24 * 3600)]


class NewMatch(Struct, forbid_unknown_fields=True):
    """A table to open: who sits where and under which rules."""

    preset: Annotated[str, Meta(max_length=40)] = "torasobi"
    players: Annotated[int, Meta(ge=2, le=5)] = 4
    options: Annotated[
        dict[Annotated[str, Meta(max_length=40)], Annotated[OptionValue, Meta()]],
        Meta(max_length=MAX_OPTIONS),
    ] = msgspec.field(default_factory=dict)
    # K (the last K seats), the seats themselves, or each seat with its kind
    bots: int | Annotated[list[Seat], Meta(max_length=5)] | dict[str, BotKind] = 0
    bot_kind: BotKind = BotKind.GREEDY
    # seconds a bot waits before each action, so a person can follow
    bot_pause: Annotated[float, Meta(ge=0, le=MAX_BOT_PAUSE)] = 0.8
    seat: Seat | None = 0  # the creator's seat; None: the creator only hosts
    name: Name = ""
    # 0: the preset's; the service refuses past its limit (--max-games-per-set)
    games_per_set: Annotated[int, Meta(ge=0, le=1000)] = 0
    turn_time_limit: Seconds = 0.0
    spectator_delay: Seconds = 0.0
    auto_start: bool = True  # start as soon as the last seat is taken
    # listed in the lobby, where anyone may take an open seat (POST /matches/{id}/join);
    # False: invite-only, each open seat taken with its invite's secret
    lobby: bool = False
    request_id: RequestId = ""


class Invite(Struct):
    seat: int
    link: str  # the page's path with the secret in its fragment
    secret: str


Receipts = Annotated[
    list[dict[str, Any]],
    Meta(description="the signed receipts of the events the request appended (docs/AUDIT.md)"),
]


class CreatedTable(Struct):
    match_id: str
    seat: int | None  # the creator's seat (None: hosting only)
    seat_token: str | None
    host_token: str
    bots: dict[str, str]  # seat -> kind
    invites: list[Invite]
    started: bool
    # the create's, the creator's seat's, and the start's when that filled the table
    receipts: Receipts


class InviteExchange(Struct, forbid_unknown_fields=True):
    secret: Annotated[str, Meta(min_length=1, max_length=64)]
    name: Name = ""
    # a retry with the same id gets the same token back; the caller's secret (at least
    # 22 characters), as it alone proves the retry once the seat is taken
    request_id: RequestId = ""


class LobbyJoin(Struct, forbid_unknown_fields=True):
    name: Name = ""
    # a retry with the same id gets the same seat back (the caller's secret, at least
    # 22 characters), and counts once against the caller's lobby seats
    request_id: RequestId = ""


class TakenSeat(Struct):
    match_id: str
    seat: int
    seat_token: str
    started: bool
    receipts: Receipts  # the seat's, and the start's when it filled the table


class Rematch(Struct):
    match_id: str  # the rematch's table
    seat: int  # the caller's seat there: the same as in the finished match
    seat_token: str
    started: bool
    receipts: Receipts  # the rematch's create (first caller), the seat's, the start's


class RematchOpened(Struct):
    match_id: str
    names: list[str]  # who sits there already ("" for a seat still free)
    started: bool


class Started(Struct):
    version: int
    receipt: Annotated[
        dict[str, Any] | None,
        Meta(description="the signed receipt of the events appended (docs/AUDIT.md)"),
    ] = None


class BotRequest(Struct, forbid_unknown_fields=True):
    kind: BotKind = BotKind.GREEDY
    request_id: RequestId = ""


class SeatedBot(Struct):
    seat: int
    started: bool
    receipts: Receipts  # the bot's seat's, and the start's when it filled the table


class PresetInfo(Struct):
    name: str
    options: dict[str, Any]  # every option with the preset's value


class RuleSectionInfo(Struct):
    section: str  # docs/RULES.md's section number, "§2"
    title: str
    rules: list[str]  # its local rules' option names, in its order


class Presets(Struct):
    presets: list[PresetInfo]
    local_rules: list[str]  # the option names that are local rules, in docs/RULES.md order
    sections: list[RuleSectionInfo]  # the same rules by docs/RULES.md section


def refuse(code: RestCode, message: str) -> BadInput:
    return BadInput(code, message)


def bot_seats(data: NewMatch) -> dict[int, BotKind]:
    """Which seats bots take, and which kind each is."""
    bots = data.bots
    if isinstance(bots, bool):
        raise refuse(RestCode.BAD_BOTS, "bots is a number of seats, a list of seats or seat: kind")
    if isinstance(bots, int):
        if not 0 <= bots <= data.players:
            raise refuse(RestCode.TOO_MANY_BOTS, f"{bots} bots do not fit {data.players} seats")
        return {seat: data.bot_kind for seat in range(data.players - bots, data.players)}
    if isinstance(bots, list):
        chosen: dict[int, BotKind] = {seat: data.bot_kind for seat in bots}
        if len(chosen) != len(bots):
            raise refuse(RestCode.BAD_BOTS, "a seat is named twice")
    else:
        chosen = {}
        for key, kind in bots.items():
            if not key.isascii() or not key.isdigit() or len(key) > 1:
                raise refuse(RestCode.BAD_BOTS, "bots' keys are seat numbers")
            chosen[int(key)] = kind
    if len(chosen) > data.players:
        raise refuse(RestCode.TOO_MANY_BOTS, f"{len(chosen)} bots do not fit {data.players} seats")
    outside = sorted(seat for seat in chosen if seat >= data.players)
    if outside:
        raise refuse(RestCode.BAD_BOTS, f"no seat {outside[0]} in a match of {data.players}")
    return chosen


def checked_options(data: NewMatch) -> dict[str, OptionValue]:
    if data.preset not in PRESETS:
        raise refuse(
            RestCode.UNKNOWN_PRESET, f"no preset {data.preset!r}; presets: {sorted(PRESETS)}"
        )
    known = PRESETS[data.preset].options()
    unknown = sorted(name for name in data.options if name not in known or name == "preset")
    if unknown:
        raise refuse(RestCode.UNKNOWN_OPTION, f"no option {unknown[0]!r}")
    return dict(data.options)


@post(
    "/matches",
    status_code=201,
    summary="Open a table: a match with the creator's seat, bots and invites",
    description="Seats are the creator's (``seat``, null to only host), bots' (``bots``: a "
    "number of seats, taken from the last; a list of seats; or seat: kind) and open ones, each "
    "with an invite link whose secret is in the fragment (exchange it with POST "
    "/matches/{id}/seats). With auto_start the match starts once every seat is taken; else "
    "the host starts it (POST /matches/{id}/start). Times are in seconds. Unknown fields, "
    "options or presets, too many bots and oversize strings are 400 and create nothing.",
    responses=responses(400, 429, 503),
)
async def create_table(
    ctx: NamedDependency[Context], request: Request[Any, Any, Any], data: JSONBody[NewMatch]
) -> CreatedTable:
    check_request_id(data.request_id, secret=True)  # itself, not with the prefix below
    check_name(data.name)  # before the create: a refused name creates nothing
    options = checked_options(data)
    bots = bot_seats(data)
    if data.seat is not None and (data.seat >= data.players or data.seat in bots):
        raise refuse(RestCode.BAD_SEAT, f"seat {data.seat} is not free for the creator")
    if data.turn_time_limit > MAX_SECONDS:  # also checked by the service: stay in step
        raise refuse(RestCode.BAD_TIME, "times are at most a day")
    service = ctx.service
    created = await service.create(
        MatchOptions(
            data.preset,
            data.players,
            options,
            games_per_set=data.games_per_set,
            turn_seconds=data.turn_time_limit,
            open_seats=True,
            spectator_delay=data.spectator_delay,
            bots=bots,
            bot_pause=data.bot_pause,
            auto_start=data.auto_start,
            invites=not data.lobby,
            lobby=data.lobby,
        ),
        request_id=data.request_id and f"table:{data.request_id}",
        caller=ctx.caller(request),
    )
    match_id = created.match_id
    receipts = [created.receipt] if created.receipt is not None else []
    seat_token = None
    if data.seat is not None:
        creator = f"creator:{data.request_id}" if data.request_id else ""
        seated = await service.claim_seat(
            match_id, data.seat, data.name or "host", request_id=creator
        )
        seat_token = seated.token
        receipts += seated.receipts
    match = await service.load(match_id)
    if data.auto_start and not match.seats_free and not match.started:
        started = await service.start_full(match_id)
        if started is not None and started.receipt is not None:
            receipts.append(started.receipt)
        match = await service.load(match_id)
    invites = [
        Invite(seat, f"/#/invite/{match_id}/{secret}", secret)
        for seat in match.seats_free
        for secret in [service.keyring.invite(match_id, seat)]
    ]
    return CreatedTable(
        match_id,
        data.seat,
        seat_token,
        created.host_token,
        {str(seat): kind.value for seat, kind in sorted(bots.items())},
        invites,
        match.started,
        [receipt.to_dict() for receipt in receipts],
    )


@post(
    "/matches/{match_id:str}/seats",
    status_code=200,
    summary="Take a seat with an invite's secret",
    description="The secret from the invite link's fragment, in the body. It is good once: "
    "the seat is then taken (409 seat_taken), unless the same request_id retries. 403 for a "
    "secret that is not this match's.",
    responses=responses(400, 403, 404, 409, 503),
)
async def take_seat(
    ctx: NamedDependency[Context], match_id: FromPath[str], data: JSONBody[InviteExchange]
) -> TakenSeat:
    service = ctx.service
    check_request_id(data.request_id, secret=True)  # itself, not with the prefix below
    match = await service.load(checked_id(match_id))
    seat = service.keyring.invited_seat(match.match_id, data.secret, match.players)
    if seat is None:
        raise ServiceError(
            MatchRefusalCode.PERMISSION_DENIED, "that invite is not one of this match's"
        )
    request = f"invite:{data.request_id}" if data.request_id else ""
    seated = await service.claim_seat(match.match_id, seat, data.name, request_id=request)
    assert seated.token is not None
    started = (await service.load(match.match_id)).started
    receipts = [receipt.to_dict() for receipt in seated.receipts]
    return TakenSeat(match.match_id, seat, seated.token, started, receipts)


@post(
    "/matches/{match_id:str}/join",
    status_code=200,
    summary="Take the next open seat of a table listed in the lobby",
    description="Only a table opened with lobby: true (anyone can join); an invite-only "
    "table is 403 permission_denied and nothing changes. 409 seats_full or already_started "
    "when no seat is left; 429 quota_seats past the seats one caller may hold from the "
    "lobby in matches not over. A retry with the same request_id is the same seat.",
    responses=responses(400, 403, 404, 409, 429, 503),
)
async def join_from_lobby(
    ctx: NamedDependency[Context],
    request: Request[Any, Any, Any],
    match_id: FromPath[str],
    data: JSONBody[LobbyJoin],
) -> TakenSeat:
    service = ctx.service
    checked = checked_id(match_id)
    seated = await service.join_lobby(checked, data.name, data.request_id, ctx.caller(request))
    assert seated.token is not None
    started = (await service.load(checked)).started
    receipts = [receipt.to_dict() for receipt in seated.receipts]
    return TakenSeat(checked, seated.seat, seated.token, started, receipts)


@post(
    "/matches/{match_id:str}/start",
    status_code=200,
    summary="Start the match (host only)",
    description="With Authorization: Bearer <host token>, once every seat is taken: commits "
    "to the dealing seed and deals game 1.",
    responses=responses(400, 401, 403, 404, 409, 503),
)
async def start_match(
    ctx: NamedDependency[Context], match_id: FromPath[str], authorization: Authorization = None
) -> Started:
    outcome = await ctx.service.start(checked_id(match_id), bearer(authorization))
    return Started(outcome.version, outcome.receipt.to_dict() if outcome.receipt else None)


@post(
    "/matches/{match_id:str}/bots",
    status_code=200,
    summary="Give the next open seat to one of the service's bots (host only)",
    description="With Authorization: Bearer <host token>, before the start. With auto_start, "
    "the last seat taken starts the match.",
    responses=responses(400, 401, 403, 404, 409, 429, 503),
)
async def seat_bot(
    ctx: NamedDependency[Context],
    request: Request[Any, Any, Any],
    match_id: FromPath[str],
    data: JSONBody[BotRequest],
    authorization: Authorization = None,
) -> SeatedBot:
    service = ctx.service
    checked = checked_id(match_id)
    token, caller = bearer(authorization), ctx.caller(request)
    seated = await service.seat_bot(checked, token, data.kind, data.request_id, caller)
    receipts = [receipt.to_dict() for receipt in seated.receipts]
    return SeatedBot(seated.seat, (await service.load(checked)).started, receipts)


@get(
    "/presets",
    summary="The presets and every option of each",
    description="What a new table may set: each preset's options with its values, and which "
    "of them are local rules (the toggles), also grouped by docs/RULES.md section.",
)
async def presets() -> Presets:
    listed = [PresetInfo(name, rules.options()) for name, rules in PRESETS.items()]
    sections = [
        RuleSectionInfo(part.section, part.title, [rule.value for rule in part.rules])
        for part in RULE_SECTIONS
    ]
    return Presets(listed, list(LOCAL_RULES), sections)


@post(
    "/matches/{match_id:str}/rematch",
    status_code=200,
    summary="Sit at a finished match's rematch (a seat only)",
    description="With Authorization: Bearer <seat token> of a finished match: its one rematch "
    "(the same preset, options, times and bots; the first seat to ask opens it), and the "
    "caller's same seat there with its new token. Every seat that asks gets the same table; "
    "it starts once every seat of a person is back. 409 match_not_over before the match ends.",
    responses=responses(401, 403, 404, 409, 503),
)
async def rematch(
    ctx: NamedDependency[Context], match_id: FromPath[str], authorization: Authorization = None
) -> Rematch:
    service = ctx.service
    old = await service.load(checked_id(match_id))
    role = service.authorize(old, bearer(authorization))
    if role.kind != "seat" or role.seat is None:
        raise ServiceError(
            MatchRefusalCode.PERMISSION_DENIED, "only a seat of the match may sit at its rematch"
        )
    if not old.over:
        raise ServiceError(ServiceCode.MATCH_NOT_OVER, "a rematch opens once the match is over")
    rules = old.rules.options()
    preset = PRESETS[old.rules.preset].options()  # only the changes: options are few
    request_id = service.keyring.rematch_request(old.match_id)
    created = await service.create(
        MatchOptions(
            old.rules.preset,
            old.players,
            {name: value for name, value in rules.items() if value != preset.get(name)},
            games_per_set=old.rules.games_per_set,
            turn_seconds=old.turn_ms / 1000,
            open_seats=True,
            spectator_delay=old.spectator_delay_ms / 1000,
            bots={seat: BotKind(kind) for seat, kind in enumerate(old.bots) if kind},
            bot_pause=old.bot_pause_ms / 1000,
            auto_start=True,
            invites=not old.lobby,
            lobby=old.lobby,
        ),
        request_id=request_id,
    )
    receipts = [created.receipt] if created.receipt is not None else []
    # the seat's own request id: asked again (another tab, a lost reply), the same seat
    seated = await service.claim_seat(
        created.match_id,
        role.seat,
        old.names[role.seat],
        request_id=f"rematch:{request_id}:{role.seat}",
    )
    assert seated.token is not None
    receipts += seated.receipts
    match = await service.load(created.match_id)
    if not match.seats_free and not match.started:
        started = await service.start_full(created.match_id)
        if started is not None and started.receipt is not None:
            receipts.append(started.receipt)
        match = await service.load(created.match_id)
    return Rematch(
        created.match_id,
        role.seat,
        seated.token,
        match.started,
        [receipt.to_dict() for receipt in receipts],
    )


@get(
    "/matches/{match_id:str}/rematch",
    summary="Whether a finished match's rematch is open (a seat only)",
    description="With Authorization: Bearer <seat token>: the rematch's table once a seat has "
    "opened it (404 until then), so the other seats' pages can offer to join it.",
    responses=responses(401, 403, 404, 503),
)
async def rematch_opened(
    ctx: NamedDependency[Context], match_id: FromPath[str], authorization: Authorization = None
) -> RematchOpened:
    service = ctx.service
    old = await service.load(checked_id(match_id))
    role = service.authorize(old, bearer(authorization))
    if role.kind != "seat":
        raise ServiceError(MatchRefusalCode.PERMISSION_DENIED, "only a seat of the match may ask")
    new = await service.load(service.keyring.rematch_id(old.match_id))
    return RematchOpened(new.match_id, list(new.names), new.started)


HANDLERS = [
    create_table,
    take_seat,
    join_from_lobby,
    start_match,
    seat_bot,
    rematch,
    rematch_opened,
    presets,
]
