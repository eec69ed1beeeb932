"""A person playing a seat from the page: the seat's view with its legal
actions, and actions through the same command handler as gRPC (GameService.act
with the rules' notation), so a refusal carries the same reason code."""

from __future__ import annotations

from typing import cast

from litestar import get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from ..app.queries import checked_id
from ..app.service import ServiceError
from ..rules.commands import SeatCommand
from ..rules.notation import seat_command, written
from ..rules.refusals import Refused
from .context import Authorization, Context, bearer
from .errors import responses
from .models import Action, ActionName, ActionRequest, ActionResult, SeatState


def action_of(command: SeatCommand) -> Action:
    """A command in the API's notation (what POST .../actions takes back)."""
    notation = written(command)
    verb = cast(ActionName, str(notation.action))  # the model's Literal spells the same words
    return Action(verb, list(notation.cards), list(notation.jokers_as), list(notation.ranks))


@get(
    "/matches/{match_id:str}/seat",
    summary="A seat's view and legal actions",
    description="With Authorization: Bearer <seat token>: the seat's own hand, counts of the "
    "others, and every legal action when it is the seat's turn.",
    responses=responses(400, 401, 403, 404, 503),
)
async def get_seat(
    ctx: NamedDependency[Context], match_id: FromPath[str], authorization: Authorization = None
) -> SeatState:
    seen = await ctx.service.seen(checked_id(match_id), bearer(authorization))
    return SeatState(
        seen.view,
        [action_of(command) for command in seen.actions],
        seen.match.version,
        seen.match.turn_ms,
        seen.match.turn_deadline_ms,
    )


@post(
    "/matches/{match_id:str}/actions",
    status_code=200,
    summary="Act for a seat",
    description="Play, pass, give, discard, bomb or pick for the token's seat. A refusal is 400 "
    "(bad_request, invalid_meld) or 409 (the rules' other reason codes) and changes nothing; "
    "a retry with the same request_id returns the first outcome; the same request_id for a "
    "different action is 409 request_id_reused.",
    responses=responses(400, 401, 403, 404, 409, 503),
)
async def act(
    ctx: NamedDependency[Context],
    match_id: FromPath[str],
    data: JSONBody[ActionRequest],
    authorization: Authorization = None,
) -> ActionResult:
    token = bearer(authorization)

    def command(seat: int) -> SeatCommand:
        try:
            return seat_command(seat, data.action, data.cards, data.jokers_as, data.ranks)
        except Refused as refused:
            raise ServiceError(refused.refusal.code, refused.refusal.message) from None

    outcome = await ctx.service.act(checked_id(match_id), token, command, data.request_id)
    receipt = outcome.receipt.to_dict() if outcome.receipt is not None else None
    return ActionResult(outcome.version, list(outcome.events), receipt)


HANDLERS = [get_seat, act]
