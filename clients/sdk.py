"""An async Python client for the Daifugō game service, over gRPC.

    async with DaifugoClient("127.0.0.1:50051") as client:
        created = await client.create_match("torasobi", seats=4)
        seat = client.seat(created.match_id, created.seat_tokens[0])
        await client.host(created.match_id, created.host_token).start()
        turn = await seat.turn()                  # your view (hand, field, whose turn)
        if turn.actions:                          # and your legal actions, as commands
            await seat.act(turn.actions[0])       # or seat.play("4D 5D JK"), seat.pass_()
        async for event in seat.events():         # resumes by itself after a disconnect
            ...

Every action carries a request id; a call that fails for want of a network is
retried with the same id, so it takes effect once. Refusals raise
``Refused`` with the rules' reason code (``not_your_turn``, ``not_stronger``…).

Each seat keeps the signed receipts its join, actions and refusals were answered
with (``seat.receipts``; ``seat.receipts_jsonl()`` for ``daifugo audit --receipts``):
what settles a dispute about the match later (docs/AUDIT.md). A match's creator
finds the create's receipt on ``CreatedMatch.receipt``, the host its start's on
``host.receipts``.

Replicas: give every address, ``DaifugoClient("ipv4:10.0.0.1:50051,10.0.0.2:50051")``
(any gRPC target works). The client uses the first that answers and, when it goes
down, the next: the calls it had in flight fail UNAVAILABLE and are retried there,
event streams resume there from their last seq (tests/faults shows it under kill -9).
"""

from __future__ import annotations

import asyncio
import functools
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

import grpc
from google.protobuf import duration_pb2, struct_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from service.grpc.actions import action_to_message, command_from_message
from service.grpc.gen.daifugo.v1 import arena_service_pb2 as arena_pb
from service.grpc.gen.daifugo.v1 import arena_service_pb2_grpc as arena_pb_grpc
from service.grpc.gen.daifugo.v1 import match_service_pb2 as pb
from service.grpc.gen.daifugo.v1 import match_service_pb2_grpc as pb_grpc
from service.grpc.view_fields import view_fields
from service.records import action_request, request_digest
from service.rules.commands import SeatCommand
from service.rules.notation import format_command, seat_command
from service.rules.views import View

T = TypeVar("T")
_PRESETS = {
    "federation": pb.PRESET_FEDERATION,
    "torasobi": pb.PRESET_TORASOBI,
    "classic": pb.PRESET_CLASSIC,
    "uecda": pb.PRESET_UECDA,
}
_RETRIED = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}


class Refused(Exception):
    """The service refused a request; ``code`` is its reason code."""

    def __init__(
        self,
        code: str,
        message: str,
        status: grpc.StatusCode,
        receipt: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.receipt = receipt  # the signed refusal receipt, when the match judged it


def _refusal(error: grpc.aio.AioRpcError) -> Refused:
    code = error.code().name.lower()
    receipt = None
    status = rpc_status.from_call(error)
    if status is not None:
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                code = info.metadata.get("code", info.reason.lower())
                receipt = _receipt(info.metadata.get("receipt", ""))
    return Refused(code, error.details() or "", error.code(), receipt)


def _receipt(text: str) -> dict[str, Any] | None:
    """A receipt as the API carries it (JSON), parsed; None when there is none."""
    if not text:
        return None
    value = json.loads(text)
    return value if isinstance(value, dict) else None


def receipts_jsonl(receipts: Sequence[dict[str, Any]]) -> str:
    """Receipts as ``daifugo audit --receipts`` and ``POST /audit`` read them."""
    return "".join(json.dumps(receipt, sort_keys=True) + "\n" for receipt in receipts)


@dataclass(frozen=True, slots=True)
class CreatedMatch:
    match_id: str
    host_token: str
    seat_tokens: tuple[str, ...]
    receipt: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    """A seat's view and its legal actions (empty unless it is to act), as of the
    match's ``version`` (the seq of its last event)."""

    view: View
    actions: list[SeatCommand]
    version: int


@dataclass(frozen=True, slots=True)
class Update:
    """Events that came together on a seat's stream, and the seat's turn when
    they leave it to act."""

    events: list[dict[str, Any]]
    turn: Turn | None


@dataclass(frozen=True, slots=True)
class ActResult:
    """What an action did, and the seat's turn after it when asked for."""

    version: int
    events: tuple[dict[str, Any], ...]
    turn: Turn | None
    receipt: dict[str, Any] | None = None


class DaifugoClient:
    def __init__(
        self,
        target: str = "127.0.0.1:50051",
        *,
        retries: int = 5,
        timeout: float = 10.0,
        player_key: str | None = None,
    ) -> None:
        """``player_key``: a registered player's key (POST /players, ``daifugo players
        add``): the seats this client joins are that player's, under its name."""
        self.channel = grpc.aio.insecure_channel(target)
        self.stub = pb_grpc.MatchServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.retries = retries
        self.timeout = timeout
        self.player_key = player_key

    async def __aenter__(self) -> DaifugoClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        await self.channel.close()

    async def call(
        self,
        rpc: Callable[..., Awaitable[T]],
        request: Any,
        token: str = "",
        timeout: float | None = None,
        metadata: tuple[tuple[str, str], ...] = (),
    ) -> T:
        """One call, retried with the same request on a lost connection."""
        if token:
            metadata = (*metadata, ("authorization", f"Bearer {token}"))
        for attempt in range(self.retries + 1):
            try:
                return await rpc(request, metadata=metadata, timeout=timeout or self.timeout)
            except grpc.aio.AioRpcError as error:
                if error.code() not in _RETRIED or attempt == self.retries:
                    raise _refusal(error) from None
                await asyncio.sleep(min(2.0, 0.05 * 2**attempt))
        raise AssertionError("unreachable")

    async def create_match(
        self,
        preset: str = "federation",
        seats: int = 4,
        *,
        options: dict[str, Any] | None = None,
        games_per_set: int = 0,
        turn_time_limit: float | None = None,
        open_seats: bool = False,
        client_seeds: Sequence[bytes] = (),
        request_id: str | None = None,
        spectator_delay: float | None = None,
        rated: bool = False,
        lobby: bool = False,
    ) -> CreatedMatch:
        """A new match. ``request_id``: a secret of 128 bits or more (a fresh uuid4 by
        default); a retry with it and the same arguments returns the same match.
        ``lobby`` (with ``open_seats``): listed where anyone may take an open seat."""
        request = pb.CreateMatchRequest(
            preset=_PRESETS[preset],
            seats=seats,
            games_per_set=games_per_set,
            open_seats=open_seats,
            client_seeds=list(client_seeds),
            request_id=request_id or uuid.uuid4().hex,
            rated=rated,
            lobby=lobby,
        )
        if options:
            request.options.update(options)
        if turn_time_limit is not None:
            limit = duration_pb2.Duration()
            limit.FromMilliseconds(int(turn_time_limit * 1000))
            request.turn_time_limit.CopyFrom(limit)
        if spectator_delay is not None:
            request.spectator_delay.FromMilliseconds(int(spectator_delay * 1000))
        response = await self.call(self.stub.CreateMatch, request)
        tokens = tuple(token.token for token in sorted(response.seat_tokens, key=lambda t: t.seat))
        return CreatedMatch(
            response.match_id, response.host_token, tokens, _receipt(response.receipt)
        )

    async def join(
        self,
        match_id: str,
        name: str = "",
        client_seed: bytes = b"",
        request_id: str | None = None,
    ) -> SeatSession:
        """Take the next free seat: its session, holding the join's receipts first.
        ``request_id``: a secret of 128 bits or more (a fresh uuid4 by default); a retry
        with it gets the same seat and receipt."""
        request = pb.JoinMatchRequest(
            match_id=match_id,
            name=name,
            client_seed=client_seed,
            request_id=request_id or uuid.uuid4().hex,
        )
        metadata = (("daifugo-player-key", self.player_key),) if self.player_key else ()
        response = await self.call(self.stub.JoinMatch, request, metadata=metadata)
        session = SeatSession(self, match_id, response.token, response.seat)
        session.receipts.extend(
            receipt for text in response.receipts if (receipt := _receipt(text)) is not None
        )
        return session

    def seat(self, match_id: str, token: str) -> SeatSession:
        return SeatSession(self, match_id, token)

    async def join_queue(self, pool: str = "federation.4-5") -> AsyncIterator[SeatSession]:
        """Queue the client's player (``player_key``) in an arena pool and stay queued:
        a seat's session each time the arena seats it at a rated match, the next once
        that match is over. Stop by leaving the loop."""
        if not self.player_key:
            raise ValueError("the arena seats registered players: give a player_key")
        stub = arena_pb_grpc.ArenaServiceStub(self.channel)  # type: ignore[no-untyped-call]
        call = stub.JoinQueue(
            arena_pb.JoinQueueRequest(pool=pool),
            metadata=(("daifugo-player-key", self.player_key),),
        )
        try:
            async for seated in call:
                yield SeatSession(self, seated.match_id, seated.token, seated.seat)
        except grpc.aio.AioRpcError as error:
            raise _refusal(error) from None
        finally:
            call.cancel()

    def host(self, match_id: str, host_token: str) -> HostSession:
        return HostSession(self, match_id, host_token)


class HostSession:
    def __init__(self, client: DaifugoClient, match_id: str, token: str) -> None:
        self.client, self.match_id, self.token = client, match_id, token
        self.receipts: list[dict[str, Any]] = []

    async def start(self) -> str:
        """Start the match; returns the dealing seed's commitment (sha256 hex)."""
        request = pb.StartMatchRequest(match_id=self.match_id, request_id=uuid.uuid4().hex)
        response = await self.client.call(self.client.stub.StartMatch, request, self.token)
        receipt = _receipt(response.receipt)
        if receipt is not None:
            self.receipts.append(receipt)
        return str(response.seed_commitment)

    async def view(self) -> View:
        response = await self.client.call(
            self.client.stub.GetView, pb.GetViewRequest(match_id=self.match_id), self.token
        )
        return view_from_message(response.view)

    async def events(self, from_seq: int = 0) -> AsyncIterator[dict[str, Any]]:
        async for event in _events(self.client, self.match_id, self.token, from_seq):
            yield event


class SeatSession:
    """One seat of one match: what it sees and what it may do."""

    def __init__(
        self, client: DaifugoClient, match_id: str, token: str, seat: int | None = None
    ) -> None:
        self.client, self.match_id, self.token, self.seat = client, match_id, token, seat
        self.receipts: list[dict[str, Any]] = []  # signed: the join's, then one per action

    def receipts_jsonl(self) -> str:
        """This seat's receipts as JSON Lines (``daifugo audit --receipts FILE``)."""
        return receipts_jsonl(self.receipts)

    def request_digest(self, command: SeatCommand, request_id: str) -> str:
        """The digest a receipt for ``command`` sent with ``request_id`` must carry."""
        by = f"seat:{command.seat}"
        return request_digest(
            action_request(self.match_id, by, format_command(command), request_id)
        )

    async def view(self) -> View:
        return (await self.turn()).view

    async def turn(self) -> Turn:
        """Your view and, when you are to act, your legal actions: one call."""
        response = await self.client.call(
            self.client.stub.GetView, pb.GetViewRequest(match_id=self.match_id), self.token
        )
        return self._turn(response.view, response.legal_actions, response.version)

    async def next_turn(self, after_version: int = -1, timeout: float | None = None) -> Turn:
        """Wait until you are to act after ``after_version`` (or the match is over:
        then no actions); ``timeout`` seconds at most (default: the client's)."""
        request = pb.AwaitTurnRequest(match_id=self.match_id, after_version=after_version)
        response = await self.client.call(
            self.client.stub.AwaitTurn, request, self.token, timeout=timeout
        )
        return self._turn(response.view, response.legal_actions, response.version)

    async def legal_actions(self) -> list[SeatCommand]:
        request = pb.ListLegalActionsRequest(match_id=self.match_id)
        response = await self.client.call(self.client.stub.ListLegalActions, request, self.token)
        if self.seat is None:
            await self.view()
        assert self.seat is not None
        return [command_from_message(self.seat, action) for action in response.actions]

    def _turn(self, view_message: pb.View, actions: Sequence[pb.Action], version: int) -> Turn:
        view = view_from_message(view_message)
        self.seat = view.seat
        assert self.seat is not None
        commands = [command_from_message(self.seat, action) for action in actions]
        return Turn(view, commands, version)

    async def act(
        self,
        command: SeatCommand,
        request_id: str | None = None,
        *,
        include_turn: bool = False,
        await_turn: bool = False,
        timeout: float | None = None,
    ) -> ActResult:
        """Take an action. With ``include_turn`` the result has your turn right after
        it; with ``await_turn`` it comes once you are to act again (or the match is
        over), ``timeout`` seconds at most: one call per turn. A retry after a lost
        answer reuses the request id, so the action is never taken twice."""
        request = pb.ActRequest(
            match_id=self.match_id,
            request_id=request_id or uuid.uuid4().hex,
            action=action_to_message(command),
            include_turn=include_turn,
            await_turn=await_turn,
        )
        try:
            response = await self.client.call(self.client.stub.Act, request, self.token, timeout)
        except Refused as refused:
            if refused.receipt is not None:
                self.receipts.append(refused.receipt)
            raise
        receipt = _receipt(response.receipt)
        if receipt is not None:
            self.receipts.append(receipt)
        turn = None
        if response.HasField("view"):
            turn = self._turn(response.view, response.legal_actions, response.view_version)
        events = tuple(_event_dict(e) for e in response.events)
        return ActResult(response.version, events, turn, receipt)

    async def play(
        self, cards: str | Sequence[str], jokers_as: str | Sequence[str] = ()
    ) -> ActResult:
        return await self._act("play", _codes(cards), _codes(jokers_as))

    async def pass_(self) -> ActResult:
        return await self._act("pass")

    async def give(self, cards: str | Sequence[str]) -> ActResult:
        return await self._act("give", _codes(cards))

    async def discard(self, cards: str | Sequence[str]) -> ActResult:
        return await self._act("discard", _codes(cards))

    async def bomb(self, ranks: str | Sequence[str]) -> ActResult:
        return await self._act("bomb", ranks=_codes(ranks))

    async def pick(self, cards: str | Sequence[str] = ()) -> ActResult:
        """Take cards from the discard pile (docs/RULES.md §5.4); none takes nothing."""
        return await self._act("pick", _codes(cards))

    async def _act(
        self,
        action: str,
        cards: Sequence[str] = (),
        jokers_as: Sequence[str] = (),
        ranks: Sequence[str] = (),
    ) -> ActResult:
        return await self.act(seat_command(self.seat or 0, action, cards, jokers_as, ranks))

    async def events(self, from_seq: int = 0) -> AsyncIterator[dict[str, Any]]:
        """Your view of every event from ``from_seq``, then live ones; after a
        lost connection it resumes from the last seq seen, missing nothing."""
        async for event in _events(self.client, self.match_id, self.token, from_seq):
            yield event

    async def updates(self, from_seq: int = 0) -> AsyncIterator[Update]:
        """As ``events``, in the batches they come in, each with your turn when it
        leaves you to act: a bot needs nothing else to play."""
        async for response in _responses(self.client, self.match_id, self.token, from_seq):
            events = [_event_dict(message) for message in response.events]
            turn = None
            if response.HasField("view"):
                turn = self._turn(response.view, response.legal_actions, events[-1]["seq"])
            yield Update(events, turn)


async def _events(
    client: DaifugoClient, match_id: str, token: str, from_seq: int
) -> AsyncIterator[dict[str, Any]]:
    async for response in _responses(client, match_id, token, from_seq):
        for message in response.events:
            yield _event_dict(message)


async def _responses(
    client: DaifugoClient, match_id: str, token: str, from_seq: int
) -> AsyncIterator[pb.StreamEventsResponse]:
    metadata = (("authorization", f"Bearer {token}"),)
    next_seq = from_seq
    failures = 0
    while True:
        try:
            stream = client.stub.StreamEvents(
                pb.StreamEventsRequest(match_id=match_id, from_seq=next_seq), metadata=metadata
            )
            async for response in stream:
                failures = 0
                if response.events:
                    next_seq = response.events[-1].seq + 1
                yield response
            return
        except grpc.aio.AioRpcError as error:
            failures += 1
            if error.code() not in _RETRIED or failures > client.retries:
                raise _refusal(error) from None
            await asyncio.sleep(min(2.0, 0.05 * 2**failures))


def _codes(cards: str | Sequence[str]) -> list[str]:
    return cards.split() if isinstance(cards, str) else list(cards)


def _event_dict(event: pb.Event) -> dict[str, Any]:
    return {"seq": event.seq, "type": event.type, "at": event.at_ms, **_plain(event.data)}


def _plain(struct: struct_pb2.Struct) -> dict[str, Any]:
    """A Struct as JSON would read it (what ``json_format`` gives, read directly: every
    answer carries some), its whole numbers as ints: seats, counts and places."""
    return {key: _value(value) for key, value in struct.fields.items()}


def _value(value: struct_pb2.Value) -> Any:
    match value.WhichOneof("kind"):
        case "string_value":
            return value.string_value
        case "number_value":
            number = value.number_value
            return int(number) if number.is_integer() else number
        case "bool_value":
            return value.bool_value
        case "list_value":
            return [_value(item) for item in value.list_value.values]
        case "struct_value":
            return _plain(value.struct_value)
        case _:  # null_value, or a value with no kind set
            return None


def view_from_message(message: pb.View) -> View:
    return view_fields(message, dict(_options(message.options.SerializeToString())))


@functools.lru_cache(maxsize=64)
def _options(serialised: bytes) -> dict[str, Any]:
    """A match's rule options (they never change: decoded once)."""
    options = struct_pb2.Struct.FromString(serialised)
    return _plain(options)  # copied by each caller
