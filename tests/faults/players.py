"""Bots that keep playing through faults and record what the service told them.

A call that fails with UNAVAILABLE or DEADLINE_EXCEEDED is sent again (an Act with
the same request id, so it takes effect once); any other failure ends the player. The
ledger keeps every Act answered OK, as answered, and every failure status seen."""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import grpc

from clients.runner import Chooser
from clients.sdk import ActResult, Refused, SeatSession, Turn
from service.rules.commands import SeatCommand

T = TypeVar("T")
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
PATIENCE = 30.0  # seconds a call is retried before the player gives up


@dataclass(frozen=True)
class Acknowledged:
    """An Act the service answered OK, as it answered it."""

    request_id: str
    version: int
    events: tuple[tuple[int, str, int], ...]  # (seq, type, at) of each event answered
    failed_attempts: int  # sends of the same request that failed before the OK

    @classmethod
    def of(cls, request_id: str, result: ActResult, failed_attempts: int = 0) -> Acknowledged:
        events = tuple((e["seq"], e["type"], e["at"]) for e in result.events)
        return cls(request_id, result.version, events, failed_attempts)


@dataclass
class Ledger:
    """What the clients of one match were told."""

    acknowledged: list[Acknowledged] = field(default_factory=list)
    failures: Counter[grpc.StatusCode] = field(default_factory=Counter)


async def retrying(call: Callable[[], Awaitable[T]], failures: Counter[grpc.StatusCode]) -> T:
    """``call()`` until it answers, counting each retryable failure into ``failures``."""
    give_up = asyncio.get_running_loop().time() + PATIENCE
    while True:
        try:
            return await call()
        except Refused as refused:
            if refused.status not in RETRYABLE or asyncio.get_running_loop().time() > give_up:
                raise
            failures[refused.status] += 1
            await asyncio.sleep(0.05)


class RecordingPlayer:
    """Plays one seat as ``clients.runner.play_seat`` does, through a client made with
    ``retries=0`` so that this player sees, counts and retries every failure itself.
    ``before_act`` (if given) runs just before each Act: a test's hook to break
    something at a known moment."""

    def __init__(
        self,
        session: SeatSession,
        choose: Chooser,
        ledger: Ledger,
        before_act: Callable[[Turn], Awaitable[None]] | None = None,
    ) -> None:
        self.session = session
        self.choose = choose
        self.ledger = ledger
        self.before_act = before_act
        self.failures: Counter[grpc.StatusCode] = Counter()  # this seat's own

    async def play(self) -> None:
        turn = await self._retrying(self.session.turn)
        while turn.view.phase != "match_over":
            if not turn.actions:
                turn = await self._retrying(functools.partial(self.session.next_turn, turn.version))
                continue
            if self.before_act is not None:
                await self.before_act(turn)
            turn = await self.act(self.choose(turn.view, turn.actions))

    async def act(self, command: SeatCommand) -> Turn:
        request_id = uuid.uuid4().hex
        failed_before = self.failures.total()
        send = functools.partial(self.session.act, command, request_id, include_turn=True)
        result = await self._retrying(send)
        failed = self.failures.total() - failed_before
        self.ledger.acknowledged.append(Acknowledged.of(request_id, result, failed))
        assert result.turn is not None  # asked for
        return result.turn

    async def _retrying(self, call: Callable[[], Awaitable[T]]) -> T:
        failures: Counter[grpc.StatusCode] = Counter()
        try:
            return await retrying(call, failures)
        finally:
            self.failures.update(failures)
            self.ledger.failures.update(failures)
