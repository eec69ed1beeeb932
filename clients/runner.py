"""Bots playing whole matches through the real API, one task per seat."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from service.rules.commands import SeatCommand
from service.rules.views import View

from .sdk import ActResult, DaifugoClient, Refused, SeatSession, Turn

TURN_WAIT = 3600.0  # seconds a seat waits for its turn (others may think long)


class Chooser(Protocol):
    def __call__(self, view: View, actions: list[SeatCommand]) -> SeatCommand: ...


class Seat(Protocol):
    """What ``play_seat`` needs of a seat: a ``SeatSession``, or one that wraps it."""

    async def turn(self) -> Turn: ...

    async def next_turn(self, after_version: int = -1, timeout: float | None = None) -> Turn: ...

    async def act(
        self, command: SeatCommand, *, await_turn: bool = False, timeout: float | None = None
    ) -> ActResult: ...


async def play_seat(session: Seat, choose: Chooser, pause: float = 0.0) -> None:
    """Act whenever it is this seat's turn, until the match ends: one call per
    turn, which takes it and waits for the next (``pause`` seconds before each
    action, so that a watcher sees the match unfold)."""
    turn = await session.turn()
    while turn.view.phase != "match_over":
        if not turn.actions:
            turn = await session.next_turn(turn.version, timeout=TURN_WAIT)
            continue
        if pause:
            await asyncio.sleep(pause)
        try:
            command = choose(turn.view, turn.actions)
            after = await session.act(command, await_turn=True, timeout=TURN_WAIT)
            assert after.turn is not None  # asked for
            turn = after.turn
        except Refused as refused:
            # the match moved on meanwhile (a turn timer acted first): look again
            if refused.code not in ("not_your_turn", "wrong_action", "game_over"):
                raise
            turn = await session.turn()


async def play_match(
    client: DaifugoClient,
    preset: str,
    choosers: Sequence[Chooser],
    options: dict[str, Any] | None = None,
    games_per_set: int = 0,
    on_progress: Callable[[int], None] | None = None,
) -> str:
    """Create a match, seat one chooser per seat, start it and play it out;
    returns the match id."""
    match_id, _ = await play_match_to_the_end(
        client, preset, choosers, options, games_per_set, on_progress
    )
    return match_id


async def play_match_to_the_end(
    client: DaifugoClient,
    preset: str,
    choosers: Sequence[Chooser],
    options: dict[str, Any] | None = None,
    games_per_set: int = 0,
    on_progress: Callable[[int], None] | None = None,
) -> tuple[str, View]:
    """As ``play_match``, and the match as its host sees it at the end (its results)."""
    created = await client.create_match(
        preset, len(choosers), options=options, games_per_set=games_per_set
    )
    seats = [client.seat(created.match_id, token) for token in created.seat_tokens]
    host = client.host(created.match_id, created.host_token)
    await host.start()
    tasks = [
        asyncio.create_task(play_seat(seat, choose))
        for seat, choose in zip(seats, choosers, strict=True)
    ]
    if on_progress is not None:
        tasks.append(asyncio.create_task(_report_games(seats[0], on_progress)))
    await asyncio.gather(*tasks)
    return created.match_id, await host.view()


async def _report_games(session: SeatSession, on_progress: Callable[[int], None]) -> None:
    async for event in session.events():
        if event["type"] == "GameEnded":
            on_progress(1)
        if event["type"] == "SeedRevealed":
            return
