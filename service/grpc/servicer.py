"""The gRPC MatchService: each call maps its request onto the GameService and
its outcome (or refusal) back onto messages and statuses."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

import grpc
from google.protobuf import json_format
from grpc_status import rpc_status

from eventstore import EventStoreError, StoreUnavailable

from ..app.errors import ErrorKind, RefusalCode
from ..app.quotas import Caller, Network, Proxies, grpc_peer_address
from ..app.service import GameService, MatchOptions, Seen, ServiceError, seen_by
from ..rules.views import SPECTATOR, Viewer
from .actions import action_to_message
from .gen.daifugo.v1 import match_service_pb2 as pb
from .gen.daifugo.v1 import match_service_pb2_grpc as pb_grpc
from .mapping import (
    PRESETS,
    command_maker,
    event_message,
    receipt_json,
    rich_status,
    status_code,
    view_message,
)

T = TypeVar("T")
AUTHORIZATION = "authorization"
FORWARDED_FOR = "x-forwarded-for"  # set by a proxy in front (deploy/nginx)
PLAYER_KEY = "daifugo-player-key"


def player_key_of(context: Any) -> str | None:
    """The registered player's key a call carries in its metadata, if any."""
    for key, value in context.invocation_metadata() or ():
        if key == PLAYER_KEY:
            return str(value)
    return None


def bearer_token(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    for key, value in context.invocation_metadata() or ():
        if key == AUTHORIZATION and isinstance(value, str) and value.startswith("Bearer "):
            return value.removeprefix("Bearer ").strip()
    return None


async def _answer(context: grpc.aio.ServicerContext[Any, Any], work: Awaitable[T]) -> T:
    """Run ``work``; turn a ServiceError into its status with details."""
    try:
        return await work
    except ServiceError as error:
        _, status = rich_status(error)
        await context.abort_with_status(rpc_status.to_status(status))
    except StoreUnavailable as error:
        unavailable = status_code(ErrorKind.UNAVAILABLE)
        await context.abort(unavailable, f"the event store is unavailable: {error}")
    raise AssertionError("abort returns by raising")


def caller_of(context: grpc.aio.ServicerContext[Any, Any], proxies: Proxies) -> Caller:
    """Who calls: the peer's address, or the one a trusted proxy forwarded."""
    forwarded = [
        value
        for key, value in context.invocation_metadata() or ()
        if key == FORWARDED_FOR and isinstance(value, str)
    ]
    return proxies.caller(grpc_peer_address(context.peer() or ""), forwarded)


class MatchServicer(pb_grpc.MatchServiceServicer):
    def __init__(
        self,
        service: GameService,
        turn_deadline: Callable[[Any], int | None],
        trusted_proxies: Sequence[Network] = (),
    ) -> None:
        self.service = service
        self.turn_deadline = turn_deadline
        self.proxies = Proxies(trusted_proxies)

    def _view(self, seen: Seen, into: pb.View) -> None:
        """Fill an answer's view (in place: copying a whole View in costs as much again)."""
        view_message(seen.view, self.turn_deadline(seen.match), into)
        into.spectator_delay_ms = seen.match.spectator_delay_ms

    async def CreateMatch(
        self, request: pb.CreateMatchRequest, context: Any
    ) -> pb.CreateMatchResponse:
        async def work() -> pb.CreateMatchResponse:
            preset = PRESETS.get(request.preset)
            if preset is None:
                raise ServiceError(RefusalCode.BAD_REQUEST, "choose a preset")
            try:
                overrides = json_format.MessageToDict(request.options)
            except ValueError as error:  # NaN or infinity: no option takes one
                raise ServiceError(RefusalCode.BAD_REQUEST, f"options: {error}") from None
            limit, delay = request.turn_time_limit, request.spectator_delay
            options = MatchOptions(
                preset=preset,
                players=request.seats,
                options=overrides,
                games_per_set=request.games_per_set,
                turn_seconds=limit.seconds + limit.nanos / 1e9
                if request.HasField("turn_time_limit")
                else 0.0,
                open_seats=request.open_seats,
                client_seeds=tuple(request.client_seeds),
                spectator_delay=delay.seconds + delay.nanos / 1e9,
                rated=request.rated,
                lobby=request.lobby,
            )
            caller = caller_of(context, self.proxies)
            created = await self.service.create(options, request.request_id, caller)
            return pb.CreateMatchResponse(
                match_id=created.match_id,
                host_token=created.host_token,
                seat_tokens=[
                    pb.SeatToken(seat=seat, token=token)
                    for seat, token in enumerate(created.seat_tokens)
                ],
                receipt=receipt_json(created.receipt),
            )

        return await _answer(context, work())

    async def JoinMatch(self, request: pb.JoinMatchRequest, context: Any) -> pb.JoinMatchResponse:
        async def work() -> pb.JoinMatchResponse:
            seated = await self.service.join(
                request.match_id,
                request.name,
                request.client_seed,
                request.request_id,
                player_key_of(context),
                caller_of(context, self.proxies),  # a lobby table's seats are counted
            )
            return pb.JoinMatchResponse(
                seat=seated.seat,
                token=seated.token,
                receipts=[receipt_json(receipt) for receipt in seated.receipts],
            )

        return await _answer(context, work())

    async def StartMatch(
        self, request: pb.StartMatchRequest, context: Any
    ) -> pb.StartMatchResponse:
        async def work() -> pb.StartMatchResponse:
            outcome = await self.service.start(
                request.match_id, bearer_token(context), request.request_id
            )
            match = await self.service.load(request.match_id)
            return pb.StartMatchResponse(
                seed_commitment=match.commitment,
                version=outcome.version,
                receipt=receipt_json(outcome.receipt),
            )

        return await _answer(context, work())

    async def Act(self, request: pb.ActRequest, context: Any) -> pb.ActResponse:
        async def work() -> pb.ActResponse:
            token = bearer_token(context)
            outcome = await self.service.act(
                request.match_id, token, command_maker(request.action), request.request_id
            )
            response = pb.ActResponse(
                version=outcome.version,
                events=[event_message(e) for e in outcome.events],
                receipt=receipt_json(outcome.receipt),
            )
            seen = None
            if request.await_turn:  # from the version the action left: a turn already, maybe
                seen = await self.service.next_turn(request.match_id, token, outcome.version - 1)
            elif request.include_turn:
                seen = seen_by(outcome.match, outcome.viewer)
            if seen is not None:
                self._view(seen, response.view)
                response.legal_actions.extend(action_to_message(a) for a in seen.actions)
                response.view_version = seen.match.version
            return response

        return await _answer(context, work())

    async def GetView(self, request: pb.GetViewRequest, context: Any) -> pb.GetViewResponse:
        async def work() -> pb.GetViewResponse:
            seen = await self.service.seen(request.match_id, bearer_token(context))
            response = pb.GetViewResponse(
                version=seen.match.version,
                legal_actions=[action_to_message(a) for a in seen.actions],
            )
            self._view(seen, response.view)
            return response

        return await _answer(context, work())

    async def AwaitTurn(self, request: pb.AwaitTurnRequest, context: Any) -> pb.AwaitTurnResponse:
        async def work() -> pb.AwaitTurnResponse:
            seen = await self.service.next_turn(
                request.match_id, bearer_token(context), request.after_version
            )
            response = pb.AwaitTurnResponse(
                version=seen.match.version,
                legal_actions=[action_to_message(a) for a in seen.actions],
            )
            self._view(seen, response.view)
            return response

        return await _answer(context, work())

    async def ListLegalActions(
        self, request: pb.ListLegalActionsRequest, context: Any
    ) -> pb.ListLegalActionsResponse:
        async def work() -> pb.ListLegalActionsResponse:
            seen = await self.service.seen(request.match_id, bearer_token(context))
            return pb.ListLegalActionsResponse(
                actions=[action_to_message(a) for a in seen.actions], version=seen.match.version
            )

        return await _answer(context, work())

    async def StreamEvents(
        self, request: pb.StreamEventsRequest, context: Any
    ) -> AsyncIterator[pb.StreamEventsResponse]:
        async def viewer() -> Viewer:
            match = await self.service.load(request.match_id)
            role = self.service.authorize(match, bearer_token(context))
            return Viewer.of_seat(role.seat) if role.seat is not None else SPECTATOR

        who = await _answer(context, viewer())
        try:
            batches = self.service.event_batches(request.match_id, who, request.from_seq)
            async for batch in batches:
                response = pb.StreamEventsResponse(
                    events=[event_message(record) for record in batch.events]
                )
                if batch.turn is not None:
                    turn = batch.turn
                    self._view(turn, response.view)
                    response.legal_actions.extend(action_to_message(a) for a in turn.actions)
                yield response
        except EventStoreError as error:  # unavailable, or this listener fell behind
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"resume from your last seq: {error}")
