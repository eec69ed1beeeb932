"""Four recording players and their stream watchers, seats spread over the services."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from clients.sdk import DaifugoClient, Turn

from .players import Ledger, RecordingPlayer
from .table import Table, quick_bots
from .watchers import StreamWatcher


@dataclass
class Lineup:
    players: list[RecordingPlayer]
    watchers: list[StreamWatcher]

    async def play_out(self, timeout: float = 60.0) -> None:
        """Every player plays and every watcher follows, to the match's end."""
        async with asyncio.timeout(timeout), asyncio.TaskGroup() as group:
            for player in self.players:
                group.create_task(player.play())
            for watcher in self.watchers:
                group.create_task(watcher.follow())


async def seat_lineup(
    stack: contextlib.AsyncExitStack,
    targets: list[str],
    table: Table,
    ledger: Ledger,
    call_timeout: float = 10.0,
    before_act: Callable[[Turn], Awaitable[None]] | None = None,
) -> Lineup:
    """Seat ``n`` plays and watches through ``targets[n % len(targets)]``. Players use
    clients that never retry (they retry and count by themselves, with ``call_timeout``
    the deadline of every call); watchers let the SDK resume their streams."""

    enter = stack.enter_async_context
    acting = [await enter(DaifugoClient(t, retries=0, timeout=call_timeout)) for t in targets]
    watching = [await enter(DaifugoClient(t, retries=15)) for t in targets]
    lineup = Lineup([], [])
    for seat, (token, bot) in enumerate(zip(table.seat_tokens, quick_bots(), strict=True)):
        via = seat % len(targets)
        session = acting[via].seat(table.match_id, token)
        lineup.players.append(RecordingPlayer(session, bot, ledger, before_act))
        lineup.watchers.append(StreamWatcher(watching[via].seat(table.match_id, token)))
    return lineup
