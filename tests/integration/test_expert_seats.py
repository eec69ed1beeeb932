"""An expert seat thinks in a process pool, never on the serving loop: while its
search runs, another match's bots keep playing and the gRPC API keeps answering."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any

import pytest

from clients import expert
from clients.sdk import DaifugoClient
from service.app.service import MatchOptions
from service.match.events import BotKind
from service.runtime import Running


class Watched(Executor):
    """The expert's pool, telling which searches are in flight."""

    def __init__(self, pool: ProcessPoolExecutor) -> None:
        self.pool = pool
        self.in_flight: set[Future[Any]] = set()
        self.finished = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future = self.pool.submit(fn, *args, **kwargs)
        self.in_flight.add(future)
        future.add_done_callback(self._done)
        return future

    def _done(self, future: Future[Any]) -> None:
        self.in_flight.discard(future)
        self.finished += 1


async def test_the_loop_serves_others_while_an_expert_thinks(
    running: Running, client: DaifugoClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    watched = Watched(expert.pool())
    monkeypatch.setattr(expert, "pool", lambda: watched)
    monkeypatch.setattr(expert, "DEFAULT_MS", 1500)  # a long think: others act meanwhile
    service = running.service
    thinking = await service.create(
        MatchOptions(
            "torasobi", 4, {}, games_per_set=1, bots=dict.fromkeys(range(4), BotKind.EXPERT)
        )
    )
    others = await service.create(
        MatchOptions("classic", 3, {}, games_per_set=1, bots={1: BotKind.GREEDY, 2: BotKind.GREEDY})
    )
    seat = client.seat(others.match_id, others.seat_tokens[0])
    await service.start(thinking.match_id, thinking.host_token)
    async with asyncio.timeout(120):  # a guard against a hang, not a time limit
        while not watched.in_flight:
            await asyncio.sleep(0.01)
    search = next(iter(watched.in_flight))
    await service.start(others.match_id, others.host_token)
    answered = 0
    moved_on = False
    before = (await service.load(others.match_id)).version
    # the other match: its client's views over gRPC, its greedy bots' moves
    while not search.done() and answered < 20:
        view = await seat.view()
        assert view.game_number >= 0
        if not search.done():
            answered += 1
        turn = await seat.turn()
        if turn.actions and not search.done():
            await seat.act(turn.actions[0])
            moved_on = moved_on or (await service.load(others.match_id)).version > before
    assert answered >= 3, "the gRPC API stalled while the expert thought"
    assert moved_on, "the other match's bots stalled while the expert thought"
    assert not search.cancelled()
